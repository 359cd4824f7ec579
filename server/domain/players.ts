import { sql, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { audienceIndexes, bumpAudienceEpoch, mostCountedFirst, type PlayerListSelection } from './audience-index';
import {
  booleanValue,
  isAppPlatform,
  numberValue,
  PLAYER_PLATFORMS,
  type AttributeType,
  type AudienceChannel,
  type OwnPlayer,
  type Player,
  type PlayerAttribute,
  type PlayerDetail,
  type PlayerEvent,
  type PlayerEventsPage,
  type PlayerEventsQuery,
  type PlayerListQuery,
  type PlayerPage,
  type PlayerPlatform,
  PLAYER_SEARCH_COUNT_CAP,
  type ScalarValue,
  TAG_LIST_MAX,
  type TagList,
} from '../../shared/contract';
import type { Role } from '../../shared/permissions';
import { DAY_MS, isDateFieldName, normalizeEmail } from '../../shared/validation';
import { numberPrefixes } from '../../shared/validation/phone';
import { nowIso, type ApplicationContext, type Ctx, type Services } from '../context';
import { countUpTo, toCount, type Dialect } from '../db';
import type { Database, PlayersTable } from '../db/schema';
import { AppError, noSuch } from '../errors';
import { withinWindows } from '../security/rate-windows';
import { webSubscriptionEnded } from './players-write';

/** A page of a player's events (their page shows the newest page first, then older ones on asking). */
export const PLAYER_EVENTS_PAGE = 50;

type PlayerRow = Selectable<PlayersTable>;

/** Channels a player can be reached on now (shared/contract Player.channels; segment-sql's channelWhere agrees). */
export function channelsOf(row: Pick<PlayerRow, 'subscribed' | 'push_endpoint' | 'device_token' | 'platform' | 'mobile_number' | 'fb_psid'>): AudienceChannel[] {
  const channels: AudienceChannel[] = [];
  if (row.subscribed === 1 && row.push_endpoint) channels.push('web_push');
  if (row.subscribed === 1 && row.device_token && isAppPlatform(row.platform)) channels.push('mobile_push');
  if (row.mobile_number) channels.push('sms');
  if (row.fb_psid) channels.push('facebook');
  return channels;
}

/** A stored row as the API shows it; push keys stay inside. */
export function toPlayer(row: PlayerRow, tags: string[]): Player {
  return {
    id: Number(row.id),
    device_id: row.device_id,
    platform: (PLAYER_PLATFORMS as readonly string[]).includes(row.platform) ? (row.platform as PlayerPlatform) : 'web',
    device_type: row.device_type === 'mobile' ? 'mobile' : 'desktop',
    device_token: row.device_token,
    external_user_id: row.external_user_id,
    email: row.email,
    mobile_number: row.mobile_number,
    fb_psid: row.fb_psid,
    os: row.os,
    os_version: row.os_version,
    browser: row.browser,
    app_version: row.app_version,
    device_model: row.device_model,
    gender: row.gender,
    language: row.language,
    country: row.country,
    city: row.city,
    timezone: row.timezone,
    timezone_offset: row.timezone_offset === null ? null : Number(row.timezone_offset),
    utm_source: row.utm_source,
    utm_medium: row.utm_medium,
    utm_campaign: row.utm_campaign,
    utm_term: row.utm_term,
    utm_content: row.utm_content,
    first_session_at: row.first_session_at,
    last_session_at: row.last_session_at,
    last_seen_at: row.last_seen_at,
    session_count: Number(row.session_count),
    page_views: Number(row.page_views),
    subscribed: Number(row.subscribed) === 1,
    subscribed_at: row.subscribed_at,
    unsubscribed_at: row.unsubscribed_at,
    opted_out_at: row.opted_out_at,
    channels: channelsOf({ ...row, subscribed: Number(row.subscribed) === 1 ? 1 : 0 }),
    tags,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Spec §6: every member reads players; viewers and ads managers do not change them. */
const PLAYER_WRITERS: readonly Role[] = ['super_user', 'manager', 'user', 'admin'];

function assertWriter(access: ApplicationContext): void {
  if (!access.roles.some((role) => PLAYER_WRITERS.includes(role))) throw new AppError('NO_PERMISSION');
}

async function tagsOf(ctx: Ctx, playerIds: number[]): Promise<Map<number, string[]>> {
  const byPlayer = new Map<number, string[]>();
  if (playerIds.length === 0) return byPlayer;
  const rows = await ctx.s.db
    .selectFrom('player_tags')
    .select(['player_id', 'tag'])
    .where('player_id', 'in', playerIds)
    .orderBy('tag')
    .execute();
  for (const row of rows) {
    const id = Number(row.player_id);
    byPlayer.set(id, [...(byPlayer.get(id) ?? []), row.tag]);
  }
  return byPlayer;
}

/**
 * The player list: filters, then one page in the chosen order (ties by id, never-seen players last when
 * sorting by last seen, in both databases), with its total: exact, or for a search up to a cap (playerPageBySql).
 * A large audience (audience-index.ts) is filtered, counted and ordered in memory, and only the page's rows are
 * read: at a million players a filter's count or an unindexed sort took SQL a third of a second. A search (`q`)
 * and small audiences go to SQL.
 */
export async function listPlayers(ctx: Ctx, access: ApplicationContext, query: PlayerListQuery): Promise<PlayerPage> {
  const applicationId = access.application.application_id;
  const selection = playerListSelection(query, ctx.s.clock());
  const fromMemory = query.q ? null : await audienceIndexes(ctx.s).read(applicationId, (index) => index.list(selection));
  let page: { rows: PlayerRow[]; total: number; capped: boolean };
  if (fromMemory) {
    page = { rows: await rowsInOrder(ctx.s, applicationId, fromMemory.ids), total: fromMemory.total, capped: false };
  } else {
    // A broad search sorted by what no index holds takes the order from the copy, when there is one.
    const inOrder = (first: number) => audienceIndexes(ctx.s).read(applicationId, (index) => index.list({ ...selection, offset: 0, limit: first }).ids);
    page = await playerPageBySql(ctx.s, applicationId, selection, query.q ? { q: query.q, phoneCountry: access.application.phone_country, whole: query.match === 'whole' } : undefined, inOrder);
  }
  const tags = await tagsOf(ctx, page.rows.map((row) => Number(row.id)));
  return {
    items: page.rows.map((row) => toPlayer(row, tags.get(Number(row.id)) ?? [])),
    total: page.total,
    total_capped: page.capped,
    page: query.page,
    limit: query.limit,
  };
}

/**
 * The players of a page the in-memory copy ordered, in its order; a player deleted since is left out (the deletion
 * rebuilds the copy for the next one).
 */
async function rowsInOrder({ db }: Pick<Services, 'db'>, applicationId: string, ids: number[]): Promise<PlayerRow[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom('players').selectAll().where('application_id', '=', applicationId).where('id', 'in', ids).execute();
  const byId = new Map(found.map((row) => [Number(row.id), row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The list's filters and page, read once from the query: what both the in-memory copy (AudienceIndex.list) and playerPageBySql take. */
export function playerListSelection(query: PlayerListQuery, now: Date): PlayerListSelection {
  return {
    // An empty filter (`?os=`) filters nothing, as in SQL.
    equals: { country: query.country, device_type: query.device_type, os: query.os || undefined, platform: query.platform },
    subscribed: query.subscribed === undefined ? undefined : query.subscribed === 'true',
    seenSince: query.seen_within_days ? now.getTime() - query.seen_within_days * DAY_MS : undefined,
    tag: query.tag || undefined,
    sort: query.sort,
    desc: query.order === 'desc',
    offset: (query.page - 1) * query.limit,
    limit: query.limit,
  };
}

/** A search of the player list or the recipients' log: what was typed, and the application's country for phone numbers. */
export interface PlayerSearch {
  q: string;
  phoneCountry: string;
  /** `q` names its players whole in every column (PlayerListQuery `match`), not by their beginnings. */
  whole?: boolean;
}

/**
 * The first string after every string that begins with `prefix`, in code point order (UTF-8's byte order, in which
 * SQLite's BINARY and PostgreSQL's pattern operators compare): its last code point one higher, a last code point
 * that has none higher dropped first. Null when there is none (nothing but U+10FFFF).
 */
export function prefixEnd(prefix: string): string | null {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last === 0x10ffff) continue;
    // The surrogates are no characters: after U+D7FF comes U+E000.
    return points.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return null;
}

type NameColumn = 'device_id' | 'external_user_id' | 'email' | 'mobile_number';

/**
 * How a search names players: one test per column, its value whole (`values`) or its beginning (`prefix`). The
 * device id is `q` whole; the external user id, email and mobile number begin with it, the email and number also
 * in their stored forms (normalizeEmail; a number read in the application's country, and without separators only,
 * as numbers were kept before version 0023: numberPrefixes). A search for whole names (`whole`) takes those same
 * forms whole instead.
 */
function nameTests({ q, phoneCountry, whole }: PlayerSearch): ({ column: NameColumn; values: string[] } | { column: NameColumn; prefix: string })[] {
  const begins = (column: NameColumn, prefixes: string[]) =>
    whole ? [{ column, values: [...new Set(prefixes)] }] : [...new Set(prefixes)].map((prefix) => ({ column, prefix }));
  return [{ column: 'device_id', values: [q] }, ...begins('external_user_id', [q]), ...begins('email', [q, normalizeEmail(q)]), ...begins('mobile_number', [q, ...numberPrefixes(q, phoneCountry)])];
}

/**
 * Each of nameTests as a condition on players. A prefix is a range of the column's index in byte order: SQLite's
 * BINARY collation, PostgreSQL's pattern operators and text_pattern_ops indexes (migration 0027), whatever the
 * database's collation.
 */
export function nameConditions(dialect: Dialect, search: PlayerSearch) {
  const [atLeast, below] = dialect === 'postgres' ? ['~>=~', '~<~'] : ['>=', '<'];
  return nameTests(search).map((test) => {
    const column = sql.ref(`players.${test.column}`);
    if ('values' in test) return sql<SqlBool>`${column} in (${sql.join(test.values)})`;
    const end = prefixEnd(test.prefix);
    const from = sql<SqlBool>`${column} ${sql.raw(atLeast)} ${test.prefix}`;
    return end === null ? from : sql<SqlBool>`(${from} and ${column} ${sql.raw(below)} ${end})`;
  });
}

/**
 * The ids of the players of `base` (the application's, filtered) that a search names, each once, read so that a
 * LIMIT stops the reading early: the player list counts a search up to PLAYER_SEARCH_COUNT_CAP with it, the
 * recipients' log takes at most SEARCH_PLAYERS_MAX players; on SQLite the page of a search that few players
 * match is sorted from them (an OR would let it walk the sort's index). PostgreSQL: the OR of nameConditions, read
 * from a bitmap of their ranges or, when many match, from the table until there are enough ('customer' up to
 * 10,001 in 10 ms; the union of the ranges kept once took 540, hashing every match first). SQLite: each test's
 * range in turn, the ids kept once as they come (3 ms; its planner took the OR through unrelated indexes, 109 ms
 * at 220,000 players).
 */
export function searchedIds({ db, dialect }: Pick<Services, 'db' | 'dialect'>, base: SelectQueryBuilder<Database, 'players', object>, search: PlayerSearch) {
  const tests = nameConditions(dialect, search);
  if (dialect === 'postgres') return db.selectFrom(base.where((eb) => eb.or(tests)).select('players.id').as('named')).select('named.id');
  const union = tests.map((test) => base.select('players.id').where(test)).reduce((all, next) => all.unionAll(next));
  return db.selectFrom(union.as('named')).select('named.id').distinct();
}

/** The player list's sorts that an index of players holds (migration 0006): a broad search walks it for its page. */
const INDEXED_SORTS: ReadonlySet<string> = new Set(['last_seen_at', 'created_at']);

/** How many of the in-memory order's players one query checks against a search. */
const ORDER_CHECK_CHUNK = 1_000;

/** The most of the in-memory order a search's page is looked for in before SQL sorts the matches instead. */
const ORDER_CHECK_MAX = 64_000;

/**
 * A page of a search that more than PLAYER_SEARCH_COUNT_CAP players match, in an order no index holds (sessions,
 * page views): the players of the in-memory copy's order (filters applied there), a thousand at a time, kept where
 * the search matches them (`matching`: the list's filters and the search's OR), until the page is full. Sorting 200,684 matches by page views took SQL 180-350 ms; when
 * matches are 1 in 100 or more, the first page is in the first few thousand. Null when there is no copy, or when
 * ORDER_CHECK_MAX players of the order hold too few matches (they sit at the far end): SQL sorts them then.
 */
async function matchesInOrder(
  matching: SelectQueryBuilder<Database, 'players', object>,
  selection: PlayerListSelection,
  inOrder: (first: number) => Promise<number[] | null>,
): Promise<number[] | null> {
  const wanted = selection.offset + selection.limit;
  const matched: number[] = [];
  let checked = 0;
  for (let first = Math.min(ORDER_CHECK_MAX, Math.max(4 * ORDER_CHECK_CHUNK, 20 * wanted)); ; first = Math.min(ORDER_CHECK_MAX, first * 4)) {
    const ordered = await inOrder(first);
    if (!ordered) return null;
    for (; checked < ordered.length && matched.length < wanted; checked += ORDER_CHECK_CHUNK) {
      const chunk = ordered.slice(checked, checked + ORDER_CHECK_CHUNK);
      const rows = await matching.select('players.id').where('players.id', 'in', chunk).execute();
      const hits = new Set(rows.map((row) => Number(row.id)));
      for (const id of chunk) if (hits.has(id)) matched.push(id);
    }
    // The order ran out (fewer players than asked for pass the filters), or the page is full.
    if (matched.length >= wanted || ordered.length < first) return matched.slice(selection.offset, wanted);
    if (first >= ORDER_CHECK_MAX) return null;
  }
}

/**
 * The player list's page and total by SQL (listPlayers), for a search (`q`) and for audiences not held in memory.
 * Without a search the total is exact. A search's players are counted up to PLAYER_SEARCH_COUNT_CAP (`capped` when
 * more match), reading until one more than the cap are found: 'customer', which 200,684 of 1M players begin with,
 * took 100 ms on PostgreSQL and 340 ms on SQLite to count exactly.
 * The page then comes one of two ways, by how many match:
 * - at most the cap: sorted from the matches. PostgreSQL reads them as the OR of the tests (a bitmap of their index
 *   ranges) under OFFSET 0, which keeps its planner from walking the sort's index instead: its estimate of a
 *   prefix's matches comes from a histogram, and 'customer-123' (207 of 1M) was taken for 2,000 and paged by the
 *   index in 647 ms against 0.3 ms from its matches. SQLite looks the ids up by searchedIds: with an OR it walks
 *   the sort's index whatever the count.
 * - more than the cap: by walking the sort's index and keeping the rows that match (the OR), as many as the page
 *   needs: with more than 1 in 100 players matching, a few thousand index entries for a first page, where sorting
 *   200,000 matches took 100 ms and more. Its weakness: matches that all sit at the far end of the order (user ids
 *   given out in one old import, sorted newest first) make the walk long. Sessions and page views have no index:
 *   their order comes from the in-memory copy when there is one (`inOrder`, matchesInOrder), else SQL sorts.
 */
export async function playerPageBySql(
  s: Pick<Services, 'db' | 'dialect'>,
  applicationId: string,
  selection: PlayerListSelection,
  search?: PlayerSearch,
  inOrder?: (first: number) => Promise<number[] | null>,
): Promise<{ rows: PlayerRow[]; total: number; capped: boolean }> {
  const { db, dialect } = s;
  let base = db.selectFrom('players').where('players.application_id', '=', applicationId);
  for (const [field, value] of Object.entries(selection.equals)) {
    if (value !== undefined) base = base.where(`players.${field as keyof typeof selection.equals}`, '=', value);
  }
  if (selection.subscribed !== undefined) base = base.where('players.subscribed', '=', selection.subscribed ? 1 : 0);
  if (selection.seenSince !== undefined) base = base.where('players.last_seen_at', '>=', new Date(selection.seenSince).toISOString());
  const tag = selection.tag;
  if (tag !== undefined) {
    base = base.where('players.id', 'in', (eb) =>
      eb.selectFrom('player_tags').select('player_tags.player_id').where('player_tags.application_id', '=', applicationId).where('player_tags.tag', '=', tag),
    );
  }

  let total: number;
  let capped = false;
  let source = base;
  if (search?.q) {
    const matching = base.where((eb) => eb.or(nameConditions(dialect, search)));
    ({ total, capped } = await countUpTo(db, searchedIds(s, base, search), PLAYER_SEARCH_COUNT_CAP));
    if (total === 0) return { rows: [], total, capped };
    if (capped && inOrder && !INDEXED_SORTS.has(selection.sort)) {
      const ids = await matchesInOrder(matching, selection, inOrder);
      if (ids) return { rows: await rowsInOrder(s, applicationId, ids), total, capped };
    }
    if (capped) source = matching;
    else if (dialect === 'postgres') source = db.selectFrom(matching.selectAll('players').offset(0).as('players'));
    else source = base.where('players.id', 'in', searchedIds(s, base, search));
  } else {
    total = toCount((await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n);
  }

  const { desc } = selection;
  const rows = await source
    .selectAll('players')
    // SQLite puts nulls first ascending and last descending; PostgreSQL is told to do the same, which is also
    // the order of its index (migration 0006).
    .orderBy(`players.${selection.sort}`, (ob) => {
      const ordered = desc ? ob.desc() : ob.asc();
      if (dialect !== 'postgres') return ordered;
      return desc ? ordered.nullsLast() : ordered.nullsFirst();
    })
    .orderBy('players.id', desc ? 'desc' : 'asc')
    .limit(selection.limit)
    .offset(selection.offset)
    .execute();
  return { rows, total, capped };
}

async function findPlayer(ctx: Ctx, access: ApplicationContext, playerId: number): Promise<PlayerRow> {
  const row = await ctx.s.db
    .selectFrom('players')
    .selectAll()
    .where('application_id', '=', access.application.application_id)
    .where('id', '=', playerId)
    .executeTakeFirst();
  if (!row) throw noSuch('player', playerId);
  return row;
}

async function playerOf(ctx: Ctx, row: PlayerRow): Promise<Player> {
  const tags = await tagsOf(ctx, [Number(row.id)]);
  return toPlayer(row, tags.get(Number(row.id)) ?? []);
}

/** An attribute value's type: its definition's, else what the stored value says (spec §5: `.date` names are dates). */
function attributeType(name: string, value: string | null, numberValue: number | null, defined: string | undefined): AttributeType {
  if (defined === 'text' || defined === 'number' || defined === 'boolean' || defined === 'date') return defined;
  if (isDateFieldName(name)) return 'date';
  if (numberValue !== null && (value === 'true' || value === 'false')) return 'boolean';
  if (numberValue !== null) return 'number';
  return 'text';
}

/**
 * The stored pair (text, number) as the value of its type. Text stored under a number or boolean definition
 * before it was one (the definition changed, or the value came before numberValue read numbers in text) is read
 * by the same rules as a new value; text that is not of the type is shown as it is.
 */
export function attributeValue(type: AttributeType, value: string | null, stored: number | null): ScalarValue {
  switch (type) {
    case 'number':
      if (stored !== null) return Number(stored);
      return value === null ? null : (numberValue(value) ?? value);
    case 'boolean':
      if (stored !== null) return Number(stored) === 1;
      return value === null ? null : (booleanValue(value) ?? value);
    case 'date':
      if (value !== null) return value;
      return stored === null ? null : new Date(Number(stored)).toISOString();
    case 'text':
      return value;
  }
}

function parseProperties(text: string | null): Record<string, ScalarValue> | null {
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, ScalarValue>) : null;
  } catch {
    return null;
  }
}

/** One player with every attribute (typed from the definitions) and the latest events. */
export async function getPlayer(ctx: Ctx, access: ApplicationContext, playerId: number): Promise<PlayerDetail> {
  const row = await findPlayer(ctx, access, playerId);
  const { db } = ctx.s;
  const applicationId = access.application.application_id;
  const [attributes, definitions, events] = await Promise.all([
    db.selectFrom('player_attributes').selectAll().where('player_id', '=', row.id).orderBy('name').execute(),
    db.selectFrom('attribute_definitions').select(['name', 'type']).where('application_id', '=', applicationId).execute(),
    eventsPage(ctx, Number(row.id), {}),
  ]);
  const types = new Map(definitions.map((definition) => [definition.name, definition.type]));
  return {
    player: await playerOf(ctx, row),
    attributes: attributes.map((attribute): PlayerAttribute => {
      const numberValue = attribute.number_value === null ? null : Number(attribute.number_value);
      const type = attributeType(attribute.name, attribute.value, numberValue, types.get(attribute.name));
      return { name: attribute.name, type, value: attributeValue(type, attribute.value, numberValue), text: attribute.value, updated_at: attribute.updated_at };
    }),
    events,
  };
}

/** A player's events, newest first, a page at a time (PlayerEventsQuery: the page after the event named, or the newest). */
export async function listPlayerEvents(ctx: Ctx, access: ApplicationContext, playerId: number, query: PlayerEventsQuery): Promise<PlayerEventsPage> {
  const row = await findPlayer(ctx, access, playerId);
  return eventsPage(ctx, Number(row.id), query);
}

/** A player with fewer events than this has a page of them read by one query, which sorts them all (see eventsPage). */
export const EVENTS_SORTED_WHOLE = 1_000;

/**
 * Reading one event name's page apart costs about what sorting this many events does, so a player's events are read
 * name by name only when they are at least this many times their names. Measured 2026-12-07 on two cores, the two
 * statements timed side by side for players of 7 to 100 names and 5,000 to 300,000 events: a name's page 50–70 µs on
 * SQLite against 0.10–0.19 µs an event sorted, even at 380–500 events a name; on PostgreSQL 90–170 µs against
 * 0.3–0.7 µs, even at 160–500.
 */
export const EVENTS_PER_NAME_APART = 400;

/** A player with more event names than this has a page of events read by one query, which sorts them all (see eventsPage). */
export const EVENT_NAMES_READ_APART = 100;

/**
 * A page of the player's events, newest first. Events are indexed by (player_id, name, occurred_at, id), and an index
 * that starts with (player_id, occurred_at) would cost every ingested event one more index entry, so the newest
 * events of a player with many are read as the newest of each of their event names, merged: the names come from a
 * walk of the index (one seek per name), each name's newest page from its own range of it. Reading them by one query
 * sorts all the player's events: the page of a player with 300,000 events (seven names) took 64 ms at the median on
 * SQLite (holding the event loop, so ingestion waited too) and 157 ms on PostgreSQL, now 3.5 and 9 ms
 * (tests/bench/player-list.ts, 2026-12-07, two cores). Which way is cheaper goes by the events a name has on
 * average (EVENTS_PER_NAME_APART): a player with fewer than EVENTS_SORTED_WHOLE events is read by one query without
 * looking at their names, one with more names than EVENT_NAMES_READ_APART (an app that puts ids in event names) too,
 * and between the two the events are counted up to EVENTS_PER_NAME_APART times the names (namesReadApart).
 */
async function eventsPage(ctx: Ctx, playerId: number, { before_at, before_id }: PlayerEventsQuery): Promise<PlayerEventsPage> {
  const { db } = ctx.s;
  // Times are stored as toISOString() text (ingestion's clampAt), so that is the form that compares in order.
  const at = before_at !== undefined && before_id !== undefined ? new Date(before_at).toISOString() : null;
  const newest = (name: string | null) => {
    let query = db
      .selectFrom('events')
      .select(['id', 'name', 'properties', 'session_id', 'occurred_at'])
      .where('player_id', '=', playerId)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      // One more than the page: whether older events follow.
      .limit(PLAYER_EVENTS_PAGE + 1);
    if (name !== null) query = query.where('name', '=', name);
    if (at !== null) query = query.where((eb) => eb.or([eb('occurred_at', '<', at), eb.and([eb('occurred_at', '=', at), eb('id', '<', before_id as number)])]));
    return query;
  };
  // Each name's page, then the page of them all.
  const merged = (names: string[]) => {
    const [first, ...rest] = names.map((name, index) => db.selectFrom(newest(name).as(`n${index}`)).selectAll());
    return rest.reduce((union, next) => union.unionAll(next), first).orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(PLAYER_EVENTS_PAGE + 1);
  };
  const apart = await namesReadApart(db, playerId);
  const query = apart ? merged(apart) : newest(null);
  const rows = await query.execute();
  return {
    items: rows.slice(0, PLAYER_EVENTS_PAGE).map(
      (event): PlayerEvent => ({
        id: Number(event.id),
        name: event.name,
        properties: parseProperties(event.properties),
        session_id: event.session_id,
        occurred_at: event.occurred_at,
      }),
    ),
    more: rows.length > PLAYER_EVENTS_PAGE,
  };
}

/**
 * The names of the player's events when a page of them is read name by name (see eventsPage), or null when it is
 * read by one query: the player has fewer than EVENTS_SORTED_WHOLE events, more than EVENT_NAMES_READ_APART names,
 * or fewer than EVENTS_PER_NAME_APART events a name (each count read along the index, up to what it is compared with).
 */
async function namesReadApart(db: Kysely<Database>, playerId: number): Promise<string[] | null> {
  const atLeast = async (wanted: number) => {
    const counted = await db
      .selectFrom((eb) => eb.selectFrom('events').select('id').where('player_id', '=', playerId).limit(wanted).as('few'))
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    return toCount(counted?.n) >= wanted;
  };
  if (!(await atLeast(EVENTS_SORTED_WHOLE))) return null;
  const names = await playerEventNames(db, playerId, EVENT_NAMES_READ_APART + 1);
  if (names.length > EVENT_NAMES_READ_APART) return null;
  const worth = names.length * EVENTS_PER_NAME_APART;
  return worth <= EVENTS_SORTED_WHOLE || (await atLeast(worth)) ? names : null;
}

/**
 * The names of the player's events, in order, at most `limit`: a walk of the (player_id, name, occurred_at) index,
 * each step the first name after the one before (one index seek each, however many events a name has).
 */
async function playerEventNames(db: Kysely<Database>, playerId: number, limit: number): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    WITH RECURSIVE walked(name, n) AS (
      SELECT (SELECT min(name) FROM events WHERE player_id = ${playerId}), 1
      UNION ALL
      SELECT (SELECT min(name) FROM events WHERE player_id = ${playerId} AND name > walked.name), n + 1
      FROM walked WHERE walked.name IS NOT NULL AND n < ${limit}
    )
    SELECT name FROM walked WHERE name IS NOT NULL`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * The application's tags, most held first, then by name, at most TAG_LIST_MAX: what the segment editor and the
 * player page offer as a tag is typed. A large audience (AUDIENCE_INDEX_MIN_PLAYERS) counts from its in-memory
 * copy; a smaller one by SQL, the application's range of player_tags (by SQL at a million players with 450,000 tags
 * held, measured 2026-12-06 on two cores: 32 ms on SQLite, a covering index range; 52 ms on PostgreSQL, which
 * scans the table in parallel for a range that is all of it).
 */
export async function listTags(ctx: Ctx, access: ApplicationContext): Promise<TagList> {
  const applicationId = access.application.application_id;
  const fromIndex = await audienceIndexes(ctx.s).read(applicationId, (index) => index.tagCounts());
  const counts =
    fromIndex ??
    (
      await ctx.s.db
        .selectFrom('player_tags')
        .select(['tag', (eb) => eb.fn.countAll().as('players')])
        .where('application_id', '=', applicationId)
        .groupBy('tag')
        .execute()
    ).map((row): [string, number] => [row.tag, toCount(row.players)]);
  counts.sort(mostCountedFirst);
  return { items: counts.slice(0, TAG_LIST_MAX).map(([tag, players]) => ({ tag, players })), more: counts.length > TAG_LIST_MAX };
}

/** Adds tags to a player; tags it already has stay as they are. */
export async function addPlayerTags(ctx: Ctx, access: ApplicationContext, playerId: number, tags: string[]): Promise<Player> {
  assertWriter(access);
  const row = await findPlayer(ctx, access, playerId);
  await ctx.s.db
    .insertInto('player_tags')
    .values([...new Set(tags)].map((tag) => ({ player_id: row.id, application_id: row.application_id, tag })))
    .onConflict((oc) => oc.columns(['player_id', 'tag']).doNothing())
    .execute();
  await ctx.s.db.updateTable('players').set({ updated_at: nowIso(ctx.s) }).where('id', '=', row.id).execute();
  return playerOf(ctx, await findPlayer(ctx, access, playerId));
}

/** Removes one tag; a tag the player does not have is NOT_FOUND. */
export async function removePlayerTag(ctx: Ctx, access: ApplicationContext, playerId: number, tag: string): Promise<Player> {
  assertWriter(access);
  const row = await findPlayer(ctx, access, playerId);
  const removed = await ctx.s.db.deleteFrom('player_tags').where('player_id', '=', row.id).where('tag', '=', tag).executeTakeFirst();
  if (Number(removed.numDeletedRows) === 0) throw noSuch('tag', playerId, { tag });
  await ctx.s.db.updateTable('players').set({ updated_at: nowIso(ctx.s) }).where('id', '=', row.id).execute();
  return playerOf(ctx, await findPlayer(ctx, access, playerId));
}

/** Deletes a player with its tags, attributes, events and daily activity (the foreign keys cascade). */
export async function deletePlayer(ctx: Ctx, access: ApplicationContext, playerId: number): Promise<void> {
  assertWriter(access);
  const row = await findPlayer(ctx, access, playerId);
  await ctx.s.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('players').where('id', '=', row.id).execute();
    await bumpAudienceEpoch(trx, row.application_id);
  });
}

/**
 * The public playerinfo page. It has no sign-in: the device id is a long random secret only the player's own
 * browser or app holds, so holding it is the credential (like an unsubscribe link's token). Rate limited per
 * address and per application so ids cannot be guessed at speed; an unknown application or device is the same
 * NOT_FOUND, so neither can be probed.
 */
async function findOwnPlayer(ctx: Ctx, applicationId: string, deviceId: string): Promise<PlayerRow & { application_name: string }> {
  const { limits } = ctx.s;
  const allowed = await withinWindows(ctx.s.db, ctx.s.clock(), [
    { bucket: `playerinfo:ip:${ctx.ip}`, rule: limits.playerInfoPerIp },
    { bucket: `playerinfo:app:${applicationId}`, rule: limits.playerInfoPerApplication },
  ]);
  if (!allowed) throw new AppError('RATE_LIMITED');
  const row = await ctx.s.db
    .selectFrom('players')
    .innerJoin('applications', 'applications.application_id', 'players.application_id')
    .selectAll('players')
    .select('applications.name as application_name')
    .where('players.application_id', '=', applicationId)
    .where('players.device_id', '=', deviceId)
    .executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND');
  return row;
}

/**
 * A player's own record as the public page shows it, and the shop it is a visitor of: only the fields of OwnPlayer,
 * named one by one (not the console's Player with some left out), so a field added to Player is not published here
 * by default. The merchant's tags are not even read.
 */
function ownPlayerOf(row: PlayerRow & { application_name: string }): OwnPlayer {
  const player = toPlayer(row, []);
  return {
    device_id: player.device_id,
    platform: player.platform,
    device_type: player.device_type,
    os: player.os,
    os_version: player.os_version,
    browser: player.browser,
    language: player.language,
    country: player.country,
    city: player.city,
    last_seen_at: player.last_seen_at,
    subscribed: player.subscribed,
    subscribed_at: player.subscribed_at,
    unsubscribed_at: player.unsubscribed_at,
    opted_out_at: player.opted_out_at,
    channels: player.channels,
    application_name: row.application_name,
  };
}

/** GET /api/public/application/{id}/playerinfo/{device_id}: the player's own record, and whose visitor it is. */
export async function getOwnPlayer(ctx: Ctx, applicationId: string, deviceId: string): Promise<OwnPlayer> {
  return ownPlayerOf(await findOwnPlayer(ctx, applicationId, deviceId));
}

/**
 * The player unsubscribes from push: the subscription's endpoint and keys are forgotten, so nothing can be
 * sent to it any more, and the opt-out is remembered (opted_out_at): a subscription the browser renews by
 * itself does not subscribe them again, only their yes in the shop's subscription box (subscribePush) or the
 * app turning notifications on (settleAppSubscription) does.
 */
export async function unsubscribeOwnPlayer(ctx: Ctx, applicationId: string, deviceId: string): Promise<OwnPlayer> {
  const row = await findOwnPlayer(ctx, applicationId, deviceId);
  const now = nowIso(ctx.s);
  // Unsubscribing twice keeps the first moment.
  const unsubscribedAt = Number(row.subscribed) === 1 || row.unsubscribed_at === null ? now : row.unsubscribed_at;
  const change = { ...webSubscriptionEnded(now, unsubscribedAt), opted_out_at: row.opted_out_at ?? now };
  await ctx.s.db.updateTable('players').set(change).where('id', '=', row.id).execute();
  return ownPlayerOf({ ...row, ...change });
}
