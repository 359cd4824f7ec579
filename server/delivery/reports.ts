import { sql } from 'kysely';
import type { Services } from '../context';
import { transitionNotification } from '../domain/notifications';

/** What a device reports about a message it got: shown, or opened. */
export type ReportKind = 'delivered' | 'clicked';

const RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, clicked: 3 };

/**
 * Moves a delivery forward on a report from its device (queued → sent → delivered → clicked; a click implies
 * delivered, a report implies sent) and counts each step once on the message's counters, in one transaction.
 * A report that doesn't move it (a repeat, an older kind, a failed delivery) changes nothing. The first click
 * of an executed message makes it opened. True when the delivery moved.
 */
export async function recordDeliveryReport(s: Pick<Services, 'db' | 'clock'>, deliveryId: number, kind: ReportKind): Promise<boolean> {
  // A concurrent report or batch write may move the row between the read and the conditional update: read again.
  for (let tries = 0; tries < 3; tries += 1) {
    const row = await s.db.selectFrom('deliveries').select(['notification_id', 'status']).where('id', '=', deliveryId).executeTakeFirst();
    if (!row || !(row.status in RANK) || RANK[row.status] >= RANK[kind]) return false;
    const from = row.status;
    const now = s.clock().toISOString();
    const moved = await s.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('deliveries')
        .set({
          status: kind,
          sent_at: sql<string>`coalesce(sent_at, ${now})`,
          delivered_at: sql<string>`coalesce(delivered_at, ${now})`,
          ...(kind === 'clicked' ? { clicked_at: now } : {}),
        })
        .where('id', '=', deliveryId)
        .where('status', '=', from)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      const sent = from === 'queued' ? 1 : 0;
      const delivered = RANK[from] < RANK.delivered ? 1 : 0;
      const clicked = kind === 'clicked' ? 1 : 0;
      await trx
        .updateTable('notifications')
        .set((eb) => ({ sent: eb('sent', '+', sent), delivered: eb('delivered', '+', delivered), clicked: eb('clicked', '+', clicked) }))
        .where('id', '=', Number(row.notification_id))
        .execute();
      if (clicked) await transitionNotification(trx, Number(row.notification_id), 'executed', 'opened', { updated_at: now });
      return true;
    });
    if (moved) return true;
  }
  return false;
}
