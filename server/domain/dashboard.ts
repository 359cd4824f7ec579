import { sql, type Kysely, type RawBuilder } from 'kysely';
import { AUDIENCE_CHANNELS, PLAYER_PLATFORMS, type Dashboard, type PlayerPlatform } from '../../shared/contract';
import { addDays, dayAtOffset, dayStartAtOffset } from '../../shared/format';
import { DAY_MS } from '../../shared/validation';
import type { ApplicationContext, Ctx, Services } from '../context';
import { toCount, type Database, type Dialect } from '../db';
import { AppError } from '../errors';
import { audienceEpochOf, audienceIndexes, mostCountedFirst, type AudienceSummary } from './audience-index';
import { MAX_PAST_MS } from './ingest';
import { channelWhere } from './segment-sql';

/** The default period: the last 30 days, today included. */
export const DASHBOARD_DEFAULT_DAYS = 30;
/** The longest period: a year (a leap year's 366 days). */
export const DASHBOARD_MAX_DAYS = 366;
export const DASHBOARD_TOP_EVENTS = 10;

const rangeError = (path: 'from' | 'to') =>
  new AppError('INVALID_PARAM', 'audience.dashboardRange', { fields: [{ path, message: 'audience.dashboardRange' }] });

function dayMs(day: string, path: 'from' | 'to'): number {
  const ms = Date.parse(`${day}T00:00:00.000Z`);
  // Date.parse accepts 2025-02-30; the round trip does not.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day) throw rangeError(path);
  return ms;
}

/** Days of an application's timezone (its `utc_offset`), as its dashboard and statistics count them. */
export interface DashboardPeriod {
  /** The first and last day, both included (YYYY-MM-DD). */
  from: string;
  to: string;
  days: string[];
  /** The timezone: minutes east of UTC. */
  utcOffset: number;
  /** The moment the first day begins and the one the last day ends (ISO): the bounds of the period's timestamps. */
  start: string;
  end: string;
}

/** The period's first and last day in the timezone: as asked, or the last 30 days up to today. */
export function dashboardPeriod(now: Date, utcOffset: number, from?: string, to?: string): DashboardPeriod {
  const toMs = to ? dayMs(to, 'to') : dayMs(dayAtOffset(now.getTime(), utcOffset), 'to');
  const fromMs = from ? dayMs(from, 'from') : toMs - (DASHBOARD_DEFAULT_DAYS - 1) * DAY_MS;
  if (fromMs > toMs || (toMs - fromMs) / DAY_MS + 1 > DASHBOARD_MAX_DAYS) throw rangeError('from');
  const days: string[] = [];
  for (let ms = fromMs; ms <= toMs; ms += DAY_MS) days.push(new Date(ms).toISOString().slice(0, 10));
  const [first, last] = [days[0], days[days.length - 1]];
  return {
    from: first,
    to: last,
    days,
    utcOffset,
    start: new Date(dayStartAtOffset(first, utcOffset)).toISOString(),
    end: new Date(dayStartAtOffset(addDays(last, 1), utcOffset)).toISOString(),
  };
}

/** The last `days` days of the timezone, today included. */
export function lastDays(now: Date, utcOffset: number, days: number): DashboardPeriod {
  const today = dayAtOffset(now.getTime(), utcOffset);
  return dashboardPeriod(now, utcOffset, addDays(today, -(days - 1)), today);
}

/**
 * The day (YYYY-MM-DD) a stored timestamp (ISO text, UTC) falls on at `utcOffset` minutes east of UTC, in SQL.
 * At UTC, its first ten characters; else the shifted time's date (SQLite's date functions read the `Z`;
 * PostgreSQL's cast to a timestamp without zone keeps the UTC clock).
 */
export function dayOfTimestamp(dialect: Dialect, timestamp: RawBuilder<string | null>, utcOffset: number): RawBuilder<string> {
  if (utcOffset === 0) return sql<string>`substr(${timestamp}, 1, 10)`;
  const minutes = Math.trunc(utcOffset);
  return dialect === 'postgres'
    ? sql<string>`to_char(${timestamp}::timestamp + make_interval(mins => ${sql.lit(minutes)}), 'YYYY-MM-DD')`
    : sql<string>`strftime('%Y-%m-%d', ${timestamp}, ${sql.lit(`${minutes >= 0 ? '+' : ''}${minutes} minutes`)})`;
}

/**
 * The application's dashboard: players and subscribers by platform and channel (now), new and active players,
 * sessions and page views for each day of the period (days of the application's timezone, zeros included), and
 * the most frequent events of all time (event_definitions keeps running totals, not daily ones). A large
 * audience's figures of now and new players come from its in-memory copy (audience-index.ts): at a million
 * players that pass over the players took SQL 0.3–0.6 s.
 */
export async function getDashboard(ctx: Ctx, access: ApplicationContext, query: { from?: string; to?: string; days?: number }): Promise<Dashboard> {
  const applicationId = access.application.application_id;
  const utcOffset = access.application.utc_offset;
  const period =
    query.days !== undefined && !query.from && !query.to
      ? lastDays(ctx.s.clock(), utcOffset, query.days)
      : dashboardPeriod(ctx.s.clock(), utcOffset, query.from, query.to);

  const [audience, activeByDay] = await Promise.all([
    audienceIndexes(ctx.s)
      .read(applicationId, (index) => index.summary(Date.parse(period.start), period.days.length))
      .then((summary) => summary ?? audienceBySql(ctx.s, applicationId, period)),
    activityByDay(ctx.s, access.application, period),
  ]);
  // The events that occurred most in the period, as every other figure of the page is the period's.
  const topEvents = [...audience.events]
    .sort(mostCountedFirst)
    .slice(0, DASHBOARD_TOP_EVENTS)
    .map(([name, count]) => ({ name, count }));

  return {
    from: period.from,
    to: period.to,
    utc_offset: utcOffset,
    players: audience.players,
    subscribers: [...audience.byPlatform.values()].reduce((total, row) => total + row.subscribers, 0),
    by_platform: PLAYER_PLATFORMS.map((platform: PlayerPlatform) => ({
      platform,
      players: audience.byPlatform.get(platform)?.players ?? 0,
      subscribers: audience.byPlatform.get(platform)?.subscribers ?? 0,
    })),
    by_channel: AUDIENCE_CHANNELS.map((channel) => ({ channel, players: audience.channels[channel] })),
    days: period.days.map((day, index) => {
      const activity = activeByDay.get(day);
      return {
        day,
        new_players: audience.created[index],
        active_players: activity?.players ?? 0,
        sessions: activity?.sessions ?? 0,
        page_views: activity?.page_views ?? 0,
      };
    }),
    top_events: topEvents,
  };
}

interface DayActivity {
  players: number;
  sessions: number;
  page_views: number;
}

/**
 * Days whose activity ingestion can no longer change: item times are clamped to the last 7 days (clampAt), so a
 * day that ended more than MAX_PAST_MS ago is final, but for deletions; a day more for other processes'
 * clocks. A million players' 30 days of player_days are 1.5 million rows, which took PostgreSQL 0.6 s to add up
 * (tests/bench/player-list.ts); the days before the last nine are added up once and kept in memory.
 */
const SETTLED_AFTER_DAYS = Math.ceil(MAX_PAST_MS / DAY_MS) + 2;
/**
 * How long kept days are trusted. Deleting players (and every bulk change) bumps the application's audience
 * epoch, which every process sees with the application on its next call, and which drops its kept days at
 * once; this bounds only what nothing announces, as rows written straight into the database (a seed).
 */
const SETTLED_TTL_MS = 15 * 60_000;
/** Applications whose days a process keeps; past it the oldest go first. */
const SETTLED_APPLICATIONS_MAX = 1_000;

interface SettledDays {
  /** The audience's generation (audienceEpochOf) and the timezone: a change of either drops the days. */
  epoch: string;
  until: number;
  days: Map<string, DayActivity>;
}
const settledDays = new WeakMap<Services, Map<string, SettledDays>>();

/**
 * Active players, sessions and page views on each day (from player_days): settled days (SETTLED_AFTER_DAYS) from
 * memory, added up on their first request; the recent ones every time.
 */
async function activityByDay(
  s: Services,
  application: Pick<ApplicationContext['application'], 'application_id' | 'audience_epoch' | 'created_at'>,
  { days, utcOffset }: Pick<DashboardPeriod, 'days' | 'utcOffset'>,
): Promise<Map<string, DayActivity>> {
  const nowMs = s.clock().getTime();
  const lastSettled = addDays(dayAtOffset(nowMs, utcOffset), -SETTLED_AFTER_DAYS);
  const applicationId = application.application_id;
  const epoch = `${audienceEpochOf(application)}@${utcOffset}`;
  let kept = settledDays.get(s);
  if (!kept) settledDays.set(s, (kept = new Map()));
  let entry = kept.get(applicationId);
  if (!entry || entry.epoch !== epoch || entry.until <= nowMs) {
    kept.delete(applicationId);
    if (kept.size >= SETTLED_APPLICATIONS_MAX) kept.delete(kept.keys().next().value as string);
    entry = { epoch, until: nowMs + SETTLED_TTL_MS, days: new Map() };
    kept.set(applicationId, entry);
  }
  const settled = entry.days;
  const missing = days.filter((day) => day <= lastSettled && !settled.has(day));
  const recent = days.filter((day) => day > lastSettled);
  const [older, newer] = await Promise.all([
    missing.length > 0 ? activityBetween(s.db, applicationId, missing[0], missing[missing.length - 1]) : new Map<string, DayActivity>(),
    recent.length > 0 ? activityBetween(s.db, applicationId, recent[0], recent[recent.length - 1]) : new Map<string, DayActivity>(),
  ]);
  const none: DayActivity = { players: 0, sessions: 0, page_views: 0 };
  for (const day of missing) settled.set(day, older.get(day) ?? none);
  return new Map(days.map((day) => [day, settled.get(day) ?? newer.get(day) ?? none]));
}

/** player_days added up per day, from `from` to `to` (both included); days without activity left out. */
async function activityBetween(db: Kysely<Database>, applicationId: string, from: string, to: string): Promise<Map<string, DayActivity>> {
  const rows = await db
    .selectFrom('player_days')
    .select((eb) => [
      'day',
      eb.fn.countAll<number | string>().as('players'),
      eb.fn.sum<number | string>('sessions').as('sessions'),
      eb.fn.sum<number | string>('page_views').as('page_views'),
    ])
    .where('application_id', '=', applicationId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .groupBy('day')
    .execute();
  return new Map(rows.map((row) => [row.day, { players: toCount(row.players), sessions: toCount(row.sessions), page_views: toCount(row.page_views) }]));
}

/** The dashboard's figures of now and new players per day by SQL (AudienceIndex.summary's meaning), for audiences not held in memory. */
export async function audienceBySql(s: Pick<Services, 'db' | 'dialect'>, applicationId: string, period: DashboardPeriod): Promise<AudienceSummary> {
  const { db } = s;
  const { start, end } = period;
  const createdDay = dayOfTimestamp(s.dialect, sql.ref('created_at'), period.utcOffset);
  const [platforms, created, events] = await Promise.all([
    // One pass over the application's players for every figure of "now".
    db
      .selectFrom('players')
      .select((eb) => {
        const when = (condition: Parameters<typeof eb.case>[0]) => eb.fn.sum<number | string>(eb.case().when(condition).then(1).else(0).end());
        return [
          'players.platform',
          eb.fn.countAll<number | string>().as('players'),
          when(eb('players.subscribed', '=', 1)).as('subscribers'),
          when(channelWhere(eb, 'web_push')).as('web_push'),
          when(channelWhere(eb, 'mobile_push')).as('mobile_push'),
          when(channelWhere(eb, 'sms')).as('sms'),
          when(channelWhere(eb, 'facebook')).as('facebook'),
        ];
      })
      .where('players.application_id', '=', applicationId)
      .groupBy('players.platform')
      .execute(),
    db
      .selectFrom('players')
      .select([createdDay.as('day'), (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('application_id', '=', applicationId)
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy(createdDay)
      .execute(),
    db
      .selectFrom('events')
      .select(['name', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('application_id', '=', applicationId)
      .where('occurred_at', '>=', start)
      .where('occurred_at', '<', end)
      .groupBy('name')
      .execute(),
  ]);
  const newByDay = new Map(created.map((row) => [row.day, toCount(row.n)]));
  const sum = (key: 'players' | (typeof AUDIENCE_CHANNELS)[number]) => platforms.reduce((total, row) => total + toCount(row[key]), 0);
  return {
    players: sum('players'),
    byPlatform: new Map(platforms.map((row) => [row.platform, { players: toCount(row.players), subscribers: toCount(row.subscribers) }])),
    channels: Object.fromEntries(AUDIENCE_CHANNELS.map((channel) => [channel, sum(channel)])) as Record<(typeof AUDIENCE_CHANNELS)[number], number>,
    created: period.days.map((day) => newByDay.get(day) ?? 0),
    events: new Map(events.map((row) => [row.name, toCount(row.n)])),
  };
}
