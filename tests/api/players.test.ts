import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';
import { daysAgo, insertAttribute, insertEvent, insertPlayer, insertTags } from './players-fixtures';
import { AudienceIndex } from '../../server/domain/audience-index';
import { EVENTS_PER_NAME_APART, EVENTS_SORTED_WHOLE, EVENT_NAMES_READ_APART, nameConditions, playerListSelection, playerPageBySql } from '../../server/domain/players';
import { PLAYER_SEARCH_COUNT_CAP, PlayerListQuery } from '../../shared/contract';

/** The console's /player screens through the real server: the list's filters and order, a player's page, tags, deletion, roles. */
const APP = 'player_app';
const OTHER = 'player_other';

let server: TestServer;
let owner: TestUser;
const members = {} as Record<'manager' | 'user' | 'viewer' | 'ads_manager', TestUser>;
let outsider: TestUser;
const ids = {} as Record<'web' | 'ios' | 'never' | 'android', number>;
const base = `/api/application/${APP}/player`;

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server, { name: 'owner' });
  outsider = await createUser(server, { name: 'outsider' });
  await createApplication(server, owner, APP, 'Players');
  await createApplication(server, outsider, OTHER, 'Other');
  for (const role of ['manager', 'user', 'viewer', 'ads_manager'] as const) {
    members[role] = await createUser(server, { name: role });
    await addMember(server, owner, APP, members[role], role);
  }
  const ago = (days: number) => daysAgo(server, days);
  ids.web = await insertPlayer(server, APP, 'web-visitor-0001', {
    country: 'VN',
    os: 'Windows',
    email: 'lan@example.com',
    last_seen_at: ago(1),
    created_at: ago(30),
    session_count: 4,
    page_views: 40,
    subscribed: 1,
    push_endpoint: 'https://push.example.com/1',
    push_p256dh: 'p',
    push_auth: 'a',
  });
  ids.ios = await insertPlayer(server, APP, 'ios-install-0002', {
    platform: 'ios',
    device_type: 'mobile',
    os: 'iOS',
    country: 'US',
    device_token: 'apns',
    subscribed: 1,
    mobile_number: '+15550001',
    external_user_id: 'customer-42',
    last_seen_at: ago(10),
    created_at: ago(20),
    session_count: 9,
    page_views: 2,
  });
  ids.never = await insertPlayer(server, APP, 'never-seen-0003', { created_at: ago(5) });
  ids.android = await insertPlayer(server, APP, 'android-install-0004', {
    platform: 'android',
    device_type: 'mobile',
    os: 'Android',
    country: 'VN',
    fb_psid: 'psid',
    last_seen_at: ago(3),
    created_at: ago(3),
    session_count: 1,
    page_views: 7,
  });
  await insertPlayer(server, OTHER, 'web-visitor-0001', { country: 'VN', last_seen_at: ago(0) });
  await insertTags(server, APP, ids.web, ['vip', 'buyer']);
  await insertTags(server, APP, ids.android, ['buyer']);
}, 60_000);
afterAll(async () => server?.close());

async function list(query = '', token = owner.token) {
  const answer = await server.call('GET', `${base}${query}`, { token });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data as { items: { id: number; device_id: string; tags: string[]; channels: string[] }[]; total: number };
}
const order = (page: { items: { id: number }[] }) => page.items.map((item) => Object.entries(ids).find(([, id]) => id === item.id)?.[0]);

describe('the player list', () => {
  it('lists only this application’s players, last seen first with never-seen players last', async () => {
    const page = await list();
    expect(page.total).toBe(4);
    expect(order(page)).toEqual(['web', 'android', 'ios', 'never']);
  });

  it('sorts by last seen ascending with never-seen players first, and by the other columns', async () => {
    expect(order(await list('?order=asc'))).toEqual(['never', 'ios', 'android', 'web']);
    expect(order(await list('?sort=session_count'))).toEqual(['ios', 'web', 'android', 'never']);
    expect(order(await list('?sort=page_views&order=asc'))).toEqual(['never', 'ios', 'android', 'web']);
    expect(order(await list('?sort=created_at'))).toEqual(['android', 'never', 'ios', 'web']);
  });

  it('pages, with the total of every page', async () => {
    const first = await list('?limit=3');
    const second = await list('?limit=3&page=2');
    expect(order(first)).toEqual(['web', 'android', 'ios']);
    expect(order(second)).toEqual(['never']);
    expect(second.total).toBe(4);
  });

  it('filters by country, device type, OS, platform, subscription, last seen and tag', async () => {
    expect(order(await list('?country=vn'))).toEqual(['web', 'android']);
    expect(order(await list('?device_type=mobile'))).toEqual(['android', 'ios']);
    expect(order(await list('?os=iOS'))).toEqual(['ios']);
    expect(order(await list('?platform=android'))).toEqual(['android']);
    expect(order(await list('?subscribed=true'))).toEqual(['web', 'ios']);
    expect(order(await list('?subscribed=false'))).toEqual(['android', 'never']);
    expect(order(await list('?seen_within_days=7'))).toEqual(['web', 'android']);
    expect(order(await list('?tag=buyer'))).toEqual(['web', 'android']);
    const both = await list('?tag=buyer&country=VN&seen_within_days=2');
    expect(order(both)).toEqual(['web']);
    expect(both.total).toBe(1);
  });

  it('refuses a country filter that is not a country code with the rule players are kept by, in the caller’s language', async () => {
    for (const [lang, message] of [
      ['en', 'A country is its 2-letter code, e.g. VN'],
      ['vi', 'Quốc gia là mã 2 chữ cái, vd. VN'],
    ]) {
      for (const country of ['Vietnam', 'V1']) {
        const answer = await server.call('GET', `${base}?country=${country}`, { token: owner.token, lang });
        expect(answer.status).toBe(400);
        expect(answer.body.fields).toEqual([{ path: 'country', message }]);
      }
    }
    // Left empty, it filters nothing.
    expect((await list('?country=')).total).toBe(4);
  });

  it('finds a player by its whole device id, or its user id, email or mobile number whole', async () => {
    expect(order(await list('?q=ios-install-0002'))).toEqual(['ios']);
    expect(order(await list('?q=customer-42'))).toEqual(['ios']);
    expect(order(await list('?q=LAN@example.com'))).toEqual(['web']);
    expect(order(await list(`?q=${encodeURIComponent('+15550001')}`))).toEqual(['ios']);
    // A device id is an install's random key, copied whole: part of one finds nothing.
    expect((await list('?q=ios-install')).total).toBe(0);
  });

  // Ingestion rewrites an active player's row every minute, and on PostgreSQL such a rewrite adds an entry to every
  // index that holds the row. The lookups by a value most players lack (web visitors have no email, user id,
  // mobile number, often no push endpoint) are served by indexes of the players that have one (migration 0016),
  // which a visitor's rewrite skips; the search and the push endpoint lookups must still use them.
  it.each(['email', 'external_user_id', 'mobile_number', 'push_endpoint'])('looks players up by %s through an index of only the players that have one', async (column) => {
    const index = `players_application_${column}`;
    const postgres = server.app.services.dialect === 'postgres';
    const definition = postgres
      ? await sql<{ def: string }>`select indexdef as def from pg_indexes where schemaname = current_schema() and indexname = ${index}`.execute(db(server))
      : await sql<{ def: string }>`select sql as def from sqlite_master where type = 'index' and name = ${index}`.execute(db(server));
    expect(definition.rows[0]?.def).toMatch(new RegExp(`WHERE \\(?"?${column}"? IS NOT NULL\\)?$`, 'i'));

    const plan = await db(server)
      .transaction()
      .execute(async (trx) => {
        // A test table is a few rows, which PostgreSQL would rather read whole: ask which index it would take.
        if (postgres) await sql`set local enable_seqscan = off`.execute(trx);
        const lookup = sql`select id from players where application_id = ${APP} and ${sql.ref(column)} in (${'a'}, ${'b'})`;
        const rows = await sql<Record<string, unknown>>`${sql.raw(postgres ? 'explain' : 'explain query plan')} ${lookup}`.execute(trx);
        return rows.rows.map((row) => String(row['QUERY PLAN'] ?? row.detail)).join('\n');
      });
    expect(plan).toContain(index);
  });

  it('shows each player’s tags and the channels it can be reached on', async () => {
    const page = await list();
    const byId = new Map(page.items.map((item) => [item.id, item]));
    expect(byId.get(ids.web)).toMatchObject({ tags: ['buyer', 'vip'], channels: ['web_push'] });
    expect(byId.get(ids.ios)).toMatchObject({ tags: [], channels: ['mobile_push', 'sms'] });
    expect(byId.get(ids.android)).toMatchObject({ channels: ['facebook'] });
    expect(byId.get(ids.never)).toMatchObject({ channels: [] });
    expect(JSON.stringify(page)).not.toContain('push.example.com');
  });

  it('refuses an unknown sort or a filter out of range, saying the bounds of a number of days', async () => {
    expect((await server.call('GET', `${base}?sort=email`, { token: owner.token })).status).toBe(400);
    for (const days of ['0', '2.5', '3651', 'week']) {
      const answer = await server.call('GET', `${base}?seen_within_days=${days}`, { token: owner.token, lang: 'en' });
      expect(answer.status, days).toBe(400);
      expect(answer.body.fields, days).toEqual([{ path: 'seen_within_days', message: 'Enter a whole number of days from 1 to 3,650' }]);
    }
    expect((await server.call('GET', `${base}?seen_within_days=3650`, { token: owner.token })).status).toBe(200);
  });

  it('says the bound a page or a page size passed, in the caller’s language', async () => {
    const en = await server.call('GET', `${base}?page=0&limit=1000`, { token: owner.token, lang: 'en' });
    expect(en.status).toBe(400);
    expect(en.body.fields).toEqual([
      { path: 'page', message: 'Must be at least 1' },
      { path: 'limit', message: 'Must be at most 100' },
    ]);
    const vi = await server.call('GET', `${base}?limit=0`, { token: owner.token, lang: 'vi' });
    expect(vi.body.fields).toEqual([{ path: 'limit', message: 'Phải từ 1 trở lên' }]);
  });
});

describe('searching players by the beginning of their user id, email or mobile number', () => {
  const SEARCH = 'player_search';
  const found = {} as Record<string, number>;

  beforeAll(async () => {
    await createApplication(server, owner, SEARCH, 'Search');
    const players: [string, Parameters<typeof insertPlayer>[3]][] = [
      ['customer-1', { external_user_id: 'customer-1' }],
      ['customer-10', { external_user_id: 'customer-10', email: 'hoa.nguyen@shop.vn' }],
      ['customer10', { external_user_id: 'customer10', email: 'hoang@shop.vn' }],
      ['customer-2', { external_user_id: 'customer-2', mobile_number: '+84912345678' }],
      ['khach', { external_user_id: 'khách-ơi', mobile_number: '+84913000000' }],
    ];
    for (const [name, fields] of players) found[name] = await insertPlayer(server, SEARCH, `device-${name}`, fields);
  });

  async function search(q: string, lang = 'en', match = 'start') {
    const answer = await server.call('GET', `/api/application/${SEARCH}/player?q=${encodeURIComponent(q)}&match=${match}`, { token: owner.token, lang });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const page = answer.body.data as { items: { id: number }[]; total: number };
    const names = page.items.map((item) => Object.entries(found).find(([, id]) => id === item.id)?.[0]).sort();
    expect(page.total, q).toBe(names.length);
    return names;
  }

  it('finds the user ids that begin with what was typed, hyphen and case as typed', async () => {
    // In glibc's en_US order (first level without punctuation) customer10 lies between customer-1 and customer-2:
    // the search compares bytes, whatever the database's collation.
    expect(await search('customer-1')).toEqual(['customer-1', 'customer-10']);
    expect(await search('customer1')).toEqual(['customer10']);
    expect(await search('customer')).toEqual(['customer-1', 'customer-10', 'customer-2', 'customer10']);
    expect(await search('Customer')).toEqual([]);
    expect(await search('khá')).toEqual(['khach']);
  });

  it('finds emails by their beginning in any case', async () => {
    expect(await search('Hoa')).toEqual(['customer-10', 'customer10']);
    expect(await search('HOA.')).toEqual(['customer-10']);
    expect(await search('hoa.nguyen@shop.vn')).toEqual(['customer-10']);
    expect(await search('shop.vn')).toEqual([]);
  });

  it('finds a mobile number by its beginning typed nationally, internationally or with 00, with separators', async () => {
    for (const typed of ['0912 34', '+84 91234', '0084912', '+84912345678', '84912345678', '0912.345.678']) {
      expect(await search(typed), typed).toEqual(['customer-2']);
    }
    expect(await search('091')).toEqual(['customer-2', 'khach']);
    expect(await search('0914')).toEqual([]);
  });

  it('finds a name whole when asked to (match=whole): a user id that begins others alone, an email in any case, a number written any way', async () => {
    const whole = (q: string) => search(q, 'en', 'whole');
    expect(await whole('customer-1')).toEqual(['customer-1']);
    expect(await whole('customer')).toEqual([]);
    expect(await whole('HOA.NGUYEN@shop.vn')).toEqual(['customer-10']);
    expect(await whole('hoa.')).toEqual([]);
    for (const typed of ['0912 345 678', '+84912345678', '0084912345678']) expect(await whole(typed), typed).toEqual(['customer-2']);
    expect(await whole('0912')).toEqual([]);
    expect(await whole('device-khach')).toEqual(['khach']);
    const refused = await server.call('GET', `/api/application/${SEARCH}/player?q=customer&match=some`, { token: owner.token, lang: 'en' });
    expect(refused.status).toBe(400);
  });

  it('reads each prefix from an index of the players that have a value, not the whole application', async () => {
    const postgres = server.app.services.dialect === 'postgres';
    // Each of the search's tests on its own: how the planner combines them (a bitmap OR, the sort's index) depends on
    // the table's size, and the benchmark's million players show it; here, that each one is an index's range.
    const plans: string[] = [];
    for (const condition of nameConditions(server.app.services.dialect, { q: '0912', phoneCountry: 'VN' })) {
      const query = db(server).selectFrom('players').select('players.id').where('players.application_id', '=', SEARCH).where(condition).compile();
      plans.push(
        await db(server)
          .transaction()
          .execute(async (trx) => {
            if (postgres) await sql`set local enable_seqscan = off`.execute(trx);
            const rows = await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`${postgres ? 'explain' : 'explain query plan'} ${query.sql}`, [...query.parameters]));
            return rows.rows.map((row) => String(row['QUERY PLAN'] ?? row.detail)).join('\n');
          }),
      );
    }
    for (const column of ['external_user_id', 'email', 'mobile_number']) {
      // The prefix is the index's range, not a filter over every row of the application read through it.
      const range = postgres ? new RegExp(`Index Cond: .*${column} ~>=~`) : new RegExp(`USING (COVERING )?INDEX players_application_${column} \\(application_id=\\? AND ${column}>\\? AND ${column}<\\?\\)`);
      expect(plans.join('\n'), column).toMatch(range);
    }
  });

});

describe(`a search that more than ${PLAYER_SEARCH_COUNT_CAP.toLocaleString('en')} players match`, () => {
  const BIG = 'player_search_cap';
  /** Every player of BIG as the test made it, to work out the answers apart from the server's SQL. */
  const made: { id: number; user: string; country: string; last_seen_at: string | null; page_views: number }[] = [];

  beforeAll(async () => {
    await createApplication(server, owner, BIG, 'Search cap');
    const at = server.clock.now().toISOString();
    // 10,050 members whose user id and email both begin with "member" (found twice, counted once), last seen in an
    // order unlike their ids' (one in seven never), a third of them in Vietnam; and 100 guests no search here finds.
    const rows = [
      ...Array.from({ length: PLAYER_SEARCH_COUNT_CAP + 50 }, (_, i) => {
        const user = `member-${String(i).padStart(5, '0')}`;
        const seen = i % 7 === 3 ? null : new Date(Date.parse(at) - ((i * 7919) % 100_000) * 60_000).toISOString();
        return { user, email: `${user}@shop.vn`, country: i % 3 === 0 ? 'VN' : 'US', last_seen_at: seen, page_views: (i * 37) % 500 };
      }),
      ...Array.from({ length: 100 }, (_, i) => ({ user: `guest-${i}`, email: null, country: 'VN', last_seen_at: at, page_views: 1_000 + i })),
    ];
    for (let from = 0; from < rows.length; from += 500) {
      const batch = rows.slice(from, from + 500);
      const inserted = await db(server)
        .insertInto('players')
        .values(
          batch.map((row) => ({
            application_id: BIG,
            device_id: `device-${row.user}`,
            platform: 'web',
            device_type: 'desktop',
            external_user_id: row.user,
            email: row.email,
            country: row.country,
            last_seen_at: row.last_seen_at,
            page_views: row.page_views,
            created_at: at,
            updated_at: at,
          })),
        )
        .returning('id')
        .execute();
      inserted.forEach((row, i) => made.push({ id: Number(row.id), ...batch[i] }));
    }
  });

  /** The ids of `players` in the list's order by last seen: never-seen last descending and first ascending, ties by id. */
  function inOrder(players: typeof made, order: 'desc' | 'asc') {
    const sign = order === 'desc' ? -1 : 1;
    // Never seen sorts lowest; two of them compare as NaN, falsy, and go by id.
    const seen = (player: (typeof made)[number]) => (player.last_seen_at === null ? -Infinity : Date.parse(player.last_seen_at));
    return [...players].sort((a, b) => sign * (seen(a) - seen(b) || a.id - b.id)).map((player) => player.id);
  }

  async function list(query: string) {
    const answer = await server.call('GET', `/api/application/${BIG}/player?${query}`, { token: owner.token });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as { items: { id: number }[]; total: number; total_capped: boolean };
  }

  it('counts them up to the cap and says there are more, and pages them in order as far as the cap', async () => {
    const members = made.filter((player) => player.user.startsWith('member'));
    const first = await list('q=member&limit=20');
    expect(first).toMatchObject({ total: PLAYER_SEARCH_COUNT_CAP, total_capped: true });
    expect(first.items.map((item) => item.id)).toEqual(inOrder(members, 'desc').slice(0, 20));
    const third = await list('q=member&limit=20&page=3');
    expect(third).toMatchObject({ total: PLAYER_SEARCH_COUNT_CAP, total_capped: true });
    expect(third.items.map((item) => item.id)).toEqual(inOrder(members, 'desc').slice(40, 60));
    // Ascending: the never-seen first.
    const ascending = await list('q=member&limit=20&order=asc');
    expect(ascending.items.map((item) => item.id)).toEqual(inOrder(members, 'asc').slice(0, 20));
  });

  it('pages them by page views, which no index holds, from the in-memory copy\'s order as SQL sorts them', async () => {
    // Most page views first, ties by id; the guests (the most of all) are not found.
    const byViews = made
      .filter((player) => player.user.startsWith('member'))
      .sort((a, b) => b.page_views - a.page_views || b.id - a.id)
      .map((player) => player.id);
    // By SQL: this application is under the copy's size (the route), and with a copy that has not loaded.
    const sorted = await list('q=member&sort=page_views&limit=20&page=2');
    expect(sorted).toMatchObject({ total: PLAYER_SEARCH_COUNT_CAP, total_capped: true });
    expect(sorted.items.map((item) => item.id)).toEqual(byViews.slice(20, 40));
    // From a copy of the application, as one of a million players has.
    const index = new AudienceIndex(db(server), server.app.services.dialect, BIG);
    await index.build();
    const asked: number[] = [];
    const inOrder = async (first: number) => {
      asked.push(first);
      return index.list({ ...selection, offset: 0, limit: first }).ids;
    };
    const selection = playerListSelection(PlayerListQuery.parse({ q: 'member', sort: 'page_views', limit: '20', page: '2' }), server.clock.now());
    const fromCopy = await playerPageBySql(server.app.services, BIG, selection, { q: 'member', phoneCountry: 'VN' }, inOrder);
    expect(fromCopy).toMatchObject({ total: PLAYER_SEARCH_COUNT_CAP, capped: true });
    expect(fromCopy.rows.map((row) => Number(row.id))).toEqual(byViews.slice(20, 40));
    expect(asked.length).toBeGreaterThan(0);
    // Ascending: the fewest page views first.
    const ascending = playerListSelection(PlayerListQuery.parse({ q: 'member', sort: 'page_views', order: 'asc', limit: '5' }), server.clock.now());
    const fewest = await playerPageBySql(server.app.services, BIG, ascending, { q: 'member', phoneCountry: 'VN' }, async (first) => index.list({ ...ascending, offset: 0, limit: first }).ids);
    expect(fewest.rows.map((row) => Number(row.id))).toEqual([...byViews].reverse().slice(0, 5));
    // An order whose first 64,000 players hold none of the matches (here: ids no player has): SQL sorts them instead.
    const farEnd: number[] = [];
    const nowhere = await playerPageBySql(server.app.services, BIG, selection, { q: 'member', phoneCountry: 'VN' }, async (first) => {
      farEnd.push(first);
      return Array.from({ length: first }, (_, i) => 900_000_000 + i);
    });
    expect(farEnd.at(-1)).toBe(64_000);
    expect(nowhere.rows.map((row) => Number(row.id))).toEqual(byViews.slice(20, 40));
  });

  it('counts exactly while at most the cap match, a player found by its user id and its email once', async () => {
    // member-00010 … member-00019, each found by both: 10, not 20.
    const ten = await list('q=member-0001&limit=5');
    expect(ten).toMatchObject({ total: 10, total_capped: false });
    const tens = made.filter((player) => player.user.startsWith('member-0001'));
    expect(ten.items.map((item) => item.id)).toEqual(inOrder(tens, 'desc').slice(0, 5));
    // The filters count too: a third of the members are in Vietnam, under the cap, and the guests there are not found.
    const vietnam = made.filter((player) => player.user.startsWith('member') && player.country === 'VN');
    const filtered = await list('q=member&country=VN&limit=20');
    expect(filtered).toMatchObject({ total: vietnam.length, total_capped: false });
    expect(filtered.items.map((item) => item.id)).toEqual(inOrder(vietnam, 'desc').slice(0, 20));
  });
});

describe("a player's page", () => {
  it('shows the player with typed attributes and the latest 50 events, newest first', async () => {
    await insertAttribute(server, APP, ids.web, 'plan', 'gold');
    await insertAttribute(server, APP, ids.web, 'spent', 120.5);
    await insertAttribute(server, APP, ids.web, 'vip', true);
    await insertAttribute(server, APP, ids.web, 'birthday.date', '1990-04-01T00:00:00.000Z');
    // A definition decides the type: "42" stored as text shows as text.
    await insertAttribute(server, APP, ids.web, 'code', '42');
    // And "12.50" stored under a number definition reads as 12.5, while a message writes it as stored.
    await insertAttribute(server, APP, ids.web, 'price', '12.50');
    for (const [name, type] of [['code', 'text'], ['price', 'number']] as const) {
      await db(server)
        .insertInto('attribute_definitions')
        .values({ application_id: APP, name, type, description: null, source: 'console', created_at: daysAgo(server, 1), updated_at: daysAgo(server, 1) })
        .execute();
    }
    for (let i = 0; i < 55; i += 1) await insertEvent(server, APP, ids.web, i % 2 ? 'view' : 'add_to_cart', daysAgo(server, 1 + i / 100), { sku: `S${i}` });

    const answer = await server.call('GET', `${base}/${ids.web}`, { token: owner.token });
    expect(answer.status).toBe(200);
    const detail = answer.body.data;
    expect(detail.player).toMatchObject({ id: ids.web, device_id: 'web-visitor-0001', country: 'VN', subscribed: true, tags: ['buyer', 'vip'] });
    const attributes = Object.fromEntries(detail.attributes.map((a: { name: string; type: string; value: unknown }) => [a.name, [a.type, a.value]]));
    expect(attributes).toEqual({
      'birthday.date': ['date', '1990-04-01T00:00:00.000Z'],
      code: ['text', '42'],
      plan: ['text', 'gold'],
      price: ['number', 12.5],
      spent: ['number', 120.5],
      vip: ['boolean', true],
    });
    // The text a personal value ({{price}}) writes in a message, which the console's preview shows.
    const texts = Object.fromEntries(detail.attributes.map((a: { name: string; text: string | null }) => [a.name, a.text]));
    expect(texts).toEqual({ 'birthday.date': '1990-04-01T00:00:00.000Z', code: '42', plan: 'gold', price: '12.50', spent: '120.5', vip: 'true' });
    expect(detail.events.items).toHaveLength(50);
    expect(detail.events.more).toBe(true);
    expect(detail.events.items[0]).toMatchObject({ name: 'add_to_cart', properties: { sku: 'S0' } });
    const times = detail.events.items.map((event: { occurred_at: string }) => event.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  // Read by one query (few events; fewer than EVENTS_PER_NAME_APART events a name; more names than
  // EVENT_NAMES_READ_APART), or name by name and merged (many events of three names, or of as many names as are read
  // apart, enough a name).
  const many = EVENTS_SORTED_WHOLE + 100;
  const enough = EVENT_NAMES_READ_APART * EVENTS_PER_NAME_APART + 100;
  it.each([
    ['few events, a name each', 100, (i: number) => `e${i}`],
    ['many events, three names, each on every time', Math.max(many, 3 * EVENTS_PER_NAME_APART + 100), (i: number) => ['view', 'cart', 'buy'][Math.floor(i / 3) % 3]],
    // Each name on every time, and the newest 200 events of one: its newest make the first pages.
    ['as many names as are read apart, enough events a name', enough, (i: number) => (i >= enough - 200 ? 'e0' : `e${i % EVENT_NAMES_READ_APART}`)],
    // The oldest events each of its own name, the rest of one: its newest make the first pages.
    ['many events, too few a name', many, (i: number) => (i < 30 ? `e${i}` : 'e0')],
    ['many events, more names than are read apart', many, (i: number) => (i <= EVENT_NAMES_READ_APART ? `e${i}` : 'e0')],
  ])('pages through a player\'s events (%s): older ones after the last shown, none twice or missed where times are equal, the last page last', async (label, count, nameOf) => {
    const id = await insertPlayer(server, APP, `paged-events-${label.replace(/\W+/g, '-')}`, { last_seen_at: daysAgo(server, 0) });
    // Events on three times only: every page ends inside a run of equal times.
    const times = [daysAgo(server, 1), daysAgo(server, 2), daysAgo(server, 3)];
    const rows = Array.from({ length: count }, (_, i) => ({
      application_id: APP,
      player_id: id,
      name: nameOf(i),
      properties: null,
      client_event_id: `paged-${id}-${i}`,
      session_id: null,
      occurred_at: times[i % 3],
      received_at: times[i % 3],
    }));
    for (let start = 0; start < rows.length; start += 1_000) await db(server).insertInto('events').values(rows.slice(start, start + 1_000)).execute();
    const all = await db(server).selectFrom('events').select(['id', 'occurred_at']).where('player_id', '=', id).orderBy('occurred_at', 'desc').orderBy('id', 'desc').execute();

    const first = (await server.call('GET', `${base}/${id}`, { token: owner.token })).body.data.events;
    expect(first.items).toHaveLength(50);
    expect(first.more).toBe(true);
    // The newest page asked for alone is the same as the player's own.
    const newest = await server.call('GET', `${base}/${id}/events`, { token: members.viewer.token });
    expect(newest.status).toBe(200);
    expect(newest.body.data).toEqual(first);

    // Four pages on from the first (or all there are), then the last page, from the tenth event before the end.
    const after = async (event: { occurred_at: string; id: number }) => {
      const older = await server.call('GET', `${base}/${id}/events?before_at=${encodeURIComponent(event.occurred_at)}&before_id=${event.id}`, { token: owner.token });
      expect(older.status).toBe(200);
      return older.body.data as typeof first;
    };
    const shown: number[] = first.items.map((event: { id: number }) => event.id);
    let page = first;
    let second: typeof first | undefined;
    for (let pages = 1; page.more && pages < 5; pages += 1) {
      page = await after(page.items[page.items.length - 1]);
      second ??= page;
      shown.push(...page.items.map((event: { id: number }) => event.id));
    }
    const ids = all.map((row) => Number(row.id));
    expect(shown).toEqual(ids.slice(0, shown.length));
    const end = await after({ occurred_at: all[count - 10].occurred_at, id: Number(all[count - 10].id) });
    expect(end.items.map((event: { id: number }) => event.id)).toEqual(ids.slice(count - 9));
    expect(end.more).toBe(false);

    // The same moment written with an offset names the same place.
    const last = first.items[49];
    const local = new Date(Date.parse(last.occurred_at) + 7 * 3600_000).toISOString().replace('Z', '+07:00');
    const sameMoment = await server.call('GET', `${base}/${id}/events?before_at=${encodeURIComponent(local)}&before_id=${last.id}`, { token: owner.token });
    expect(sameMoment.body.data).toEqual(second);
  });

  it('shows a player with no events an empty list', async () => {
    const id = await insertPlayer(server, APP, 'no-events-0007', { last_seen_at: daysAgo(server, 0) });
    const page = await server.call('GET', `${base}/${id}/events`, { token: owner.token });
    expect(page.body.data).toEqual({ items: [], more: false });
  });

  it('refuses a half or malformed place to continue from, in the caller\'s language', async () => {
    const half = await server.call('GET', `${base}/${ids.web}/events?before_id=10`, { token: owner.token, lang: 'en' });
    expect(half.status).toBe(400);
    expect(half.body.error).toBe('INVALID_PARAM');
    expect(half.body.fields).toEqual([{ path: 'before_id', message: 'Give both before_at and before_id (the time and id of the last event shown), or neither' }]);
    const vi = await server.call('GET', `${base}/${ids.web}/events?before_at=2025-01-01T00:00:00.000Z`, { token: owner.token, lang: 'vi' });
    expect(vi.body.fields[0].message).toBe('Hãy gửi cả before_at và before_id (thời điểm và mã của sự kiện cuối cùng đã hiện), hoặc không gửi cả hai');
    const notATime = await server.call('GET', `${base}/${ids.web}/events?before_at=yesterday&before_id=10`, { token: owner.token, lang: 'vi' });
    expect(notATime.status).toBe(400);
    expect(notATime.body.fields).toEqual([{ path: 'before_at', message: 'Phải là ngày giờ ISO 8601 kèm múi giờ, ví dụ 2026-12-02T09:30:00+07:00 hoặc 2026-12-02T02:30:00Z' }]);
  });

  it("is NOT_FOUND for another application's player, said as for one that never was", async () => {
    const foreign = await db(server).selectFrom('players').select('id').where('application_id', '=', OTHER).executeTakeFirstOrThrow();
    expect((await server.call('GET', `${base}/${foreign.id}`, { token: owner.token, lang: 'en' })).body).toEqual({
      success: false,
      error: 'NOT_FOUND',
      message: `There is no player ${foreign.id} in this application.`,
    });
    expect((await server.call('GET', `${base}/${foreign.id}/events`, { token: owner.token, lang: 'vi' })).body.message).toBe(`Ứng dụng này không có người dùng ${foreign.id}.`);
    expect((await server.call('GET', `${base}/987654321`, { token: owner.token, lang: 'en' })).body.message).toBe('There is no player 987654321 in this application.');
  });
});

describe('tags', () => {
  it('adds tags (keeping those it has) and removes one', async () => {
    const added = await server.call('POST', `${base}/${ids.ios}/tags`, { token: owner.token, body: { tags: ['vip', 'beta', 'vip'] } });
    expect(added.status).toBe(200);
    expect(added.body.data.tags).toEqual(['beta', 'vip']);
    const again = await server.call('POST', `${base}/${ids.ios}/tags`, { token: owner.token, body: { tags: ['beta'] } });
    expect(again.body.data.tags).toEqual(['beta', 'vip']);
    const removed = await server.call('DELETE', `${base}/${ids.ios}/tags/beta`, { token: owner.token });
    expect(removed.body.data.tags).toEqual(['vip']);
    const gone = await server.call('DELETE', `${base}/${ids.ios}/tags/beta`, { token: owner.token, lang: 'en' });
    expect(gone.body).toEqual({ success: false, error: 'NOT_FOUND', message: `Player ${ids.ios} has no tag beta.` });
  });

  it("lists the application's tags, most held first then by name, with how many players have each, to every member and no outsider", async () => {
    await insertTags(server, APP, ids.never, ['Buyer']);
    // Another application's tags are its own.
    await insertTags(server, OTHER, await insertPlayer(server, OTHER, 'other-tagged-0009', {}), ['buyer', 'wholesale']);
    for (const member of [owner, ...Object.values(members)]) {
      const answer = await server.call('GET', `/api/application/${APP}/tag`, { token: member.token });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      // buyer and vip twice (vip added to the iOS player above), tied and so by name; Buyer, written otherwise, apart.
      expect(answer.body.data).toEqual({
        items: [
          { tag: 'buyer', players: 2 },
          { tag: 'vip', players: 2 },
          { tag: 'Buyer', players: 1 },
        ],
        more: false,
      });
    }
    expect((await server.call('GET', `/api/application/${APP}/tag`, { token: outsider.token })).body.error).toBe('NO_PERMISSION');
    expect((await server.call('GET', `/api/application/${APP}/tag`)).body.error).toBe('NOT_AUTHORIZED');
  });

  it("counts the tags from the in-memory copy of a large audience as SQL does", async () => {
    const index = new AudienceIndex(db(server), server.app.services.dialect, APP);
    await index.build();
    const sqlCounts = (await server.call('GET', `/api/application/${APP}/tag`, { token: owner.token })).body.data.items.map((item: { tag: string; players: number }) => [item.tag, item.players]);
    expect(index.tagCounts().sort(([a], [b]) => (a < b ? -1 : 1))).toEqual([...sqlCounts].sort(([a], [b]) => (a < b ? -1 : 1)));
  });

  it('refuses a tag with spaces or no tags at all', async () => {
    const spaced = await server.call('POST', `${base}/${ids.ios}/tags`, { token: owner.token, body: { tags: ['two words'] } });
    expect(spaced.status).toBe(400);
    expect(spaced.body.fields[0].path).toBe('tags.0');
    expect((await server.call('POST', `${base}/${ids.ios}/tags`, { token: owner.token, body: { tags: [] } })).status).toBe(400);
  });
});

describe('who may do what (spec §6: every member reads; super users, managers and users write)', () => {
  it('lets every member read the list and a player', async () => {
    for (const member of Object.values(members)) {
      expect((await server.call('GET', base, { token: member.token })).status).toBe(200);
      expect((await server.call('GET', `${base}/${ids.android}`, { token: member.token })).status).toBe(200);
    }
  });

  it('refuses outsiders and anonymous callers', async () => {
    expect((await server.call('GET', base, { token: outsider.token })).body.error).toBe('NO_PERMISSION');
    expect((await server.call('GET', `${base}/${ids.web}/events`, { token: outsider.token })).body.error).toBe('NO_PERMISSION');
    expect((await server.call('GET', `${base}/${ids.web}/events`)).body.error).toBe('NOT_AUTHORIZED');
    expect((await server.call('GET', base)).body.error).toBe('NOT_AUTHORIZED');
  });

  it('refuses tag changes and deletion to viewers and ads managers, changing nothing', async () => {
    for (const member of [members.viewer, members.ads_manager]) {
      const added = await server.call('POST', `${base}/${ids.android}/tags`, { token: member.token, body: { tags: ['nope'] } });
      expect(added.body.error).toBe('NO_PERMISSION');
      expect((await server.call('DELETE', `${base}/${ids.android}/tags/buyer`, { token: member.token })).body.error).toBe('NO_PERMISSION');
      expect((await server.call('DELETE', `${base}/${ids.android}`, { token: member.token })).body.error).toBe('NO_PERMISSION');
    }
    const tags = await db(server).selectFrom('player_tags').select('tag').where('player_id', '=', ids.android).execute();
    expect(tags.map((row) => row.tag)).toEqual(['buyer']);
  });

  it('lets a user tag a player', async () => {
    const added = await server.call('POST', `${base}/${ids.android}/tags`, { token: members.user.token, body: { tags: ['seen-by-user'] } });
    expect(added.status).toBe(200);
  });
});

describe('deleting a player', () => {
  it('removes the player with tags, attributes, events and daily activity', async () => {
    const id = await insertPlayer(server, APP, 'to-delete-0005', { last_seen_at: daysAgo(server, 0) });
    await insertTags(server, APP, id, ['x']);
    await insertAttribute(server, APP, id, 'plan', 'gold');
    await insertEvent(server, APP, id, 'view', daysAgo(server, 0));
    await db(server).insertInto('player_days').values({ application_id: APP, day: daysAgo(server, 0).slice(0, 10), player_id: id, sessions: 1 }).execute();
    const answer = await server.call('DELETE', `${base}/${id}`, { token: members.manager.token });
    expect(answer.status).toBe(200);
    expect((await server.call('GET', `${base}/${id}`, { token: owner.token })).body.error).toBe('NOT_FOUND');
    for (const table of ['player_tags', 'player_attributes', 'events', 'player_days'] as const) {
      const rows = await db(server).selectFrom(table).select('player_id').where('player_id', '=', id).execute();
      expect(rows, table).toEqual([]);
    }
  });
});
