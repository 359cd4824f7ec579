import { sql, type Kysely } from 'kysely';
import type { NotificationStats } from '../../shared/contract';
import type { Services } from '../context';
import type { Database } from '../db/schema';
import { transitionNotification } from '../domain/notifications';
import { emitDeliveryEvent } from './events';

/** A count of the message's deliveries in some statuses, as a subquery of an UPDATE of its row. */
function countOf(id: number, statuses: readonly string[]) {
  return sql<number>`(select count(*) from deliveries where deliveries.notification_id = ${id} and deliveries.status in (${sql.join(statuses.map((status) => sql.lit(status)))}))`;
}

/** The counters recomputed from the deliveries table (what the row's increments must add up to). */
export async function countDeliveries(db: Kysely<Database>, id: number): Promise<NotificationStats> {
  const rows = await db
    .selectFrom('deliveries')
    .select(['status', (eb) => eb.fn.countAll().as('n')])
    .where('notification_id', '=', id)
    .groupBy('status')
    .execute();
  const by = new Map(rows.map((row) => [row.status, Number(row.n)]));
  const n = (...statuses: string[]) => statuses.reduce((sum, status) => sum + (by.get(status) ?? 0), 0);
  return {
    targeted: n('queued', 'sent', 'delivered', 'clicked', 'failed'),
    sent: n('sent', 'delivered', 'clicked'),
    delivered: n('delivered', 'clicked'),
    clicked: n('clicked'),
    failed: n('failed'),
  };
}

/**
 * Completes a running message once its fan-out has handed out every batch and none of its deliveries is
 * queued: running → executed with finished_at, the counters recomputed exactly from the deliveries in the
 * same statement (which also re-checks both conditions, so concurrent batches complete it once). A message
 * clicked while it was running goes on to opened. True when this call completed it.
 */
export async function completeIfDone(s: Pick<Services, 'db' | 'log' | 'clock'>, id: number): Promise<boolean> {
  const row = await s.db
    .selectFrom('notifications')
    .select(['status', 'fanout_done_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row || row.status !== 'running' || !row.fanout_done_at) return false;
  const queued = await s.db
    .selectFrom('deliveries')
    .select('id')
    .where('notification_id', '=', id)
    .where('status', '=', 'queued')
    .limit(1)
    .executeTakeFirst();
  if (queued) return false;

  const now = s.clock().toISOString();
  const result = await s.db
    .updateTable('notifications')
    .set({
      status: 'executed',
      finished_at: now,
      updated_at: now,
      targeted: countOf(id, ['queued', 'sent', 'delivered', 'clicked', 'failed']),
      sent: countOf(id, ['sent', 'delivered', 'clicked']),
      delivered: countOf(id, ['delivered', 'clicked']),
      clicked: countOf(id, ['clicked']),
      failed: countOf(id, ['failed']),
    })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('fanout_done_at', 'is not', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('deliveries').select('deliveries.id').where('deliveries.notification_id', '=', id).where('deliveries.status', '=', 'queued'))),
    )
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;

  const done = await s.db
    .selectFrom('notifications')
    .select(['application_id', 'name', 'type', 'tags', 'targeted', 'sent', 'delivered', 'clicked', 'failed', 'started_at', 'finished_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  if (done.clicked > 0) await transitionNotification(s.db, id, 'executed', 'opened', { updated_at: now });
  const stats: NotificationStats = { targeted: done.targeted, sent: done.sent, delivered: done.delivered, clicked: done.clicked, failed: done.failed };
  s.log.info({ notificationId: id, stats }, 'message executed');
  await emitDeliveryEvent(
    s,
    done.application_id,
    'delivery_completed',
    { notification_id: id, name: done.name, type: done.type, stats, started_at: done.started_at, finished_at: done.finished_at },
    { tags: parseTags(done.tags) },
  );
  return true;
}

/** The message's tags column (JSON array text). */
export function parseTags(text: string): string[] {
  try {
    const parsed = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === 'string') : [];
  } catch {
    return [];
  }
}
