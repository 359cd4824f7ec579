import { type ExpressionBuilder, type RawBuilder, sql } from 'kysely';
import {
  DeliveryPlatform,
  MESSAGE_STATS_TOP,
  type MessageStats,
  type MessageStatsChannel,
  type MessageStatsPeriod,
  NotificationStatus,
  NotificationType,
  TTL_MAX_SECONDS,
  ctr,
  messageTitle,
} from '../../shared/contract';
import type { ApplicationContext, Ctx } from '../context';
import { toCount } from '../db';
import type { Database } from '../db/schema';
import { dayOfTimestamp, lastDays } from './dashboard';

const PLATFORMS = DeliveryPlatform.options;
type Platform = (typeof PLATFORMS)[number];

/**
 * The moment each figure counts on. A recipient moves forward only (queued → sent → delivered → clicked), and a
 * report can skip a step (a click implies delivery), so the later moments stand in for a missing earlier one.
 */
const MOMENTS = {
  sent: { statuses: ['sent', 'delivered', 'clicked'], at: sql<string>`coalesce(sent_at, delivered_at, clicked_at)` },
  delivered: { statuses: ['delivered', 'clicked'], at: sql<string>`coalesce(delivered_at, clicked_at)` },
  clicked: { statuses: ['clicked'], at: sql<string>`clicked_at` },
} as const;
type Figure = keyof typeof MOMENTS;

/**
 * The application's message statistics over the last `days` days of its timezone: recipients sent, delivered
 * and clicked per day and per channel, failures per channel, and the most clicked messages due in the period.
 *
 * Deliveries are read through their (notification_id, status, id) index, for the messages due since the
 * period's start minus the longest expiry (28 days): a recipient is sent or given up within its message's
 * expiry, so no sent or delivered recipient of the period is missed. A click on a message older than that is
 * not counted in the per-day figures (it still counts on the message itself).
 */
export async function getMessageStats(ctx: Ctx, access: ApplicationContext, days: MessageStatsPeriod): Promise<MessageStats> {
  const { db } = ctx.s;
  const applicationId = access.application.application_id;
  const now = ctx.s.clock();
  const period = lastDays(now, access.application.utc_offset, days);
  const { start, end } = period;
  const lookback = new Date(Date.parse(start) - TTL_MAX_SECONDS * 1000).toISOString();

  // The application's messages that can have recipients in the period.
  const messages = (eb: ExpressionBuilder<Database, 'deliveries'>) =>
    eb('deliveries.notification_id', 'in', eb.selectFrom('notifications').select('notifications.id').where('notifications.application_id', '=', applicationId).where('notifications.send_at', '>=', lookback));

  const perDay = (figure: Figure) => {
    const { statuses, at } = MOMENTS[figure];
    const day: RawBuilder<string> = dayOfTimestamp(ctx.s.dialect, at, period.utcOffset);
    return db
      .selectFrom('deliveries')
      .select((eb) => [day.as('day'), 'deliveries.platform', eb.fn.countAll<number | string>().as('n')])
      .where(messages)
      .where('deliveries.status', 'in', [...statuses])
      .where(at, '>=', start)
      .where(at, '<', end)
      .groupBy([day, 'deliveries.platform'])
      .execute();
  };

  const [sent, delivered, clicked, failed, top] = await Promise.all([
    perDay('sent'),
    perDay('delivered'),
    perDay('clicked'),
    // A failed recipient has no moment of its own: it counts on the period its delivery was created in.
    db
      .selectFrom('deliveries')
      .select((eb) => ['deliveries.platform', eb.fn.countAll<number | string>().as('n')])
      .where(messages)
      .where('deliveries.status', '=', 'failed')
      .where('deliveries.created_at', '>=', start)
      .where('deliveries.created_at', '<', end)
      .groupBy('deliveries.platform')
      .execute(),
    db
      .selectFrom('notifications')
      .select(['id', 'name', 'type', 'status', 'content', 'send_at', 'targeted', 'sent', 'delivered', 'failed', 'clicked'])
      .where('application_id', '=', applicationId)
      .where('send_at', '>=', start)
      .where('send_at', '<', end)
      .where('sent', '>', 0)
      .orderBy('clicked', 'desc')
      .orderBy('sent', 'desc')
      .orderBy('id', 'desc')
      .limit(MESSAGE_STATS_TOP)
      .execute(),
  ]);

  const byDay = new Map(period.days.map((day) => [day, { day, sent: 0, delivered: 0, clicked: 0 }]));
  const byChannel = new Map<Platform, MessageStatsChannel>(PLATFORMS.map((platform) => [platform, { platform, sent: 0, delivered: 0, clicked: 0, failed: 0 }]));
  const add = (rows: { day: string; platform: string; n: number | string }[], figure: Figure) => {
    for (const row of rows) {
      const n = toCount(row.n);
      const entry = byDay.get(row.day);
      if (entry) entry[figure] += n;
      const channel = byChannel.get(row.platform as Platform);
      if (channel) channel[figure] += n;
    }
  };
  add(sent, 'sent');
  add(delivered, 'delivered');
  add(clicked, 'clicked');
  for (const row of failed) {
    const channel = byChannel.get(row.platform as Platform);
    if (channel) channel.failed += toCount(row.n);
  }

  const channels = [...byChannel.values()];
  const total = (figure: Figure | 'failed') => channels.reduce((sum, channel) => sum + channel[figure], 0);
  const totals = { sent: total('sent'), delivered: total('delivered'), clicked: total('clicked'), failed: total('failed') };

  return {
    from: period.from,
    to: period.to,
    utc_offset: period.utcOffset,
    totals: { ...totals, ctr: ctr({ targeted: 0, ...totals }) },
    days: [...byDay.values()],
    by_channel: channels,
    top_messages: top.map((row) => {
      const stats = {
        targeted: toCount(row.targeted),
        sent: toCount(row.sent),
        delivered: toCount(row.delivered),
        failed: toCount(row.failed),
        clicked: toCount(row.clicked),
      };
      return {
        id: Number(row.id),
        title: messageTitle({ name: row.name, content: contentOf(row.content) }),
        type: NotificationType.parse(row.type),
        status: NotificationStatus.parse(row.status),
        send_at: row.send_at,
        stats,
        ctr: ctr(stats),
      };
    }),
  };
}

/** The stored content as far as the title needs it; a row that doesn't parse reads as empty. */
function contentOf(text: string): { heading?: string; content: string } {
  try {
    const value = JSON.parse(text) as { heading?: unknown; content?: unknown } | null;
    return {
      heading: typeof value?.heading === 'string' ? value.heading : undefined,
      content: typeof value?.content === 'string' ? value.content : '',
    };
  } catch {
    return { content: '' };
  }
}
