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
import { isEmail, isMobileNumber, V } from '../../shared/validation';
import type { Services } from '../context';
import type { Dialect } from '../db';
import type { Database } from '../db/schema';
import { AppError } from '../errors';
import { GroupCommit, type GroupCommitOptions } from './ingest-queue';
import { earlier, insertRows, insertStatements, later, runWrites, type Row, type Statement } from './ingest-sql';
import {
  attributeStatements,
  ensurePlayers,
  mergeDevice,
  playerDaysStatements,
  playerKey,
  updatePlayersStatements,
  type AttributeWrite,
  type PlayerDay,
  type PlayerWrite,
} from './players-write';

/*
 * Ingestion of what devices report (the storefront SDK's batches, the REST device API): requests validate,
 * normalise and hand their items to the process's group-commit queue; the flusher writes every queued batch
 * in ONE transaction (events, players, daily activity, event definitions, attributes) and only then are the
 * requests answered. Sessions, page views and scroll depths are stored as events too (`session_start`,
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
      /** What it counts as on the player besides an event row. */
      counts: 'session' | 'page' | 'event' | 'none';
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
}

export interface IngestResult {
  playerId: number;
  /** True when this write created the player. */
  created: boolean;
  /** Event rows newly stored (retried ones are not counted). */
  stored: number;
}

/** The item's time: the client's epoch ms clamped to [now - 7 days, now + 5 minutes]; nonsense is now. */
export function clampAt(at: number | undefined, now: Date): string {
  const nowMs = now.getTime();
  if (typeof at !== 'number' || !Number.isFinite(at)) return now.toISOString();
  return new Date(Math.min(nowMs + MAX_FUTURE_MS, Math.max(nowMs - MAX_PAST_MS, Math.round(at)))).toISOString();
}

const compact = <T extends Record<string, unknown>>(value: T): Record<string, ScalarValue> => {
  const out: Record<string, ScalarValue> = {};
  for (const [name, field] of Object.entries(value)) if (field !== undefined && field !== '') out[name] = field as ScalarValue;
  return out;
};

/**
 * Email and mobile number are checked with the rules the console uses (shared/validation); a bad one refuses
 * the whole request with INVALID_PARAM naming the field.
 */
export function checkIdentity(identity: Identity, path: string): void {
  const fields: { path: string; message: string }[] = [];
  if (identity.email && !isEmail(identity.email)) fields.push({ path: `${path}.email`, message: V.email });
  if (identity.mobile_number && !isMobileNumber(identity.mobile_number)) fields.push({ path: `${path}.mobile_number`, message: V.mobileNumber });
  if (fields.length > 0) throw new AppError('INVALID_PARAM', fields[0].message, { fields });
}

/** The SDK's items as ingestion items; identity checked (INVALID_PARAM before anything is queued). */
export function fromTrackItems(items: readonly TrackItem[], now: Date): IngestItem[] {
  return items.map((item, index): IngestItem => {
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
        return { kind: 'event', counts: 'event', clientId: item.id, name: item.name, properties: item.properties ?? null, sessionId: item.session_id ?? null, at };
      case 'set':
        return { kind: 'set', attributes: item.attributes, at };
      case 'identify':
        checkIdentity(item.identity, `items.${index}.identity`);
        return { kind: 'identify', identity: item.identity, at };
    }
  });
}

/** How many items a batch weighs in the queue. */
export const weighBatch = (batch: IngestBatch) => batch.items.length || 1;

const EVENT_COLUMNS = [
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

/**
 * Writes batches in the given database (pass a transaction: the flusher does). Players first (created when
 * new), then the event rows (ON CONFLICT DO NOTHING on the client ids), and from the rows that were really new
 * the counters: sessions, page views, per-day activity, event definitions, written together with the players'
 * fields and attributes (`runWrites`: one statement on PostgreSQL). Attributes and identity apply in item order,
 * the last value winning.
 */
export async function writeBatches(db: Kysely<Database>, dialect: Dialect, batches: readonly IngestBatch[], now: Date): Promise<IngestResult[]> {
  const received = now.toISOString();
  // 1. One write per device, with device facts and identity merged in arrival order.
  const players = new Map<string, PlayerWrite>();
  for (const batch of batches) {
    const key = playerKey(batch.applicationId, batch.deviceId);
    const write = players.get(key) ?? { applicationId: batch.applicationId, deviceId: batch.deviceId };
    write.device = mergeDevice(write.device, batch.device);
    if (batch.seenAt && (!write.seenAt || batch.seenAt > write.seenAt)) write.seenAt = batch.seenAt;
    for (const item of batch.items) {
      if (!write.seenAt || item.at > write.seenAt) write.seenAt = item.at;
      if (item.kind === 'identify') write.identity = mergeDevice(write.identity, item.identity);
    }
    players.set(key, write);
  }
  const refs = await ensurePlayers(db, dialect, [...players.values()], now);
  const refOf = (batch: IngestBatch) => {
    const ref = refs.get(playerKey(batch.applicationId, batch.deviceId));
    if (!ref) throw new Error('player missing after ensurePlayers');
    return ref;
  };
  const idOf = (batch: IngestBatch) => refOf(batch).id;

  // 2. Event rows; RETURNING tells which client ids were new.
  const rows: Row[] = [];
  for (const batch of batches) {
    const playerId = idOf(batch);
    for (const item of batch.items) {
      if (item.kind !== 'event') continue;
      rows.push([batch.applicationId, playerId, item.name, item.properties ? JSON.stringify(item.properties) : null, item.clientId, item.sessionId, item.at, received]);
    }
  }
  const inserted = await insertRows<{ application_id: string; client_event_id: string }>(
    db,
    dialect,
    'events',
    EVENT_COLUMNS,
    rows,
    'ON CONFLICT (application_id, client_event_id) DO NOTHING RETURNING application_id, client_event_id',
  );
  const fresh = new Set(inserted.map((row) => `${row.application_id}\u0000${row.client_event_id}`));

  // 3. Counters from the new rows only; attributes from every `set`.
  const days: PlayerDay[] = [];
  const definitions = new Map<string, Definition>();
  const attributes: AttributeWrite[] = [];
  const results: IngestResult[] = [];
  for (const batch of batches) {
    const playerId = idOf(batch);
    const write = players.get(playerKey(batch.applicationId, batch.deviceId)) as PlayerWrite;
    let stored = 0;
    for (const item of batch.items) {
      if (item.kind === 'set') {
        for (const [name, value] of Object.entries(item.attributes)) attributes.push({ applicationId: batch.applicationId, playerId, name, value, at: item.at });
        continue;
      }
      if (item.kind !== 'event') continue;
      // Deleted once counted: the same client id twice in one group counts once.
      if (!fresh.delete(`${batch.applicationId}\u0000${item.clientId}`)) continue;
      stored += 1;
      const day: PlayerDay = { applicationId: batch.applicationId, playerId, day: item.at.slice(0, 10), sessions: 0, pageViews: 0, events: 0 };
      if (item.counts === 'session') {
        const sessions = (write.sessions ??= { count: 0, first: item.at, last: item.at });
        sessions.count += 1;
        if (item.at < sessions.first) sessions.first = item.at;
        if (item.at > sessions.last) sessions.last = item.at;
        day.sessions = 1;
        // The landing UTM of the earliest new session that has one.
        if (item.utm && Object.values(item.utm).some(Boolean) && (!write.utm || item.at <= sessions.first)) write.utm = item.utm;
      } else if (item.counts === 'page') {
        write.pageViews = (write.pageViews ?? 0) + 1;
        day.pageViews = 1;
      } else if (item.counts === 'event') {
        day.events = 1;
      }
      days.push(day);
      const definitionKey = `${batch.applicationId}\u0000${item.name}`;
      let definition = definitions.get(definitionKey);
      if (!definition) {
        definition = { applicationId: batch.applicationId, name: item.name, count: 0, first: item.at, last: item.at, properties: {} };
        definitions.set(definitionKey, definition);
      }
      definition.count += 1;
      if (item.at < definition.first) definition.first = item.at;
      if (item.at > definition.last) definition.last = item.at;
      for (const [name, value] of Object.entries(item.properties ?? {})) {
        if (value !== null && !(name in definition.properties)) definition.properties[name] = inferValueType(name, value);
      }
    }
    results.push({ playerId, created: refOf(batch).created, stored });
  }

  // 4. The rest in one go (one round trip on PostgreSQL): players, days, attributes, and last the event
  // definitions, which every write of the application shares (see INGEST_LANES).
  await runWrites(db, dialect, [
    ...updatePlayersStatements(
      dialect,
      [...players.entries()].map(([key, write]) => ({ ...write, id: (refs.get(key) as { id: number }).id })),
      now,
    ),
    ...playerDaysStatements(dialect, days),
    ...(await attributeStatements(db, dialect, attributes, now)),
    ...eventDefinitionStatements(dialect, [...definitions.values()]),
  ]);
  return results;
}

/**
 * Adds counts to event_definitions and merges property types, one statement for all the names: a property type
 * already known keeps its type (the first one seen wins).
 */
export async function upsertEventDefinitions(db: Kysely<Database>, dialect: Dialect, definitions: Definition[]): Promise<void> {
  await runWrites(db, dialect, eventDefinitionStatements(dialect, definitions));
}

function eventDefinitionStatements(dialect: Dialect, definitions: Definition[]): Statement[] {
  if (definitions.length === 0) return [];
  const merge =
    dialect === 'postgres'
      ? '(excluded.properties::jsonb || event_definitions.properties::jsonb)::text'
      : 'json_patch(excluded.properties, event_definitions.properties)';
  return insertStatements(
    dialect,
    'event_definitions',
    [
      { name: 'application_id', type: 'text' },
      { name: 'name', type: 'text' },
      { name: 'count', type: 'bigint' },
      { name: 'first_seen_at', type: 'text' },
      { name: 'last_seen_at', type: 'text' },
      { name: 'properties', type: 'text' },
    ],
    definitions
      .sort((a, b) => (a.applicationId + a.name < b.applicationId + b.name ? -1 : 1))
      .map((definition) => [definition.applicationId, definition.name, definition.count, definition.first, definition.last, JSON.stringify(definition.properties)]),
    `ON CONFLICT (application_id, name) DO UPDATE SET count = event_definitions.count + excluded.count, first_seen_at = ${earlier('event_definitions.first_seen_at', 'excluded.first_seen_at')}, last_seen_at = ${later('event_definitions.last_seen_at', 'excluded.last_seen_at')}, properties = CASE WHEN excluded.properties = '{}' THEN event_definitions.properties ELSE ${merge} END`,
  );
}

/**
 * Queue sizes. A write starts as soon as the event loop has read what is waiting (flushDelayMs 0): a fixed
 * delay only adds latency, since whatever arrives during a write joins the next one anyway (a 4 ms delay
 * cost a third of the throughput in the benchmark). One write takes at most 2,000 items, so a SQLite write,
 * which holds the event loop, stays short; at most 50,000 items wait in memory, then 503.
 */
export const INGEST_QUEUE = { flushItems: 1_000, flushDelayMs: 0, maxFlushItems: 2_000, maxPendingItems: 50_000 };

/**
 * Writes running at once, each in its own lane. SQLite has one connection and writes on the event loop: one.
 * On PostgreSQL a single writer leaves the database idle while Node reads each statement's answer, and the
 * group's round trips (five: begin, players, events, the rest, commit) add up: lanes overlap them. A device
 * always goes to the same lane (by a hash of its application and device id), so two concurrent writes never
 * touch the same player, its days or attributes and cannot deadlock on them; the shared event_definitions rows
 * are written in the group's last statement, in name order, so they are held only until the commit. Two lanes,
 * measured on two cores in alternating runs (tests/bench/ingest.ts): against one, +16–26% events/s in batches
 * and +24–33% single requests/s; four split the groups so small that the per-group statements cost more than
 * the overlap gains (−25%).
 */
export const INGEST_LANES: Record<Dialect, number> = { sqlite: 1, postgres: 2 };

/** Concurrent group-commit queues, one per lane; a device's batches always take the same lane, in order. */
class IngestLanes {
  constructor(private readonly lanes: GroupCommit<IngestBatch, IngestResult>[]) {}

  submit(batch: IngestBatch): Promise<IngestResult> {
    return this.lanes[this.lanes.length === 1 ? 0 : laneOf(batch, this.lanes.length)].submit(batch);
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

/** FNV-1a of the device's key, modulo the lanes. */
function laneOf(batch: IngestBatch, lanes: number): number {
  const key = playerKey(batch.applicationId, batch.deviceId);
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return (hash >>> 0) % lanes;
}

const queues = new WeakMap<Services, IngestLanes>();

/** The process's ingestion lanes for these services (one set per app instance); `options` only on first use. */
export function ingestQueue(s: Services, options: Partial<Omit<GroupCommitOptions<IngestBatch, IngestResult>, 'write' | 'weigh'>> = {}) {
  let queue = queues.get(s);
  if (!queue) {
    const lanes = INGEST_LANES[s.dialect];
    const settings = { ...INGEST_QUEUE, ...options };
    queue = new IngestLanes(
      Array.from(
        { length: lanes },
        () =>
          new GroupCommit<IngestBatch, IngestResult>({
            ...settings,
            // The memory bound is the process's: shared out between the lanes.
            maxPendingItems: Math.ceil(settings.maxPendingItems / lanes),
            weigh: weighBatch,
            write: (batches) => s.db.transaction().execute((trx) => writeBatches(trx, s.dialect, batches, s.clock())),
          }),
      ),
    );
    queues.set(s, queue);
  }
  return queue;
}

/** Hands a batch to the queue; resolves once it is stored. QueueFullError when the queue is full. */
export function ingest(s: Services, batch: IngestBatch): Promise<IngestResult> {
  return ingestQueue(s).submit(batch);
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
const keyCaches = new WeakMap<Services, Map<string, { applicationId: string; until: number }>>();

/**
 * The application of a client key, cached in memory: ingestion cannot afford a lookup per request. Unknown
 * keys are not cached (each costs a lookup, and the per-address limit bounds them): NOT_FOUND.
 */
export async function applicationIdForKey(s: Services, key: string): Promise<string> {
  let cache = keyCaches.get(s);
  if (!cache) keyCaches.set(s, (cache = new Map()));
  const nowMs = Date.now();
  const hit = cache.get(key);
  if (hit && hit.until > nowMs) return hit.applicationId;
  const row = await s.db.selectFrom('applications').select('application_id').where('client_key', '=', key).executeTakeFirst();
  if (!row) {
    cache.delete(key);
    throw new AppError('NOT_FOUND');
  }
  if (cache.size >= KEY_CACHE_MAX) cache.clear();
  cache.set(key, { applicationId: row.application_id, until: nowMs + KEY_TTL_MS });
  return row.application_id;
}
