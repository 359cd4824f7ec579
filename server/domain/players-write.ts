import type { Expression, Kysely } from 'kysely';
import { inferValueType, storedAttribute, type AttributeType, type DeviceInfo, type Identity, type PlayerPlatform, type ScalarValue, type Utm } from '../../shared/contract/audience';
import type { Dialect } from '../db';
import type { Database } from '../db/schema';
import { columnList, earlier, insertRows, insertStatements, keyInParameter, later, rowSource, runWrites, withRows, withRowsStatements, type Column, type Row, type Statement } from '../db/rows';

/*
 * The one place that creates and updates players from what devices report: the storefront SDK's batches and
 * the REST device API (through server/domain/ingest.ts), push subscriptions, privacy requests. Every function
 * takes many players at once, so the ingestion flusher writes a whole group in a few statements; `upsertPlayer`
 * is the one-device shorthand. Rules:
 * - device facts and identity keep the last non-empty value a device sent (empty means "not said", never "erase");
 * - UTM fields come from the landing page of the player's first session, and only while the player has none;
 * - counters add up (sessions, page views), first/last session and last seen move only outward;
 * - last seen is kept to the minute (LAST_SEEN_STEP_MS): a report that changes nothing else within it is not written;
 * - a player's day (player_days) is rewritten only for a session or a page view: other events find it there.
 * Callers wanting all-or-nothing pass a transaction.
 */

/** What to write on one player. Absent or empty fields change nothing. */
export interface PlayerWrite {
  applicationId: string;
  deviceId: string;
  device?: DeviceInfo;
  identity?: Identity;
  /** The landing UTM of the earliest new session; kept only while the player has no UTM yet. */
  utm?: Utm;
  /** The latest activity, ISO. */
  seenAt?: string;
  /** Sessions reported: how many of them are new (counted), and the earliest and latest start (ISO). */
  sessions?: { count: number; first: string; last: string };
  pageViews?: number;
}

export interface PlayerRef {
  id: number;
  /** True when this call created the player. */
  created: boolean;
}

/**
 * The columns that end a player's web push subscription at `now`: not subscribed, the endpoint and its keys
 * forgotten (nothing can be sent to them any more). `unsubscribedAt` keeps an earlier moment where the caller
 * has one. Every way a subscription ends (the browser's unsubscribe, the endpoint moving to another visitor,
 * the push service refusing it, the person's playerinfo page) sets these and adds what is its own.
 */
export function webSubscriptionEnded(now: string, unsubscribedAt = now) {
  return { subscribed: 0 as const, push_endpoint: null, push_p256dh: null, push_auth: null, unsubscribed_at: unsubscribedAt, updated_at: now };
}

/**
 * The columns that end an app install's mobile push subscription at `now`: not subscribed, its token forgotten. Every
 * way a token ends (FCM or APNs refusing it, another install registering it) sets these; `unsubscribedAt` keeps an
 * earlier moment where the caller has one, as webSubscriptionEnded's does.
 */
export function mobileTokenEnded(now: string, unsubscribedAt: string | Expression<string | null> = now) {
  return { subscribed: 0 as const, device_token: null, unsubscribed_at: unsubscribedAt, updated_at: now };
}

/** The key of a device in the maps these functions return. */
export const playerKey = (applicationId: string, deviceId: string) => `${applicationId}\u0000${deviceId}`;

/** Spec §9 device types: apps run on phones; a browser that says nothing is taken for a desktop. */
export function defaultDeviceType(platform: PlayerPlatform): 'desktop' | 'mobile' {
  return platform === 'web' ? 'desktop' : 'mobile';
}

const DEVICE_FIELDS = [
  'platform',
  'device_type',
  'device_token',
  'os',
  'os_version',
  'browser',
  'app_version',
  'device_model',
  'language',
  'country',
  'city',
  'timezone',
  'timezone_offset',
  'gender',
] as const satisfies readonly (keyof DeviceInfo)[];
const IDENTITY_FIELDS = ['external_user_id', 'email', 'mobile_number', 'fb_psid'] as const satisfies readonly (keyof Identity)[];
const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const satisfies readonly (keyof Utm)[];

/** A reported value, or null when it says nothing (absent, blank). */
function given(value: string | number | undefined | null): string | number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }
  return value;
}

/** Merges reports of one device in the order they came: each field keeps the last non-empty value. */
export function mergeDevice<T extends Record<string, unknown>>(into: T | undefined, next: T | undefined): T | undefined {
  if (!next) return into;
  const out: Record<string, unknown> = { ...into };
  for (const [name, value] of Object.entries(next)) {
    const kept = given(value as string | number | undefined);
    if (kept !== null) out[name] = kept;
  }
  return out as T;
}

/**
 * Makes sure each device has a player, creating the missing ones (platform and device type from the report,
 * web/desktop when it says none). Returns every player's id by `playerKey`.
 *
 * A new player is created with what its report says of the device, its identity and when it was seen, as the
 * update that follows would set them: that update then finds nothing to change on it unless sessions, page views
 * or a landing UTM came too, and skips the row. A device's first report used to create a bare row and rewrite
 * it at once, on PostgreSQL a second row version with its own entry in every index: single-event requests each
 * from a new device cost PostgreSQL 128–153 µs of CPU before, 111–132 µs after (alternating runs).
 */
export async function ensurePlayers(db: Kysely<Database>, dialect: Dialect, writes: readonly PlayerWrite[], now: Date): Promise<Map<string, PlayerRef>> {
  const at = now.toISOString();
  const unique = new Map<string, PlayerWrite>();
  for (const write of writes) unique.set(playerKey(write.applicationId, write.deviceId), write);
  // A fixed order: two processes creating the same players lock them in the same order.
  const sorted = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const rows: Row[] = sorted.map(([, write]) => createdRow(write, at));
  type Found = { id: number | string; application_id: string; device_id: string; created: boolean | number };
  const out = new Map<string, PlayerRef>();
  const take = (found: Found[]) => {
    for (const row of found) out.set(playerKey(row.application_id, row.device_id), { id: Number(row.id), created: Boolean(row.created) });
  };
  // The players of v's devices: on PostgreSQL one index lookup per device, whatever plan the table's size at
  // planning time suggested (server/db/rows.ts, "Plans on PostgreSQL").
  const found =
    dialect === 'postgres'
      ? 'v CROSS JOIN LATERAL (SELECT p.id, p.application_id, p.device_id FROM players p WHERE p.application_id = v.application_id AND p.device_id = v.device_id OFFSET 0) p'
      : 'players p JOIN v ON p.application_id = v.application_id AND p.device_id = v.device_id';
  const insert = `INSERT INTO players (${columnList(CREATE_COLUMNS)})`;
  const returning = 'ON CONFLICT (application_id, device_id) DO NOTHING RETURNING id, application_id, device_id';
  if (dialect === 'postgres') {
    // One round trip: the new players from the INSERT, the others from a SELECT that, on the statement's
    // snapshot, cannot see the rows the INSERT adds, so each player comes once, rightly marked.
    take(
      await withRows<Found>(
        db,
        dialect,
        CREATE_COLUMNS,
        rows,
        `, created AS (${insert} SELECT * FROM v ${returning}) SELECT id, application_id, device_id, true AS created FROM created UNION ALL SELECT p.id, p.application_id, p.device_id, false FROM ${found}`,
      ),
    );
  } else {
    take((await insertRows<Found>(db, dialect, 'players', CREATE_COLUMNS, rows, returning)).map((row) => ({ ...row, created: true })));
  }
  // SQLite: the players that were there already. PostgreSQL: only one another process created after this
  // statement's snapshot was taken but before its INSERT (that INSERT waited for it, then skipped the row).
  const existing = sorted.filter(([key]) => !out.has(key)).map(([, write]) => [write.applicationId, write.deviceId] as Row);
  if (existing.length > 0) {
    take(
      await withRows<Found>(
        db,
        dialect,
        CREATE_COLUMNS.slice(0, 2),
        existing,
        `SELECT p.id, p.application_id, p.device_id, 0 AS created FROM ${found}`,
      ),
    );
  }
  return out;
}

/** A new player's row (CREATE_COLUMNS): platform and device type from the report, web/desktop when it says none. */
function createdRow(write: PlayerWrite, at: string): unknown[] {
  const platform = (given(write.device?.platform) as PlayerPlatform | null) ?? 'web';
  const deviceType = given(write.device?.device_type) ?? defaultDeviceType(platform);
  return [
    write.applicationId,
    write.deviceId,
    platform,
    deviceType,
    ...CREATED_DEVICE_FIELDS.map((name) => given(write.device?.[name])),
    ...IDENTITY_FIELDS.map((name) => given(write.identity?.[name])),
    write.seenAt ?? null,
    at,
    at,
  ];
}

/** A device the statement writing its group finds or creates the player of (`unseenPlayers`); `ref` < 0 stands for its id meanwhile. */
export interface UnseenPlayer {
  ref: number;
  write: PlayerWrite;
}

/**
 * PostgreSQL: the players of devices this process does not know, found or created by the statement that writes
 * their group, instead of a statement of their own before it (a round trip less for a group with a new device;
 * see writeBatches in ./ingest.ts). The statement's other rows name each such player by its `ref`, a negative
 * number no player has, and the relation `pm(ref, id, created)` gives its id:
 * - `lookup`, CTE definitions to come first: `nu`, the devices with what a new player is created with, and `pm`,
 *   each device's player, the one there is (one index lookup per device) or else a new id from the players'
 *   sequence (`pm` is materialized: evaluated once, so each device gets one id);
 * - `create(counted)`, the CTE `np` creating the new players whole, as `ensurePlayers` and then the update would
 *   leave them (device facts, identity, last seen, landing UTM, first and last session), with their sessions and
 *   page views from `counted` (player_id, sessions, page_views), in device order (as `ensurePlayers`, for the locks);
 *   RETURNING their ids;
 * - the UPDATE (`updatePlayersStatements` with `mapped`) reaches the players found, and the attributes' statements
 *   (`attributeStatements` with `mapped`) name each player by its id from `pm`.
 * Every data-modifying CTE runs on the statement's snapshot, so the UPDATE cannot see the players `np` creates, and
 * the foreign keys of the event rows, checked when the statement ends, see them. A player another process creates
 * after the snapshot is in neither: `np` skips it (ON CONFLICT) and the events naming the id it would have had fail
 * their foreign key, so nothing of the statement is stored; a device that brought no event, or whose events were
 * all stored before (so no new row names it), shows as a player created but not returned by `np`, once the rest of
 * the statement is stored. The caller writes the group again either way, looking the players up first: what is
 * stored already is not stored twice (event ids), and counts come only from new rows.
 */
export function unseenPlayers(unseen: readonly UnseenPlayer[], now: Date): { lookup: Statement; create: (counted: string) => string } {
  const at = now.toISOString();
  const rows: Row[] = unseen
    .map((player) => ({ key: playerKey(player.write.applicationId, player.write.deviceId), ...player }))
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map(({ ref, write }) => [
      ref,
      ...createdRow(write, at),
      ...UTM_FIELDS.map((name) => given(write.utm?.[name])),
      write.sessions?.first ?? null,
      write.sessions?.last ?? null,
    ]);
  const source = rowSource('postgres', UNSEEN_COLUMNS, rows);
  const created = UNSEEN_COLUMNS.slice(1).map((column) => `nu.${column.name}`);
  return {
    lookup: {
      sql: [
        `nu AS (SELECT * FROM ${source.sql} AS nu(${columnList(UNSEEN_COLUMNS)}))`,
        "pm AS MATERIALIZED (SELECT nu.ref, CASE WHEN f.id IS NULL THEN nextval('players_id_seq') ELSE f.id END AS id, f.id IS NULL AS created FROM nu LEFT JOIN LATERAL (SELECT p.id FROM players p WHERE p.application_id = nu.application_id AND p.device_id = nu.device_id OFFSET 0) f ON true)",
      ].join(', '),
      params: source.params,
    },
    create: (counted) =>
      `np AS (INSERT INTO players (id, ${columnList(UNSEEN_COLUMNS.slice(1))}, session_count, page_views) SELECT pm.id, ${created.join(', ')}, COALESCE(c.sessions, 0), COALESCE(c.page_views, 0) FROM nu JOIN pm ON pm.ref = nu.ref LEFT JOIN ${counted} c ON c.player_id = pm.id WHERE pm.created ORDER BY nu.application_id, nu.device_id ON CONFLICT (application_id, device_id) DO NOTHING RETURNING id)`,
  };
}

/** The players' columns of device facts and identity, as statements read them from rows. */
const fieldColumn = (name: string): Column => ({ name, type: name === 'timezone_offset' ? 'integer' : 'text' });
/** Device facts a new player is created with, beside its platform and device type. */
const CREATED_DEVICE_FIELDS = DEVICE_FIELDS.filter((name) => name !== 'platform' && name !== 'device_type');
const CREATE_COLUMNS: Column[] = [
  { name: 'application_id', type: 'text' },
  { name: 'device_id', type: 'text' },
  { name: 'platform', type: 'text' },
  { name: 'device_type', type: 'text' },
  ...CREATED_DEVICE_FIELDS.map(fieldColumn),
  ...IDENTITY_FIELDS.map(fieldColumn),
  { name: 'last_seen_at', type: 'text' },
  { name: 'created_at', type: 'text' },
  { name: 'updated_at', type: 'text' },
];

const UPDATE_COLUMNS: Column[] = [
  { name: 'id', type: 'bigint' },
  ...DEVICE_FIELDS.map(fieldColumn),
  ...IDENTITY_FIELDS.map(fieldColumn),
  ...UTM_FIELDS.map((name): Column => ({ name, type: 'text' })),
  { name: 'seen_at', type: 'text' },
  { name: 'seen_floor', type: 'text' },
  { name: 'first_session_at', type: 'text' },
  { name: 'last_session_at', type: 'text' },
  { name: 'updated_at', type: 'text' },
  // The counters last: `counted` takes them from elsewhere.
  { name: 'sessions', type: 'integer' },
  { name: 'page_views', type: 'integer' },
];
const COUNTED_COLUMNS = UPDATE_COLUMNS.slice(0, -2);
/** What `unseenPlayers` creates a player with: its ref, CREATE_COLUMNS, the landing UTM, the first and last session. */
const UNSEEN_COLUMNS: Column[] = [
  { name: 'ref', type: 'bigint' },
  ...CREATE_COLUMNS,
  ...UTM_FIELDS.map((name): Column => ({ name, type: 'text' })),
  { name: 'first_session_at', type: 'text' },
  { name: 'last_session_at', type: 'text' },
];

/**
 * Last seen is kept to the minute: a report that would change nothing on the player but move last seen by less
 * than this is not written at all. Every event of a device used to rewrite its whole player row, a new row
 * version with an entry in each of the players' indexes, although the only change was a timestamp a few
 * seconds later; now a device busy sending events costs its player one write a minute. Sessions, page views,
 * device facts, identity and UTM are written whenever they change.
 */
export const LAST_SEEN_STEP_MS = 60_000;

/** The ids of the players `unseenPlayers`' pm found (those it creates are not there yet for the statement). */
const FOUND_IDS = 'ARRAY(SELECT id FROM pm WHERE NOT created)';
const noUtmYet = UTM_FIELDS.map((name) => `players.${name} IS NULL`).join(' AND ');
/** `id`: v's column with the player's id; `key`: what follows the conditions (keyInParameter's, or another). */
const updateSql = (dialect: Dialect, id = 'v.id', key = keyInParameter(dialect, UPDATE_COLUMNS, 'id', 'players.id')) => `UPDATE players SET ${[
  ...[...DEVICE_FIELDS, ...IDENTITY_FIELDS].map((name) => `${name} = COALESCE(v.${name}, players.${name})`),
  ...UTM_FIELDS.map((name) => `${name} = CASE WHEN ${noUtmYet} THEN v.${name} ELSE players.${name} END`),
  `last_seen_at = ${later('players.last_seen_at', 'v.seen_at')}`,
  `first_session_at = ${earlier('players.first_session_at', 'v.first_session_at')}`,
  `last_session_at = ${later('players.last_session_at', 'v.last_session_at')}`,
  'session_count = players.session_count + v.sessions',
  'page_views = players.page_views + v.page_views',
  'updated_at = v.updated_at',
].join(', ')} FROM v WHERE players.id = ${id} AND NOT (${[
  'v.sessions = 0',
  'v.page_views = 0',
  '(v.seen_at IS NULL OR (players.last_seen_at IS NOT NULL AND players.last_seen_at >= v.seen_floor))',
  ...[...DEVICE_FIELDS, ...IDENTITY_FIELDS].map((name) => `(v.${name} IS NULL OR v.${name} IS NOT DISTINCT FROM players.${name})`),
  `((${UTM_FIELDS.map((name) => `v.${name} IS NULL`).join(' AND ')}) OR NOT (${noUtmYet}))`,
].join(' AND ')})${key}`;
const UPDATE_SQL: Record<Dialect, string> = { sqlite: updateSql('sqlite'), postgres: updateSql('postgres') };
/**
 * PostgreSQL, players named by `unseenPlayers`' refs among the others: each row's id through `pm` (v.pid), and the
 * target's key in the parameter array or among the players `pm` found, so the plan still reaches them by the index.
 */
const MAPPED_UPDATE_SQL = updateSql('postgres', 'v.pid', keyInParameter('postgres', COUNTED_COLUMNS, 'id', 'players.id', FOUND_IDS));

/**
 * The statements applying reports to existing players (ids from `ensurePlayers`), one per chunk of players.
 * `counted` (PostgreSQL): the relation of the statement around that gives the new sessions and page views, as
 * `(player_id, sessions, page_views)`, instead of the writes' own counts.
 */
export function updatePlayersStatements(dialect: Dialect, updates: readonly (PlayerWrite & { id: number })[], now: Date, counted?: string, mapped = false): Statement[] {
  if (updates.length === 0) return [];
  const at = now.toISOString();
  const rows: Row[] = [...updates]
    .sort((a, b) => a.id - b.id)
    .map((write) => [
      write.id,
      ...DEVICE_FIELDS.map((name) => given(write.device?.[name])),
      ...IDENTITY_FIELDS.map((name) => given(write.identity?.[name])),
      ...UTM_FIELDS.map((name) => given(write.utm?.[name])),
      write.seenAt ?? null,
      write.seenAt ? new Date(Date.parse(write.seenAt) - LAST_SEEN_STEP_MS).toISOString() : null,
      write.sessions?.first ?? null,
      write.sessions?.last ?? null,
      at,
      write.sessions?.count ?? 0,
      write.pageViews ?? 0,
    ]);
  if (!counted) return withRowsStatements(dialect, UPDATE_COLUMNS, rows, UPDATE_SQL[dialect]);
  // Without the counters, the rows' last two values.
  if (!mapped) {
    return withRowsStatements(dialect, COUNTED_COLUMNS, rows, UPDATE_SQL[dialect], {
      select: 'COALESCE(c.sessions, 0) AS sessions, COALESCE(c.page_views, 0) AS page_views',
      join: `LEFT JOIN ${counted} c ON c.player_id = u.id`,
    });
  }
  // The ids of unseenPlayers' refs through pm (the statement around defines it).
  return withRowsStatements(dialect, COUNTED_COLUMNS, rows, MAPPED_UPDATE_SQL, {
    select: 'COALESCE(m.id, u.id) AS pid, COALESCE(c.sessions, 0) AS sessions, COALESCE(c.page_views, 0) AS page_views',
    join: `LEFT JOIN pm m ON m.ref = u.id LEFT JOIN ${counted} c ON c.player_id = COALESCE(m.id, u.id)`,
  });
}

/** Applies reports to existing players (ids from `ensurePlayers`). */
export async function updatePlayers(db: Kysely<Database>, dialect: Dialect, updates: readonly (PlayerWrite & { id: number })[], now: Date): Promise<void> {
  await runWrites(db, dialect, updatePlayersStatements(dialect, updates, now));
}

/** Creates or updates one device's player: the shorthand for push subscriptions, privacy requests and the like. */
export async function upsertPlayer(db: Kysely<Database>, dialect: Dialect, write: PlayerWrite, now: Date): Promise<PlayerRef> {
  const refs = await ensurePlayers(db, dialect, [write], now);
  const ref = refs.get(playerKey(write.applicationId, write.deviceId));
  if (!ref) throw new Error('player vanished while being written');
  await updatePlayers(db, dialect, [{ ...write, id: ref.id }], now);
  return ref;
}

/** One player's activity on one day of its application's timezone. */
export interface PlayerDay {
  applicationId: string;
  playerId: number;
  /** YYYY-MM-DD. */
  day: string;
  sessions: number;
  pageViews: number;
}

/** A player day's columns, as ingestion and the seed write them. */
export const PLAYER_DAY_COLUMNS: Column[] = [
  { name: 'application_id', type: 'text' },
  { name: 'day', type: 'text' },
  { name: 'player_id', type: 'bigint' },
  { name: 'sessions', type: 'integer' },
  { name: 'page_views', type: 'integer' },
];

/**
 * The statements adding to the per-day activity rows (active players, sessions and page views per day on the
 * dashboard): days with sessions or page views add them (PLAYER_DAYS_MERGE); a day with neither, which only says the
 * player was active, is written when it is not there yet and otherwise left alone (PLAYER_DAY_SEEN), so an event does
 * not rewrite the row.
 */
export function playerDaysStatements(dialect: Dialect, days: readonly PlayerDay[]): Statement[] {
  if (days.length === 0) return [];
  const merged = new Map<string, PlayerDay>();
  for (const day of days) {
    const key = `${day.applicationId}\u0000${day.day}\u0000${day.playerId}`;
    const seen = merged.get(key);
    if (seen) {
      seen.sessions += day.sessions;
      seen.pageViews += day.pageViews;
    } else merged.set(key, { ...day });
  }
  const sorted = [...merged.values()].sort((a, b) => a.playerId - b.playerId || (a.day < b.day ? -1 : 1));
  const rows = (counted: boolean): Row[] =>
    sorted.filter((day) => day.sessions + day.pageViews > 0 === counted).map((day) => [day.applicationId, day.day, day.playerId, day.sessions, day.pageViews]);
  return [
    ...insertStatements(dialect, 'player_days', PLAYER_DAY_COLUMNS, rows(true), PLAYER_DAYS_MERGE),
    ...insertStatements(dialect, 'player_days', PLAYER_DAY_COLUMNS, rows(false), PLAYER_DAY_SEEN),
  ];
}

/** What adding to a player's day does when the row is there (`excluded`: the counts added). */
export const PLAYER_DAYS_MERGE =
  'ON CONFLICT (application_id, day, player_id) DO UPDATE SET sessions = player_days.sessions + excluded.sessions, page_views = player_days.page_views + excluded.page_views';
/** A day that adds nothing to count: the row says the player was active, and once is enough. */
export const PLAYER_DAY_SEEN = 'ON CONFLICT (application_id, day, player_id) DO NOTHING';

/** One attribute value a device set; null removes the attribute. `at` (ISO) orders competing writes. */
export interface AttributeWrite {
  applicationId: string;
  playerId: number;
  name: string;
  value: ScalarValue;
  at: string;
}


/**
 * Defines attributes first seen in data (source 'sdk'), with the type their first value had; a name already
 * defined, by a member or earlier data, keeps its definition (DEFINE_SDK_ATTRIBUTES).
 */
export async function defineSdkAttributes(
  db: Kysely<Database>,
  dialect: Dialect,
  definitions: readonly SdkDefinition[],
  at: string,
): Promise<void> {
  if (definitions.length === 0) return;
  await insertRows(db, dialect, 'attribute_definitions', DEFINITION_COLUMNS, definitionRows(definitions, at), DEFINE_SDK_ATTRIBUTES);
}

/** An attribute name of an application, with the type its first value gives it. */
interface SdkDefinition {
  applicationId: string;
  name: string;
  type: AttributeType;
}

const DEFINITION_COLUMNS: Column[] = [
  { name: 'application_id', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'type', type: 'text' },
  { name: 'source', type: 'text' },
  { name: 'created_at', type: 'text' },
  { name: 'updated_at', type: 'text' },
];
const DEFINE_SDK_ATTRIBUTES = 'ON CONFLICT (application_id, name) DO NOTHING';
const definitionRows = (definitions: readonly SdkDefinition[], at: string): Row[] =>
  definitions.map(({ applicationId, name, type }) => [applicationId, name, type, 'sdk', at, at]);
const NAME_COLUMNS = DEFINITION_COLUMNS.slice(0, 2);
const READ_DEFINITIONS = 'SELECT d.application_id, d.name, d.type FROM attribute_definitions d JOIN v ON d.application_id = v.application_id AND d.name = v.name';
/** An attribute name's key among an application's: in `attributeStatements`' map of types. */
const nameKey = (applicationId: string, name: string) => `${applicationId}\u0000${name}`;

/**
 * Sets each name of `types` (keyed by nameKey, the type its first value gives) to the type of its stored
 * definition, defining those seen for the first time (`defineSdkAttributes`). SQLite: the definitions' INSERT, then
 * a SELECT. PostgreSQL: one statement, a round trip less for every group that sets attributes: the INSERT as a CTE,
 * the names it defined from its RETURNING and the others from the table. That SELECT reads the statement's
 * snapshot, so a definition another transaction commits while the INSERT waits on it (ON CONFLICT then does
 * nothing) is in neither: those names, and only they, are read again.
 */
async function takeStoredTypes(db: Kysely<Database>, dialect: Dialect, types: Map<string, AttributeType>, at: string): Promise<void> {
  const wanted: SdkDefinition[] = [...types.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, type]) => {
      const [applicationId, name] = key.split('\u0000');
      return { applicationId, name, type };
    });
  type Defined = { application_id: string; name: string; type: string };
  const take = (rows: readonly Defined[]) => {
    for (const row of rows) types.set(nameKey(row.application_id, row.name), row.type as AttributeType);
  };
  let unread = wanted;
  if (dialect === 'postgres') {
    const stored = await withRows<Defined>(
      db,
      dialect,
      DEFINITION_COLUMNS,
      definitionRows(wanted, at),
      `, defined AS (INSERT INTO attribute_definitions (${columnList(DEFINITION_COLUMNS)}) SELECT * FROM v ${DEFINE_SDK_ATTRIBUTES} RETURNING application_id, name, type) SELECT application_id, name, type FROM defined UNION ALL ${READ_DEFINITIONS}`,
    );
    take(stored);
    const found = new Set(stored.map((row) => nameKey(row.application_id, row.name)));
    unread = wanted.filter(({ applicationId, name }) => !found.has(nameKey(applicationId, name)));
    if (unread.length === 0) return;
  } else await defineSdkAttributes(db, dialect, wanted, at);
  take(await withRows<Defined>(db, dialect, NAME_COLUMNS, unread.map(({ applicationId, name }) => [applicationId, name]), READ_DEFINITIONS));
}

const REMOVED_COLUMNS: Column[] = [
  { name: 'player_id', type: 'bigint' },
  { name: 'name', type: 'text' },
];

/**
 * Attribute values, in two steps: a name seen for the first time gets its definition now (source 'sdk', type
 * from `inferValueType`: `.date` names are dates), since the type decides how values are stored; the statements
 * returned write the values, for the caller to run with its other writes. A write older than the stored value
 * (a late retry) does not overwrite it. `mapped` (PostgreSQL): some players are named by `unseenPlayers`' refs,
 * their ids given by the statement's `pm`.
 */
export async function attributeStatements(db: Kysely<Database>, dialect: Dialect, writes: readonly AttributeWrite[], now: Date, mapped = false): Promise<Statement[]> {
  if (writes.length === 0) return [];
  const at = now.toISOString();
  // The last write of each player and name wins within the group.
  const latest = new Map<string, AttributeWrite>();
  for (const write of writes) {
    const key = `${write.playerId}\u0000${write.name}`;
    const seen = latest.get(key);
    if (!seen || seen.at <= write.at) latest.set(key, write);
  }
  const definitions = new Map<string, AttributeType>();
  for (const write of latest.values()) {
    const key = nameKey(write.applicationId, write.name);
    if (!definitions.has(key) && write.value !== null) definitions.set(key, inferValueType(write.name, write.value));
  }
  if (definitions.size > 0) await takeStoredTypes(db, dialect, definitions, at);

  const removed: Row[] = [];
  const upserts: Row[] = [];
  for (const write of [...latest.values()].sort((a, b) => a.playerId - b.playerId || (a.name < b.name ? -1 : 1))) {
    if (write.value === null) {
      removed.push([write.playerId, write.name]);
      continue;
    }
    const type = definitions.get(nameKey(write.applicationId, write.name)) ?? inferValueType(write.name, write.value);
    const stored = storedAttribute(type, write.value);
    upserts.push([write.playerId, write.applicationId, write.name, stored.value, stored.number_value, write.at]);
  }
  const upsert = 'ON CONFLICT (player_id, name) DO UPDATE SET value = excluded.value, number_value = excluded.number_value, updated_at = excluded.updated_at WHERE player_attributes.updated_at <= excluded.updated_at';
  if (mapped) {
    // The ids of unseenPlayers' refs through pm; the key also among the players pm found, for the index (as the
    // players' mapped UPDATE). A player pm creates has no attribute to remove yet.
    return [
      ...withRowsStatements(
        dialect,
        REMOVED_COLUMNS,
        removed,
        `DELETE FROM player_attributes WHERE (player_id, name) IN (SELECT COALESCE(pm.id, v.player_id), v.name FROM v LEFT JOIN pm ON pm.ref = v.player_id)${keyInParameter(dialect, REMOVED_COLUMNS, 'player_id', 'player_id', FOUND_IDS)}`,
      ),
      ...withRowsStatements(
        dialect,
        ATTRIBUTE_COLUMNS,
        upserts,
        `INSERT INTO player_attributes (${columnList(ATTRIBUTE_COLUMNS)}) SELECT COALESCE(pm.id, v.player_id), v.application_id, v.name, v.value, v.number_value, v.updated_at FROM v LEFT JOIN pm ON pm.ref = v.player_id ORDER BY 1, v.name ${upsert}`,
      ),
    ];
  }
  return [
    ...withRowsStatements(
      dialect,
      REMOVED_COLUMNS,
      removed,
      // A row-value IN, not EXISTS: SQLite then looks each pair up in the primary key instead of scanning the table.
      `DELETE FROM player_attributes WHERE (player_id, name) IN (SELECT player_id, name FROM v)${keyInParameter(dialect, REMOVED_COLUMNS, 'player_id', 'player_id')}`,
    ),
    ...insertStatements(dialect, 'player_attributes', ATTRIBUTE_COLUMNS, upserts, upsert),
  ];
}

/** A player_attributes row's columns, as ingestion and the seed write them. */
export const ATTRIBUTE_COLUMNS: Column[] = [
  { name: 'player_id', type: 'bigint' },
  { name: 'application_id', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'value', type: 'text' },
  { name: 'number_value', type: 'double precision' },
  { name: 'updated_at', type: 'text' },
];
