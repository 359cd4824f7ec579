import { sql } from 'kysely';
import {
  DELIVERY_LOG_COUNT_CAP,
  DELIVERY_LOG_MAX_ROWS,
  DELIVERY_STATUSES,
  FAILURE_REASONS,
  ctr,
  type Delivery,
  type DeliveryListQuery,
  type DeliveryPage,
  type DeliveryStatus,
  type FailureReason,
  type NotificationReport,
  type NotificationStats,
} from '../../shared/contract';
import type { ApplicationContext, Ctx, Services } from '../context';
import { countUpTo, toCount } from '../db';
import { AppError, noSuch } from '../errors';
import { V } from '../../shared/validation';
import { searchedIds, type PlayerSearch } from './players';

/*
 * What the engine recorded per recipient (the deliveries table): the recipients' log (/message) and the
 * numbers of a message's detail page. Both are read at a million rows a message: every query below walks an
 * index in order, (application_id, id), (application_id, status, id), (notification_id, status, id) or
 * (player_id, id), and the log's offset is bounded (DELIVERY_LOG_MAX_ROWS). Deeper pages go by keyset
 * (`before_id`): `id < before_id` starts each of those index walks at the cursor, so the last page of a million
 * rows costs what the first does.
 */


/** The players a search of the log may name (their deliveries are then read by player): at most this many. */
const SEARCH_PLAYERS_MAX = 500;

/**
 * The application's players a search of the log names, as the player list's search does (searchedIds); a
 * search that more than SEARCH_PLAYERS_MAX players begin with is refused, saying to type more, rather than answered
 * with the deliveries of some of them.
 */
async function searchedPlayers(ctx: Ctx, applicationId: string, search: PlayerSearch): Promise<number[]> {
  const { db } = ctx.s;
  const rows = await searchedIds(ctx.s, db.selectFrom('players').where('players.application_id', '=', applicationId), search)
    .limit(SEARCH_PLAYERS_MAX + 1)
    .execute();
  if (rows.length > SEARCH_PLAYERS_MAX) {
    const number = new Intl.NumberFormat(ctx.lang === 'vi' ? 'vi-VN' : 'en-US').format(SEARCH_PLAYERS_MAX);
    throw new AppError('INVALID_PARAM', 'notification.searchTooBroad', { params: { number, q: search.q } });
  }
  return rows.map((row) => Number(row.id));
}

/**
 * The recipients' log, newest first, by page (offset, bounded) or after a cursor (`before_id`, any depth); each
 * page names the next one's cursor. Searching names players first (a few index lookups), then their deliveries
 * by (player_id, id); a message's log without a status filter merges its per-status index runs.
 */
export async function listDeliveries(ctx: Ctx, access: ApplicationContext, query: DeliveryListQuery): Promise<DeliveryPage> {
  const { db } = ctx.s;
  const applicationId = access.application.application_id;
  const before = query.before_id ?? null;
  // By cursor, the page starts at the cursor: nothing is skipped, and `page` is not read.
  const offset = before === null ? (query.page - 1) * query.limit : 0;
  // One row more than the page tells whether another page follows.
  const take = query.limit + 1;
  const empty: DeliveryPage = { items: [], total: 0, total_capped: false, page: query.page, limit: query.limit, next_before_id: null };
  if (offset + query.limit > DELIVERY_LOG_MAX_ROWS) {
    const number = new Intl.NumberFormat(ctx.lang === 'vi' ? 'vi-VN' : 'en-US').format(DELIVERY_LOG_MAX_ROWS);
    throw new AppError('INVALID_PARAM', 'notification.logTooDeep', { params: { number }, fields: [{ path: 'page', message: V.outOfRange }] });
  }

  if (query.notification_id) {
    const own = await db.selectFrom('notifications').select('id').where('application_id', '=', applicationId).where('id', '=', query.notification_id).executeTakeFirst();
    if (!own) return empty;
  }
  let players: number[] | null = null;
  if (query.q) {
    players = await searchedPlayers(ctx, applicationId, { q: query.q, phoneCountry: access.application.phone_country });
    if (players.length === 0) return empty;
  }
  if (query.player_id) {
    const playerId = query.player_id;
    if (players) players = players.filter((id) => id === playerId);
    else {
      const own = await db.selectFrom('players').select('id').where('application_id', '=', applicationId).where('id', '=', playerId).executeTakeFirst();
      players = own ? [playerId] : [];
    }
    if (players.length === 0) return empty;
  }

  // The filters; the application's own player or message ids stand for application_id where given, so the
  // planner takes the narrower index.
  let base = db.selectFrom('deliveries as d');
  if (query.notification_id) base = base.where('d.notification_id', '=', query.notification_id);
  if (players) base = base.where('d.player_id', 'in', players);
  if (!query.notification_id && !players) base = base.where('d.application_id', '=', applicationId);
  if (query.status !== 'all') base = base.where('d.status', '=', query.status);

  // Counted up to the cap and no further (an index walk of at most cap + 1 entries), so a page of a log of a
  // million rows costs what a page of a small one does.
  const { total, capped } = await countUpTo(db, base.select(sql.lit(1).as('one')), DELIVERY_LOG_COUNT_CAP);
  const totals = { total, total_capped: capped };
  if (total === 0 || offset >= total) return { ...empty, ...totals };

  let ids: number[];
  if (query.notification_id && !players && query.status === 'all') {
    // ORDER BY id over one message's rows would sort them all; instead take the newest offset+take of each
    // status from (notification_id, status, id), below the cursor if any, and merge.
    const notificationId = query.notification_id;
    const runs = DELIVERY_STATUSES.map((status, i) => {
      let run = db.selectFrom('deliveries').select('id').where('notification_id', '=', notificationId).where('status', '=', status);
      if (before !== null) run = run.where('id', '<', before);
      return db.selectFrom(run.orderBy('id', 'desc').limit(offset + take).as(`s${i}`)).select(`s${i}.id as id`);
    });
    const merged = runs.slice(1).reduce((union, run) => union.unionAll(run), runs[0]);
    const rows = await db.selectFrom(merged.as('u')).select('u.id').orderBy('u.id', 'desc').limit(take).offset(offset).execute();
    ids = rows.map((row) => Number(row.id));
  } else {
    const below = before === null ? base : base.where('d.id', '<', before);
    const rows = await below.select('d.id').orderBy('d.id', 'desc').limit(take).offset(offset).execute();
    ids = rows.map((row) => Number(row.id));
  }
  const more = ids.length > query.limit;
  ids = ids.slice(0, query.limit);
  if (ids.length === 0) return { ...empty, ...totals };

  const rows = await db
    .selectFrom('deliveries as d')
    .innerJoin('notifications as n', 'n.id', 'd.notification_id')
    .innerJoin('players as p', 'p.id', 'd.player_id')
    .select([
      'd.id',
      'd.notification_id',
      'n.name as notification_name',
      'd.player_id',
      'p.device_id',
      'd.platform',
      'd.status',
      'd.reason',
      'd.attempts',
      'd.sent_at',
      'd.delivered_at',
      'd.clicked_at',
      'd.created_at',
    ])
    .where('d.id', 'in', ids)
    .orderBy('d.id', 'desc')
    .execute();
  const items: Delivery[] = rows.map((row) => ({
    id: Number(row.id),
    notification_id: Number(row.notification_id),
    notification_name: row.notification_name,
    player_id: Number(row.player_id),
    device_id: row.device_id,
    platform: row.platform as Delivery['platform'],
    status: row.status as DeliveryStatus,
    reason: (FAILURE_REASONS as readonly string[]).includes(row.reason ?? '') ? (row.reason as FailureReason) : null,
    attempts: Number(row.attempts),
    sent_at: row.sent_at,
    delivered_at: row.delivered_at,
    clicked_at: row.clicked_at,
    created_at: row.created_at,
  }));
  return { items, ...totals, page: query.page, limit: query.limit, next_before_id: more ? ids[ids.length - 1] : null };
}

// ---------------------------------------------------------------------------------------------------------
// A message's report
// ---------------------------------------------------------------------------------------------------------

/** The timeline's hours at most (a month of clicks trickling in). */
const TIMELINE_HOURS_MAX = 31 * 24;
const HOUR_MS = 3_600_000;

type ReportColumn = 'sent_at' | 'delivered_at' | 'clicked_at';

/**
 * The timeline counts hours of the application's timezone. A timestamp column's hour there is two group keys:
 * `YYYY-MM-DDTHH`, its UTC hour (the same text in both databases), and whether it is at or past the minute of
 * that UTC hour at which the application's hours begin (`hourBoundary`: :00 at UTC+07:00, :30 at UTC+05:30, :15
 * at UTC+05:45). Both are plain text comparisons on the ISO text: the grouping stays one scan, with twice the
 * groups at most.
 */
const hourOf = (column: ReportColumn) => sql<string | null>`substr(${sql.ref(column)}, 1, 13)`;
const pastBoundary = (column: ReportColumn, boundary: number) =>
  // A literal, not a parameter: PostgreSQL matches the grouped expression to the selected one only when equal as written.
  sql<number>`case when substr(${sql.ref(column)}, 15, 2) >= ${sql.lit(String(boundary).padStart(2, '0'))} then 1 else 0 end`;

/** The minute of every UTC hour at which an hour begins `utcOffset` minutes east of UTC. */
const hourBoundary = (utcOffset: number) => (60 - (((utcOffset % 60) + 60) % 60)) % 60;

/** When the application's hour of a UTC hour's timestamp (the two keys of `hourOf`, `pastBoundary`) began. */
function localHourStart(utcHour: string, past: number | string, boundary: number): number {
  return Date.parse(`${utcHour}:00:00.000Z`) + (Number(past) === 1 ? boundary : boundary - 60) * 60_000;
}

const emptyStats = (): NotificationStats => ({ targeted: 0, sent: 0, delivered: 0, failed: 0, clicked: 0 });

type ReportBreakdown = Pick<NotificationReport, 'by_platform' | 'failures' | 'timeline'>;

/**
 * Reports of recent messages, by their counters. Every change the report shows (a delivery targeted, sent,
 * failed, delivered or clicked) moves one of the message's counters in the same transaction (fanout.ts,
 * deliver.ts, reports.ts), so equal counters mean an equal breakdown: the grouped pass over the deliveries,
 * about a second on SQLite for half a million recipients, runs again only when something changed. Each
 * process keeps its own, per app instance as the other caches; the counters come from the database, so
 * several processes agree.
 */
const REPORT_CACHE_MAX = 200;
const reportCaches = new WeakMap<Services, Map<string, ReportBreakdown>>();

/**
 * GET …/notification/{id}/report: the row's counters, and from one grouped pass over the message's deliveries
 * the same per platform, the failures by reason and the hourly timeline. A delivery later clicked counts as
 * sent and delivered too, as the counters do.
 */
export async function notificationReport(ctx: Ctx, access: ApplicationContext, notificationId: number): Promise<NotificationReport> {
  const { db } = ctx.s;
  const row = await db
    .selectFrom('notifications')
    .select(['id', 'targeted', 'sent', 'delivered', 'failed', 'clicked'])
    .where('application_id', '=', access.application.application_id)
    .where('id', '=', notificationId)
    .executeTakeFirst();
  if (!row) throw noSuch('message', notificationId);
  const stats: NotificationStats = {
    targeted: toCount(row.targeted),
    sent: toCount(row.sent),
    delivered: toCount(row.delivered),
    failed: toCount(row.failed),
    clicked: toCount(row.clicked),
  };

  let reportCache = reportCaches.get(ctx.s);
  if (!reportCache) reportCaches.set(ctx.s, (reportCache = new Map()));
  const utcOffset = access.application.utc_offset;
  const key = `${access.application.application_id}\u0000${notificationId}\u0000${utcOffset}\u0000${Object.values(stats).join(':')}`;
  const cached = reportCache.get(key);
  if (cached) {
    // Most recently used last: the first key is the one to drop.
    reportCache.delete(key);
    reportCache.set(key, cached);
    return { stats, ctr: ctr(stats), utc_offset: utcOffset, ...cached };
  }

  // One scan: a few hundred groups at most for a message of any size (platforms × statuses × reasons × hours).
  const boundary = hourBoundary(utcOffset);
  const groups = await db
    .selectFrom('deliveries')
    .select([
      'platform',
      'status',
      'reason',
      hourOf('sent_at').as('sent_hour'),
      pastBoundary('sent_at', boundary).as('sent_past'),
      hourOf('delivered_at').as('delivered_hour'),
      pastBoundary('delivered_at', boundary).as('delivered_past'),
      hourOf('clicked_at').as('clicked_hour'),
      pastBoundary('clicked_at', boundary).as('clicked_past'),
      (eb) => eb.fn.countAll().as('n'),
    ])
    .where('notification_id', '=', notificationId)
    .groupBy([
      'platform',
      'status',
      'reason',
      hourOf('sent_at'),
      pastBoundary('sent_at', boundary),
      hourOf('delivered_at'),
      pastBoundary('delivered_at', boundary),
      hourOf('clicked_at'),
      pastBoundary('clicked_at', boundary),
    ])
    .execute();

  const byPlatform = new Map<string, NotificationStats>();
  const failures = new Map<FailureReason, number>();
  // By when the application's hour began (epoch ms).
  const hours = new Map<number, { sent: number; delivered: number; clicked: number }>();
  const addHour = (hour: string | null, past: number | string, key: 'sent' | 'delivered' | 'clicked', n: number) => {
    if (!hour) return;
    const start = localHourStart(hour, past, boundary);
    const bucket = hours.get(start) ?? { sent: 0, delivered: 0, clicked: 0 };
    bucket[key] += n;
    hours.set(start, bucket);
  };
  for (const group of groups) {
    const n = toCount(group.n);
    const status = group.status as DeliveryStatus;
    const platform = byPlatform.get(group.platform) ?? emptyStats();
    platform.targeted += n;
    if (status === 'sent' || status === 'delivered' || status === 'clicked') platform.sent += n;
    if (status === 'delivered' || status === 'clicked') platform.delivered += n;
    if (status === 'clicked') platform.clicked += n;
    if (status === 'failed') {
      platform.failed += n;
      if ((FAILURE_REASONS as readonly string[]).includes(group.reason ?? '')) {
        failures.set(group.reason as FailureReason, (failures.get(group.reason as FailureReason) ?? 0) + n);
      }
    }
    byPlatform.set(group.platform, platform);
    addHour(group.sent_hour, group.sent_past, 'sent', n);
    addHour(group.delivered_hour, group.delivered_past, 'delivered', n);
    addHour(group.clicked_hour, group.clicked_past, 'clicked', n);
  }

  const timeline: NotificationReport['timeline'] = [];
  const starts = [...hours.keys()].sort((a, b) => a - b);
  if (starts.length > 0) {
    const first = starts[0];
    const last = Math.min(starts[starts.length - 1], first + (TIMELINE_HOURS_MAX - 1) * HOUR_MS);
    for (let at = first; at <= last; at += HOUR_MS) {
      timeline.push({ at: new Date(at).toISOString(), ...(hours.get(at) ?? { sent: 0, delivered: 0, clicked: 0 }) });
    }
  }

  const breakdown: ReportBreakdown = {
    by_platform: [...byPlatform.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([platform, platformStats]) => ({ platform: platform as NotificationReport['by_platform'][number]['platform'], stats: platformStats })),
    failures: [...failures.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
    timeline,
  };
  if (reportCache.size >= REPORT_CACHE_MAX) reportCache.delete(reportCache.keys().next().value as string);
  reportCache.set(key, breakdown);
  return { stats, ctr: ctr(stats), utc_offset: utcOffset, ...breakdown };
}
