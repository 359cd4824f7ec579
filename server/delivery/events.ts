import type { Services } from '../context';
import { emitWebhookEvent } from '../webhooks/events';

/** The webhook events the engine raises (spec §3 Webhook: delivery started, completed, failure). */
export type DeliveryEventType = 'delivery_started' | 'delivery_completed' | 'delivery_failure';

/**
 * The engine's one exit for webhook events: every call site goes through here. The event is logged and queued
 * for the application's webhooks that subscribe to it; a message carrying tags also raises, when it starts,
 * `message_with_tag` for webhooks limited to one of its tags (spec §3 "message with tag limit").
 * Never throws: a webhook problem must not fail a delivery batch.
 */
export async function emitDeliveryEvent(
  s: Pick<Services, 'db' | 'log' | 'clock'>,
  applicationId: string,
  type: DeliveryEventType,
  payload: Record<string, unknown>,
  options: { tags?: string[] } = {},
): Promise<void> {
  const tags = options.tags ?? [];
  try {
    s.log.info({ webhookEvent: type, applicationId, tags }, `delivery event ${type}`);
    const now = s.clock();
    await emitWebhookEvent(s.db, applicationId, type, payload, { tags, now });
    if (type === 'delivery_started' && tags.length > 0) await emitWebhookEvent(s.db, applicationId, 'message_with_tag', payload, { tags, now });
  } catch (error) {
    s.log.error({ err: error, webhookEvent: type, applicationId }, 'could not queue a webhook event');
  }
}
