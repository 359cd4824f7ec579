import type { Services } from '../context';

/** The webhook events the engine raises (spec §3 Webhook: delivery started, completed, failure). */
export type DeliveryEventType = 'delivery_started' | 'delivery_completed' | 'delivery_failure';

/**
 * The engine's one exit for webhook events: every call site goes through here. It logs the event; the
 * webhooks module's `emitWebhookEvent(db, applicationId, type, payload, { tags })` is wired in at this point.
 * Never throws: a webhook problem must not fail a delivery batch.
 */
export async function emitDeliveryEvent(
  s: Pick<Services, 'db' | 'log' | 'clock'>,
  applicationId: string,
  type: DeliveryEventType,
  payload: Record<string, unknown>,
  options: { tags?: string[] } = {},
): Promise<void> {
  try {
    s.log.info({ webhookEvent: type, applicationId, tags: options.tags ?? [], payload }, `delivery event ${type}`);
  } catch {
    // logging must not break the engine
  }
}
