import type { Kysely } from 'kysely';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType, type WebhookMessageType, type WebhookPayload } from '../../shared/contract';
import type { Database } from '../db/schema';
import { generateMessageId } from './signing';

/** The event types a webhook row subscribes to (stored as a JSON array). */
export function eventTypesOf(value: string): WebhookEventType[] {
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((item): item is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(item)) : [];
  } catch {
    return [];
  }
}

/** Whether a webhook wants this event: it subscribes to the type, and for message_with_tag its tag is carried. */
export function subscribes(webhook: { event_types: string; tag: string | null }, type: WebhookEventType, tags: readonly string[]): boolean {
  if (!eventTypesOf(webhook.event_types).includes(type)) return false;
  if (type === 'message_with_tag') return webhook.tag !== null && tags.includes(webhook.tag);
  return true;
}

/** The JSON body a receiver gets, written once and signed as it is on every attempt. */
export function payloadBody(type: WebhookMessageType, applicationId: string, occurredAt: Date, data: Record<string, unknown>): string {
  const payload: WebhookPayload = { type, timestamp: occurredAt.toISOString(), application_id: applicationId, data };
  return JSON.stringify(payload);
}

/** One pending message per active webhook of the application that wants the event; answers how many. */
async function fanOut(
  db: Kysely<Database>,
  applicationId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
  options: { tags: readonly string[]; occurredAt: Date; now: Date },
): Promise<number> {
  const webhooks = await db
    .selectFrom('webhooks')
    .select(['id', 'event_types', 'tag'])
    .where('application_id', '=', applicationId)
    .where('status', '=', 'active')
    .execute();
  const targets = webhooks.filter((webhook) => subscribes(webhook, type, options.tags));
  if (targets.length === 0) return 0;
  const body = payloadBody(type, applicationId, options.occurredAt, data);
  const now = options.now.toISOString();
  await db
    .insertInto('webhook_messages')
    .values(
      targets.map((webhook) => ({
        webhook_id: webhook.id,
        application_id: applicationId,
        msg_id: generateMessageId(),
        event_type: type,
        payload: body,
        attempts: 0,
        next_attempt_at: now,
        status: 'pending',
        created_at: now,
      })),
    )
    .execute();
  return targets.length;
}

/**
 * Queues an event for the application's active webhooks that subscribe to it (for `message_with_tag`: those
 * whose tag is among `tags`). Pass the caller's transaction to queue it with the change that caused it. The
 * dispatcher sends it within a second or so; nothing is sent here.
 */
export async function emitWebhookEvent(
  db: Kysely<Database>,
  applicationId: string,
  type: WebhookEventType,
  payload: Record<string, unknown>,
  options?: { tags?: string[]; now?: Date },
): Promise<void> {
  const now = options?.now ?? new Date();
  await fanOut(db, applicationId, type, payload, { tags: options?.tags ?? [], occurredAt: now, now });
}

/**
 * Turns the rows other code leaves in `webhook_outbox` (a new lead, written in the lead's transaction) into
 * messages, each row once: the row is marked delivered by a conditional UPDATE in the same transaction as
 * its messages, so two processes never both fan it out. Answers how many rows it looked at.
 */
export async function drainOutbox(db: Kysely<Database>, now: Date, limit = 100): Promise<number> {
  const rows = await db.selectFrom('webhook_outbox').selectAll().where('delivered_at', 'is', null).orderBy('id').limit(limit).execute();
  for (const row of rows) {
    await db.transaction().execute(async (trx) => {
      const taken = await trx
        .updateTable('webhook_outbox')
        .set({ delivered_at: now.toISOString() })
        .where('id', '=', row.id)
        .where('delivered_at', 'is', null)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return;
      if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(row.event)) return;
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(row.payload) as Record<string, unknown>;
      } catch {
        return;
      }
      // The outbox row repeats the event and the application; the rest is the event's data.
      const { event: _event, application_id: _application, ...data } = parsed;
      await fanOut(trx, row.application_id, row.event as WebhookEventType, data, { tags: [], occurredAt: new Date(row.created_at), now });
    });
  }
  return rows.length;
}
