import { SelectQueryNode, TableNode, sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_TYPES, PLAYER_PLATFORMS, PLAYER_SORTS, PlayerListQuery, type AttributeType, type SegmentCondition, type SegmentRule } from '../../shared/contract';
import { AudienceIndex, audienceIndexes, type HeldAttribute } from '../../server/domain/audience-index';
import { playerListSelection, playerPageBySql } from '../../server/domain/players';
import { audienceBySql, dashboardPeriod } from '../../server/domain/dashboard';
import { holdersBySql } from '../../server/domain/attributes';
import { countMatching } from '../../server/domain/segments';
import { seedAudience } from '../../scripts/seed-lib';
import { SESSION_IDLE_MINUTES } from '../../shared/contract/audience';
import { addDays, dayAtOffset } from '../../shared/format';
import { APNS_TOKEN_PATTERN } from '../../shared/validation';
import { createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';

/**
 * The in-memory audience copy must count exactly what the SQL of segment-sql.ts counts: the same random rules
 * (every condition kind and operator, 1–3 groups of 1–4 conditions) over a seeded audience, before and after
 * the audience changes through the real API (new players, events, attributes, tags, unsubscribes, a deletion).
 */
const APP = 'index_app';
const PLAYERS = 2_500;

let server: TestServer;
let owner: TestUser;
let clientKey: string;

/** A small deterministic generator, so a failing rule can be reproduced. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T,>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  return { next, pick };
}

function randomCondition(random: ReturnType<typeof generator>): SegmentCondition {
  const { pick } = random;
  const day = () => new Date(Date.now() - Math.floor(random.next() * 500) * 86_400_000).toISOString().slice(0, 10);
  const dateOp = (): { op: any; value?: any } => {
    const op = pick(['before', 'after', 'within_days', 'older_than_days', 'exists', 'not_exists'] as const);
    if (op === 'before' || op === 'after') return { op, value: day() };
    if (op === 'within_days' || op === 'older_than_days') return { op, value: pick([1, 7, 30, 90, 365]) };
    return { op };
  };
  const textOp = (values: readonly string[]): { op: any; value?: any } => {
    const op = pick(['eq', 'neq', 'contains', 'not_contains', 'exists', 'not_exists'] as const);
    if (op === 'exists' || op === 'not_exists') return { op };
    const value = pick(values);
    return { op, value: op.includes('contains') ? value.slice(0, 3).toLowerCase() : value };
  };
  const numberOp = (values: readonly number[]): { op: any; value?: any } => {
    const op = pick(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists'] as const);
    return op === 'exists' || op === 'not_exists' ? { op } : { op, value: pick(values) };
  };
  switch (pick(['field', 'field', 'field', 'attribute', 'attribute', 'tag', 'event', 'event', 'channel'] as const)) {
    case 'field': {
      const field = pick([
        ['country', ['VN', 'US', 'JP', 'ZZ']],
        ['city', ['Hanoi', 'Ho Chi Minh City', 'Tokyo', 'Nowhere']],
        ['language', ['vi', 'en', 'ja']],
        ['device_type', ['mobile', 'desktop']],
        ['platform', ['web', 'ios', 'android']],
        ['os', ['Android', 'iOS', 'Windows', 'macOS']],
        ['browser', ['Chrome', 'Safari', 'Firefox']],
        ['utm_source', ['google', 'facebook', 'zalo']],
        ['utm_campaign', ['tet_sale', 'summer']],
        ['utm_content', ['banner_a']],
        ['email', ['customer1@example.com']],
        ['external_user_id', ['customer-1']],
        ['timezone_offset', [420, -300, 0, 540]],
        ['session_count', [1, 2, 3, 5]],
        ['page_views', [2, 5, 10]],
        ['first_session_at', null],
        ['last_session_at', null],
        ['last_seen_at', null],
        ['created_at', null],
      ] as const);
      const [name, values] = field;
      if (values === null) return { kind: 'field', field: name, ...dateOp() } as SegmentCondition;
      if (typeof values[0] === 'number') return { kind: 'field', field: name, ...numberOp(values as readonly number[]) } as SegmentCondition;
      return { kind: 'field', field: name, ...textOp(values as readonly string[]) } as SegmentCondition;
    }
    case 'attribute': {
      const which = pick(['plan', 'orders', 'lifetime_value', 'newsletter', 'signup.date', 'missing_one'] as const);
      if (which === 'plan' || which === 'missing_one') return { kind: 'attribute', name: which, type: 'text', ...textOp(['free', 'silver', 'gold']) } as SegmentCondition;
      if (which === 'orders' || which === 'lifetime_value') return { kind: 'attribute', name: which, type: 'number', ...numberOp([0, 3, 10, 500_000]) } as SegmentCondition;
      if (which === 'newsletter') return { kind: 'attribute', name: which, type: 'boolean', op: pick(['is_true', 'is_false', 'exists', 'not_exists'] as const) };
      return { kind: 'attribute', name: which, type: 'date', ...dateOp() } as SegmentCondition;
    }
    case 'tag':
      return { kind: 'tag', op: pick(['has', 'not_has'] as const), tag: pick(['vip', 'newsletter', 'loyal', 'fresh_tag']) };
    case 'event': {
      const condition: SegmentCondition = { kind: 'event', name: pick(['purchase', 'add_to_cart', 'search', 'never_seen']), performed: random.next() < 0.6 };
      if (random.next() < 0.5) condition.within_days = pick([1, 7, 30, 365]);
      if (random.next() < 0.4) condition.count = { op: pick(['gte', 'lte', 'eq'] as const), value: pick([0, 1, 2, 3]) };
      return condition;
    }
    case 'channel':
      return { kind: 'channel', channel: pick(['web_push', 'mobile_push', 'sms', 'facebook'] as const), subscribed: random.next() < 0.5 };
  }
}

function randomRule(random: ReturnType<typeof generator>): SegmentRule {
  const groups = 1 + Math.floor(random.next() * 3);
  return {
    any: Array.from({ length: groups }, () => ({ all: Array.from({ length: 1 + Math.floor(random.next() * 4) }, () => randomCondition(random)) })),
  };
}

/** Compares the copy with SQL on `rules` random rules; returns how many the copy answered itself. */
async function compare(index: AudienceIndex, seed: number, rules: number): Promise<number> {
  const random = generator(seed);
  const services = server.app.services;
  let answered = 0;
  for (let i = 0; i < rules; i += 1) {
    const rule = randomRule(random);
    if (!index.supports(rule)) continue;
    const now = new Date();
    const expected = await countMatching({ db: services.db, dialect: services.dialect, clock: () => now }, APP, rule);
    const counted = index.count(rule, now);
    if (counted !== expected) throw new Error(`rule ${JSON.stringify(rule)}: copy ${counted}, SQL ${expected}`);
    answered += 1;
  }
  return answered;
}

/** A player list query (GET /player) of random filters, sort and page. */
function randomListQuery(random: ReturnType<typeof generator>): PlayerListQuery {
  const { next, pick } = random;
  const raw: Record<string, string> = {};
  if (next() < 0.4) raw.country = pick(['VN', 'US', 'JP', 'ZZ', 'vn']);
  if (next() < 0.3) raw.device_type = pick(DEVICE_TYPES);
  if (next() < 0.3) raw.os = pick(['Android', 'iOS', 'Windows', 'macOS', 'ios', '']);
  if (next() < 0.3) raw.platform = pick(PLAYER_PLATFORMS);
  if (next() < 0.3) raw.subscribed = pick(['true', 'false']);
  if (next() < 0.3) raw.seen_within_days = String(pick([1, 7, 30, 90]));
  if (next() < 0.3) raw.tag = pick(['vip', 'newsletter', 'loyal', 'fresh_tag', 'nobody_has_it']);
  raw.sort = pick(PLAYER_SORTS);
  raw.order = pick(['asc', 'desc']);
  raw.page = String(pick([1, 1, 2, 7]));
  raw.limit = String(pick([5, 20, 100]));
  return PlayerListQuery.parse(raw);
}

/** Compares the copy's player list pages with the SQL ones on `queries` random queries. */
async function compareLists(index: AudienceIndex, seed: number, queries: number): Promise<void> {
  const random = generator(seed);
  for (let i = 0; i < queries; i += 1) {
    const query = randomListQuery(random);
    const selection = playerListSelection(query, new Date());
    const bySql = await playerPageBySql(server.app.services, APP, selection);
    const fromMemory = index.list(selection);
    expect(fromMemory, JSON.stringify(query)).toEqual({ total: bySql.total, ids: bySql.rows.map((row) => Number(row.id)) });
  }
}

const countryIs = (country: string): SegmentRule => ({ any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: country }] }] });

/** A plugin that tells `onRows` how many rows each query reading `table` returned. */
function countingRowsOf(table: string, onRows: (rows: number) => void): KyselyPlugin {
  const reading = new Set<string>();
  return {
    transformQuery({ node, queryId }) {
      if (SelectQueryNode.is(node) && node.from?.froms.some((from) => TableNode.is(from) && from.table.identifier.name === table)) reading.add(queryId.queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (reading.delete(queryId.queryId)) onRows(result.rows.length);
      return result;
    },
  };
}

/**
 * A copy built with a clock the test moves (`clock.now`, ms) and a count of the rows its reads of `table` returned
 * (`read.rows`).
 */
async function builtWithClock(table: string) {
  const clock = { now: Date.now() };
  const read = { rows: 0 };
  const counted = db(server).withPlugin(countingRowsOf(table, (rows) => (read.rows += rows)));
  const index = new AudienceIndex(counted, server.dialect, APP, 1024, () => new Date(clock.now));
  await index.build();
  return { index, clock, read };
}

/** Every attribute name the application's players hold. */
/** The attributes players hold, each with its defined type (text when it has no definition). */
async function heldAttributes(): Promise<HeldAttribute[]> {
  const rows = await db(server).selectFrom('player_attributes').select('name').distinct().where('application_id', '=', APP).orderBy('name').execute();
  const definitions = await db(server).selectFrom('attribute_definitions').select(['name', 'type']).where('application_id', '=', APP).execute();
  const types = new Map(definitions.map((row) => [row.name, row.type as AttributeType]));
  return rows.map((row) => ({ name: row.name, type: types.get(row.name) ?? 'text' }));
}

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server, { name: 'owner' });
  const app = await createApplication(server, owner, APP, 'Index');
  clientKey = app.client_key;
  await seedAudience(db(server), server.dialect, { applicationId: APP, players: PLAYERS, eventsPerPlayer: 5, seed: 11, now: new Date() });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('the seed generator (npm run seed)', () => {
  it('gives each player sessions that agree with their times: one session lasts at most the idle limit', async () => {
    const players = await db(server)
      .selectFrom('players')
      .select(['session_count', 'first_session_at', 'last_session_at', 'last_seen_at'])
      .where('application_id', '=', APP)
      .execute();
    expect(players).toHaveLength(PLAYERS);
    const minutes = (from: string | null, to: string | null) => (Date.parse(to ?? '') - Date.parse(from ?? '')) / 60_000;
    const single = players.filter((player) => Number(player.session_count) === 1);
    // About a quarter of the seed's players come once; each was last seen within that one visit.
    expect(single.length).toBeGreaterThan(PLAYERS / 10);
    expect(single.filter((player) => minutes(player.first_session_at, player.last_seen_at) > SESSION_IDLE_MINUTES)).toEqual([]);
    expect(players.filter((player) => !(minutes(player.first_session_at, player.last_session_at) >= 0 && minutes(player.last_session_at, player.last_seen_at) >= 0))).toEqual([]);
  });

  it('gives subscribed iOS players tokens the device API would take, so a message to them is tried, not skipped as invalid', async () => {
    const tokens = await db(server).selectFrom('players').select('device_token').where('application_id', '=', APP).where('platform', '=', 'ios').where('device_token', 'is not', null).execute();
    expect(tokens.length).toBeGreaterThan(10);
    expect(tokens.filter(({ device_token }) => !APNS_TOKEN_PATTERN.test(device_token ?? ''))).toEqual([]);
  });
});

describe('the in-memory audience copy', () => {
  it('counts what the SQL counts, on 300 random rules', async () => {
    const index = new AudienceIndex(db(server), server.dialect, APP);
    await index.build();
    expect(index.size).toBe(PLAYERS);
    const answered = await compare(index, 1, 300);
    // Only email/external id values (and contains on PostgreSQL) go to SQL: most rules are answered here.
    expect(answered).toBeGreaterThan(server.dialect === 'postgres' ? 150 : 250);
  });

  it('lists the page and total the SQL lists, on 300 random filters, sorts and pages', async () => {
    // Players never seen (first ascending, last descending) and ties on last seen (by id), as the list has.
    const ids = (await db(server).selectFrom('players').select('id').where('application_id', '=', APP).orderBy('id').execute()).map((row) => Number(row.id));
    const every = (k: number, from: number) => ids.filter((_, i) => i % k === from);
    await db(server).updateTable('players').set({ last_seen_at: null }).where('id', 'in', every(40, 3)).execute();
    await db(server).updateTable('players').set({ last_seen_at: new Date(Date.now() - 3 * 86_400_000).toISOString() }).where('id', 'in', every(40, 7)).execute();
    const index = new AudienceIndex(db(server), server.dialect, APP);
    await index.build();
    await compareLists(index, 3, 300);
  });

  it("gives the dashboard's players, subscribers, channels, new players per day and events of the period that the SQL gives", async () => {
    const index = new AudienceIndex(db(server), server.dialect, APP);
    await index.build();
    const now = new Date();
    // The longest period asked for: a year before today in that timezone (today there is a day ahead of UTC's
    // from 17:00 UTC at UTC+07:00, a day behind until 09:30 at UTC-09:30).
    const yearAgo = (offset: number) => addDays(dayAtOffset(now.getTime(), offset), -365);
    // In UTC and in timezones east and west of it (half an hour off the hour too): each day's new players.
    for (const offset of [0, 420, -570]) {
      for (const period of [dashboardPeriod(now, offset), dashboardPeriod(now, offset, yearAgo(offset))]) {
        const bySql = await audienceBySql(server.app.services, APP, period);
        const fromMemory = index.summary(Date.parse(period.start), period.days.length);
        expect(fromMemory).toEqual(bySql);
        // Not vacuous: the seed has players on every platform and most channels, created through the year, and
        // events in each period.
        expect(bySql.created.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
        expect(bySql.events.get('page_view')).toBeGreaterThan(0);
      }
    }
    const year = await audienceBySql(server.app.services, APP, dashboardPeriod(now, 0, yearAgo(0)));
    expect(year.byPlatform.size).toBeGreaterThanOrEqual(3);
    // (The seed has no Facebook contacts.)
    expect([year.channels.web_push, year.channels.mobile_push, year.channels.sms].every((players) => players > 0)).toBe(true);
  });

  it('counts the players holding each attribute that the SQL counts', async () => {
    const index = new AudienceIndex(db(server), server.dialect, APP);
    await index.build();
    const attributes = [...(await heldAttributes()), { name: 'held_by_nobody', type: 'number' as const }];
    // Typed attributes among them, counted by their numbers.
    expect(attributes.filter((attribute) => attribute.type !== 'text').length).toBeGreaterThanOrEqual(2);
    const bySql = await holdersBySql(server.app.services, APP, attributes);
    expect(index.holders(attributes)).toEqual(bySql);
    expect([...bySql.values()].filter((players) => players > 0).length).toBeGreaterThanOrEqual(3);
  });

  it('follows changes made through the API and the SDK after it was built', async () => {
    const index = new AudienceIndex(db(server), server.dialect, APP);
    await index.build();

    // A new visitor with events and attributes, and events and attributes for a seeded player.
    const seeded = await db(server).selectFrom('players').select(['id', 'device_id']).where('application_id', '=', APP).orderBy('id').limit(1).executeTakeFirstOrThrow();
    for (const [visitor, plan] of [['new-visitor-0001', 'gold'], [seeded.device_id, 'silver']] as const) {
      const now = Date.now();
      const id = (label: string) => `${label}-${visitor}`.replace(/[^A-Za-z0-9_-]/g, '_');
      const answer = await server.call('POST', '/api/sdk/track', {
        body: {
          key: clientKey,
          visitor_id: visitor,
          device: { device_type: 'mobile', os: 'iOS', browser: 'Safari', language: 'vi', timezone: 'Asia/Ho_Chi_Minh' },
          items: [
            { type: 'session', id: id('session'), at: now, session_id: id('s'), utm: { utm_source: 'zalo' } },
            { type: 'event', id: id('event1'), name: 'purchase', at: now },
            { type: 'event', id: id('event2'), name: 'purchase', at: now },
            { type: 'set', id: id('attrs'), at: now, attributes: { plan, orders: 42 } },
          ],
        },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    // A tag added in the console.
    const tagged = await server.call('POST', `/api/application/${APP}/player/${seeded.id}/tags`, { token: owner.token, body: { tags: ['fresh_tag'] } });
    expect(tagged.status, JSON.stringify(tagged.body)).toBe(200);

    await index.refresh();
    expect(index.size).toBe(PLAYERS + 1);
    await compare(index, 2, 150);
    await compareLists(index, 4, 100);
    const attributes = await heldAttributes();
    expect(index.holders(attributes)).toEqual(await holdersBySql(server.app.services, APP, attributes));
    const purchasedTwiceToday: SegmentRule = {
      any: [{ all: [{ kind: 'event', name: 'purchase', performed: true, within_days: 1, count: { op: 'gte', value: 2 } }, { kind: 'attribute', name: 'orders', type: 'number', op: 'eq', value: 42 }] }],
    };
    expect(index.count(purchasedTwiceToday, new Date())).toBeGreaterThanOrEqual(2);
  });

  // PostgreSQL takes ids before commit: an event may commit after one with a higher id was read.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('counts an event that commits below the highest id read, once', async () => {
    const index = new AudienceIndex(db(server), server.dialect, APP);
    await index.build();
    const player = await db(server).selectFrom('players').select('id').where('application_id', '=', APP).orderBy('id').limit(1).executeTakeFirstOrThrow();
    const highest = Number((await db(server).selectFrom('events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow()).id);
    const event = (id: number, name: string) => ({
      id,
      application_id: APP,
      player_id: player.id,
      name,
      properties: null,
      client_event_id: `late-${id}`,
      session_id: null,
      occurred_at: new Date().toISOString(),
      received_at: new Date().toISOString(),
    });
    const did = (name: string): SegmentRule => ({ any: [{ all: [{ kind: 'event', name, performed: true }] }] });

    await db(server).insertInto('events').values(event(highest + 100, 'early_commit')).execute();
    await index.refresh();
    expect(index.count(did('early_commit'), new Date())).toBe(1);
    // Its id was taken first, but it commits after the refresh that read the higher one.
    await db(server).insertInto('events').values(event(highest + 50, 'late_commit')).execute();
    await index.refresh();
    expect(index.count(did('late_commit'), new Date())).toBe(1);
    await index.refresh();
    expect(index.count(did('late_commit'), new Date())).toBe(1);
    expect(index.count(did('early_commit'), new Date())).toBe(1);
    // The ids given here are past the sequence's: move it on, or later inserts would take them again.
    await sql`select setval(pg_get_serial_sequence('events', 'id'), (select max(id) from events))`.execute(db(server));
  });

  it('reads a change stamped while it was being built and committed after the build had read that player', async () => {
    const ids = (await db(server).selectFrom('players').select('id').where('application_id', '=', APP).orderBy('id').execute()).map((row) => Number(row.id));
    const started = Date.now();
    const stamp = (ms: number) => new Date(started + ms).toISOString();
    // A player the build reads late (the highest id), written while it ran, read with its later time.
    await db(server).updateTable('players').set({ updated_at: stamp(20) }).where('id', '=', ids[ids.length - 1]).execute();
    const index = new AudienceIndex(db(server), server.dialect, APP);
    await index.build();
    // A player the build read first, its write stamped before that one's and committed after the build read it.
    await db(server).updateTable('players').set({ country: 'AQ', updated_at: stamp(10) }).where('id', '=', ids[0]).execute();
    await index.refresh();
    expect(index.count(countryIs('AQ'), new Date())).toBe(1);
  });

  // PostgreSQL: a write may commit after a later one; the copy reads such moments again, and only those.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('reads again only the moments a late commit can still land in', async () => {
    const { index, clock, read } = await builtWithClock('players');
    const ids = (await db(server).selectFrom('players').select('id').where('application_id', '=', APP).orderBy('id').limit(2).execute()).map((row) => Number(row.id));
    const at = clock.now + 100;
    const write = (id: number, ms: number, country = 'AI') => db(server).updateTable('players').set({ country, updated_at: new Date(ms).toISOString() }).where('id', '=', id).execute();
    await write(ids[0], at);
    clock.now = at + 500;
    await index.refresh();
    expect(index.count(countryIs('AI'), new Date())).toBe(1);
    // Stamped before the write just read, committed after it: still within the moments read again.
    await write(ids[1], at - 500);
    clock.now = at + 1_000;
    await index.refresh();
    expect(index.count(countryIs('AI'), new Date())).toBe(2);
    // Quiet, past those moments: one more read of them, then no player is read again.
    clock.now = at + 10_000;
    await index.refresh();
    read.rows = 0;
    await index.refresh();
    await index.refresh();
    expect(read.rows).toBe(0);
    // A new write is read as ever.
    await write(ids[0], clock.now - 100, 'AX');
    await index.refresh();
    expect(index.count(countryIs('AX'), new Date())).toBe(1);
    expect(read.rows).toBe(1);
  });

  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('looks below the newest event for late commits only until none can still land there', async () => {
    const { index, clock, read } = await builtWithClock('events');
    const player = await db(server).selectFrom('players').select('id').where('application_id', '=', APP).orderBy('id').limit(1).executeTakeFirstOrThrow();
    const at = new Date().toISOString();
    const event = (name: string) => ({ application_id: APP, player_id: player.id, name, properties: null, client_event_id: `window-${name}`, session_id: null, occurred_at: at, received_at: at });
    const did = (name: string): SegmentRule => ({ any: [{ all: [{ kind: 'event', name, performed: true }] }] });
    await db(server).insertInto('events').values(event('window_newest')).execute();
    clock.now += 100;
    await index.refresh();
    expect(index.count(did('window_newest'), new Date())).toBe(1);
    // Within LATE_COMMIT_MS of holding that id, every read looks at the window (a count: one row).
    clock.now += 500;
    read.rows = 0;
    await index.refresh();
    expect(read.rows).toBe(1);
    // Past it: one more look, then none while no newer event comes.
    clock.now += 5_000;
    await index.refresh();
    read.rows = 0;
    await index.refresh();
    await index.refresh();
    expect(read.rows).toBe(0);
    // A newer event is read, and its window looked at again.
    await db(server).insertInto('events').values(event('window_next')).execute();
    await index.refresh();
    expect(index.count(did('window_next'), new Date())).toBe(1);
    read.rows = 0;
    await index.refresh();
    expect(read.rows).toBe(1);
  });

  it('answers the player list route, current with a tag just added, the dashboard and the attribute list', async () => {
    const indexes = audienceIndexes(server.app.services, 0);
    expect(await indexes.warm(APP)).not.toBeNull();
    const list = (query: string) => server.call('GET', `/api/application/${APP}/player${query}`, { token: owner.token });
    const answer = await list('?country=VN&sort=session_count&order=asc&page=2');
    const query = PlayerListQuery.parse({ country: 'VN', sort: 'session_count', order: 'asc', page: '2' });
    const bySql = await playerPageBySql(server.app.services, APP, playerListSelection(query, new Date()));
    expect(answer.status).toBe(200);
    expect(answer.body.data.total).toBe(bySql.total);
    expect(answer.body.data.items.map((player: { id: number }) => player.id)).toEqual(bySql.rows.map((row) => Number(row.id)));
    expect(answer.body.data.items[0]).toMatchObject({ country: 'VN', tags: expect.any(Array) });

    const player = bySql.rows[3];
    expect((await server.call('POST', `/api/application/${APP}/player/${player.id}/tags`, { token: owner.token, body: { tags: ['listed_now'] } })).status).toBe(200);
    const tagged = await list('?tag=listed_now');
    expect(tagged.body.data).toMatchObject({ total: 1, items: [{ id: Number(player.id), tags: expect.arrayContaining(['listed_now']) }] });

    // The dashboard, from the same copy.
    const dashboard = await server.call('GET', `/api/application/${APP}/dashboard`, { token: owner.token });
    expect(dashboard.status).toBe(200);
    const { utc_offset } = await db(server).selectFrom('applications').select('utc_offset').where('application_id', '=', APP).executeTakeFirstOrThrow();
    const period = dashboardPeriod(new Date(), utc_offset);
    const audience = await audienceBySql(server.app.services, APP, period);
    expect(dashboard.body.data).toMatchObject({
      players: audience.players,
      subscribers: [...audience.byPlatform.values()].reduce((total, row) => total + row.subscribers, 0),
      by_platform: ['web', 'ios', 'android'].map((platform) => ({ platform, players: audience.byPlatform.get(platform)?.players, subscribers: audience.byPlatform.get(platform)?.subscribers })),
      by_channel: ['web_push', 'mobile_push', 'sms', 'facebook'].map((channel) => ({ channel, players: audience.channels[channel as 'sms'] })),
    });
    expect(dashboard.body.data.days.map((day: { new_players: number }) => day.new_players)).toEqual(audience.created);

    // The attribute list's holder counts, from the same copy.
    const attributes = await server.call('GET', `/api/application/${APP}/attribute?limit=100`, { token: owner.token });
    expect(attributes.status).toBe(200);
    const listed = attributes.body.data.items as { name: string; type: AttributeType; players: number }[];
    expect(listed.length).toBeGreaterThan(0);
    const held = await holdersBySql(server.app.services, APP, listed);
    expect(Object.fromEntries(listed.map((item) => [item.name, item.players]))).toEqual(Object.fromEntries(held));
  });

  it('is rebuilt after a deletion, through the live count route', async () => {
    const indexes = audienceIndexes(server.app.services, 0);
    await indexes.warm(APP);
    const rule: SegmentRule = { any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] };
    const before = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, body: { rule } });
    expect(before.status).toBe(200);
    const victim = await db(server).selectFrom('players').select('id').where('application_id', '=', APP).where('country', '=', 'VN').limit(1).executeTakeFirstOrThrow();
    const deleted = await server.call('DELETE', `/api/application/${APP}/player/${victim.id}`, { token: owner.token });
    expect(deleted.status).toBe(200);
    await indexes.warm(APP);
    const after = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, body: { rule } });
    expect(after.body.data.count).toBe(before.body.data.count - 1);
    expect(after.body.data.total).toBe(before.body.data.total - 1);
  });
});

// Last: its dashboard calls make the process's copies with the default size threshold (the tests above need 0).
describe('the seed generator, into a running server', () => {
  it('shows what it seeds into a running server on its dashboard, past days included', async () => {
    const seeded = 'seed_into_running';
    await createApplication(server, owner, seeded, 'Seeded while running');
    const now = server.clock.now();
    const from = new Date(now.getTime() - 89 * 86_400_000).toISOString().slice(0, 10);
    const activeDays = async () => {
      const answer = await server.call('GET', `/api/application/${seeded}/dashboard?from=${from}&to=${now.toISOString().slice(0, 10)}`, { token: owner.token });
      return (answer.body.data.days as { active_players: number }[]).reduce((total, day) => total + day.active_players, 0);
    };
    // Read once before: the dashboard keeps the days that ingestion can no longer change.
    expect(await activeDays()).toBe(0);
    await seedAudience(db(server), server.dialect, { applicationId: seeded, players: 300, eventsPerPlayer: 5, seed: 12, now });
    const rows = await db(server).selectFrom('player_days').select((eb) => eb.fn.countAll().as('n')).where('application_id', '=', seeded).where('day', '>=', from).executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBeGreaterThan(300);
    expect(await activeDays()).toBe(Number(rows.n));
  });

  it("seeds players whose counters are their events: the sessions and page views of each are its session_start and page_view events, on the days they fall in the application's timezone", async () => {
    const seeded = 'seed_consistent';
    // UTC+07:00, a shop's timezone created in the console: its days are not UTC's.
    await createApplication(server, owner, seeded, 'Seeded consistently', 420);
    await seedAudience(db(server), server.dialect, { applicationId: seeded, players: 200, eventsPerPlayer: 3, seed: 13, now: server.clock.now(), scrollDepth: true });
    const players = await db(server)
      .selectFrom('players')
      .select(['id', 'platform', 'session_count', 'page_views', 'first_session_at', 'last_session_at', 'last_seen_at'])
      .where('application_id', '=', seeded)
      .execute();
    const events = await db(server)
      .selectFrom('events')
      .select(['player_id', 'name', 'properties', 'session_id', 'occurred_at'])
      .where('application_id', '=', seeded)
      .execute();
    const days = await db(server).selectFrom('player_days').selectAll().where('application_id', '=', seeded).execute();
    expect(players).toHaveLength(200);
    const builtin = new Set(['session_start', 'page_view', 'scroll_depth']);
    // Custom events beside the sessions' own: about three a player.
    expect(events.filter((event) => !builtin.has(event.name)).length).toBeGreaterThan(300);
    // The storefront's scroll quarters, about 1.5 a web page view: each one of a page view just before it, of the
    // same page and session, the quarters of a page in order.
    const scrolled = events.filter((event) => event.name === 'scroll_depth');
    const webViews = events.filter((event) => event.name === 'page_view' && players.find((p) => Number(p.id) === Number(event.player_id))!.platform === 'web');
    expect(scrolled.length / webViews.length).toBeGreaterThan(1.2);
    expect(scrolled.length / webViews.length).toBeLessThan(1.9);
    const propertiesOf = (event: { properties: unknown }) => (typeof event.properties === 'string' ? JSON.parse(event.properties) : event.properties) as { url: string; depth: number };
    for (const scroll of scrolled) {
      const { url, depth } = propertiesOf(scroll);
      const at = Date.parse(scroll.occurred_at);
      const page = webViews.find(
        (view) => Number(view.player_id) === Number(scroll.player_id) && view.session_id === scroll.session_id && propertiesOf(view).url === url && at - Date.parse(view.occurred_at) >= (depth / 25) * 2000 && at - Date.parse(view.occurred_at) <= (depth / 25) * 4000,
      );
      expect(page, `scroll_depth ${depth} of player ${scroll.player_id} at ${scroll.occurred_at}`).toBeDefined();
    }
    for (const player of players) {
      const own = events.filter((event) => Number(event.player_id) === Number(player.id));
      const starts = own.filter((event) => event.name === 'session_start').map((event) => event.occurred_at).sort();
      const views = own.filter((event) => event.name === 'page_view');
      if (player.platform !== 'web') expect(own.filter((event) => event.name === 'scroll_depth'), `player ${player.id}`).toEqual([]);
      expect([player.session_count, player.page_views], `player ${player.id}`).toEqual([starts.length, views.length]);
      expect([player.first_session_at, player.last_session_at, player.last_seen_at]).toEqual([starts[0], starts[starts.length - 1], own.map((event) => event.occurred_at).sort().pop()]);
      const perDay = (list: { occurred_at: string }[]) =>
        list.reduce<Record<string, number>>((counts, event) => {
          const day = dayAtOffset(event.occurred_at, 420);
          return { ...counts, [day]: (counts[day] ?? 0) + 1 };
        }, {});
      const mine = days.filter((day) => Number(day.player_id) === Number(player.id));
      const column = (name: 'sessions' | 'page_views') => Object.fromEntries(mine.filter((day) => Number(day[name]) > 0).map((day) => [day.day, Number(day[name])]));
      expect([column('sessions'), column('page_views')], `player ${player.id}`).toEqual([perDay(own.filter((event) => event.name === 'session_start')), perDay(views)]);
      // A day is one the player was active on when any of its events falls in it (a custom event, a scroll after
      // midnight too).
      expect(mine.map((day) => day.day).sort(), `player ${player.id}`).toEqual(Object.keys(perDay(own)).sort());
    }
  });
});
