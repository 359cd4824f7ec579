import { sql, type Kysely } from 'kysely';
import {
  isAppPlatform,
  PLAYER_SORTS,
  SEGMENT_FIELDS,
  type AttributeType,
  type AudienceChannel,
  type Operator,
  type SegmentCondition,
  type SegmentField,
  type SegmentRule,
  conditionDay,
} from '../../shared/contract';
import type { Services } from '../context';
import type { Dialect } from '../db';
import { selectArrays, toCount } from '../db';
import type { Database } from '../db/schema';
import { DAY_MS } from '../../shared/validation';

/**
 * The segment editor's live count over a large audience, from memory. An application with at least
 * `AUDIENCE_INDEX_MIN_PLAYERS` players gets a columnar copy of what segments test: player fields (text
 * dictionary-encoded, numbers and dates as doubles), attributes, tags, events (name, player, time) and
 * channels. A count scans typed arrays (a few milliseconds for a million players) instead of joining four
 * tables. The same copy (with each player's id, last seen and `subscribed` beside) answers what would otherwise
 * read every player: the player list's filters, sorts and total, the dashboard's audience figures and the
 * attribute list's counts, each with its SQL's exact meaning (tests/api/audience-index.test.ts compares them).
 *
 * It is never stale: before each count it reads what changed since the last one, from the database every
 * process writes to (so several API processes stay right):
 * - players whose `updated_at` moved (index players_application_updated_at, 0013); every write to a player, its
 *   tags or its attributes sets it (ingestion, tags, push subscriptions), and their tags and attributes are read
 *   again with them;
 * - events above the last id seen (the primary key; on PostgreSQL a window below it too, since ids are taken
 *   before commit, with the ids already applied remembered so none counts twice);
 * - deletions and bulk changes (a player deleted, an attribute retyped or removed) bump
 *   `applications.audience_epoch`, and a changed epoch rebuilds the copy.
 * While a copy is being built (seconds for a million players) the answers come from SQL, as for small applications.
 *
 * Semantics are segment-sql.ts's, operator by operator (a test compares both on random rules). Conditions on
 * high-cardinality text (email, external user id) other than exists/not_exists, and text `contains` on
 * PostgreSQL (ILIKE folds non-ASCII case, this copy folds ASCII only, as SQLite's LIKE), go to SQL.
 */

export const AUDIENCE_INDEX_MIN_PLAYERS = Number(process.env.AUDIENCE_INDEX_MIN_PLAYERS ?? 50_000);
/** How often a small application's size is looked at again. */
const SIZE_RECHECK_MS = 10 * 60_000;
const PAGE = 20_000;
/** PostgreSQL only: how far below the highest event id a late commit may land. */
const EVENT_ID_WINDOW = 5_000;
/**
 * How long after its `updated_at` a player's write may commit (PostgreSQL: a transaction committing after a later
 * one; both: a write stamped before the copy's build began and committed while it ran), and on PostgreSQL how long
 * after an event id is taken its row may commit.
 */
const LATE_COMMIT_MS = 2_000;

/** Text fields kept only as "has a non-blank value": unique per player, so a dictionary would be a second copy. */
const PRESENCE_ONLY = new Set<SegmentField>(['email', 'external_user_id']);

type FieldKind = 'text' | 'number' | 'date';
const FIELDS = Object.entries(SEGMENT_FIELDS) as [SegmentField, FieldKind][];

const CHANNEL_BITS: Record<AudienceChannel, number> = { web_push: 1, mobile_push: 2, sms: 4, facebook: 8 };
/** Beside the channels: the player's `subscribed` column, which the player list filters on. */
const SUBSCRIBED_BIT = 16;

/** Growable typed arrays. */
class F64 {
  data: Float64Array;
  constructor(capacity: number) {
    this.data = new Float64Array(capacity).fill(Number.NaN);
  }
  ensure(capacity: number): void {
    if (capacity <= this.data.length) return;
    const next = new Float64Array(Math.max(capacity, this.data.length * 2)).fill(Number.NaN);
    next.set(this.data);
    this.data = next;
  }
}
class I32 {
  data: Int32Array;
  constructor(capacity: number, private readonly empty = -1) {
    this.data = new Int32Array(capacity).fill(empty);
  }
  ensure(capacity: number): void {
    if (capacity <= this.data.length) return;
    const next = new Int32Array(Math.max(capacity, this.data.length * 2)).fill(this.empty);
    next.set(this.data);
    this.data = next;
  }
}

/** Strings as small integers; -1 is null. */
class Dictionary {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();
  id(value: string | null | undefined): number {
    if (value === null || value === undefined) return -1;
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }
  find(value: string): number {
    return this.ids.get(value) ?? -2;
  }
  /** One flag per entry, for tests on the text (contains): computed once per distinct value. */
  flags(test: (value: string) => boolean): Uint8Array {
    const out = new Uint8Array(this.values.length);
    for (let i = 0; i < this.values.length; i += 1) out[i] = test(this.values[i]) ? 1 : 0;
    return out;
  }
}

interface TextColumn {
  kind: 'text';
  codes: I32;
  dict: Dictionary;
}
interface PresenceColumn {
  kind: 'presence';
  flags: Uint8Array;
}
interface NumberColumn {
  kind: 'number' | 'date';
  values: F64;
}
type Column = TextColumn | PresenceColumn | NumberColumn;

interface AttributeColumn {
  text: I32;
  dict: Dictionary;
  numbers: F64;
}

interface EventColumn {
  positions: I32;
  times: F64;
  length: number;
}

const lowerAscii = (value: string) => value.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
const epoch = (value: string | null | undefined) => (value ? Date.parse(value) : Number.NaN);

/** The columns the copy reads of a player, in this order: its rows come as arrays (selectArrays), see COLUMN. */
const PLAYER_COLUMNS = [
  'id',
  'updated_at',
  'subscribed',
  'push_endpoint',
  'device_token',
  'mobile_number',
  'fb_psid',
  ...FIELDS.map(([name]) => name),
] as const;
/** A player's values, in PLAYER_COLUMNS' order. */
type PlayerValues = readonly unknown[];
/** Where each column is among a player's values. */
const COLUMN = Object.fromEntries(PLAYER_COLUMNS.map((name, index) => [name, index])) as Record<(typeof PLAYER_COLUMNS)[number], number>;
const FIELD_COLUMNS = FIELDS.map(([name, kind]) => ({ name, kind, index: COLUMN[name] }));
/** The columns the copy reads of an event, in this order. */
const EVENT_COLUMNS = ['id', 'name', 'player_id', 'occurred_at'] as const;

/** One application's copy. */
export class AudienceIndex {
  size = 0;
  private capacity: number;
  private readonly position = new Map<number, number>();
  private readonly columns = new Map<SegmentField, Column>();
  private channels: Uint8Array;
  /** Each position's player id (the player list's pages are ids). */
  private readonly ids: F64;
  private readonly attributes = new Map<string, AttributeColumn>();
  private readonly tags = new Map<string, Set<number>>();
  private readonly events = new Map<string, EventColumn>();
  /** Where the incremental reads resume: players by (updated_at, id), events by id. */
  private watermark = { at: '', id: 0 };
  private eventId = 0;
  /**
   * PostgreSQL: when the copy first held `eventId` (this.clock(), once its row was read), and whether the window
   * below it has been checked since no event of it could still commit (see windowSettled in refresh).
   */
  private eventIdSince = 0;
  private windowSettled = false;
  private readonly recentEventIds = new Set<number>();
  epoch = '';

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    readonly applicationId: string,
    capacity = 1024,
    /** The clock the writers stamp `updated_at` with (the services' clock): it tells when a late commit can no longer come. */
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.capacity = capacity;
    this.channels = new Uint8Array(capacity);
    this.ids = new F64(capacity);
    for (const [name, kind] of FIELDS) {
      if (kind === 'text') {
        this.columns.set(name, PRESENCE_ONLY.has(name) ? { kind: 'presence', flags: new Uint8Array(capacity) } : { kind: 'text', codes: new I32(capacity), dict: new Dictionary() });
      } else {
        this.columns.set(name, { kind, values: new F64(capacity) });
      }
    }
  }

  // ---- loading -------------------------------------------------------------------------------------------

  /** Reads everything (the first time, or after the epoch changed). */
  async build(): Promise<void> {
    const readFrom = this.clock().getTime();
    this.epoch = await readEpoch(this.db, this.applicationId);
    const maxEvent = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('application_id', '=', this.applicationId)
      .executeTakeFirst();
    const eventCeiling = Number(maxEvent?.id ?? 0);

    // Players in pages of the key, each page's tags and attributes by the same key range.
    let after = 0;
    for (;;) {
      const rows = await selectArrays(
        this.db,
        this.db.selectFrom('players').select([...PLAYER_COLUMNS]).where('application_id', '=', this.applicationId).where('id', '>', after).orderBy('id').limit(PAGE),
      );
      if (rows.length === 0) break;
      for (const row of rows) this.applyPlayer(row);
      const last = Number(rows[rows.length - 1][COLUMN.id]);
      await this.readTagsAndAttributes({ from: after, to: last });
      after = last;
      if (rows.length < PAGE) break;
    }
    // The first refresh reads again every player written since the build began (and the moments before, where a
    // late commit may land): a page read early misses a change committed while later pages were read, and a
    // player of a later page may carry a later time. Until 2026-12-07 it resumed after the newest player read,
    // and such a change was lost until that player's next write.
    this.watermark = { at: new Date(readFrom - LATE_COMMIT_MS).toISOString(), id: 0 };

    let eventAfter = 0;
    for (;;) {
      const rows = await this.eventsAfter(eventAfter, eventCeiling);
      if (rows.length === 0) break;
      for (const [rowId, name, playerId, occurredAt] of rows) {
        const id = Number(rowId);
        this.applyEvent(name as string, Number(playerId), occurredAt as string);
        // Remembered so the next refresh, which reads this window again, doesn't count them twice.
        if (this.dialect === 'postgres' && id > eventCeiling - EVENT_ID_WINDOW) this.recentEventIds.add(id);
      }
      eventAfter = Number(rows[rows.length - 1][0]);
    }
    this.eventId = eventCeiling;
    this.eventIdSince = this.clock().getTime();
    this.windowSettled = false;
  }

  /** The next page of the application's events after id `after` (up to `ceiling`), in id order: EVENT_COLUMNS' values. */
  private eventsAfter(after: number, ceiling?: number): Promise<unknown[][]> {
    return selectArrays(
      this.db,
      this.db
        .selectFrom('events')
        .select([...EVENT_COLUMNS])
        .where('application_id', '=', this.applicationId)
        .where('id', '>', after)
        .$if(ceiling !== undefined, (query) => query.where('id', '<=', ceiling as number))
        .orderBy('id')
        .limit(PAGE * 5),
    );
  }

  /** Reads what changed since the last read. */
  async refresh(): Promise<void> {
    // Events first: a new player's events commit with the player, so any player they name is committed and is
    // read below; those whose player isn't known yet wait until then.
    const pending: { name: string; playerId: number; occurredAt: string }[] = [];
    // PostgreSQL: the window below the highest id read is looked at until one look began LATE_COMMIT_MS after that
    // id was first held: its rows' ids were all taken before that one's, so they have committed by then. A quiet
    // application's reads then skip it: a count over the window's 5,000 ids. Without it a quiet read on the
    // 1M-player bench seed took 1.6-2.2 ms at the median, against 2.6-3.6 ms with it (scratch script, two rounds
    // each way alternating, moving clock, 2026-12-07).
    const readFrom = this.clock().getTime();
    let floor = this.eventId;
    if (this.dialect === 'postgres' && !this.windowSettled) {
      const settles = readFrom - this.eventIdSince >= LATE_COMMIT_MS;
      if (await this.windowChanged()) floor = Math.max(0, this.eventId - EVENT_ID_WINDOW);
      if (settles) this.windowSettled = true;
    }
    const heldEventId = this.eventId;
    for (let after = floor; ; ) {
      const rows = await this.eventsAfter(after);
      if (rows.length === 0) break;
      for (const [rowId, name, playerId, occurredAt] of rows) {
        const id = Number(rowId);
        if (id <= this.eventId && (this.dialect !== 'postgres' || this.recentEventIds.has(id))) continue;
        if (this.dialect === 'postgres') this.recentEventIds.add(id);
        if (!this.applyEvent(name as string, Number(playerId), occurredAt as string)) {
          pending.push({ name: name as string, playerId: Number(playerId), occurredAt: occurredAt as string });
        }
        if (id > this.eventId) this.eventId = id;
      }
      after = Number(rows[rows.length - 1][0]);
    }
    if (this.dialect === 'postgres') {
      const below = this.eventId - EVENT_ID_WINDOW;
      for (const id of this.recentEventIds) if (id <= below) this.recentEventIds.delete(id);
      if (this.eventId !== heldEventId) {
        this.eventIdSince = this.clock().getTime();
        this.windowSettled = false;
      }
    }

    // Players (and with them their tags and attributes) whose row moved, in (updated_at, id) order.
    for (;;) {
      const { at, id } = this.watermark;
      const rows = await selectArrays(
        this.db,
        this.db
          .selectFrom('players')
          .select([...PLAYER_COLUMNS])
          .where('application_id', '=', this.applicationId)
          .where((eb) => eb.or([eb('updated_at', '>', at), eb.and([eb('updated_at', '=', at), eb('id', '>', id)])]))
          .orderBy('updated_at')
          .orderBy('id')
          .limit(PAGE),
      );
      if (rows.length === 0) break;
      for (const row of rows) this.applyPlayer(row);
      await this.readTagsAndAttributes({ ids: rows.map((row) => Number(row[COLUMN.id])) });
      const last = rows[rows.length - 1];
      this.watermark = { at: last[COLUMN.updated_at] as string, id: Number(last[COLUMN.id]) };
      if (rows.length < PAGE) break;
    }
    if (this.dialect === 'postgres' && this.watermark.at) {
      // Read again next time what a transaction committing after a later one may still change: the moments less
      // than LATE_COMMIT_MS before this read began. Anything stamped earlier had committed by then and was
      // read now. An application written to in those moments reads them again; a quiet one reads no player again.
      // Until 2026-12-07 every read went back two seconds from the newest write: on the 1M-player bench seed on
      // PostgreSQL, 155 players with their tags and attributes on every read, which took 10.0-10.1 ms at the median
      // against 3.5-4.2 ms now (a scratch script, two rounds each way alternating, with a moving clock: the
      // benchmarks' clock stands still at the seed's newest write, where every read must read that second again).
      const settled = new Date(readFrom - LATE_COMMIT_MS).toISOString();
      if (this.watermark.at > settled) this.watermark = { at: settled, id: 0 };
    }
    // A player gone meanwhile takes its events with it (and bumps the epoch).
    for (const event of pending) this.applyEvent(event.name, event.playerId, event.occurredAt);
  }

  /**
   * PostgreSQL: whether the window below the highest event id read holds a row not applied yet (one that
   * committed after a later one was read). Its rows are read again only then: counting them is one range of
   * the key, reading all of them on every count was most of a refresh's time on a busy application. Every row
   * applied in the window is in recentEventIds, and none is deleted without a rebuild (the epoch), so equal
   * counts mean nothing new there.
   */
  private async windowChanged(): Promise<boolean> {
    const row = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('application_id', '=', this.applicationId)
      .where('id', '>', Math.max(0, this.eventId - EVENT_ID_WINDOW))
      .where('id', '<=', this.eventId)
      .executeTakeFirst();
    return toCount(row?.n) !== this.recentEventIds.size;
  }

  private slot(id: number): number {
    let at = this.position.get(id);
    if (at !== undefined) return at;
    at = this.size;
    this.size += 1;
    if (this.size > this.capacity) this.grow(this.size);
    this.position.set(id, at);
    this.ids.data[at] = id;
    return at;
  }

  private grow(needed: number): void {
    const capacity = Math.max(needed, this.capacity * 2);
    for (const column of this.columns.values()) {
      if (column.kind === 'text') column.codes.ensure(capacity);
      else if (column.kind === 'presence') {
        const flags = new Uint8Array(capacity);
        flags.set(column.flags);
        column.flags = flags;
      } else column.values.ensure(capacity);
    }
    const channels = new Uint8Array(capacity);
    channels.set(this.channels);
    this.channels = channels;
    this.ids.ensure(capacity);
    for (const attribute of this.attributes.values()) {
      attribute.text.ensure(capacity);
      attribute.numbers.ensure(capacity);
    }
    this.capacity = capacity;
  }

  private applyPlayer(row: PlayerValues): void {
    const id = Number(row[COLUMN.id]);
    const at = this.slot(id);
    for (const { name, kind, index } of FIELD_COLUMNS) {
      const column = this.columns.get(name)!;
      const value = row[index] as string | number | null;
      if (column.kind === 'text') column.codes.data[at] = column.dict.id(value === null ? null : String(value));
      else if (column.kind === 'presence') column.flags[at] = value !== null && value !== '' ? 1 : 0;
      else column.values.data[at] = value === null ? Number.NaN : kind === 'date' ? epoch(String(value)) : Number(value);
    }
    const subscribed = Number(row[COLUMN.subscribed]) === 1;
    const platform = row[COLUMN.platform] as string | null;
    this.channels[at] =
      (subscribed && row[COLUMN.push_endpoint] !== null ? CHANNEL_BITS.web_push : 0) |
      (subscribed && row[COLUMN.device_token] !== null && isAppPlatform(platform) ? CHANNEL_BITS.mobile_push : 0) |
      (row[COLUMN.mobile_number] !== null ? CHANNEL_BITS.sms : 0) |
      (row[COLUMN.fb_psid] !== null ? CHANNEL_BITS.facebook : 0) |
      (subscribed ? SUBSCRIBED_BIT : 0);
  }

  /** false when the event's player isn't known (yet). */
  private applyEvent(name: string, playerId: number, occurredAt: string): boolean {
    const at = this.position.get(playerId);
    if (at === undefined) return false;
    let column = this.events.get(name);
    if (!column) {
      column = { positions: new I32(1024), times: new F64(1024), length: 0 };
      this.events.set(name, column);
    }
    column.positions.ensure(column.length + 1);
    column.times.ensure(column.length + 1);
    column.positions.data[column.length] = at;
    column.times.data[column.length] = epoch(occurredAt);
    column.length += 1;
    return true;
  }

  private attribute(name: string): AttributeColumn {
    let column = this.attributes.get(name);
    if (!column) {
      column = { text: new I32(this.capacity), dict: new Dictionary(), numbers: new F64(this.capacity) };
      this.attributes.set(name, column);
    }
    return column;
  }

  /**
   * Tags and attributes of some players, replacing what was known of them: by id (a refresh), or of the key
   * range (from, to] of a build page.
   */
  private async readTagsAndAttributes(which: { ids: number[] } | { from: number; to: number }): Promise<void> {
    const db = this.db as unknown as Kysely<any>;
    const chunks = 'ids' in which ? Array.from({ length: Math.ceil(which.ids.length / 500) }, (_, i) => which.ids.slice(i * 500, i * 500 + 500)) : [null];
    for (const chunk of chunks) {
      if (chunk) {
        const positions = chunk.map((id) => this.position.get(id)!);
        for (const holders of this.tags.values()) for (const at of positions) holders.delete(at);
        for (const column of this.attributes.values()) {
          for (const at of positions) {
            column.text.data[at] = -1;
            column.numbers.data[at] = Number.NaN;
          }
        }
      }
      const scope = (query: any) =>
        chunk ? query.where('player_id', 'in', chunk) : query.where('player_id', '>', (which as { from: number }).from).where('player_id', '<=', (which as { to: number }).to);
      const tags = await selectArrays(this.db, scope(db.selectFrom('player_tags').select(['player_id', 'tag'])));
      for (const [playerId, tag] of tags) {
        const at = this.position.get(Number(playerId));
        if (at === undefined) continue;
        let holders = this.tags.get(tag as string);
        if (!holders) this.tags.set(tag as string, (holders = new Set()));
        holders.add(at);
      }
      const attributes = await selectArrays(this.db, scope(db.selectFrom('player_attributes').select(['player_id', 'name', 'value', 'number_value'])));
      for (const [playerId, name, value, numberValue] of attributes) {
        const at = this.position.get(Number(playerId));
        if (at === undefined) continue;
        const column = this.attribute(name as string);
        column.text.data[at] = column.dict.id(value as string | null);
        column.numbers.data[at] = numberValue === null ? Number.NaN : Number(numberValue);
      }
    }
  }

  // ---- counting ------------------------------------------------------------------------------------------

  /** Whether every condition of the rule can be answered here with segment-sql.ts's exact meaning. */
  supports(rule: SegmentRule): boolean {
    return rule.any.every((group) =>
      group.all.every((condition) => {
        if (condition.kind === 'field' && PRESENCE_ONLY.has(condition.field)) return condition.op === 'exists' || condition.op === 'not_exists';
        if (this.dialect === 'postgres' && (condition.kind === 'field' || condition.kind === 'attribute')) {
          return condition.op !== 'contains' && condition.op !== 'not_contains';
        }
        return true;
      }),
    );
  }

  /**
   * Buffers a count reuses instead of allocating megabytes per condition: on a million players that was a third
   * of a count's time (fresh pages, then the collector). Counting is synchronous, so one set per copy serves
   * every request.
   */
  private positions = new Int32Array(0);
  private occurrences = new Uint32Array(0);
  private scratchPositions(n: number): Int32Array {
    if (this.positions.length < n) this.positions = new Int32Array(this.capacity);
    return this.positions;
  }
  /** n zeroed counters. */
  private scratchCounts(n: number): Uint32Array {
    if (this.occurrences.length < n) this.occurrences = new Uint32Array(this.capacity);
    const counts = this.occurrences.subarray(0, n);
    counts.fill(0);
    return counts;
  }

  /** Players matching the rule at `now`. */
  count(rule: SegmentRule, now: Date): number {
    const at = now.getTime();
    if (rule.any.length === 1) return this.matching(rule.any[0].all, at).length;
    const result = new Uint8Array(this.size);
    for (const group of rule.any) for (const position of this.matching(group.all, at)) result[position] = 1;
    let count = 0;
    for (let i = 0; i < result.length; i += 1) count += result[i];
    return count;
  }

  /**
   * One page of the player list (players.ts) and its total, with the meaning of its SQL: the text filters equal
   * byte for byte, `subscribed` is the column, last seen at or after `seenSince`; in the chosen order with ties
   * by id, never-seen (missing) values first ascending and last descending. The page's ids only: the rows
   * themselves are read from the database.
   */
  list(selection: PlayerListSelection): { total: number; ids: number[] } {
    const n = this.size;
    const tests: ((candidates: Int32Array | null, out: Int32Array) => Int32Array)[] = [];
    for (const [field, value] of Object.entries(selection.equals) as [PlayerListField, string | undefined][]) {
      if (value === undefined) continue;
      const column = this.columns.get(field) as TextColumn;
      const table = textTable(column.dict, 'eq', value, true);
      tests.push((candidates, out) => byTable(candidates, n, column.codes.data, table, out));
    }
    if (selection.subscribed !== undefined) {
      const want = selection.subscribed;
      tests.push((candidates, out) => byBit(candidates, n, this.channels, SUBSCRIBED_BIT, want, out));
    }
    if (selection.seenSince !== undefined) {
      const range: Range = { lo: selection.seenSince, hi: Infinity, negate: false, nan: false };
      const lastSeen = (this.columns.get('last_seen_at') as NumberColumn).values.data;
      tests.push((candidates, out) => byRange(candidates, n, lastSeen, range, out));
    }
    let candidates: Int32Array | null = null;
    if (selection.tag !== undefined) {
      // The tag's holders are the first candidates: walking them is cheaper than testing every player against them.
      const holders = this.tags.get(selection.tag);
      if (!holders || holders.size === 0) return { total: 0, ids: [] };
      const out = this.scratchPositions(n);
      let k = 0;
      for (const at of holders) {
        out[k] = at;
        k += 1;
      }
      candidates = out.subarray(0, k);
    }
    for (const test of tests) {
      candidates = test(candidates, candidates ?? this.scratchPositions(n));
      if (candidates.length === 0) return { total: 0, ids: [] };
    }
    const total = candidates ? candidates.length : n;
    const values = (this.columns.get(selection.sort) as NumberColumn).values.data;
    const page = firstInOrder(candidates, n, values, this.ids.data, selection.desc, selection.offset + selection.limit);
    const ids: number[] = [];
    for (let k = selection.offset; k < page.length; k += 1) ids.push(this.ids.data[page[k]]);
    return { total, ids };
  }

  /**
   * The dashboard's figures of now (dashboard.ts), in one pass: players and subscribers (the `subscribed` column)
   * per platform, players reachable per channel, and players created on each of `days` days from `fromDay`
   * (epoch milliseconds of the first day's start, in the application's timezone).
   */
  summary(fromDay: number, days: number): AudienceSummary {
    const n = this.size;
    const platform = this.columns.get('platform') as TextColumn;
    const codes = platform.codes.data;
    // Per platform code, shifted by one (entry 0: no platform).
    const players = new Float64Array(platform.dict.values.length + 1);
    const subscribers = new Float64Array(players.length);
    const bits = new Float64Array(SUBSCRIBED_BIT);
    const created = new Float64Array(days);
    const createdAt = (this.columns.get('created_at') as NumberColumn).values.data;
    for (let i = 0; i < n; i += 1) {
      const code = codes[i] + 1;
      const channels = this.channels[i];
      players[code] += 1;
      subscribers[code] += +((channels & SUBSCRIBED_BIT) !== 0);
      bits[channels & (SUBSCRIBED_BIT - 1)] += 1;
      const day = Math.floor((createdAt[i] - fromDay) / DAY_MS);
      if (day >= 0 && day < days) created[day] += 1;
    }
    const byPlatform = new Map<string | null, { players: number; subscribers: number }>();
    for (let code = 0; code < players.length; code += 1) {
      if (players[code] > 0) byPlatform.set(code === 0 ? null : platform.dict.values[code - 1], { players: players[code], subscribers: subscribers[code] });
    }
    const channels = {} as Record<AudienceChannel, number>;
    for (const [channel, bit] of Object.entries(CHANNEL_BITS) as [AudienceChannel, number][]) {
      channels[channel] = 0;
      for (let combination = 0; combination < bits.length; combination += 1) if (combination & bit) channels[channel] += bits[combination];
    }
    // Each event's occurrences in the period.
    const start = fromDay;
    const end = fromDay + days * DAY_MS;
    const events = new Map<string, number>();
    for (const [name, column] of this.events) {
      const times = column.times.data;
      let count = 0;
      for (let i = 0; i < column.length; i += 1) count += +(times[i] >= start && times[i] < end);
      if (count > 0) events.set(name, count);
    }
    return { players: n, byPlatform, channels, created: Array.from(created), events };
  }

  /** Each tag some player has, with how many have it (a player deleted leaves their tags' sets). */
  tagCounts(): [string, number][] {
    const counts: [string, number][] = [];
    for (const [tag, holders] of this.tags) if (holders.size > 0) counts.push([tag, holders.size]);
    return counts;
  }

  /**
   * How many players hold a value of each attribute that counts as one of its type, as a segment's "exists" on it
   * does: any text for a text attribute (a row's text is never null), a number for the others (numbers, dates as
   * epoch ms, booleans as 0/1), so a value stored before the attribute was given its type and not of that type is
   * not counted.
   */
  holders(attributes: readonly HeldAttribute[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { name, type } of attributes) {
      const column = this.attributes.get(name);
      let count = 0;
      if (column && type === 'text') {
        const codes = column.text.data;
        for (let i = 0; i < this.size; i += 1) count += +(codes[i] >= 0);
      } else if (column) {
        const numbers = column.numbers.data;
        for (let i = 0; i < this.size; i += 1) count += +(numbers[i] === numbers[i]);
      }
      counts.set(name, count);
    }
    return counts;
  }

  /**
   * The positions meeting every condition: the cheapest conditions first, each later one testing only the
   * positions the earlier ones kept, each in a loop of its own (a typed-array test per position). The result
   * lives in the scratch buffer: read it before the next call.
   */
  private matching(conditions: readonly SegmentCondition[], now: number): Int32Array {
    const ordered = [...conditions].sort((a, b) => COST[a.kind] - COST[b.kind]);
    let candidates: Int32Array | null = null;
    for (const condition of ordered) {
      candidates = this.filter(candidates, condition, now);
      if (candidates.length === 0) break;
    }
    return candidates ?? this.scratchPositions(0).subarray(0, 0);
  }

  /**
   * Keeps the candidates meeting one condition, in place (a filter writes position k after reading position
   * j ≥ k), or, for the first condition, writes the positions kept into the scratch buffer.
   */
  private filter(candidates: Int32Array | null, condition: SegmentCondition, now: number): Int32Array {
    const n = this.size;
    const out = candidates ?? this.scratchPositions(n);
    switch (condition.kind) {
      case 'field': {
        const column = this.columns.get(condition.field)!;
        if (column.kind === 'presence') return byFlag(candidates, n, column.flags, condition.op === 'exists' ? 1 : 0, out);
        if (column.kind === 'text') return byTable(candidates, n, column.codes.data, textTable(column.dict, condition.op, condition.value, true), out);
        return byRange(candidates, n, column.values.data, numberRange(column.kind, condition.op, condition.value, now), out);
      }
      case 'attribute': {
        const column = this.attributes.get(condition.name);
        if (condition.type === 'text') {
          const dict = column?.dict ?? new Dictionary();
          const table = textTable(dict, condition.op, condition.value, false);
          if (!column) return table[0] ? everyone(candidates, n, out) : out.subarray(0, 0);
          return byTable(candidates, n, column.text.data, table, out);
        }
        const range = condition.type === 'boolean' ? booleanRange(condition.op) : numberRange(condition.type, condition.op, condition.value, now);
        if (!column) return range.nan ? everyone(candidates, n, out) : out.subarray(0, 0);
        return byRange(candidates, n, column.numbers.data, range, out);
      }
      case 'tag': {
        const holders = this.tags.get(condition.tag) ?? new Set<number>();
        return bySet(candidates, n, holders, condition.op === 'has', out);
      }
      case 'channel':
        return byBit(candidates, n, this.channels, CHANNEL_BITS[condition.channel], condition.subscribed, out);
      case 'event': {
        const column = this.events.get(condition.name);
        const from = condition.within_days !== undefined ? now - condition.within_days * DAY_MS : -Infinity;
        const count = condition.count;
        const atLeastOnce = !count || (count.op === 'gte' && count.value <= 1);
        const counts = this.scratchCounts(n);
        if (column) occurrences(counts, column, from);
        const table = new Uint8Array(Math.max(2, (count?.value ?? 1) + 2));
        // table[c] for c below its length; counts beyond it behave like the last entry.
        for (let c = 0; c < table.length; c += 1) {
          const holds = c > 0 && (atLeastOnce || (count!.op === 'gte' ? c >= count!.value : count!.op === 'lte' ? c <= count!.value : c === count!.value));
          table[c] = holds === condition.performed ? 1 : 0;
        }
        return byCount(candidates, n, counts, table, out);
      }
    }
  }
}

/** An attribute whose holders are counted, with the type its values are read as. */
export interface HeldAttribute {
  name: string;
  type: AttributeType;
}

/** AudienceIndex.summary. */
export interface AudienceSummary {
  players: number;
  byPlatform: Map<string | null, { players: number; subscribers: number }>;
  channels: Record<AudienceChannel, number>;
  /** Players created on each day of the period. */
  created: number[];
  /** How many times each event occurred in the period (names that did not occur are left out). */
  events: Map<string, number>;
}

/** The player list's text filters (players.ts), each a column of the copy. */
type PlayerListField = 'country' | 'device_type' | 'os' | 'platform';
/** The player list's filters and page (players.ts playerListSelection). */
export interface PlayerListSelection {
  equals: Partial<Record<PlayerListField, string>>;
  subscribed?: boolean;
  /** Last seen at or after, epoch milliseconds. */
  seenSince?: number;
  tag?: string;
  sort: (typeof PLAYER_SORTS)[number];
  desc: boolean;
  offset: number;
  limit: number;
}

/**
 * The first `k` positions (of the candidates, or of all n) in the list's order: by value, a missing one (NaN)
 * below every other, then by id; descending reverses both. A heap of the k best so far, whose worst is at the
 * top, with each entry's sort key and id beside its position: most positions are turned away by one comparison
 * with the top, made inline (with the comparisons as calls reading the columns, a million players took 8-10 ms for
 * a page of 50 and 12-17 ms for the 4,000 a broad search checks; this way 4-8 and 6-11 ms). Sorted at the end.
 */
function firstInOrder(candidates: Int32Array | null, n: number, values: Float64Array, ids: Float64Array, desc: boolean, k: number): Int32Array {
  const count = candidates ? candidates.length : n;
  const size = Math.min(k, count);
  const heap = new Int32Array(size);
  // The entries' keys in the list's order, ascending: a missing value below every other, and descending both
  // negated, so that "comes first" is "smaller key, then smaller signed id" either way.
  const keys = new Float64Array(size);
  const signedIds = new Float64Array(size);
  const sign = desc ? -1 : 1;
  /** Whether entry a comes after entry b (so a is nearer the top). */
  const after = (a: number, b: number) => keys[a] > keys[b] || (keys[a] === keys[b] && signedIds[a] > signedIds[b]);
  const swap = (a: number, b: number) => {
    const position = heap[a];
    heap[a] = heap[b];
    heap[b] = position;
    const key = keys[a];
    keys[a] = keys[b];
    keys[b] = key;
    const id = signedIds[a];
    signedIds[a] = signedIds[b];
    signedIds[b] = id;
  };
  const down = (length: number) => {
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= length) return;
      const right = left + 1;
      const later = right < length && after(right, left) ? right : left;
      if (!after(later, at)) return;
      swap(at, later);
      at = later;
    }
  };
  for (let j = 0; j < count; j += 1) {
    const i = candidates ? candidates[j] : j;
    const x = values[i];
    const key = sign * (x === x ? x : -Infinity);
    const id = sign * ids[i];
    if (j < size) {
      // Filling: sift up, the later of the two to the top.
      heap[j] = i;
      keys[j] = key;
      signedIds[j] = id;
      for (let at = j; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!after(at, parent)) break;
        swap(at, parent);
        at = parent;
      }
    } else if (key < keys[0] || (key === keys[0] && id < signedIds[0])) {
      heap[0] = i;
      keys[0] = key;
      signedIds[0] = id;
      down(size);
    }
  }
  // Heap sort: the latest to the end, one at a time.
  for (let end = size - 1; end > 0; end -= 1) {
    swap(0, end);
    down(end);
  }
  return heap;
}

/** Cheaper conditions first: they shrink the candidates the dearer ones test. */
const COST: Record<SegmentCondition['kind'], number> = { channel: 0, field: 1, attribute: 2, tag: 3, event: 4 };

/** An inclusive range of doubles; `nan` says whether a missing value (NaN) passes; `negate` inverts the range test. */
interface Range {
  lo: number;
  hi: number;
  negate: boolean;
  nan: boolean;
}

const F = new Float64Array(1);
const U = new BigUint64Array(F.buffer);
/** The next double above x (x finite). */
function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  F[0] = x;
  U[0] += x > 0 ? 1n : -1n;
  return F[0];
}
function nextDown(x: number): number {
  return -nextUp(-x);
}

const ALL: Range = { lo: -Infinity, hi: Infinity, negate: false, nan: false };
const NONE: Range = { lo: 1, hi: 0, negate: false, nan: false };

/** segment-sql.ts's number and date operators as ranges (missing values fail every comparison, pass neq). */
function numberRange(kind: 'number' | 'date', op: Operator, value: unknown, now: number): Range {
  if (op === 'exists') return ALL;
  if (op === 'not_exists') return { ...NONE, nan: true };
  if (kind === 'date') {
    const day = conditionDay(value);
    const days = Number(value);
    switch (op) {
      case 'before':
        return Number.isNaN(day) ? NONE : { lo: -Infinity, hi: nextDown(day), negate: false, nan: false };
      case 'after':
        return Number.isNaN(day) ? NONE : { lo: day + DAY_MS, hi: Infinity, negate: false, nan: false };
      case 'within_days':
        return { lo: now - days * DAY_MS, hi: now, negate: false, nan: false };
      case 'older_than_days':
        return { lo: -Infinity, hi: nextDown(now - days * DAY_MS), negate: false, nan: false };
      default:
        return NONE;
    }
  }
  const v = Number(value);
  switch (op) {
    case 'eq':
      return { lo: v, hi: v, negate: false, nan: false };
    case 'neq':
      return { lo: v, hi: v, negate: true, nan: true };
    case 'gt':
      return { lo: nextUp(v), hi: Infinity, negate: false, nan: false };
    case 'gte':
      return { lo: v, hi: Infinity, negate: false, nan: false };
    case 'lt':
      return { lo: -Infinity, hi: nextDown(v), negate: false, nan: false };
    case 'lte':
      return { lo: -Infinity, hi: v, negate: false, nan: false };
    default:
      return NONE;
  }
}

function booleanRange(op: Operator): Range {
  switch (op) {
    case 'is_true':
      return { lo: 1, hi: 1, negate: false, nan: false };
    case 'is_false':
      return { lo: 0, hi: 0, negate: false, nan: false };
    case 'exists':
      return ALL;
    case 'not_exists':
      return { ...NONE, nan: true };
    default:
      return NONE;
  }
}

/**
 * segment-sql.ts's text operators as a table over dictionary codes shifted by one (entry 0 is a missing value).
 * Fields treat '' as missing for exists/not_exists; attributes don't.
 */
function textTable(dict: Dictionary, op: Operator, value: unknown, blankIsMissing: boolean): Uint8Array {
  const table = new Uint8Array(dict.values.length + 1);
  const text = String(value ?? '');
  const needle = lowerAscii(text);
  for (let code = -1; code < dict.values.length; code += 1) {
    const entry = code < 0 ? null : dict.values[code];
    let keep: boolean;
    switch (op) {
      case 'eq':
        keep = entry === text;
        break;
      case 'neq':
        keep = entry !== text;
        break;
      case 'contains':
        keep = entry !== null && lowerAscii(entry).includes(needle);
        break;
      case 'not_contains':
        keep = entry === null || !lowerAscii(entry).includes(needle);
        break;
      case 'exists':
        keep = entry !== null && !(blankIsMissing && entry === '');
        break;
      case 'not_exists':
        keep = entry === null || (blankIsMissing && entry === '');
        break;
      default:
        keep = false;
    }
    table[code + 1] = keep ? 1 : 0;
  }
  return table;
}

// The filters: candidates null means every position 0..n-1. Each writes the positions kept, in order, into out
// (the candidates themselves, or a buffer of at least n) and returns them. Every position is written and k moves
// on by the test's 0 or 1: no branch on the test, whose outcome is as good as random when a condition keeps a
// fair share of the audience (a mispredicted branch per player was half of a scan's time).

function everyone(candidates: Int32Array | null, n: number, out: Int32Array): Int32Array {
  if (candidates) return candidates;
  for (let i = 0; i < n; i += 1) out[i] = i;
  return out.subarray(0, n);
}

function byTable(candidates: Int32Array | null, n: number, codes: Int32Array, table: Uint8Array, out: Int32Array): Int32Array {
  let k = 0;
  if (candidates) {
    for (let j = 0; j < candidates.length; j += 1) {
      const i = candidates[j];
      out[k] = i;
      k += table[codes[i] + 1];
    }
  } else {
    for (let i = 0; i < n; i += 1) {
      out[k] = i;
      k += table[codes[i] + 1];
    }
  }
  return out.subarray(0, k);
}

function byRange(candidates: Int32Array | null, n: number, values: Float64Array, range: Range, out: Int32Array): Int32Array {
  const lo = range.lo;
  const hi = range.hi;
  const negate = range.negate ? 1 : 0;
  const nan = range.nan ? 1 : 0;
  let k = 0;
  const count = candidates ? candidates.length : n;
  for (let j = 0; j < count; j += 1) {
    const i = candidates ? candidates[j] : j;
    const x = values[i];
    // A number: inside the range (or outside, negated); NaN, a missing value: `nan`.
    const number = +(x === x);
    out[k] = i;
    k += (number & (+(x >= lo) & +(x <= hi) ^ negate)) | ((number ^ 1) & nan);
  }
  return out.subarray(0, k);
}

function byFlag(candidates: Int32Array | null, n: number, flags: Uint8Array, want: number, out: Int32Array): Int32Array {
  let k = 0;
  const count = candidates ? candidates.length : n;
  for (let j = 0; j < count; j += 1) {
    const i = candidates ? candidates[j] : j;
    out[k] = i;
    k += +(flags[i] === want);
  }
  return out.subarray(0, k);
}

function byBit(candidates: Int32Array | null, n: number, bits: Uint8Array, bit: number, want: boolean, out: Int32Array): Int32Array {
  const flip = want ? 0 : 1;
  let k = 0;
  const count = candidates ? candidates.length : n;
  for (let j = 0; j < count; j += 1) {
    const i = candidates ? candidates[j] : j;
    out[k] = i;
    k += +((bits[i] & bit) !== 0) ^ flip;
  }
  return out.subarray(0, k);
}

function bySet(candidates: Int32Array | null, n: number, holders: Set<number>, has: boolean, out: Int32Array): Int32Array {
  let k = 0;
  const count = candidates ? candidates.length : n;
  for (let j = 0; j < count; j += 1) {
    const i = candidates ? candidates[j] : j;
    out[k] = i;
    k += +(holders.has(i) === has);
  }
  return out.subarray(0, k);
}

/** Adds up each position's occurrences of one event at `from` or later. */
function occurrences(counts: Uint32Array, column: EventColumn, from: number): void {
  const positions = column.positions.data;
  const times = column.times.data;
  for (let k = 0; k < column.length; k += 1) counts[positions[k]] += +(times[k] >= from);
}

function byCount(candidates: Int32Array | null, n: number, counts: Uint32Array, table: Uint8Array, out: Int32Array): Int32Array {
  const last = table.length - 1;
  let k = 0;
  const count = candidates ? candidates.length : n;
  for (let j = 0; j < count; j += 1) {
    const i = candidates ? candidates[j] : j;
    out[k] = i;
    k += table[Math.min(counts[i], last)];
  }
  return out.subarray(0, k);
}

/**
 * Orders [name, count] entries the most counted first, then by name (code-unit order, the same on every database):
 * the dashboard's top events and the tag list.
 */
export function mostCountedFirst([a, countA]: readonly [string, number], [b, countB]: readonly [string, number]): number {
  return countB - countA || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The generation of an application's audience: bumped by deletions and bulk changes; the creation time tells a
 * re-created application apart. What is kept from the audience (this copy, the dashboard's settled days) is
 * dropped when it changes.
 */
export function audienceEpochOf(application: { audience_epoch: number; created_at: string }): string {
  return `${application.audience_epoch}:${application.created_at}`;
}

/** The copy's generation now (audienceEpochOf), 'none' for an application that is gone. */
async function readEpoch(db: Kysely<Database>, applicationId: string): Promise<string> {
  const row = await db.selectFrom('applications').select(['audience_epoch', 'created_at']).where('application_id', '=', applicationId).executeTakeFirst();
  return row ? audienceEpochOf(row) : 'none';
}

/** Deletions and bulk changes call this in their transaction: every process's copy is rebuilt. */
export async function bumpAudienceEpoch(db: Kysely<Database>, applicationId: string): Promise<void> {
  await db
    .updateTable('applications')
    .set({ audience_epoch: sql<number>`audience_epoch + 1` })
    .where('application_id', '=', applicationId)
    .execute();
}

// ---- the copies of one database -------------------------------------------------------------------------

interface Entry {
  index: AudienceIndex | null;
  building: Promise<void> | null;
  refreshing: Promise<void> | null;
  /** Small applications: when their size was last looked at. */
  smallSince: number;
}

class AudienceIndexes {
  private readonly entries = new Map<string, Entry>();
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly minPlayers: number,
    private readonly clock: () => Date,
  ) {}

  /**
   * What `use` reads from the application's copy, current with the database; null when the application is read
   * by SQL instead (small, or its copy still loading).
   */
  async read<T>(applicationId: string, use: (index: AudienceIndex) => T): Promise<T | null> {
    const index = await this.ready(applicationId);
    return index ? use(index) : null;
  }

  /** The count and total from memory, or null when this application is counted by SQL (small, still loading, or a rule the copy cannot answer). */
  async count(applicationId: string, rule: SegmentRule, now: Date): Promise<{ count: number; total: number } | null> {
    return this.read(applicationId, (index) => (index.supports(rule) ? { count: index.count(rule, now), total: index.size } : null));
  }

  /** Builds the copy now and waits for it (benchmarks, tests); null when the application is too small. */
  async warm(applicationId: string): Promise<AudienceIndex | null> {
    const entry = this.entry(applicationId);
    entry.smallSince = 0;
    await this.ready(applicationId);
    if (entry.building) await entry.building;
    return this.ready(applicationId);
  }

  private entry(applicationId: string): Entry {
    let entry = this.entries.get(applicationId);
    if (!entry) this.entries.set(applicationId, (entry = { index: null, building: null, refreshing: null, smallSince: 0 }));
    return entry;
  }

  private async ready(applicationId: string): Promise<AudienceIndex | null> {
    const entry = this.entry(applicationId);
    if (entry.index) {
      if ((await readEpoch(this.db, applicationId)) !== entry.index.epoch) {
        entry.index = null;
      } else {
        // One refresh at a time; a count arriving meanwhile waits for it, then reads again (its own write may
        // have landed after that refresh began).
        while (entry.refreshing) await entry.refreshing;
        const index = entry.index;
        if (!index) return null;
        entry.refreshing = index.refresh().finally(() => {
          entry.refreshing = null;
        });
        await entry.refreshing;
        return entry.index;
      }
    }
    if (entry.building) return null;
    if (entry.smallSince && Date.now() - entry.smallSince < SIZE_RECHECK_MS) return null;
    const row = await this.db
      .selectFrom('players')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('application_id', '=', applicationId)
      .executeTakeFirst();
    const players = toCount(row?.n);
    if (players < this.minPlayers) {
      entry.smallSince = Date.now();
      return null;
    }
    const index = new AudienceIndex(this.db, this.dialect, applicationId, Math.ceil(players * 1.1) + 1024, this.clock);
    entry.building = index
      .build()
      .then(() => {
        entry.index = index;
      })
      .catch(() => {
        entry.smallSince = Date.now();
      })
      .finally(() => {
        entry.building = null;
      });
    return null;
  }
}

const registry = new WeakMap<Kysely<Database>, AudienceIndexes>();

/** The copies kept for this database (one set per open database, shared by every request). */
export function audienceIndexes(s: Pick<Services, 'db' | 'dialect' | 'clock'>, minPlayers = AUDIENCE_INDEX_MIN_PLAYERS): AudienceIndexes {
  let indexes = registry.get(s.db);
  if (!indexes) registry.set(s.db, (indexes = new AudienceIndexes(s.db, s.dialect, minPlayers, s.clock)));
  return indexes;
}
