import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import {
  BUILTIN_EVENTS,
  inferValueType,
  type AttributeType,
  type DeviceInfo,
  type Identity,
  type ScalarValue,
  type TrackItem,
  type Utm,
} from '../../shared/contract/audience';
import { epochMs, normalizeEmail } from '../../shared/validation';
import { internationalNumber } from '../../shared/validation/phone';
import { dayAtOffset, zoneOffsetAt } from '../../shared/format';
import type { Services } from '../context';
import type { DatabaseConfig } from '../config';
import type { Dialect } from '../db';
import type { Database } from '../db/schema';
import { AppError } from '../errors';
import { GroupCommit, type GroupCommitOptions } from './ingest-queue';
import type { ThreadAnswer, ThreadRequest } from './ingest-thread';
import { columnList, combinedWrites, earlier, insertRows, insertStatements, joinedStatements, later, rowSource, runStatements, runWrites, withRowsStatements, type Column, type Row, type Statement } from '../db/rows';
import {
  attributeStatements,
  ensurePlayers,
  mergeDevice,
  playerDaysStatements,
  PLAYER_DAY_COLUMNS,
  PLAYER_DAY_SEEN,
  PLAYER_DAYS_MERGE,
  playerKey,
  updatePlayersStatements,
  type AttributeWrite,
  type PlayerDay,
  type PlayerRef,
  type PlayerWrite,
  unseenPlayers,
  type UnseenPlayer,
} from './players-write';

/*
 * Ingestion of what devices report (the storefront SDK's batches, the REST device API): requests validate,
 * normalise and hand their items to the process's group-commit queue; the flusher writes every queued batch
 * at once, all or nothing (events, daily activity, event definitions, attributes, the players' fields: one
 * transaction on SQLite, one statement on PostgreSQL; see `writeBatches`), and only then
 * are the requests answered. Sessions, page views and scroll depths are stored as events too (`session_start`,
 * `page_view`, `scroll_depth`): their client ids make a retried batch count nothing twice, and segments can
 * test them like any event.
 */

/** Client clocks are not trusted beyond this: older items are taken as a week old, future ones as now + 5 min. */
export const MAX_PAST_MS = 7 * 24 * 3600_000;
export const MAX_FUTURE_MS = 5 * 60_000;

/** One normalised item: an event row to store (sessions and page views included), attributes, or identity. */
export type IngestItem =
  | {
      kind: 'event';
      /** What it counts as on the player and its day besides an event row (any event makes the day an active one). */
      counts: 'session' | 'page' | 'none';
      clientId: string;
      name: string;
      properties: Record<string, ScalarValue> | null;
      sessionId: string | null;
      /** ISO, clamped. */
      at: string;
      utm?: Utm;
    }
  | { kind: 'set'; attributes: Record<string, ScalarValue>; at: string }
  | { kind: 'identify'; identity: Identity; at: string };

/** Everything one request brings for one device. */
export interface IngestBatch {
  applicationId: string;
  deviceId: string;
  device?: DeviceInfo;
  items: IngestItem[];
  /** Activity without items (a device registering): when it was seen, ISO. */
  seenAt?: string;
  /** The application's timezone (minutes east of UTC): the day its activity counts on (player_days). */
  utcOffset: number;
}

export interface IngestResult {
  playerId: number;
  /** True when this write created the player. */
  created: boolean;
  /** Event rows newly stored (retried ones are not counted). */
  stored: number;
}

/**
 * The item's time: the client's epoch time clamped to [now - 7 days, now + 5 minutes]; nonsense is now. Milliseconds,
 * or seconds when 10 digits or fewer (shared/validation's epochMs): an app sending seconds would otherwise have every
 * event taken as 1970 and stored a week old.
 */
export function clampAt(at: number | undefined, now: Date): string {
  const nowMs = now.getTime();
  if (typeof at !== 'number' || !Number.isFinite(at)) return now.toISOString();
  return new Date(Math.min(nowMs + MAX_FUTURE_MS, Math.max(nowMs - MAX_PAST_MS, Math.round(epochMs(at))))).toISOString();
}

const compact = <T extends Record<string, unknown>>(value: T): Record<string, ScalarValue> => {
  const out: Record<string, ScalarValue> = {};
  for (const [name, field] of Object.entries(value)) if (field !== undefined && field !== '') out[name] = field as ScalarValue;
  return out;
};

/**
 * An identity as players keep it: the email in lower case, the mobile number in its international form, a national
 * one read in the application's country for phone numbers (shared/validation/phone.ts).
 */
function storedIdentity(identity: Identity, phoneCountry: string): Identity {
  const { email, mobile_number } = identity;
  return {
    ...identity,
    ...(email ? { email: normalizeEmail(email) } : {}),
    ...(mobile_number ? { mobile_number: internationalNumber(mobile_number, phoneCountry) } : {}),
  };
}

/** The SDK's items (checked by their contract, TrackItem) as ingestion items; identity in its stored form (storedIdentity). */
export function fromTrackItems(items: readonly TrackItem[], now: Date, phoneCountry: string): IngestItem[] {
  return items.map((item): IngestItem => {
    const at = clampAt(item.at, now);
    switch (item.type) {
      case 'session':
        return {
          kind: 'event',
          counts: 'session',
          clientId: item.id,
          name: BUILTIN_EVENTS.session,
          properties: compact({ referrer: item.referrer, ...item.utm }),
          sessionId: item.session_id,
          at,
          utm: item.utm,
        };
      case 'page':
        return { kind: 'event', counts: 'page', clientId: item.id, name: BUILTIN_EVENTS.page, properties: compact({ url: item.url, title: item.title }), sessionId: item.session_id, at };
      case 'scroll':
        return { kind: 'event', counts: 'none', clientId: item.id, name: BUILTIN_EVENTS.scroll, properties: { url: item.url, depth: item.depth }, sessionId: item.session_id, at };
      case 'event':
        return { kind: 'event', counts: 'none', clientId: item.id, name: item.name, properties: item.properties ?? null, sessionId: item.session_id ?? null, at };
      case 'set':
        return { kind: 'set', attributes: item.attributes, at };
      case 'identify':
        return { kind: 'identify', identity: storedIdentity(item.identity, phoneCountry), at };
    }
  });
}

/** How many items a batch weighs in the queue. */
export const weighBatch = (batch: IngestBatch) => batch.items.length || 1;

/** The columns an event row is written with (ingestion here, the seed in scripts/seed-lib.ts). */
export const EVENT_COLUMNS = [
  { name: 'application_id', type: 'text' },
  { name: 'player_id', type: 'bigint' },
  { name: 'name', type: 'text' },
  { name: 'properties', type: 'text' },
  { name: 'client_event_id', type: 'text' },
  { name: 'session_id', type: 'text' },
  { name: 'occurred_at', type: 'text' },
  { name: 'received_at', type: 'text' },
] as const;

/** An event name's counts and property types, as one batch (or a seed) adds them to event_definitions. */
export interface Definition {
  applicationId: string;
  name: string;
  count: number;
  first: string;
  last: string;
  properties: Record<string, AttributeType>;
}

/** An event of the group, its client id's first occurrence there: the batch it came in and its player. */
interface GroupEvent {
  batch: number;
  applicationId: string;
  playerId: number;
  item: Extract<IngestItem, { kind: 'event' }>;
  /** The day it counts on in the application's timezone. */
  day: string;
}

const eventKey = (applicationId: string, clientId: string) => `${applicationId}\u0000${clientId}`;
/** An event name's entry in the group's definitions. */
const definitionKey = (applicationId: string, name: string) => `${applicationId}\u0000${name}`;

/**
 * Writes batches in the given database. Players first (created when new), then the event rows (ON CONFLICT DO
 * NOTHING on the client ids), the counters from the rows that were really new (sessions, page views, per-day
 * activity, event counts), the players' fields and the attributes. Attributes and identity apply in item order,
 * the last value winning.
 *
 * What does not depend on whether an event is new is taken from every event of the group: a player's first and
 * last session and landing UTM, a name's first and last time and property types. An event already stored brought
 * them when it was stored, and they only move outward or fill what is empty, so bringing them again changes
 * nothing. Only the counts must come from the new rows.
 *
 * SQLite: in the caller's transaction, the counts are made here from the rows the INSERT returned. PostgreSQL:
 * the counts are made by the database, from the INSERT's RETURNING, in the same statement as every other write
 * of the group (`combinedWrites`), and no transaction around it: it is all or nothing by itself. Most groups are
 * that one statement: a device whose player is in `known` (the process's recent writes) is named by that id when it
 * brings an event, and any other has its player found or created by the statement itself (`writeGroup`). Only
 * when another process created one of those players meanwhile is the group written again the way it was before
 * 2026-12-03: its players found or created by a statement before the rest (`ensurePlayers`).
 *
 * Measured with PostgreSQL one millisecond away each way (a delaying proxy in front of it, on the two cores of
 * 2026-12-03, two rounds each way alternating): single-event requests from new devices, closed loop, 2,780–2,852
 * requests/s against 1,864–2,106 with the players' statement before; at 4,000 such requests/s (a new device every
 * eighth) a median latency of 16 ms against 174–224 ms, the old way falling behind; batches of 10 at 1,000/s, 14 ms
 * against 27–28 ms at the median and 37–46 against 70–87 ms at the 99th percentile. In the benchmark's run with
 * PostgreSQL at that distance (tests/bench/ingest.ts benchRemote), two runs each way: a smaller gain, medians
 * 14–18 against 23–27 ms (single events) and 17–21 against 26–30 ms (batches). With PostgreSQL on the same
 * machine the two ways did alike (the round trip costs little there, and creating a player costs the same).
 */
export async function writeBatches(
  db: Kysely<Database>,
  dialect: Dialect,
  batches: readonly IngestBatch[],
  now: Date,
  known?: KnownPlayers,
): Promise<IngestResult[]> {
  if (dialect !== 'postgres') return writeGroup(db, dialect, batches, now, known, false);
  try {
    return await writeGroup(db, dialect, batches, now, known, true);
  } catch (error) {
    if (!(error instanceof CreatedElsewhere)) throw error;
    return writeGroup(db, dialect, batches, now, known, false);
  }
}

/**
 * A player the group's statement was to create was created by another process meanwhile (see unseenPlayers in
 * ./players-write.ts): the group is written again, its players looked up first.
 */
class CreatedElsewhere extends Error {
  constructor(cause?: unknown) {
    super('a player of the group was created by another process meanwhile', { cause });
    this.name = 'CreatedElsewhere';
  }
}

/** PostgreSQL's foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = '23503';

/**
 * `writeBatches`. `createInStatement` (PostgreSQL): the players of devices not named by `known` are found or created
 * by the statement that writes the group (unseenPlayers), not by a round trip of their own before it. Under load
 * nearly every group has a new device (a shop's new visitors), and an app's device registering again brings no
 * event, so `known` does not name it. Without it (SQLite, and the group written again): `ensurePlayers` first.
 */
async function writeGroup(
  db: Kysely<Database>,
  dialect: Dialect,
  batches: readonly IngestBatch[],
  now: Date,
  known: KnownPlayers | undefined,
  createInStatement: boolean,
): Promise<IngestResult[]> {
  const received = now.toISOString();
  // 1. One write per device, with device facts and identity merged in arrival order.
  const players = new Map<string, PlayerWrite>();
  const withEvents = new Set<string>();
  for (const batch of batches) {
    const key = playerKey(batch.applicationId, batch.deviceId);
    const write = players.get(key) ?? { applicationId: batch.applicationId, deviceId: batch.deviceId };
    write.device = mergeDevice(write.device, batch.device);
    if (batch.seenAt && (!write.seenAt || batch.seenAt > write.seenAt)) write.seenAt = batch.seenAt;
    for (const item of batch.items) {
      if (!write.seenAt || item.at > write.seenAt) write.seenAt = item.at;
      if (item.kind === 'identify') write.identity = mergeDevice(write.identity, item.identity);
      if (item.kind === 'event') withEvents.add(key);
    }
    players.set(key, write);
  }
  // Devices whose player this process wrote lately skip the lookup, when they bring an event: its row's foreign
  // key then proves the player is still there (see KnownPlayers).
  const refs = new Map<string, PlayerRef>();
  const unknown: PlayerWrite[] = [];
  const unseen: UnseenPlayer[] = [];
  for (const [key, write] of players) {
    const id = withEvents.has(key) ? known?.get(key) : undefined;
    if (id !== undefined) refs.set(key, { id, created: false });
    else if (createInStatement) {
      // Named by its ref until the statement gives its id.
      const ref = -(unseen.length + 1);
      unseen.push({ ref, write });
      refs.set(key, { id: ref, created: false });
    } else unknown.push(write);
  }
  if (unknown.length > 0) for (const [key, ref] of await ensurePlayers(db, dialect, unknown, now)) refs.set(key, ref);
  const refOf = (batch: IngestBatch) => {
    const ref = refs.get(playerKey(batch.applicationId, batch.deviceId));
    if (!ref) throw new Error('player missing after ensurePlayers');
    return ref;
  };

  // 2. The events (a client id twice in the group counts once, the first time), attributes, and what does not
  // depend on an event being new.
  const events: GroupEvent[] = [];
  const seen = new Set<string>();
  const definitions = new Map<string, Definition>();
  const attributes: AttributeWrite[] = [];
  batches.forEach((batch, index) => {
    const playerId = refOf(batch).id;
    const write = players.get(playerKey(batch.applicationId, batch.deviceId)) as PlayerWrite;
    for (const item of batch.items) {
      if (item.kind === 'set') {
        for (const [name, value] of Object.entries(item.attributes)) attributes.push({ applicationId: batch.applicationId, playerId, name, value, at: item.at });
        continue;
      }
      if (item.kind !== 'event') continue;
      const key = eventKey(batch.applicationId, item.clientId);
      if (seen.has(key)) continue;
      seen.add(key);
      events.push({ batch: index, applicationId: batch.applicationId, playerId, item, day: dayAtOffset(item.at, batch.utcOffset) });
      if (item.counts === 'session') {
        const sessions = (write.sessions ??= { count: 0, first: item.at, last: item.at });
        if (item.at < sessions.first) sessions.first = item.at;
        if (item.at > sessions.last) sessions.last = item.at;
        // The landing UTM of the earliest session that has one.
        if (item.utm && Object.values(item.utm).some(Boolean) && (!write.utm || item.at <= sessions.first)) write.utm = item.utm;
      }
      const entry = definitionKey(batch.applicationId, item.name);
      let definition = definitions.get(entry);
      if (!definition) {
        definition = { applicationId: batch.applicationId, name: item.name, count: 0, first: item.at, last: item.at, properties: {} };
        definitions.set(entry, definition);
      }
      if (item.at < definition.first) definition.first = item.at;
      if (item.at > definition.last) definition.last = item.at;
      for (const [name, value] of Object.entries(item.properties ?? {})) {
        if (value !== null && !(name in definition.properties)) definition.properties[name] = inferValueType(name, value);
      }
    }
  });
  const updates = [...players.entries()].map(([key, write]) => ({ ...write, id: (refs.get(key) as PlayerRef).id }));

  // 3. The event rows, the counters from the new ones, and the rest.
  const rows: Row[] = events.map(({ applicationId, playerId, item, day }) => [
    applicationId,
    playerId,
    item.name,
    item.properties ? JSON.stringify(item.properties) : null,
    item.clientId,
    item.sessionId,
    item.at,
    received,
    item.counts,
    day,
  ]);
  let fresh: Set<string>;
  if (dialect === 'postgres') {
    const written = await writeCountedPostgres(db, rows, updates, attributes, [...definitions.values()], unseen, now);
    fresh = written.fresh;
    // The unseen players' ids, as the statement found or made them.
    const byRef = new Map<number, PlayerRef>();
    for (const { ref, id, created } of written.players) byRef.set(ref, { id, created });
    for (const [key, ref] of refs) if (ref.id < 0) refs.set(key, byRef.get(ref.id) as PlayerRef);
  } else fresh = await writeCountedSqlite(db, rows, events, updates, attributes, definitions, now);

  const stored = batches.map(() => 0);
  for (const event of events) if (fresh.has(eventKey(event.applicationId, event.item.clientId))) stored[event.batch] += 1;
  return batches.map((batch, index) => ({ playerId: refOf(batch).id, created: refOf(batch).created, stored: stored[index] }));
}

/**
 * The group's event rows: the events' columns, then what each adds up to when new (IngestItem's `counts`) and
 * the day it adds to (GroupEvent's `day`).
 */
const EVENT_ROW_COLUMNS = [...EVENT_COLUMNS, { name: 'counts', type: 'text' }, { name: 'day', type: 'text' }] as const;
const INSERT_EVENTS = `INSERT INTO events (${columnList(EVENT_COLUMNS)})`;
const EVENTS_RETURNING = 'ON CONFLICT (application_id, client_event_id) DO NOTHING RETURNING application_id, client_event_id';

/** SQLite, in the caller's transaction: the rows, then the counters from those the INSERT returned. */
async function writeCountedSqlite(
  db: Kysely<Database>,
  rows: Row[],
  events: readonly GroupEvent[],
  updates: (PlayerWrite & { id: number })[],
  attributes: AttributeWrite[],
  definitions: Map<string, Definition>,
  now: Date,
): Promise<Set<string>> {
  const inserted = await insertRows<{ application_id: string; client_event_id: string }>(
    db,
    'sqlite',
    'events',
    // The rows' last values, `counts` and `day`, are not columns of events: left out.
    EVENT_COLUMNS,
    rows,
    EVENTS_RETURNING,
  );
  const fresh = new Set(inserted.map((row) => eventKey(row.application_id, row.client_event_id)));
  const byPlayer = new Map(updates.map((update) => [update.id, update]));
  const days: PlayerDay[] = [];
  for (const { applicationId, playerId, item, day: dayOf } of events) {
    if (!fresh.has(eventKey(applicationId, item.clientId))) continue;
    const write = byPlayer.get(playerId) as PlayerWrite;
    const day: PlayerDay = { applicationId, playerId, day: dayOf, sessions: 0, pageViews: 0 };
    if (item.counts === 'session') {
      (write.sessions as { count: number }).count += 1;
      day.sessions = 1;
    } else if (item.counts === 'page') {
      write.pageViews = (write.pageViews ?? 0) + 1;
      day.pageViews = 1;
    }
    days.push(day);
    (definitions.get(definitionKey(applicationId, item.name)) as Definition).count += 1;
  }
  await runWrites(db, 'sqlite', [
    ...updatePlayersStatements('sqlite', updates, now),
    ...playerDaysStatements('sqlite', days),
    ...(await attributeStatements(db, 'sqlite', attributes, now)),
    ...eventDefinitionStatements(
      'sqlite',
      [...definitions.values()].filter((definition) => definition.count > 0),
    ),
  ]);
  return fresh;
}

/**
 * PostgreSQL: ONE statement. The rows go in through `ins`; `fresh` is those it returned (the new ones), `days`
 * their sessions and page views per player and day, `counted` those added up per player; the players UPDATE, the
 * days and the event definitions count from them, beside the attributes. Every data-modifying CTE runs to
 * completion on the same snapshot.
 */
async function writeCountedPostgres(
  db: Kysely<Database>,
  rows: Row[],
  updates: (PlayerWrite & { id: number })[],
  attributes: AttributeWrite[],
  definitions: Definition[],
  unseen: readonly UnseenPlayer[],
  now: Date,
): Promise<{ fresh: Set<string>; players: { ref: number; id: number; created: boolean }[] }> {
  // Defining attributes seen for the first time is a statement of its own (their type decides how values are stored).
  const attributeWrites = await attributeStatements(db, 'postgres', attributes, now, unseen.length > 0);
  const source = rowSource('postgres', EVENT_ROW_COLUMNS, rows);
  const counting = [
    `ins AS (${INSERT_EVENTS} SELECT ${columnList(EVENT_COLUMNS)} FROM e ${EVENTS_RETURNING})`,
    'fresh AS (SELECT e.* FROM e JOIN ins USING (application_id, client_event_id))',
    "days AS (SELECT application_id, day, player_id, count(*) FILTER (WHERE counts = 'session') AS sessions, count(*) FILTER (WHERE counts = 'page') AS page_views FROM fresh GROUP BY application_id, day, player_id)",
    'counted AS (SELECT player_id, sum(sessions)::integer AS sessions, sum(page_views)::integer AS page_views FROM days GROUP BY player_id)',
  ].join(', ');
  const created = unseen.length > 0 ? unseenPlayers(unseen, now) : null;
  // With unseen players, the rows name them by ref: e has their ids from pm, in the rows' order (the order the
  // events' ids are given in; a join alone would not keep it).
  const mappedColumns = EVENT_ROW_COLUMNS.map(({ name }) => (name === 'player_id' ? 'COALESCE(pm.id, r.player_id) AS player_id' : `r.${name}`));
  const before: Statement = created
    ? joinedStatements([
        created.lookup,
        {
          sql: `e AS (SELECT ${mappedColumns.join(', ')} FROM ${source.sql} WITH ORDINALITY AS r(${columnList(EVENT_ROW_COLUMNS)}, n) LEFT JOIN pm ON pm.ref = r.player_id ORDER BY r.n), ${counting}, ${created.create('counted')}`,
          params: source.params,
        },
      ])
    : { sql: `e AS (SELECT * FROM ${source.sql} AS e(${columnList(EVENT_ROW_COLUMNS)})), ${counting}`, params: source.params };
  const writes = [
    ...updatePlayersStatements('postgres', updates, now, 'counted', created !== null),
    ...(rows.length > 0 ? PLAYER_DAYS_FROM_FRESH : []),
    ...attributeWrites,
    ...eventDefinitionStatements('postgres', definitions, 'fresh'),
  ];
  type Answer = { application_id: string | null; client_event_id: string | null; ref: string | null; id: string | null; created: boolean | null; returned: boolean | null };
  let answer: Answer[];
  try {
    answer = await runStatements<Answer>(db, [
      combinedWrites(
        writes,
        before,
        created
          ? 'SELECT application_id, client_event_id, NULL::bigint AS ref, NULL::bigint AS id, NULL::boolean AS created, NULL::boolean AS returned FROM ins UNION ALL SELECT NULL, NULL, pm.ref, pm.id, pm.created, np.id IS NOT NULL FROM pm LEFT JOIN np ON np.id = pm.id'
          : 'SELECT application_id, client_event_id FROM ins',
      ),
    ]);
  } catch (error) {
    if (created && (error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) throw new CreatedElsewhere(error);
    throw error;
  }
  const fresh = new Set<string>();
  const players: { ref: number; id: number; created: boolean }[] = [];
  for (const row of answer) {
    if (row.ref === null || row.ref === undefined) fresh.add(eventKey(row.application_id as string, row.client_event_id as string));
    else if (row.created && !row.returned) throw new CreatedElsewhere();
    else players.push({ ref: Number(row.ref), id: Number(row.id), created: Boolean(row.created) });
  }
  return { fresh, players };
}

/**
 * PostgreSQL: the new rows' activity added to their players' days (`days`: each row's `day`, in its application's
 * timezone), the days with sessions or page views added to, the others written only when not there yet (as
 * playerDaysStatements).
 */
const PLAYER_DAYS_FROM_FRESH: Statement[] = [
  { sql: `INSERT INTO player_days (${columnList(PLAYER_DAY_COLUMNS)}) SELECT * FROM days WHERE sessions + page_views > 0 ORDER BY player_id, day ${PLAYER_DAYS_MERGE}`, params: [] },
  { sql: `INSERT INTO player_days (${columnList(PLAYER_DAY_COLUMNS)}) SELECT * FROM days WHERE sessions + page_views = 0 ORDER BY player_id, day ${PLAYER_DAY_SEEN}`, params: [] },
];

/**
 * Adds counts to event_definitions and merges property types, one statement for all the names: a property type
 * already known keeps its type (the first one seen wins).
 */
export async function upsertEventDefinitions(db: Kysely<Database>, dialect: Dialect, definitions: Definition[]): Promise<void> {
  await runWrites(db, dialect, eventDefinitionStatements(dialect, definitions));
}

const DEFINITION_COLUMNS: Column[] = [
  { name: 'application_id', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'first_seen_at', type: 'text' },
  { name: 'last_seen_at', type: 'text' },
  { name: 'properties', type: 'text' },
  { name: 'count', type: 'bigint' },
];

/**
 * The event_definitions upsert, in name order: the rows are shared by every write of the application, those of
 * other processes too, which lock them in the same order. `fresh` (PostgreSQL): the relation of the statement
 * around whose rows give the counts; only the names it has are written.
 */
function eventDefinitionStatements(dialect: Dialect, definitions: Definition[], fresh?: string): Statement[] {
  if (definitions.length === 0) return [];
  const merge =
    dialect === 'postgres'
      ? '(excluded.properties::jsonb || event_definitions.properties::jsonb)::text'
      : 'json_patch(excluded.properties, event_definitions.properties)';
  const tail = `ON CONFLICT (application_id, name) DO UPDATE SET count = event_definitions.count + excluded.count, first_seen_at = ${earlier('event_definitions.first_seen_at', 'excluded.first_seen_at')}, last_seen_at = ${later('event_definitions.last_seen_at', 'excluded.last_seen_at')}, properties = CASE WHEN excluded.properties = '{}' THEN event_definitions.properties ELSE ${merge} END`;
  const rows: Row[] = definitions
    .sort((a, b) => (a.applicationId + a.name < b.applicationId + b.name ? -1 : 1))
    .map((definition) => [definition.applicationId, definition.name, definition.first, definition.last, JSON.stringify(definition.properties), definition.count]);
  const columns = columnList(DEFINITION_COLUMNS);
  if (!fresh) return insertStatements(dialect, 'event_definitions', DEFINITION_COLUMNS, rows, tail);
  return withRowsStatements(
    dialect,
    // Without the count, the last value of each row: the new rows give it.
    DEFINITION_COLUMNS.slice(0, -1),
    rows,
    `INSERT INTO event_definitions (${columns}) SELECT v.application_id, v.name, v.first_seen_at, v.last_seen_at, v.properties, n.count FROM v JOIN (SELECT application_id, name, count(*) AS count FROM ${fresh} GROUP BY application_id, name) n ON n.application_id = v.application_id AND n.name = v.name ORDER BY v.application_id, v.name ${tail}`,
  );
}

/**
 * Queue sizes. A write starts as soon as the event loop has read what is waiting (flushDelayMs 0): a fixed
 * delay only adds latency, since whatever arrives during a write joins the next one anyway (a 4 ms delay
 * cost a third of the throughput in the benchmark). One write takes at most 2,000 items, so a SQLite write,
 * which holds the event loop, stays short; at most 50,000 items wait in memory, and none is taken while the
 * oldest queued one has waited a second: 503, and the client comes back later (see GroupCommit). A second is forty
 * times the 25 ms asked of a request at the target rates, and a fraction of it covers a slow write (a checkpoint,
 * a lock wait), so only a server taking more than it can write refuses.
 */
export const INGEST_QUEUE = { flushItems: 1_000, flushDelayMs: 0, maxFlushItems: 2_000, maxPendingItems: 50_000, maxWaitMs: 1_000 };

/**
 * Ingestion's one group commit (per app instance) and, on PostgreSQL, the thread that writes its groups: one write
 * at a time, so a device's batches are written in the order they came (on PostgreSQL the thread writes the groups
 * handed over in the order they came, see WRITER_THREAD_GROUPS).
 *
 * On PostgreSQL the groups were written in two lanes until 2026-12-03 (a device always in the same one, by a hash of
 * its key), which overlapped one group's round trips with another's while the writes ran on the event loop (+16–33%
 * then, on two cores). Since the writes moved to the writer thread and ingestion's sessions keep generic plans
 * (server/db/index.ts INGESTION_SESSION), one writer does better: its groups are bigger, and much of what a group
 * costs PostgreSQL is the group's, not its rows'. Measured on two cores at the target rates, the same load
 * against a scratch server, alternating, three rounds each way: a group's write 1.8–1.9 ms at the median against
 * 2.2–2.7 ms; PostgreSQL's CPU 267 µs per batch of 10 against 340, and 44–58 µs per single-event request against
 * 54–67 (five rounds of six); the requests' median latency 4.4 ms against 6.2 (single events) and 4.0 against 5.1
 * (batches), their 99th percentiles within the runs' noise (13–31 ms against 14–32). tests/bench/ingest.ts
 * postgres, four runs with one writer: 28,822–29,872 events/s in batches and 9,338–9,776 single requests/s (four
 * with two that day: 31,017–31,888 and 8,892–9,315).
 */
class Ingestion {
  constructor(
    private readonly queue: GroupCommit<IngestBatch, IngestResult>,
    private readonly thread: WriterThread | null,
  ) {}

  submit(batch: IngestBatch): Promise<IngestResult> {
    return this.queue.submit(batch);
  }

  async warm(): Promise<void> {
    await this.thread?.warm();
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.thread?.close();
  }
}

const queues = new WeakMap<Services, Ingestion>();

/** The process's ingestion queue for these services (one per app instance); `options` only on first use. */
export function ingestQueue(s: Services, options: Partial<Omit<GroupCommitOptions<IngestBatch, IngestResult>, 'write' | 'weigh'>> = {}) {
  let queue = queues.get(s);
  if (!queue) {
    const config = s.config.database;
    const thread = s.dialect === 'postgres' && config.kind === 'postgres' ? new WriterThread(config) : null;
    const write = thread ? (batches: IngestBatch[]) => thread.write(batches, s.clock()) : writeOnEventLoop(s);
    const maxWrites = thread ? WRITER_THREAD_GROUPS : 1;
    queue = new Ingestion(new GroupCommit<IngestBatch, IngestResult>({ ...INGEST_QUEUE, maxWrites, ...options, weigh: weighBatch, write }), thread);
    queues.set(s, queue);
  }
  return queue;
}

/** SQLite: each group in one transaction on the event loop, its players remembered here (the PostgreSQL thread keeps its own). */
function writeOnEventLoop(s: Services): (batches: IngestBatch[]) => Promise<IngestResult[]> {
  const known = new KnownPlayers();
  return (batches) => writeRemembering(known, batches, (ids) => s.db.transaction().execute((trx) => writeBatches(trx, s.dialect, batches, s.clock(), ids)));
}

/** Hands a batch to the queue; resolves once it is stored. QueueFullError when the queue is full. */
export function ingest(s: Services, batch: IngestBatch): Promise<IngestResult> {
  const device = batch.device && withZoneOffset(batch.device, s.clock);
  // A batch is copied only when its device was given an offset (never the storefront SDK's: it sends one).
  return ingestQueue(s).submit(device === batch.device ? batch : { ...batch, device });
}

/**
 * A device that names its timezone (IANA, as iOS and Android report it) but not its offset is given the offset
 * that zone has now: local-time messages go by the offset (spec §9), and without one the player would get them at
 * the application's hour. An offset the device sends is kept as sent. The device API refuses a name this server
 * does not know (DeviceRegister); a storefront batch may bring one, which gives no offset (the name is kept), but
 * the storefront SDK sends the browser's offset beside the name, so its batches skip this.
 */
function withZoneOffset(device: DeviceInfo, clock: () => Date): DeviceInfo {
  if (!device.timezone || device.timezone_offset !== undefined) return device;
  const offset = zoneOffsetAt(device.timezone, clock().getTime());
  return offset === null ? device : { ...device, timezone_offset: offset };
}

/**
 * The player ids of devices this process wrote lately, so that a returning device's batch skips the players
 * lookup: on PostgreSQL that lookup was a round trip of its own, and a group's round trips, not the database's
 * work, bound single-event requests (in the ingestion benchmark on two cores: two per group, 4,000–4,700 req/s;
 * one, 5,400–6,500). Since the statement storing the events can find a device's player itself (writeGroup), a
 * known id saves that lookup there.
 *
 * An id is taken from here only for a device whose batch brings an event. A player deleted meanwhile (in the
 * console, by another process, with its application) then fails the event row's foreign key, so the group's
 * write fails as a whole and nothing of it is stored; its devices are forgotten and the group is written again,
 * looking every player up, which recreates the deleted one (writeRemembering). Without an event nothing would fail,
 * and an update would vanish into a deleted row: those batches always look their player up (on PostgreSQL in the
 * statement that writes them, see writeGroup). One case slips
 * through: a batch whose every event id is another device's (a client reusing ids across devices) inserts no
 * row, so after such a deletion its fields go nowhere, as its events already did.
 * Bounded: past `max` ids the oldest go first.
 */
export class KnownPlayers {
  private readonly ids = new Map<string, number>();
  constructor(private readonly max = 100_000) {}

  get(key: string): number | undefined {
    return this.ids.get(key);
  }

  holdsAny(batches: readonly IngestBatch[]): boolean {
    return batches.some((batch) => this.ids.has(playerKey(batch.applicationId, batch.deviceId)));
  }

  /** After a write succeeded: its batches' players, as stored (a player recreated meanwhile replaces the old id). */
  remember(batches: readonly IngestBatch[], results: readonly IngestResult[]): void {
    batches.forEach((batch, index) => {
      const key = playerKey(batch.applicationId, batch.deviceId);
      if (!this.ids.has(key) && this.ids.size >= this.max) this.ids.delete(this.ids.keys().next().value as string);
      this.ids.set(key, results[index].playerId);
    });
  }

  /** After a write failed: one of its ids may be a deleted player's. */
  forget(batches: readonly IngestBatch[]): void {
    for (const batch of batches) this.ids.delete(playerKey(batch.applicationId, batch.deviceId));
  }
}

/**
 * Writes a group with `write` and keeps its players' ids for the next ones (see KnownPlayers): first with the ids
 * `known` holds, and if that fails while it held any of the group's, again looking every player up.
 */
export async function writeRemembering(
  known: KnownPlayers,
  batches: IngestBatch[],
  write: (ids?: KnownPlayers) => Promise<IngestResult[]>,
): Promise<IngestResult[]> {
  let results: IngestResult[];
  try {
    results = await write(known);
  } catch (error) {
    // An id taken from memory may be a deleted player's: forget the group's and write it again, looking every
    // player up. A failure then is the group's own (GroupCommit retries its batches one by one).
    if (!known.holdsAny(batches)) throw error;
    known.forget(batches);
    results = await write();
  }
  known.remember(batches, results);
  return results;
}

/**
 * PostgreSQL: the groups are written by a thread of the process (./ingest-thread.ts), not on its event loop.
 * Measured at the target rate of single-event requests (tests/bench/ingest.ts, two cores, 2026-11-27), building
 * a group's statements, pg's encoding of their arrays, the writes to PostgreSQL's socket and the reading of its
 * answers took two fifths of the event loop's busy time, and every answer of PostgreSQL then waited until the loop
 * had finished with the requests that arrived meanwhile: a group's two round trips took 2.5–3.5 ms at the median
 * and up to 25–35 ms, and the requests waiting on them made a 99th percentile of 37–48 ms. The thread hears
 * PostgreSQL at once, and the event loop is left with the HTTP side. What crosses over is the group's batches
 * (plain data, copied) and one result per batch; a failed write comes back as an Error with the original's name,
 * message and code. SQLite keeps writing on the event loop: its writes are in-process calls, cheaper than the
 * copies. Tried in this thread again on 2026-12-03 (a quiet two-core machine, tests/bench/ingest.ts sqlite, two runs
 * each way, alternating): single events 8,178–8,968 requests/s against 7,082–7,332, the event loop 75–82 µs per
 * request against 131–137, but the whole server 142–153 µs against 145–152, and the p99 at the target rates no
 * better within the noise (51 and 1,012 ms against 125 and 146 ms). Not adopted: a second connection writing the
 * file would also need every other transaction of the process to take SQLite's write lock when it begins (BEGIN
 * IMMEDIATE; a deferred one that read before another connection committed fails its first write with
 * SQLITE_BUSY_SNAPSHOT, which the busy timeout does not wait out), and the event loop would then wait on the thread's
 * groups for those.
 *
 * The thread starts with the first write (its modules load in about half a second), holds the process open only
 * while a write is under way, and is started again after it dies (its writes under way fail; their requests are
 * answered with an error and the clients retry them: event ids make a retry store nothing twice).
 */
export class WriterThread {
  /** The running thread and the writes sent to it, not yet answered; null until the first write and after it ends. */
  private current: { worker: Worker; calls: Map<number, Call> } | null = null;
  private nextId = 0;

  constructor(private readonly database: DatabaseConfig) {}

  write(batches: IngestBatch[], now: Date): Promise<IngestResult[]> {
    return this.call((id) => ({ id, batches: JSON.stringify(batches), now: now.getTime() }));
  }

  /** Starts the thread and opens a connection of its pool, so that the first write waits for neither. */
  async warm(): Promise<void> {
    await this.call((id) => ({ id, warm: true }));
  }

  private call(request: (id: number) => ThreadRequest): Promise<IngestResult[]> {
    const { worker, calls } = this.current ?? this.start();
    const id = (this.nextId += 1);
    if (calls.size === 0) worker.ref();
    return new Promise<IngestResult[]>((resolve, reject) => {
      calls.set(id, { resolve, reject });
      worker.postMessage(request(id));
    });
  }

  /** After the last write is answered (the queue is drained first): closes the thread's connections and the thread. */
  async close(): Promise<void> {
    if (!this.current) return;
    const { worker } = this.current;
    this.current = null;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage({ id: 0, close: true } satisfies ThreadRequest);
    const timer = setTimeout(() => void worker.terminate(), CLOSE_THREAD_MS);
    await exited;
    clearTimeout(timer);
  }

  private start(): { worker: Worker; calls: Map<number, Call> } {
    // The thread's module is TypeScript, like the server's: tsx's loader is registered in the thread first.
    const tsx = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
    const entry = new URL('./ingest-thread.ts', import.meta.url).href;
    // Its young generation is Node's default, not the event loop's (see WRITER_YOUNG_GENERATION_MB). V8's flags are
    // the process's and the flag wins over a thread's own limit, so it is cleared first; the event loop's heap was
    // sized by it when the process started and keeps that size.
    setFlagsFromString('--max-semi-space-size=0');
    const worker = new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`, {
      eval: true,
      workerData: { database: this.database },
      resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB },
    });
    worker.unref();
    // This thread's own writes: a thread that dies fails only those, never the ones of the thread started after it.
    const calls = new Map<number, Call>();
    const current = { worker, calls };
    worker.on('message', (answer: ThreadAnswer) => {
      const call = calls.get(answer.id);
      if (!call) return;
      calls.delete(answer.id);
      if (calls.size === 0) worker.unref();
      if ('results' in answer) call.resolve(answer.results);
      else call.reject(Object.assign(new Error(answer.error.message), { name: answer.error.name, code: answer.error.code }));
    });
    const fail = (error: Error) => {
      if (this.current === current) this.current = null;
      for (const call of calls.values()) call.reject(error);
      calls.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`ingestion writer thread stopped (exit code ${code})`)));
    this.current = current;
    return current;
  }
}

/**
 * How many of the event loop's groups may be with the writer thread at once. The thread writes one group at a time
 * and those handed over meanwhile together, as soon as it ends (./ingest-thread.ts THREAD_QUEUE). With one, the
 * thread waited after each write for the event loop to take the answer and hand the next group over: it was busy
 * 60% of the time at the rate of single-event requests the closed loop reached (its writes timed in the thread), and
 * that wait, not the CPU, set the pace. Measured 2026-12-07 (two cores, tests/bench/ingest.ts postgres with the
 * server's flags, 6 s runs, alternating, nine runs each way in three rounds): batches of 10 at 20,291–26,501 events/s
 * against 17,648–22,141; single-event requests at 6,605–8,981/s against 5,979–7,686; at the target rates the median
 * latency of batches 5.1–7.6 ms against 6.8–21.7 and of single events 5.8–13.3 against 6.5–11.9, the 99th
 * percentiles no worse (batches 23.8–61.8 ms against 33.9–77.2, single events 24.7–123.9 against 21.9–129.5: the
 * machine's noise). Two, without the thread writing the waiting groups together (each written alone, in turn), did
 * better in the closed loop but not at the target rates (99th percentiles 42.5–74.0 ms against 28.0–155.8, five runs
 * each). A device's batches in different groups with the thread at once were sent by its client before it had an
 * answer to either; a group that fails is written again batch by batch after the groups handed over behind it.
 */
const WRITER_THREAD_GROUPS = 8;

/** A write sent to the writer thread, waiting for its answer. */
interface Call {
  resolve(results: IngestResult[]): void;
  reject(error: Error): void;
}

/**
 * The writer thread's young generation, in MB: Node's default (two 16 MB semi-spaces and room for large objects),
 * not the 64 MB semi-spaces the server's flag gives its event loop (package.json config.server_node_flags; see
 * tests/bench/ingest.ts). The flag is for the event loop's pauses, which hold every request; the thread's pauses hold
 * only its group's write. With the flag the thread's young generation grew from 64 to 128 MB under load and its heap
 * from ~100 to ~200 MB: that was the process's memory growth in the ingestion benchmark on PostgreSQL (RssAnon
 * +72 to +122 MB over the runs, target ≤ 64). Measured 2026-12-07 (two cores, tests/bench/ingest.ts postgres with
 * the server's flags): RssAnon 328 → 317 and 331 → 357 MB in two runs with this, 319 → 302 MB in the full bench,
 * against 331 → 425 and 319 → 441 MB without. In a trial run that printed the thread's heap every 4 s (the thread
 * given the same young generation through the flag) its heap stayed at 66–107 MB, against 162–204 MB without. The
 * throughput could not be compared: the same code did 3,784 and 5,459 single-event requests/s in two runs that hour.
 */
const WRITER_YOUNG_GENERATION_MB = 48;

/** How long a closing writer thread may take to end its connections before it is stopped. */
const CLOSE_THREAD_MS = 5_000;

/**
 * Readies ingestion before the server takes requests (server/main.ts, before listening). On PostgreSQL the writer
 * thread otherwise starts with the first write: loading its modules and connecting took 0.6 s on a fast two-core
 * machine. A server restarted under load would hold every request of that moment, and where the start takes longer
 * than INGEST_QUEUE.maxWaitMs (a slower machine), refuse new ones (503) meanwhile. On SQLite there is nothing to ready.
 */
export async function warmIngest(s: Services): Promise<void> {
  await ingestQueue(s).warm();
}

/** Writes what is queued and stops taking more (the app's shutdown). */
export async function closeIngest(s: Services): Promise<void> {
  await queues.get(s)?.close();
}

// ---------------------------------------------------------------------------------------------------------
// Client keys

/** How long a known key is trusted without asking the database: a rotated or deleted key stops within it. */
const KEY_TTL_MS = 30_000;
const KEY_CACHE_MAX = 10_000;
const keyCaches = new WeakMap<Services, Map<string, KeyApplication & { until: number }>>();

/**
 * What ingestion needs of the application of a client key: its id, its timezone (minutes east of UTC) and the
 * country its players' national mobile numbers are read in (shared/validation/phone.ts).
 */
export interface KeyApplication {
  applicationId: string;
  utcOffset: number;
  phoneCountry: string;
}

/**
 * The application of a client key, cached in memory: ingestion cannot afford a lookup per request. Unknown
 * keys are not cached (each costs a lookup, and the per-address limit bounds them): NOT_FOUND, with a message
 * that says it is the key and where to find the right one (the storefront SDK stops sending on a 404, so the
 * message is what a developer sees in the browser's network panel). A changed timezone or country for phone numbers
 * reaches ingestion within the cache's life too.
 */
export async function applicationForKey(s: Services, key: string): Promise<KeyApplication> {
  let cache = keyCaches.get(s);
  if (!cache) keyCaches.set(s, (cache = new Map()));
  const nowMs = Date.now();
  const hit = cache.get(key);
  if (hit && hit.until > nowMs) return hit;
  const row = await s.db.selectFrom('applications').select(['application_id', 'utc_offset', 'phone_country']).where('client_key', '=', key).executeTakeFirst();
  if (!row) {
    cache.delete(key);
    throw new AppError('NOT_FOUND', 'ingest.unknownKey');
  }
  if (cache.size >= KEY_CACHE_MAX) cache.clear();
  const entry = { applicationId: row.application_id, utcOffset: Number(row.utc_offset), phoneCountry: row.phone_country, until: nowMs + KEY_TTL_MS };
  cache.set(key, entry);
  return entry;
}
