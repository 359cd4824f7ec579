import { createRequire } from 'node:module';
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestionDb, INGESTION_APPLICATION_NAME, openDatabase, type Database } from '../../server/db';
import { buildMigrations } from '../../server/db/migrations';
import { WriterThread, writeBatches, type IngestBatch, type IngestItem } from '../../server/domain/ingest';
import { matchingPlayerIds } from '../../server/domain/segments';
import type { SegmentRule } from '../../shared/contract';
import { addDays, dayAtOffset, dayStartAtOffset } from '../../shared/format';
import { TRACK_BATCH_MAX } from '../../shared/validation';
import { insertWebSubscribers } from './players-fixtures';
import { nextBatch } from '../../storefront-widgets/sdk/outbox';
import { createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';

/**
 * POST /api/sdk/track as the storefront SDK sends it: a batch of items from one browser, JSON as text/plain,
 * with the application's client key. A 200 means stored; retries store nothing twice.
 */
const APP = 'track_shop';

let server: TestServer;
let owner: TestUser;
let key: string;
let counter = 0;

const id = (label: string) => `${label}-${(counter += 1).toString().padStart(6, '0')}-${Math.random().toString(36).slice(2, 10)}`;
const now = () => server.clock.now().getTime();

function track(body: Record<string, unknown>, options: { ip?: string; lang?: 'en' | 'vi' } = {}) {
  return server.call('POST', '/api/sdk/track', {
    body: JSON.stringify(body),
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example.net' },
    ip: options.ip,
    lang: options.lang,
  });
}

async function playerOf(visitorId: string) {
  return db(server).selectFrom('players').selectAll().where('application_id', '=', APP).where('device_id', '=', visitorId).executeTakeFirst();
}

async function eventsOf(playerId: number) {
  return db(server).selectFrom('events').selectAll().where('player_id', '=', playerId).orderBy('occurred_at').orderBy('id').execute();
}

async function countEvents() {
  const row = await db(server).selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('application_id', '=', APP).executeTakeFirst();
  return Number(row?.n ?? 0);
}

beforeAll(async () => {
  server = await startServer({ limits: { sdkTrackPerVisitor: { max: 5, windowMs: 60_000 } } });
  owner = await createUser(server, { name: 'Track owner' });
  key = (await createApplication(server, owner, APP, 'Track shop')).client_key;
}, 60_000);
afterAll(async () => server?.close());

describe('a batch from the storefront', () => {
  const visitor = id('visitor');
  const session = id('session');
  let batch: Record<string, unknown>;

  beforeAll(() => {
    const start = now() - 60_000;
    batch = {
      key,
      visitor_id: visitor,
      device: { platform: 'web', device_type: 'mobile', os: 'Android', browser: 'Chrome', language: 'vi', timezone: 'Asia/Ho_Chi_Minh', timezone_offset: 420, country: 'VN' },
      items: [
        { type: 'session', id: id('s'), at: start, session_id: session, utm: { utm_source: 'facebook', utm_campaign: 'tet' }, referrer: 'https://facebook.com/' },
        { type: 'page', id: id('p'), at: start + 1000, session_id: session, url: 'https://shop.example.net/', title: 'Home' },
        { type: 'page', id: id('p'), at: start + 5000, session_id: session, url: 'https://shop.example.net/p/1', title: 'Shirt' },
        { type: 'scroll', id: id('sc'), at: start + 6000, session_id: session, url: 'https://shop.example.net/p/1', depth: 50 },
        { type: 'event', id: id('e'), at: start + 7000, session_id: session, name: 'add_to_cart', properties: { sku: 'SHIRT-1', price: 199000, gift: false, 'added.date': '2025-01-02T03:04:05.000Z' } },
        { type: 'set', id: id('a'), at: start + 8000, attributes: { plan: 'gold', orders: 3, vip: true, 'birthday.date': '1990-05-17' } },
        { type: 'identify', id: id('i'), at: start + 9000, identity: { external_user_id: 'user-42', email: 'Buyer@Example.com', mobile_number: '+84 912 345 678' } },
      ],
    };
  });

  it('stores the events, sessions, page views, device facts, UTM, attributes and identity on the player', async () => {
    const answer = await track(batch);
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.body).toEqual({ success: true, data: { accepted: 7 } });

    const player = await playerOf(visitor);
    expect(player).toMatchObject({
      platform: 'web',
      device_type: 'mobile',
      os: 'Android',
      browser: 'Chrome',
      language: 'vi',
      country: 'VN',
      timezone_offset: 420,
      utm_source: 'facebook',
      utm_campaign: 'tet',
      utm_medium: null,
      session_count: 1,
      page_views: 2,
      external_user_id: 'user-42',
      email: 'buyer@example.com',
      mobile_number: '+84912345678',
    });
    const items = batch.items as { at: number }[];
    expect(player?.first_session_at).toBe(new Date(items[0].at).toISOString());
    expect(player?.last_session_at).toBe(new Date(items[0].at).toISOString());
    expect(player?.last_seen_at).toBe(new Date(items[6].at).toISOString());

    const events = await eventsOf(Number(player?.id));
    expect(events.map((event) => event.name)).toEqual(['session_start', 'page_view', 'page_view', 'scroll_depth', 'add_to_cart']);
    expect(JSON.parse(events[4].properties as string)).toEqual({ sku: 'SHIRT-1', price: 199000, gift: false, 'added.date': '2025-01-02T03:04:05.000Z' });
    expect(events[4].session_id).toBe(session);

    const day = await db(server).selectFrom('player_days').selectAll().where('player_id', '=', Number(player?.id)).execute();
    expect(day).toEqual([{ application_id: APP, day: new Date(items[0].at).toISOString().slice(0, 10), player_id: player?.id, sessions: 1, page_views: 2 }]);
  });

  it('stores nothing twice when the same batch is sent again', async () => {
    const before = await countEvents();
    const answer = await track(batch);
    expect(answer.status).toBe(200);
    expect(await countEvents()).toBe(before);
    const player = await playerOf(visitor);
    expect(player).toMatchObject({ session_count: 1, page_views: 2 });
    const days = await db(server).selectFrom('player_days').selectAll().where('player_id', '=', Number(player?.id)).execute();
    expect(days.map((day) => [day.sessions, day.page_views])).toEqual([[1, 2]]);
    const definition = await db(server).selectFrom('event_definitions').selectAll().where('application_id', '=', APP).where('name', '=', 'add_to_cart').executeTakeFirst();
    expect(Number(definition?.count)).toBe(1);
  });

  it('types attributes by value, and `.date` names as dates stored as epoch ms', async () => {
    const player = await playerOf(visitor);
    const attributes = await db(server).selectFrom('player_attributes').selectAll().where('player_id', '=', Number(player?.id)).orderBy('name').execute();
    expect(attributes.map((row) => [row.name, row.value, row.number_value])).toEqual([
      ['birthday.date', '1990-05-17T00:00:00.000Z', Date.parse('1990-05-17')],
      ['orders', '3', 3],
      ['plan', 'gold', null],
      ['vip', 'true', 1],
    ]);
    const definitions = await db(server).selectFrom('attribute_definitions').select(['name', 'type', 'source']).where('application_id', '=', APP).orderBy('name').execute();
    expect(definitions).toEqual([
      { name: 'birthday.date', type: 'date', source: 'sdk' },
      { name: 'orders', type: 'number', source: 'sdk' },
      { name: 'plan', type: 'text', source: 'sdk' },
      { name: 'vip', type: 'boolean', source: 'sdk' },
    ]);
  });

  it('counts events per name with their property types in the event definitions', async () => {
    const visitor2 = id('visitor');
    await track({
      key,
      visitor_id: visitor2,
      items: [
        { type: 'event', id: id('e'), at: now(), name: 'add_to_cart', properties: { sku: 'HAT', coupon: 'TET' } },
        { type: 'event', id: id('e'), at: now(), name: 'add_to_cart', properties: { price: 'free' } },
      ],
    });
    const definition = await db(server).selectFrom('event_definitions').selectAll().where('application_id', '=', APP).where('name', '=', 'add_to_cart').executeTakeFirst();
    expect(Number(definition?.count)).toBe(3);
    // The first type seen stays: `price` was a number before a text value came.
    expect(JSON.parse(definition?.properties as string)).toEqual({ sku: 'text', price: 'number', gift: 'boolean', 'added.date': 'date', coupon: 'text' });
    const pageViews = await db(server).selectFrom('event_definitions').selectAll().where('application_id', '=', APP).where('name', '=', 'page_view').executeTakeFirst();
    expect(Number(pageViews?.count)).toBe(2);
    expect(JSON.parse(pageViews?.properties as string)).toEqual({ url: 'text', title: 'text' });
  });

  it('keeps the first landing UTM and the last non-empty device facts on later sessions', async () => {
    const later = now();
    const answer = await track({
      key,
      visitor_id: visitor,
      device: { os: '', browser: 'Firefox' },
      items: [{ type: 'session', id: id('s'), at: later, session_id: id('session'), utm: { utm_source: 'google' } }],
    });
    expect(answer.status).toBe(200);
    const player = await playerOf(visitor);
    expect(player).toMatchObject({ utm_source: 'facebook', utm_campaign: 'tet', os: 'Android', browser: 'Firefox', session_count: 2, last_session_at: new Date(later).toISOString() });
  });
});

describe('text a shopper typed', () => {
  it('is stored as sent, quotes, backslashes, commas, braces and the word NULL included', async () => {
    // On PostgreSQL a group's rows travel as array literals (server/db/rows.ts arrayLiteral), where these are special.
    const visitor = id('visitor');
    const odd = 'C:\\shop\\"sale", {50%} \\" NULL';
    const answer = await track({
      key,
      visitor_id: visitor,
      device: { platform: 'web', browser: 'NULL' },
      items: [
        { type: 'page', id: id('p'), at: now(), session_id: 'session "1", {a}', url: 'https://shop.example.net/search?q=%22x%22', title: odd },
        { type: 'event', id: id('e'), at: now(), name: 'search', properties: { query: odd, empty: 'NULL' } },
        { type: 'set', id: id('a'), at: now(), attributes: { nickname: odd, nothing: 'NULL' } },
      ],
    });
    expect(answer.status).toBe(200);
    const player = await playerOf(visitor);
    expect(player?.browser).toBe('NULL');
    const events = await eventsOf(Number(player?.id));
    expect(events.map((event) => [event.session_id, JSON.parse(event.properties as string)])).toEqual([
      ['session "1", {a}', { url: 'https://shop.example.net/search?q=%22x%22', title: odd }],
      [null, { query: odd, empty: 'NULL' }],
    ]);
    const attributes = await db(server).selectFrom('player_attributes').select(['name', 'value']).where('player_id', '=', Number(player?.id)).orderBy('name').execute();
    expect(attributes).toEqual([
      { name: 'nickname', value: odd },
      { name: 'nothing', value: 'NULL' },
    ]);
  });
});

describe("an application's timezone", () => {
  it("counts a visit's activity on the days of the application's timezone, not UTC's", async () => {
    const hanoi = (await createApplication(server, owner, 'track_hanoi', 'Hanoi shop', 420)).client_key;
    // Midnight in Hanoi (UTC+07:00) was 17:00 UTC: a minute before it is yesterday there, the same UTC day.
    const today = dayAtOffset(now(), 420);
    const midnight = dayStartAtOffset(today, 420);
    const visitor = id('hanoi');
    const session = id('session');
    const answer = await track({
      key: hanoi,
      visitor_id: visitor,
      items: [
        { type: 'session', id: id('s'), at: midnight - 60_000, session_id: session },
        { type: 'page', id: id('p'), at: midnight - 30_000, session_id: session, url: 'https://shop.example.net/' },
        { type: 'event', id: id('e'), at: midnight, session_id: session, name: 'add_to_cart' },
      ],
    });
    expect(answer.status).toBe(200);
    const player = await db(server).selectFrom('players').select('id').where('application_id', '=', 'track_hanoi').where('device_id', '=', visitor).executeTakeFirstOrThrow();
    const days = await db(server).selectFrom('player_days').select(['day', 'sessions', 'page_views']).where('player_id', '=', player.id).orderBy('day').execute();
    expect(days).toEqual([
      { day: addDays(today, -1), sessions: 1, page_views: 1 },
      // The event after midnight makes today a day the player was active on.
      { day: today, sessions: 0, page_views: 0 },
    ]);
  });
});

describe("a player's day", () => {
  // On PostgreSQL a rewritten row is a new row version (and later vacuum's work): a day is rewritten only for what it
  // counts, sessions and page views; an event only makes it a day the player was active on, which it already is.
  it('is written once for events, and added to for page views', async () => {
    const visitor = id('day');
    const at = now() - 60_000;
    const send = (item: Record<string, unknown>) => track({ key, visitor_id: visitor, items: [{ id: id('x'), at, session_id: 'day-session', ...item }] });
    // The row's version: on PostgreSQL the transaction that last wrote it (xmin); SQLite has none to read.
    const version = sql.raw(process.env.NUDGE_TEST_DB === 'postgres' ? 'xmin::text' : "''");
    const day = async () => {
      const player = await playerOf(visitor);
      const rows = await sql<{ sessions: number | string; page_views: number | string; version: string }>`select sessions, page_views, ${version} as version from player_days where player_id = ${Number(player?.id)}`.execute(db(server));
      return rows.rows.map((row) => ({ sessions: Number(row.sessions), page_views: Number(row.page_views), version: row.version }));
    };
    expect((await send({ type: 'event', name: 'view_item' })).status).toBe(200);
    const [first] = await day();
    expect(first).toMatchObject({ sessions: 0, page_views: 0 });
    expect((await send({ type: 'event', name: 'add_to_cart' })).status).toBe(200);
    const [second, ...more] = await day();
    expect(more).toEqual([]);
    expect(second).toMatchObject({ sessions: 0, page_views: 0 });
    expect(second.version).toBe(first.version);
    expect((await send({ type: 'page', url: 'https://shop.example.net/' })).status).toBe(200);
    expect(await day()).toMatchObject([{ sessions: 0, page_views: 1 }]);
  });
});

describe('a batch sent again with more in it', () => {
  it('counts only the items that are new', async () => {
    const shopper = id('visitor');
    const visit = id('session');
    const at = now() - 30_000;
    const first = [
      { type: 'session', id: id('s'), at, session_id: visit },
      { type: 'page', id: id('p'), at: at + 1000, session_id: visit, url: 'https://shop.example.net/', title: 'Home' },
      { type: 'event', id: id('e'), at: at + 2000, session_id: visit, name: 'wishlist', properties: { sku: 'HAT' } },
    ];
    expect((await track({ key, visitor_id: shopper, items: first })).status).toBe(200);
    // The SDK never got the answer: it sends the same items again with what came since, one of them twice.
    const page = { type: 'page', id: id('p'), at: at + 3000, session_id: visit, url: 'https://shop.example.net/p/2', title: 'Hat' };
    const again = [...first, page, page, { type: 'event', id: id('e'), at: at + 4000, session_id: visit, name: 'wishlist', properties: { sku: 'CAP' } }];
    expect((await track({ key, visitor_id: shopper, items: again })).status).toBe(200);

    const player = await playerOf(shopper);
    expect(player).toMatchObject({ session_count: 1, page_views: 2 });
    expect((await eventsOf(Number(player?.id))).map((event) => event.name)).toEqual(['session_start', 'page_view', 'wishlist', 'page_view', 'wishlist']);
    const days = await db(server).selectFrom('player_days').selectAll().where('player_id', '=', Number(player?.id)).execute();
    const sum = (field: 'sessions' | 'page_views') => days.reduce((total, day) => total + Number(day[field]), 0);
    expect([sum('sessions'), sum('page_views')]).toEqual([1, 2]);
    const definition = await db(server).selectFrom('event_definitions').selectAll().where('application_id', '=', APP).where('name', '=', 'wishlist').executeTakeFirst();
    expect(Number(definition?.count)).toBe(2);
  });
});

// The server remembers the players of devices it wrote lately (KnownPlayers); a deleted one must not linger there.
describe('a device whose player was deleted', () => {
  async function deletePlayer(visitor: string): Promise<number> {
    const player = await playerOf(visitor);
    expect(player).toBeDefined();
    const deleted = await server.call('DELETE', `/api/application/${APP}/player/${player!.id}`, { token: owner.token });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    return Number(player!.id);
  }

  it('gets a new player from its next batch, with that batch stored on it', async () => {
    const visitor = id('visitor');
    expect((await track({ key, visitor_id: visitor, items: [{ type: 'event', id: id('e'), at: now(), name: 'first_visit' }] })).status).toBe(200);
    const old = await deletePlayer(visitor);

    const answer = await track({ key, visitor_id: visitor, items: [{ type: 'page', id: id('p'), at: now(), session_id: 's1', url: 'https://shop.example.net/' }, { type: 'event', id: id('e'), at: now(), name: 'came_back' }] });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const player = await playerOf(visitor);
    expect(Number(player?.id)).not.toBe(old);
    expect(player?.page_views).toBe(1);
    expect((await eventsOf(Number(player!.id))).map((event) => event.name)).toEqual(['page_view', 'came_back']);
  });

  it('is answered as a new player when the app registers it again', async () => {
    const register = () => server.call('POST', '/api/v1/devices', { body: { device_id: 'reinstalled-app-0001', platform: 'android' }, headers: { authorization: `Key ${key}` } });
    const first = await register();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const old = await deletePlayer('reinstalled-app-0001');

    const again = await register();
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.created).toBe(true);
    expect(again.body.data.player_id).not.toBe(old);
    expect(Number((await playerOf('reinstalled-app-0001'))?.id)).toBe(again.body.data.player_id);
  });
});

describe('last seen, kept to the minute', () => {
  it('does not rewrite the player for an event within a minute of the last one, unless something else changes', async () => {
    const visitor = id('minute');
    const start = now() - 50_000;
    const event = (at: number, device?: Record<string, string>) =>
      track({ key, visitor_id: visitor, device: { platform: 'web', browser: 'Chrome', ...device }, items: [{ type: 'event', id: id('e'), at, name: 'view_item' }] });

    expect((await event(start)).status).toBe(200);
    const first = await playerOf(visitor);
    expect(first?.last_seen_at).toBe(new Date(start).toISOString());

    // 30 s later, the same facts: the event is stored, the player row is left as it was.
    expect((await event(start + 30_000)).status).toBe(200);
    expect(await playerOf(visitor)).toEqual(first);
    expect(await eventsOf(Number(first?.id))).toHaveLength(2);

    // Still within the minute, but the browser changed: written, last seen with it.
    expect((await event(start + 40_000, { browser: 'Firefox' })).status).toBe(200);
    expect(await playerOf(visitor)).toMatchObject({ browser: 'Firefox', last_seen_at: new Date(start + 40_000).toISOString() });

    // More than a minute after the last seen time written: written.
    expect((await event(start + 105_000, { browser: 'Firefox' })).status).toBe(200);
    expect((await playerOf(visitor))?.last_seen_at).toBe(new Date(start + 105_000).toISOString());
  });
});

describe("a device's first report", () => {
  // PostgreSQL cannot update a player in place (its last seen is indexed): each rewrite is a new row version with
  // an entry in every index of players. A new device's player is written once, with what its report says, by the
  // statement storing its events (server/domain/players-write.ts unseenPlayers): that statement's UPDATE cannot see
  // a row it inserts, so the player is not rewritten.
  it('creates its player with the device facts, identity and last seen it brings, in one write', async () => {
    const visitor = id('first');
    const at = now() - 5_000;
    const answer = await track({
      key,
      visitor_id: visitor,
      device: { platform: 'web', os: 'iOS', browser: 'Safari', language: 'en', country: 'US', timezone: 'America/New_York' },
      items: [
        { type: 'identify', id: id('i'), at, identity: { external_user_id: 'first-42', email: 'first@example.com' } },
        { type: 'event', id: id('e'), at, name: 'view_item' },
      ],
    });
    expect(answer.status).toBe(200);
    const player = await playerOf(visitor);
    expect(player).toMatchObject({ country: 'US', language: 'en', timezone: 'America/New_York', os: 'iOS', browser: 'Safari', device_type: 'desktop' });
    expect(player).toMatchObject({ external_user_id: 'first-42', email: 'first@example.com', last_seen_at: new Date(at).toISOString(), session_count: 0 });
    if (process.env.NUDGE_TEST_DB !== 'postgres') return;
    const versions = await sql<{ player: string; event: string }>`select p.xmin::text as player, e.xmin::text as event from players p join events e on e.player_id = p.id where p.application_id = ${APP} and p.device_id = ${visitor}`.execute(db(server));
    expect(versions.rows).toHaveLength(1);
    // One statement created the player and stored the event: no round trip of its own before it.
    expect(versions.rows[0].player).toBe(versions.rows[0].event);
  });
});

describe('many browsers at once', () => {
  it('stores every event once and adds up every counter when batches of many devices arrive together (grouped into few writes)', async () => {
    const visitors = Array.from({ length: 60 }, () => id('crowd'));
    const at = now() - 10_000;
    const batches = visitors.flatMap((visitor, v) =>
      Array.from({ length: 4 }, (_, b) => ({
        key,
        visitor_id: visitor,
        device: { platform: 'web', device_type: 'desktop', browser: 'Firefox' },
        items: [
          ...(b === 0 ? [{ type: 'session', id: `${visitor}-s`, at, session_id: `${visitor}-session` }] : []),
          ...Array.from({ length: 3 }, (_, e) => ({ type: 'event', id: `${visitor}-${b}-${e}`, at: at + b * 10 + e, session_id: `${visitor}-session`, name: e % 2 ? 'crowd_b' : 'crowd_a', properties: { visitor: v } })),
        ],
      })),
    );
    // Every batch at once, one of them twice: the copy stores nothing more.
    const answers = await Promise.all([...batches, batches[5]].map((batch, index) => track(batch, { ip: `10.9.${index % 250}.${Math.floor(index / 250) + 1}` })));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));

    const rows = await db(server)
      .selectFrom('events')
      .innerJoin('players', 'players.id', 'events.player_id')
      .select(['players.device_id', 'players.session_count', 'events.client_event_id'])
      .where('events.application_id', '=', APP)
      .where('events.name', 'in', ['crowd_a', 'crowd_b'])
      .execute();
    expect(rows).toHaveLength(60 * 4 * 3);
    expect(new Set(rows.map((row) => row.client_event_id)).size).toBe(60 * 4 * 3);
    for (const row of rows) expect(Number(row.session_count)).toBe(1);

    const definitions = await db(server).selectFrom('event_definitions').select(['name', 'count']).where('application_id', '=', APP).where('name', 'in', ['crowd_a', 'crowd_b']).orderBy('name').execute();
    expect(definitions.map((row) => [row.name, Number(row.count)])).toEqual([
      ['crowd_a', 60 * 4 * 2],
      ['crowd_b', 60 * 4],
    ]);
    const days = await db(server)
      .selectFrom('player_days')
      .innerJoin('players', 'players.id', 'player_days.player_id')
      .select((eb) => [eb.fn.countAll<number>().as('days'), eb.fn.sum<number>('player_days.sessions').as('sessions')])
      .where('players.application_id', '=', APP)
      .where('players.device_id', 'in', visitors)
      .executeTakeFirstOrThrow();
    // One day each, active, with its one session.
    expect({ days: Number(days.days), sessions: Number(days.sessions) }).toEqual({ days: 60, sessions: 60 });
  });
});

describe('a device this process has not seen, whose player is there', () => {
  // After a restart, or when another server process wrote it, a returning device's player is in the database but
  // not among the process's recent writes. On PostgreSQL the statement storing its events finds it there
  // (server/domain/players-write.ts unseenPlayers): the events and counters go on that player, none is created.
  it('stores the batch on that player and adds its session and page view there', async () => {
    const visitor = id('returning');
    const stamp = new Date(now() - 3_600_000).toISOString();
    const inserted = await db(server)
      .insertInto('players')
      .values({ application_id: APP, device_id: visitor, platform: 'web', device_type: 'desktop', os: 'Windows', session_count: 2, page_views: 5, last_seen_at: stamp, created_at: stamp, updated_at: stamp })
      .returning('id')
      .executeTakeFirstOrThrow();
    const session = id('session');
    const at = now();
    const answer = await track({
      key,
      visitor_id: visitor,
      device: { platform: 'web', browser: 'Firefox' },
      items: [
        { type: 'session', id: id('s'), at, session_id: session },
        { type: 'page', id: id('p'), at, session_id: session, url: 'https://shop.example.net/back' },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);

    const players = await db(server).selectFrom('players').selectAll().where('application_id', '=', APP).where('device_id', '=', visitor).execute();
    expect(players).toHaveLength(1);
    expect(Number(players[0].id)).toBe(Number(inserted.id));
    expect(players[0]).toMatchObject({ os: 'Windows', browser: 'Firefox', session_count: 3, page_views: 6, last_seen_at: new Date(at).toISOString() });
    expect((await eventsOf(Number(inserted.id))).map((event) => event.name)).toEqual(['session_start', 'page_view']);
    const days = await db(server).selectFrom('player_days').select(['sessions', 'page_views']).where('player_id', '=', Number(inserted.id)).execute();
    expect(days.map((day) => [Number(day.sessions), Number(day.page_views)])).toEqual([[1, 1]]);
  });
});

/**
 * Another server process creates `deviceId`'s player and, its transaction still open, `write` starts (its statement
 * then waits on that uncommitted row); the other process commits 300 ms later. The other's player id, and what
 * `write` gave.
 */
async function createdElsewhereDuring<T>(deviceId: string, write: () => Promise<T>): Promise<{ id: string; result: T }> {
  const config = server.config.database;
  if (config.kind !== 'postgres') throw new Error('PostgreSQL only');
  const other = new pg.Client({ connectionString: config.url });
  await other.connect();
  try {
    await other.query('BEGIN');
    const created = await other.query<{ id: string }>(
      "INSERT INTO players (application_id, device_id, platform, device_type, created_at, updated_at) VALUES ($1, $2, 'web', 'desktop', $3, $3) RETURNING id",
      [APP, deviceId, new Date(now()).toISOString()],
    );
    const pending = write();
    pending.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await other.query('COMMIT');
    return { id: created.rows[0].id, result: await pending };
  } finally {
    await other.end();
  }
}

describe('a player another server process creates at the same moment', () => {
  // A group's statement finds the players there on its snapshot and creates the others (players-write.ts
  // unseenPlayers, or ensurePlayers before it). A player another process inserts and commits while that statement
  // waits on it is in neither; it must still be found, not lost or created twice.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('stores the batch on that player', async () => {
    const visitor = id('raced');
    const { id: created, result: answer } = await createdElsewhereDuring(visitor, () =>
      track({ key, visitor_id: visitor, items: [{ type: 'session', id: id('s'), at: now(), session_id: id('session') }] }),
    );
    expect(answer.status).toBe(200);
    const player = await playerOf(visitor);
    expect(String(player?.id)).toBe(created);
    expect(Number(player?.session_count)).toBe(1);
    expect((await eventsOf(Number(player?.id))).map((event) => event.name)).toEqual(['session_start']);
  });

  // A registration brings no event: the statement creating its player has no row whose foreign key would fail when
  // another process created that player meanwhile, so it tells by what its INSERT returned, and the registration
  // is written again on the player there.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('answers an app registering that device with that player, not created, with the facts the app sent on it', async () => {
    const device = id('raced-app');
    const { id: created, result: registered } = await createdElsewhereDuring(device, () =>
      server.call('POST', '/api/v1/devices', { body: { device_id: device, platform: 'android', app_version: '3.1.0' }, headers: { authorization: `Key ${key}` } }),
    );
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.data).toMatchObject({ player_id: Number(created), created: false });
    const players = await db(server).selectFrom('players').select(['id', 'app_version']).where('application_id', '=', APP).where('device_id', '=', device).execute();
    expect(players.map((player) => [String(player.id), player.app_version])).toEqual([[created, '3.1.0']]);
  });

  // The device's new event rows would fail their foreign key and the group be written again. With no new row (every
  // event id already stored) nothing fails: the skipped player must still not be answered as created.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('answers a batch that stores no new event with that player', async () => {
    const stored = id('e');
    const at = new Date(now()).toISOString();
    const event = (visitor: string): IngestBatch => ({
      applicationId: APP,
      utcOffset: 0,
      deviceId: visitor,
      items: [{ kind: 'event', counts: 'none', clientId: stored, name: 'shared_id', properties: null, sessionId: null, at }],
    });
    await writeBatches(db(server), 'postgres', [event(id('first'))], new Date(now()));
    const visitor = id('raced');
    const { id: created, result } = await createdElsewhereDuring(visitor, () => writeBatches(db(server), 'postgres', [event(visitor)], new Date(now())));
    expect(result).toEqual([{ playerId: Number(created), created: false, stored: 0 }]);
    const players = await db(server).selectFrom('players').select('id').where('application_id', '=', APP).where('device_id', '=', visitor).execute();
    expect(players.map((player) => String(player.id))).toEqual([created]);
  });
});

describe('ingestion commits on PostgreSQL', () => {
  // Ingestion's many small commits do not wait for the WAL flush (server/db/index.ts ingestionDb); everything else
  // does. PG_INGEST_SYNCHRONOUS_COMMIT=on makes ingestion wait too. Its sessions also keep generic plans.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('writes batches on connections that commit asynchronously, and nothing else does', async () => {
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('PostgreSQL only');
    const visitor = id('async');
    expect((await track({ key, visitor_id: visitor, items: [{ type: 'event', id: id('e'), at: now(), session_id: id('session'), name: 'async_commit' }] })).status).toBe(200);
    // The batch's rows are there for every other connection at once.
    const player = await playerOf(visitor);
    expect((await eventsOf(Number(player?.id))).map((event) => event.name)).toEqual(['async_commit']);

    // The events were written by ingestion's own connections, which run with synchronous_commit off.
    const ingestion = (
      await sql<{ query: string }>`select query from pg_stat_activity where application_name = ${INGESTION_APPLICATION_NAME} and datname = current_database()`.execute(db(server))
    ).rows;
    // A new device's events: the statement that also creates its player (its text begins with the device's facts).
    expect(ingestion.some((connection) => connection.query.startsWith('/* prepared */ WITH nu AS'))).toBe(true);
    const setting = async (kysely: Kysely<Database>) => (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(kysely)).rows[0].synchronous_commit;
    expect(await setting(ingestionDb(db(server)))).toBe('off');
    expect(await setting(db(server))).toBe('on');
    // And they plan each prepared statement once, generically (server/db/index.ts INGESTION_SESSION).
    const planning = async (kysely: Kysely<Database>) => (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(kysely)).rows[0].plan_cache_mode;
    expect(await planning(ingestionDb(db(server)))).toBe('force_generic_plan');
    expect(await planning(db(server))).toBe('auto');

    const synchronous = openDatabase({ ...config, ingestSynchronousCommit: true });
    try {
      expect(ingestionDb(synchronous.kysely)).toBe(synchronous.kysely);
      expect(await setting(ingestionDb(synchronous.kysely))).toBe('on');
    } finally {
      await synchronous.kysely.destroy();
    }
  });
});

describe("PostgreSQL's writer thread", () => {
  // On PostgreSQL the groups are written by a thread of the process (server/domain/ingest.ts WriterThread): a batch
  // crosses over and back as data, a failure as an error with PostgreSQL's own code, and the thread, once closed,
  // starts again for the next write.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('answers with the stored player, gives back a failed write\'s error and code, and starts again after closing', async () => {
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('PostgreSQL only');
    const thread = new WriterThread(config);
    const visitor = id('threaded');
    const batch = (applicationId: string, name: string): IngestBatch => ({
      applicationId,
      utcOffset: 0,
      deviceId: visitor,
      device: { platform: 'web', os: 'Android' },
      items: [{ kind: 'event', counts: 'none', clientId: id('e'), name, properties: { price: 120_000 }, sessionId: null, at: new Date(now()).toISOString() }],
    });
    try {
      const [first] = await thread.write([batch(APP, 'threaded_one')], new Date(now()));
      const player = await playerOf(visitor);
      expect(first).toEqual({ playerId: Number(player?.id), created: true, stored: 1 });

      // No such application: the player's foreign key refuses it, and nothing of the batch is stored.
      const failed = await thread.write([batch('no_such_application', 'threaded_lost')], new Date(now())).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Error);
      expect(failed).toMatchObject({ code: '23503' });

      await thread.close();
      const [again] = await thread.write([batch(APP, 'threaded_two')], new Date(now()));
      expect(again).toEqual({ playerId: Number(player?.id), created: false, stored: 1 });
      expect((await eventsOf(Number(player?.id))).map((event) => event.name)).toEqual(['threaded_one', 'threaded_two']);
    } finally {
      await thread.close();
    }
  });

  // The groups handed over while the thread's connection is held (here by a lock the test takes) are written
  // together when it is free, each answered with its own players; written together they fail together, and are then
  // written one by one, so a bad one fails only its own.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('writes the groups handed over during a write together once it ends, and a bad one fails alone', async () => {
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('PostgreSQL only');
    const thread = new WriterThread(config);
    const batch = (deviceId: string, name: string, applicationId = APP): IngestBatch => ({
      applicationId,
      utcOffset: 0,
      deviceId,
      items: [{ kind: 'event', counts: 'none', clientId: id('e'), name, properties: null, sessionId: null, at: new Date(now()).toISOString() }],
    });
    const write = (batches: IngestBatch[]) => thread.write(batches, new Date(now()));
    /** The transactions events were written in, by event name. */
    const transactions = async (names: string[]) =>
      Object.fromEntries(
        (await sql<{ name: string; xmin: string }>`select name, xmin::text as xmin from events where application_id = ${APP} and name in (${sql.join(names)})`.execute(db(server))).rows.map(
          (row) => [row.name, row.xmin],
        ),
      );
    /** Runs `during` while the thread's write of a `held` event waits for this test's lock on that event's definition. */
    const whileHeld = async <T>(held: string, during: () => T): Promise<{ first: Promise<unknown>; during: T }> => {
      await write([batch(id('holder'), held)]);
      let first: Promise<unknown> = Promise.resolve();
      let handed: T | undefined;
      await db(server)
        .transaction()
        .execute(async (trx) => {
          await sql`select 1 from event_definitions where application_id = ${APP} and name = ${held} for update`.execute(trx);
          first = write([batch(id('first'), held)]);
          await expect
            .poll(async () => (await sql<{ n: string }>`select count(*) as n from pg_stat_activity where application_name = ${INGESTION_APPLICATION_NAME} and datname = current_database() and wait_event_type = 'Lock'`.execute(db(server))).rows[0].n)
            .toBe('1');
          handed = during();
        });
      return { first, during: handed as T };
    };
    try {
      const devices = [id('together'), id('together'), id('together')];
      const held = await whileHeld('held_a', () => [write([batch(devices[0], 'together_a'), batch(devices[1], 'together_b')]), write([batch(devices[2], 'together_c')])]);
      await held.first;
      const [pair, single] = await Promise.all(held.during);
      const players = await Promise.all(devices.map(playerOf));
      expect([...pair, ...single]).toEqual(players.map((player) => ({ playerId: Number(player?.id), created: true, stored: 1 })));
      const together = await transactions(['held_a', 'together_a', 'together_b', 'together_c']);
      expect(new Set([together.together_a, together.together_b, together.together_c]).size).toBe(1);
      expect(together.together_a).not.toBe(together.held_a);

      const alone = [id('alone'), id('alone')];
      const mixed = await whileHeld('held_b', () => [write([batch(alone[0], 'alone_a')]), write([batch(id('lost'), 'alone_lost', 'no_such_application')]), write([batch(alone[1], 'alone_b')])]);
      await mixed.first;
      const answers = await Promise.allSettled(mixed.during);
      expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((answers[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23503' });
      const apart = await transactions(['alone_a', 'alone_b', 'alone_lost']);
      expect(Object.keys(apart).sort()).toEqual(['alone_a', 'alone_b']);
      expect(apart.alone_a).not.toBe(apart.alone_b);
    } finally {
      await thread.close();
    }
  });

  // server/main.ts readies ingestion before it listens (warmIngest): a server restarted under load would otherwise
  // hold its first requests while the thread loads and connects.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('is started and connected by warm, before any write, and the first write then uses that connection', async () => {
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('PostgreSQL only');
    // Ingestion's connections of this database whose last statement was `last`: only the warm-up's runs `select 1`.
    const connections = async (last: string) =>
      (
        await sql<{ pid: number }>`select pid from pg_stat_activity where application_name = ${INGESTION_APPLICATION_NAME} and datname = current_database() and query = ${last}`.execute(db(server))
      ).rows.map((row) => row.pid);
    const thread = new WriterThread(config);
    try {
      expect(await connections('select 1')).toEqual([]);
      await thread.warm();
      const warmed = await connections('select 1');
      expect(warmed).toHaveLength(1);

      const visitor = id('warmed');
      const batch: IngestBatch = {
        applicationId: APP,
        utcOffset: 0,
        deviceId: visitor,
        items: [{ kind: 'event', counts: 'none', clientId: id('e'), name: 'warmed_first', properties: null, sessionId: null, at: new Date(now()).toISOString() }],
      };
      const [stored] = await thread.write([batch], new Date(now()));
      expect(stored).toMatchObject({ created: true, stored: 1 });
      // The same connection wrote it: the warm-up's is no longer idle after `select 1`.
      expect(await connections('select 1')).toEqual([]);
      const [pid] = warmed;
      const { rows } = await sql<{ query: string }>`select query from pg_stat_activity where pid = ${pid}`.execute(db(server));
      // The statement storing a new device's first event (and creating its player).
      expect(rows[0].query).toMatch(/^\/\* prepared \*\/ WITH nu AS/);
    } finally {
      await thread.close();
    }
  });
});

describe('a database that stops taking writes', () => {
  // A lock held elsewhere (a migration, a long transaction) stalls every group's write. What is queued meanwhile
  // is kept and stored once the lock goes; once the oldest queued batch has waited a second, new ones are refused
  // at once with 503 and Retry-After, rather than each waiting longer than the one before.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('refuses new batches with 503 after a second, and stores every batch it took once the lock goes', async () => {
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('PostgreSQL only');
    const visitor = id('stalled');
    const session = id('session');
    const event = (name: string) => ({ key, visitor_id: visitor, items: [{ type: 'event', id: id('e'), at: now(), session_id: session, name }] });
    const other = new pg.Client({ connectionString: config.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('LOCK TABLE events IN EXCLUSIVE MODE');
      const writing = track(event('first'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const queued = track(event('second'));
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const refusedBody = event('third');
      // Answered at once, not after the lock: without the bound it would wait behind the others.
      const refused = await Promise.race([track(refusedBody), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still waiting after 3 s')), 3_000))]);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toMatchObject({ success: false, error: 'RATE_LIMITED', message: 'Máy chủ đang bận lưu dữ liệu. Vui lòng thử lại sau giây lát.' });
      await other.query('COMMIT');
      expect([(await writing).status, (await queued).status]).toEqual([200, 200]);
      const player = await playerOf(visitor);
      expect((await eventsOf(Number(player?.id))).map((row) => row.name)).toEqual(['first', 'second']);
      // The refused batch, sent again as the SDK does, is taken.
      expect((await track(refusedBody)).status).toBe(200);
      expect((await eventsOf(Number(player?.id))).map((row) => row.name)).toEqual(['first', 'second', 'third']);
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      await other.end();
    }
  });
});

describe('ingestion on a young PostgreSQL table', () => {
  // Ingestion's statements are prepared, and PostgreSQL keeps one generic plan per statement, made for the tables
  // as they were then. A plan made while a shop had a thousand players must still reach a group's players and
  // their attributes through the indexes: a sequential scan there reads the whole table for every group, and
  // keeps doing so while the table grows, until the next ANALYZE (server/db/rows.ts, "Plans on PostgreSQL").
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('reaches players and their attributes through their indexes', async () => {
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('PostgreSQL only');
    const client = new pg.Client({ connectionString: config.url });
    await client.connect();
    try {
      const at = new Date(now()).toISOString();
      await client.query(
        "INSERT INTO players (application_id, device_id, platform, device_type, created_at, updated_at) SELECT $1, 'young-' || n, 'web', 'desktop', $2, $2 FROM generate_series(1, 1000) AS n",
        [APP, at],
      );
      await client.query('ANALYZE players');
      const visitor = id('planned');
      const batch = (items: IngestItem[]): IngestBatch => ({ applicationId: APP, utcOffset: 0, deviceId: visitor, device: { platform: 'web', os: 'Android' }, items });
      // A new player, then the same one again: creating, finding, updating, setting and removing an attribute.
      await writeBatches(db(server), 'postgres', [batch([{ kind: 'set', attributes: { plan: 'gold' }, at }])], new Date(now()));
      await writeBatches(db(server), 'postgres', [{ applicationId: APP, utcOffset: 0, deviceId: 'young-8', items: [{ kind: 'set', attributes: { plan: 'silver' }, at }] }], new Date(now()));
      const statements: CompiledQuery[] = [];
      const recording = new Proxy(db(server), {
        get(target, property, receiver) {
          if (property !== 'executeQuery') return Reflect.get(target, property, receiver);
          return (query: CompiledQuery) => {
            statements.push(query);
            return target.executeQuery(query);
          };
        },
      });
      const later = new Date(now() + 120_000).toISOString();
      // Beside it, devices this process has not seen, in the statement storing their events
      // (players-write.ts unseenPlayers): one whose player is there (its UPDATE reaches it by id), one new.
      const unseen = (deviceId: string): IngestBatch => ({
        applicationId: APP,
        utcOffset: 0,
        deviceId,
        device: { platform: 'web', os: 'iOS' },
        items: [{ kind: 'event', counts: 'session', clientId: id('s'), name: 'session_start', properties: null, sessionId: id('session'), at: later }],
      });
      await writeBatches(
        recording,
        'postgres',
        [
          batch([
            { kind: 'event', counts: 'session', clientId: id('s'), name: 'session_start', properties: null, sessionId: id('session'), at: later },
            { kind: 'set', attributes: { plan: null }, at: later },
          ]),
          unseen('young-7'),
          unseen(id('young-new')),
          // Attributes on such devices: one removed from a player there, one set on a new player.
          { applicationId: APP, utcOffset: 0, deviceId: 'young-8', items: [{ kind: 'set', attributes: { plan: null }, at: later }] },
          { applicationId: APP, utcOffset: 0, deviceId: id('young-set'), items: [{ kind: 'set', attributes: { plan: 'bronze' }, at: later }] },
        ],
        new Date(now()),
      );
      expect(statements.some((statement) => statement.sql.includes('UPDATE players'))).toBe(true);
      expect(statements.some((statement) => statement.sql.includes('pm AS MATERIALIZED'))).toBe(true);
      // Every player of the group was found or created by that statement: none by a statement of its own before it
      // (ensurePlayers, which the group falls back to when that statement fails).
      expect(statements.filter((statement) => statement.sql.includes('INSERT INTO players'))).toHaveLength(1);
      const found = await db(server).selectFrom('players').select(['session_count', 'os']).where('application_id', '=', APP).where('device_id', '=', 'young-7').executeTakeFirstOrThrow();
      expect(found).toEqual({ session_count: 1, os: 'iOS' });
      const plans = await db(server)
        .selectFrom('player_attributes')
        .innerJoin('players', 'players.id', 'player_attributes.player_id')
        .select(['players.device_id', 'player_attributes.value'])
        .where('players.application_id', '=', APP)
        .where('player_attributes.name', '=', 'plan')
        .where((eb) => eb.or([eb('players.device_id', '=', 'young-8'), eb('players.device_id', 'like', 'young-set-%')]))
        .execute();
      expect(plans.map((row) => row.value)).toEqual(['bronze']);
      expect(statements.some((statement) => statement.sql.includes('DELETE FROM player_attributes'))).toBe(true);

      const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue(value: unknown): string | null };
      await client.query('SET plan_cache_mode = force_generic_plan');
      const scans: string[] = [];
      for (const [index, statement] of statements.entries()) {
        await client.query(`PREPARE planned_${index} AS ${statement.sql}`);
        const args = statement.parameters.map((value) => {
          const text = prepareValue(value);
          return text === null ? 'NULL' : client.escapeLiteral(text);
        });
        const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE planned_${index}${args.length > 0 ? `(${args.join(', ')})` : ''}`);
        for (const row of plan.rows) if (/Seq Scan on (players|player_attributes)\b/.test(row['QUERY PLAN'])) scans.push(`${row['QUERY PLAN'].trim()} in ${statement.sql.slice(0, 120)}`);
      }
      expect(scans).toEqual([]);
    } finally {
      await client.end();
    }
  });
});

describe('attribute values against their definitions', () => {
  it('stores a value that does not fit its definition as text, not coerced', async () => {
    const visitor = id('visitor');
    await track({ key, visitor_id: visitor, items: [{ type: 'set', id: id('a'), at: now(), attributes: { orders: 'many', vip: 1, plan: 7 } }] });
    const player = await playerOf(visitor);
    const attributes = await db(server).selectFrom('player_attributes').selectAll().where('player_id', '=', Number(player?.id)).orderBy('name').execute();
    expect(attributes.map((row) => [row.name, row.value, row.number_value])).toEqual([
      ['orders', 'many', null],
      ['plan', '7', null],
      ['vip', '1', null],
    ]);
    const types = await db(server).selectFrom('attribute_definitions').select(['name', 'type']).where('application_id', '=', APP).where('name', 'in', ['orders', 'vip', 'plan']).orderBy('name').execute();
    expect(types.map((row) => row.type)).toEqual(['number', 'text', 'boolean']);
  });

  // On PostgreSQL a group defines its new names and reads every name's type in one statement, on that statement's
  // snapshot (players-write.ts definedTypes). A definition another process commits while the statement waits on it
  // is in neither part: it must be read again, and the value stored as it says.
  it.skipIf(process.env.NUDGE_TEST_DB !== 'postgres')('stores a value as the definition another process makes at the same moment says', async () => {
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('PostgreSQL only');
    const visitor = id('visitor');
    // Ingestion's writer thread up first (it starts with the first write).
    expect((await track({ key, visitor_id: id('visitor'), items: [{ type: 'set', id: id('a'), at: now(), attributes: { plan: 'gold' } }] })).status).toBe(200);
    const other = new pg.Client({ connectionString: config.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      const at = new Date(now()).toISOString();
      await other.query("INSERT INTO attribute_definitions (application_id, name, type, source, created_at, updated_at) VALUES ($1, 'lucky_number', 'number', 'member', $2, $2)", [APP, at]);
      const pending = track({ key, visitor_id: visitor, items: [{ type: 'set', id: id('a'), at: now(), attributes: { lucky_number: '42' } }] });
      pending.catch(() => undefined);
      // Committed only once ingestion's statement waits on the uncommitted definition (its thread may be starting).
      for (let tries = 0; ; tries += 1) {
        const waiting = await other.query("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [INGESTION_APPLICATION_NAME]);
        if (waiting.rowCount) break;
        if (tries === 100) throw new Error('ingestion never waited on the definition');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await other.query('COMMIT');
      const answer = await pending;
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    } finally {
      await other.end();
    }
    const player = await playerOf(visitor);
    const row = await db(server).selectFrom('player_attributes').select(['value', 'number_value']).where('player_id', '=', Number(player?.id)).where('name', '=', 'lucky_number').executeTakeFirst();
    // Typed as text (its own inferred type) it would keep no number, and a segment on the number would miss it.
    expect(row && [row.value, Number(row.number_value)]).toEqual(['42', 42]);
  });

  it("refuses a .date name's value that is not a date, naming it, and stores the dates it reads in one form", async () => {
    const visitor = id('visitor');
    const refused = async (attributes: Record<string, unknown>, lang: 'en' | 'vi' = 'en') => {
      const answer = await track({ key, visitor_id: visitor, items: [{ type: 'page', id: id('p'), at: now(), session_id: 's', url: 'https://shop.test/' }, { type: 'set', id: id('a'), at: now(), attributes }] }, { lang });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      return answer.body.fields;
    };
    // Words, a day that its month does not have, a Vietnamese form's dd/mm/yyyy that Date.parse would read as mm/dd, a boolean.
    expect(await refused({ plan: 'gold', 'birthday.date': 'soon' })).toEqual([{ path: 'items.1.attributes.birthday.date', message: expect.stringMatching(/^A name ending in \.date takes a date: ISO 8601/) }]);
    for (const value of ['2026-02-30', '12/05/1990', '1', true, '']) expect((await refused({ 'birthday.date': value }))?.[0]?.path, String(value)).toBe('items.1.attributes.birthday.date');
    expect((await refused({ 'renewal.date': 'tháng sau' }, 'vi'))?.[0]?.message).toMatch(/^Tên kết thúc bằng \.date nhận giá trị ngày/);
    // The refused batches stored nothing, not even their page views.
    expect(await playerOf(visitor)).toBeUndefined();

    const at = now();
    const stored = await track({
      key,
      visitor_id: visitor,
      items: [{ type: 'set', id: id('a'), at, attributes: { 'birthday.date': '1990-05-12', 'renewal.date': '2026-12-02T09:30:00+07:00', 'joined.date': 1732790000, 'seen.date': '2026-12-02 10:00' } }],
    });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    const rows = await db(server).selectFrom('player_attributes').selectAll().where('player_id', '=', Number((await playerOf(visitor))?.id)).orderBy('name').execute();
    expect(rows.map((row) => [row.name, row.value, Number(row.number_value)])).toEqual([
      ['birthday.date', '1990-05-12T00:00:00.000Z', Date.UTC(1990, 4, 12)],
      ['joined.date', '2024-11-28T10:33:20.000Z', 1732790000000],
      ['renewal.date', '2026-12-02T02:30:00.000Z', Date.UTC(2026, 11, 2, 2, 30)],
      // A time without a zone is UTC, whatever the server's own zone.
      ['seen.date', '2026-12-02T10:00:00.000Z', Date.UTC(2026, 11, 2, 10)],
    ]);
  });

  it('takes a number or a boolean sent as text ("12", "TRUE") as one: segments compare it and the player page shows it typed', async () => {
    // `orders` is a number and `vip` a boolean: the first values of them this application saw (above) were.
    const texted = id('visitor');
    const worded = id('visitor');
    await track({ key, visitor_id: texted, items: [{ type: 'set', id: id('a'), at: now(), attributes: { orders: ' 12 ', vip: 'TRUE' } }] });
    await track({ key, visitor_id: worded, items: [{ type: 'set', id: id('a'), at: now(), attributes: { orders: '12 đơn', vip: 'yes' } }] });
    const stored = async (visitor: string) =>
      (await db(server).selectFrom('player_attributes').selectAll().where('player_id', '=', Number((await playerOf(visitor))?.id)).orderBy('name').execute()).map((row) => [
        row.name,
        row.value,
        row.number_value === null ? null : Number(row.number_value),
      ]);
    expect(await stored(texted)).toEqual([
      ['orders', ' 12 ', 12],
      ['vip', 'true', 1],
    ]);
    // Not a number or a boolean at all: kept as sent, outside the comparisons.
    expect(await stored(worded)).toEqual([
      ['orders', '12 đơn', null],
      ['vip', 'yes', null],
    ]);

    const rule = {
      any: [
        {
          all: [
            { kind: 'attribute', name: 'orders', type: 'number', op: 'gt', value: 11 },
            { kind: 'attribute', name: 'vip', type: 'boolean', op: 'is_true' },
          ],
        },
      ],
    };
    const count = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, body: { rule } });
    expect(count.status, JSON.stringify(count.body)).toBe(200);
    const members = await matchingPlayerIds(server.app.services, APP, rule as SegmentRule);
    expect(members).toEqual([Number((await playerOf(texted))?.id)]);
    expect(count.body.data.count).toBe(1);

    const page = async (visitor: string) => {
      const answer = await server.call('GET', `/api/application/${APP}/player/${(await playerOf(visitor))?.id}`, { token: owner.token });
      expect(answer.status).toBe(200);
      return Object.fromEntries(answer.body.data.attributes.map((a: { name: string; type: string; value: unknown }) => [a.name, [a.type, a.value]]));
    };
    expect(await page(texted)).toEqual({ orders: ['number', 12], vip: ['boolean', true] });
    expect(await page(worded)).toEqual({ orders: ['number', '12 đơn'], vip: ['boolean', 'yes'] });
  });

  it('reads the text values stored before as new ones are read, when the database is migrated (0019)', async () => {
    // As stored before: "42" and "TRUE" without a number_value, under the number and boolean definitions above.
    const visitor = id('visitor');
    await track({ key, visitor_id: visitor, items: [{ type: 'set', id: id('a'), at: now(), attributes: { plan: 'x' } }] });
    const playerId = Number((await playerOf(visitor))?.id);
    const at = server.clock.now().toISOString();
    await db(server)
      .insertInto('player_attributes')
      .values([
        { player_id: playerId, application_id: APP, name: 'orders', value: '42', number_value: null, updated_at: at },
        { player_id: playerId, application_id: APP, name: 'vip', value: 'TRUE', number_value: null, updated_at: at },
        { player_id: playerId, application_id: APP, name: 'birthday.date', value: 'soon', number_value: null, updated_at: at },
      ])
      .execute();
    // More than the migration reads at once (a page of 1,000): an app that sent every number as text. Every third
    // player's orders are words, which stay as they are; the others are numbers and flags.
    const prefix = id('legacy');
    const many = 1_250;
    const players = await insertWebSubscribers(
      db(server),
      APP,
      Array.from({ length: many }, (_, n) => ({ endpoint: `https://push.invalid/${prefix}/${n}`, keys: { p256dh: 'p', auth: 'a' } })),
      { prefix, now: at },
    ).then(() => db(server).selectFrom('players').select(['id', 'device_id']).where('device_id', 'like', `${prefix}-%`).execute());
    expect(players).toHaveLength(many);
    const legacy = players.flatMap((player) => {
      const n = Number(player.device_id.slice(prefix.length + 1));
      return [
        { player_id: Number(player.id), application_id: APP, name: 'orders', value: n % 3 === 0 ? `${n} đơn` : ` ${n} `, number_value: null, updated_at: at },
        { player_id: Number(player.id), application_id: APP, name: 'vip', value: n % 2 === 0 ? 'yes' : 'False', number_value: null, updated_at: at },
      ];
    });
    for (let from = 0; from < legacy.length; from += 500) await db(server).insertInto('player_attributes').values(legacy.slice(from, from + 500)).execute();

    await buildMigrations(server.app.services.dialect)['0019_attribute_values_in_text'].up(db(server));
    const rows = await db(server).selectFrom('player_attributes').selectAll().where('player_id', '=', playerId).orderBy('name').execute();
    expect(rows.map((row) => [row.name, row.value, row.number_value === null ? null : Number(row.number_value)])).toEqual([
      ['birthday.date', 'soon', null],
      ['orders', '42', 42],
      ['plan', 'x', null],
      ['vip', 'true', 1],
    ]);
    const migrated = await db(server)
      .selectFrom('player_attributes as pa')
      .innerJoin('players as p', 'p.id', 'pa.player_id')
      .select(['p.device_id', 'pa.name', 'pa.value', 'pa.number_value'])
      .where('p.device_id', 'like', `${prefix}-%`)
      .execute();
    expect(migrated).toHaveLength(2 * many);
    for (const row of migrated) {
      const n = Number(row.device_id.slice(prefix.length + 1));
      const stored = [row.value, row.number_value === null ? null : Number(row.number_value)];
      if (row.name === 'orders') expect(stored, row.device_id).toEqual(n % 3 === 0 ? [`${n} đơn`, null] : [` ${n} `, n]);
      else expect(stored, row.device_id).toEqual(n % 2 === 0 ? ['yes', null] : ['false', 0]);
    }
  });

  it('removes an attribute set to null', async () => {
    const visitor = id('visitor');
    await track({ key, visitor_id: visitor, items: [{ type: 'set', id: id('a'), at: now() - 1000, attributes: { plan: 'silver' } }] });
    await track({ key, visitor_id: visitor, items: [{ type: 'set', id: id('a'), at: now(), attributes: { plan: null } }] });
    const player = await playerOf(visitor);
    const rows = await db(server).selectFrom('player_attributes').selectAll().where('player_id', '=', Number(player?.id)).execute();
    expect(rows).toEqual([]);
  });
});

describe('the log', () => {
  const requestLines = (lines: string[]) =>
    lines.map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string } }).filter((line) => line.msg === 'incoming request' || line.msg === 'request completed');

  it("has no line for ingestion's requests, taken or refused, and one for each request of the console", async () => {
    const from = server.logs.length;
    const visitor = id('visitor');
    expect((await track({ key, visitor_id: visitor, items: [{ type: 'event', id: id('e'), at: now(), name: 'x' }] })).status).toBe(200);
    expect((await track({ key: 'no-such-key', visitor_id: visitor, items: [{ type: 'event', id: id('e'), at: now(), name: 'x' }] })).status).toBe(404);
    expect(requestLines(server.logs.slice(from))).toEqual([]);

    // The same server logs every other request as it comes and as it is answered, the anonymous ones too.
    expect((await server.call('GET', '/api/user/me')).status).toBe(401);
    const lines = requestLines(server.logs.slice(from));
    expect(lines.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
    expect(lines[0].req?.url).toBe('/api/user/me');
  });
});

describe('refusals', () => {
  it("takes the largest request the SDK's outbox makes, where fifty long page views in one would be refused", async () => {
    const visitor = id('visitor');
    const session = id('s');
    const pages = Array.from({ length: TRACK_BATCH_MAX }, (_, n) => ({
      type: 'page' as const,
      id: id('p'),
      at: now(),
      session_id: session,
      url: `https://shop.example.vn/collections/all?page=${n}&filter=${'màu-đỏ,'.repeat(300)}`.slice(0, 2000),
      title: 'Áo dài lụa tơ tằm thêu tay '.repeat(12).slice(0, 300),
    }));
    // The device facts at their longest, as the envelope around the items.
    const device = { platform: 'web', device_type: 'mobile', os: 'o'.repeat(64), os_version: 'v'.repeat(64), browser: 'b'.repeat(64), language: 'vi-VN', timezone: 't'.repeat(64), timezone_offset: 420 };
    const whole = await track({ key, visitor_id: visitor, device, items: pages });
    expect(whole.status).toBe(413);

    const batch = nextBatch(pages);
    expect(batch.length).toBeLessThan(TRACK_BATCH_MAX);
    const answer = await track({ key, visitor_id: visitor, device, items: batch });
    expect(answer.status).toBe(200);
    expect(answer.body.data.accepted).toBe(batch.length);
    const player = await playerOf(visitor);
    expect(player?.page_views).toBe(batch.length);
  });

  it('refuses an unknown key, says it is the key and where the right one is, and stores nothing', async () => {
    const visitor = id('visitor');
    // Still 404: the SDK drops a batch the server will never take. The message is what a developer sees.
    const messages = {
      en: 'No application has this client key. Copy it again from the Client key column of the Applications page.',
      vi: 'Không có ứng dụng nào mang client key này. Hãy sao chép lại từ cột Client key của trang Ứng dụng.',
    };
    for (const lang of ['en', 'vi'] as const) {
      const answer = await track({ key: 'no-such-key', visitor_id: visitor, items: [{ type: 'event', id: id('e'), at: now(), name: 'x' }] }, { lang });
      expect(answer.status).toBe(404);
      expect(answer.body.error).toBe('NOT_FOUND');
      expect(answer.body.message).toBe(messages[lang]);
    }
    expect(await playerOf(visitor)).toBeUndefined();
  });

  it('refuses a batch with a malformed item with INVALID_PARAM and stores none of it', async () => {
    const visitor = id('visitor');
    const before = await countEvents();
    const answer = await track({
      key,
      visitor_id: visitor,
      items: [
        { type: 'event', id: id('e'), at: now(), name: 'fine' },
        { type: 'event', id: id('e'), at: now(), name: '<script>' },
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INVALID_PARAM');
    expect(answer.body.fields.map((field: { path: string }) => field.path)).toContain('items.1.name');
    expect(await countEvents()).toBe(before);
    expect(await playerOf(visitor)).toBeUndefined();
  });

  it('refuses an empty batch and one of more than 50 items, saying how many a batch takes, and stores nothing', async () => {
    const visitor = id('visitor');
    const many = Array.from({ length: 51 }, () => ({ type: 'event', id: id('e'), at: now(), name: 'x' }));
    for (const items of [[], many]) {
      const answer = await track({ key, visitor_id: visitor, items });
      expect(answer.status).toBe(400);
      // The server speaks Vietnamese to a caller that names no language.
      expect(answer.body.fields).toEqual([{ path: 'items', message: 'Mỗi lô gửi từ 1 đến 50 mục' }]);
    }
    expect(await playerOf(visitor)).toBeUndefined();
  });

  it('refuses a bad email in an identify item and stores nothing', async () => {
    const visitor = id('visitor');
    const answer = await track({
      key,
      visitor_id: visitor,
      items: [
        { type: 'page', id: id('p'), at: now(), session_id: 'sess-1', url: 'https://shop.example.net/' },
        { type: 'identify', id: id('i'), at: now(), identity: { email: 'not an email' } },
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.fields).toEqual([{ path: 'items.1.identity.email', message: expect.any(String) }]);
    expect(await playerOf(visitor)).toBeUndefined();
  });

  it('answers RATE_LIMITED past the per-visitor limit', async () => {
    const visitor = id('visitor');
    const statuses: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      const answer = await track({ key, visitor_id: visitor, items: [{ type: 'event', id: id('e'), at: now(), name: 'tick' }] }, { ip: '10.9.8.7' });
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.body.error).toBe('RATE_LIMITED');
        // 5 a minute: the next token in 12 s, said so the client waits that long rather than retrying at once, in
        // the header and in the words (not the sign-in's "a few minutes").
        expect(answer.headers['retry-after']).toBe('12');
        expect(answer.body.message).toBe('Quá nhiều lệnh gọi từ thiết bị hoặc địa chỉ này. Hãy thử lại sau 12 giây (header Retry-After cho biết khi nào).');
        // The SDK reads it from the shop's page, another origin: it must be exposed to it.
        expect(answer.headers['access-control-allow-origin']).toBe('*');
        expect(answer.headers['access-control-expose-headers']).toBe('retry-after');
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Another visitor behind the same address is not limited by the first one's use.
    const other = await track({ key, visitor_id: id('visitor'), items: [{ type: 'event', id: id('e'), at: now(), name: 'tick' }] }, { ip: '10.9.8.7' });
    expect(other.status).toBe(200);
  });

  it('clamps item times to the last seven days and the next five minutes', async () => {
    const visitor = id('visitor');
    const sent = now();
    await track({
      key,
      visitor_id: visitor,
      items: [
        { type: 'event', id: id('e'), at: sent - 30 * 24 * 3600_000, name: 'old' },
        { type: 'event', id: id('e'), at: sent + 24 * 3600_000, name: 'future' },
      ],
    });
    const player = await playerOf(visitor);
    const events = await eventsOf(Number(player?.id));
    const at = Object.fromEntries(events.map((event) => [event.name, Date.parse(event.occurred_at)]));
    expect(at.old).toBeGreaterThanOrEqual(sent - 7 * 24 * 3600_000);
    expect(at.old).toBeLessThan(sent - 7 * 24 * 3600_000 + 60_000);
    expect(at.future).toBeLessThanOrEqual(now() + 5 * 60_000);
    expect(at.future).toBeGreaterThan(sent + 4 * 60_000);
  });
});
