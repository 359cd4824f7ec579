import { sql, type Selectable } from 'kysely';
import { DEFAULT_LOCAL_OFFSET_MINUTES, NotificationSchedule, localMoment } from '../../shared/contract';
import type { JobContext } from '../jobs/types';
import type { NotificationsTable } from '../db/schema';
import { resolveAudience } from './audience';
import { SEND_QUEUE, RetryLater, batchKey, type BatchPayload, type Engine, type FanoutPayload } from './engine';
import { emitDeliveryEvent } from './events';
import { completeIfDone, parseTags } from './status';

type NotificationRow = Selectable<NotificationsTable>;

/** A local-time schedule's date and time, or null for the other modes. */
export function localTimeOf(n: Pick<NotificationRow, 'schedule'>): { date: string; time: string } | null {
  const parsed = NotificationSchedule.safeParse(JSON.parse(n.schedule || '{}'));
  return parsed.success && parsed.data.mode === 'local_time' ? { date: parsed.data.date, time: parsed.data.time } : null;
}

/**
 * When a recipient's delivery is due: the local moment of its offset for a local-time message, else when the
 * fan-out started.
 */
export function dueMoment(n: Pick<NotificationRow, 'schedule' | 'started_at' | 'send_at'>, offset: number | null): Date {
  const local = localTimeOf(n);
  if (local && offset !== null) {
    const moment = localMoment(local.date, local.time, offset);
    if (moment) return moment;
  }
  return new Date(n.started_at ?? n.send_at ?? Date.now());
}

/**
 * The fan-out job of a running message: pages through its audience by player id (keyset), writes one queued
 * delivery per (message, player) — INSERT … SELECT … ON CONFLICT DO NOTHING, so a page written twice inserts
 * nothing twice — and hands each page to a delivery batch job. The cursor (notifications.fanout_cursor) moves
 * only after the page's batch is queued: a crash repeats at most one page, harmlessly. A local-time message's
 * page becomes one batch per recipients' offset, each delayed to that offset's local moment. An empty
 * audience completes the message at once, with zeros.
 */
export async function runFanout(engine: Engine, payload: FanoutPayload, context: JobContext): Promise<void> {
  const { s, options } = engine;
  const id = payload.notification_id;
  const n = await s.db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
  if (!n || n.status !== 'running') return;
  if (n.fanout_done_at) {
    await completeIfDone(s, id);
    return;
  }
  const startedAt = new Date(n.started_at ?? s.clock().toISOString());
  if (n.fanout_cursor === null) {
    s.log.info({ notificationId: id, type: n.type }, 'fan-out started');
    await emitDeliveryEvent(s, n.application_id, 'delivery_started', { notification_id: id, name: n.name, type: n.type, started_at: n.started_at }, { tags: parseTags(n.tags) });
  }

  const audience = await resolveAudience(s, n, startedAt);
  // A local-time message: a player whose timezone is unknown gets it at that time in the application's timezone.
  const unknownOffset = localTimeOf(n) ? await applicationOffset(s, n.application_id) : null;
  let cursor = Number(n.fanout_cursor ?? 0);
  while (audience) {
    if (context.signal.aborted || engine.stopping.aborted) throw new RetryLater('stopping: the fan-out resumes from its cursor');
    const page = await s.db
      .selectFrom('players')
      .select('players.id')
      .where('players.id', '>', cursor)
      .where((eb) => audience.where(eb))
      .orderBy('players.id')
      .limit(options.pageSize)
      .execute();
    if (!page.length) break;
    const from = cursor;
    const to = Number(page[page.length - 1].id);
    const now = s.clock().toISOString();

    await s.db.transaction().execute(async (trx) => {
      const columns = ['notification_id', 'application_id', 'player_id', 'platform', 'status', 'created_at'] as const;
      const select = trx
        .selectFrom('players')
        .select((eb) => [
          sql.lit(id).as('notification_id'),
          eb.val(n.application_id).as('application_id'),
          'players.id as player_id',
          'fixed' in audience.platform ? eb.val(audience.platform.fixed).as('platform') : eb.ref('players.platform').as('platform'),
          eb.val('queued').as('status'),
          eb.val(now).as('created_at'),
          ...(unknownOffset !== null ? [eb.fn.coalesce('players.timezone_offset', sql.lit(unknownOffset)).as('tz_offset')] : []),
        ])
        .where('players.id', '>', from)
        .where('players.id', '<=', to)
        .where((eb) => audience.where(eb));
      const inserted = await trx
        .insertInto('deliveries')
        .columns(unknownOffset !== null ? [...columns, 'tz_offset'] : [...columns])
        .expression(select)
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      const count = Number(inserted.numInsertedOrUpdatedRows ?? 0);
      if (count > 0) {
        await trx
          .updateTable('notifications')
          .set((eb) => ({ targeted: eb('targeted', '+', count) }))
          .where('id', '=', id)
          .execute();
      }
    });

    await queueBatches(engine, n, from, to, unknownOffset);
    await s.db.updateTable('notifications').set({ fanout_cursor: to }).where('id', '=', id).where('status', '=', 'running').execute();
    cursor = to;
  }

  await s.db.updateTable('notifications').set({ fanout_done_at: s.clock().toISOString() }).where('id', '=', id).where('status', '=', 'running').execute();
  const targeted = await s.db.selectFrom('notifications').select('targeted').where('id', '=', id).executeTakeFirst();
  s.log.info({ notificationId: id, targeted: targeted?.targeted ?? 0 }, 'fan-out done');
  await completeIfDone(s, id);
}

/** The application's timezone (minutes east of UTC); Vietnam's if the application has gone. */
async function applicationOffset(s: Engine['s'], applicationId: string): Promise<number> {
  const row = await s.db.selectFrom('applications').select('utc_offset').where('application_id', '=', applicationId).executeTakeFirst();
  return row ? Number(row.utc_offset) : DEFAULT_LOCAL_OFFSET_MINUTES;
}

/**
 * Queues the delivery batch(es) of one page: one, or for a local-time message (`unknownOffset`: the offset of
 * recipients whose timezone is unknown) one per offset, delayed to its local moment.
 */
async function queueBatches(engine: Engine, n: Selectable<NotificationsTable>, from: number, to: number, unknownOffset: number | null): Promise<void> {
  const local = unknownOffset !== null;
  const { s, queue, options } = engine;
  const offsets: (number | null)[] = local
    ? (
        await s.db
          .selectFrom('deliveries')
          .select('tz_offset')
          .distinct()
          .where('notification_id', '=', n.id)
          .where('player_id', '>', from)
          .where('player_id', '<=', to)
          .execute()
      ).map((row) => (row.tz_offset === null ? unknownOffset : Number(row.tz_offset)))
    : [null];
  const now = s.clock().getTime();
  for (const offset of [...new Set(offsets)]) {
    const payload: BatchPayload = { notification_id: n.id, from_id: from, to_id: to, offset };
    const delayMs = offset === null ? 0 : Math.max(0, dueMoment(n, offset).getTime() - now);
    await queue.add(SEND_QUEUE, 'deliver', payload, { dedupeKey: batchKey(payload), maxAttempts: options.maxBatchAttempts, ...(delayMs ? { delayMs } : {}) });
  }
}
