import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';
import { DAY_MS, insertPlayer } from './players-fixtures';
import { addDays, dayAtOffset, dayStartAtOffset } from '../../shared/format';

/** The application's dashboard: figures by platform and channel, every day of the period, top events, roles. */
const APP = 'dashboard_app';
const OTHER = 'dashboard_other';
const url = (query = '') => `/api/application/${APP}/dashboard${query}`;

let server: TestServer;
let owner: TestUser;
let viewer: TestUser;
let today: string;
const day = (offset: number) => new Date(Date.parse(`${today}T00:00:00.000Z`) + offset * DAY_MS).toISOString().slice(0, 10);
const at = (offset: number, hour = 10) => `${day(offset)}T${String(hour).padStart(2, '0')}:00:00.000Z`;

beforeAll(async () => {
  server = await startServer();
  today = server.clock.now().toISOString().slice(0, 10);
  owner = await createUser(server, { name: 'owner' });
  viewer = await createUser(server, { name: 'viewer' });
  await createApplication(server, owner, APP, 'Dashboard');
  await createApplication(server, owner, OTHER, 'Other');
  await addMember(server, owner, APP, viewer, 'viewer');

  const web = await insertPlayer(server, APP, 'dash-web-1', { created_at: at(-2), subscribed: 1, push_endpoint: 'https://push.example.com/1' });
  const web2 = await insertPlayer(server, APP, 'dash-web-2', { created_at: at(-2, 23), mobile_number: '+8490' });
  const ios = await insertPlayer(server, APP, 'dash-ios-1', { platform: 'ios', device_type: 'mobile', created_at: at(0), subscribed: 1, device_token: 't' });
  await insertPlayer(server, APP, 'dash-android-1', { platform: 'android', device_type: 'mobile', created_at: at(-40), fb_psid: 'psid' });
  await insertPlayer(server, OTHER, 'dash-other', { created_at: at(0), subscribed: 1, push_endpoint: 'https://push.example.com/x' });

  await db(server)
    .insertInto('player_days')
    .values([
      { application_id: APP, day: day(-2), player_id: web, sessions: 2, page_views: 10 },
      { application_id: APP, day: day(-2), player_id: web2, sessions: 1, page_views: 4 },
      { application_id: APP, day: day(0), player_id: ios, sessions: 3, page_views: 0 },
      { application_id: APP, day: day(-40), player_id: web, sessions: 9, page_views: 9 },
    ])
    .execute();
  // Events in the default period, one older event that occurred more often than any of them, and another
  // application's.
  const other = await db(server).selectFrom('players').select('id').where('device_id', '=', 'dash-other').executeTakeFirstOrThrow();
  let number = 0;
  const events = (app: string, player: number, name: string, count: number, when: string) =>
    Array.from({ length: count }, () => ({ application_id: app, player_id: player, name, properties: null, client_event_id: `dash-event-${(number += 1)}`, session_id: null, occurred_at: when, received_at: when }));
  await db(server)
    .insertInto('events')
    .values([
      ...events(APP, web, 'view', 4, at(-2)),
      ...events(APP, ios, 'view', 1, at(0)),
      ...events(APP, ios, 'signup', 3, at(0)),
      ...events(APP, web2, 'purchase', 2, at(-2, 23)),
      ...events(APP, web, 'old_campaign', 7, at(-40)),
      ...events(OTHER, Number(other.id), 'huge', 9, at(0)),
    ])
    .execute();
}, 60_000);
afterAll(async () => server?.close());

describe('GET /dashboard', () => {
  it('counts players and subscribers by platform and channel', async () => {
    const answer = await server.call('GET', url(), { token: owner.token });
    expect(answer.status).toBe(200);
    const data = answer.body.data;
    expect(data).toMatchObject({ players: 4, subscribers: 2 });
    expect(data.by_platform).toEqual([
      { platform: 'web', players: 2, subscribers: 1 },
      { platform: 'ios', players: 1, subscribers: 1 },
      { platform: 'android', players: 1, subscribers: 0 },
    ]);
    expect(data.by_channel).toEqual([
      { channel: 'web_push', players: 1 },
      { channel: 'mobile_push', players: 1 },
      { channel: 'sms', players: 1 },
      { channel: 'facebook', players: 1 },
    ]);
    // The period's events, most first; not the older one, nor the other application's.
    expect(data.top_events).toEqual([
      { name: 'view', count: 5 },
      { name: 'signup', count: 3 },
      { name: 'purchase', count: 2 },
    ]);
  });

  it('gives every day of the default 30-day period, zeros included', async () => {
    const { data } = (await server.call('GET', url(), { token: owner.token })).body;
    expect(data.from).toBe(day(-29));
    expect(data.to).toBe(today);
    expect(data.days).toHaveLength(30);
    expect(data.days.map((entry: { day: string }) => entry.day)).toEqual(Array.from({ length: 30 }, (_, i) => day(i - 29)));
    const byDay = new Map(data.days.map((entry: { day: string }) => [entry.day, entry]));
    expect(byDay.get(day(-2))).toEqual({ day: day(-2), new_players: 2, active_players: 2, sessions: 3, page_views: 14 });
    expect(byDay.get(day(0))).toEqual({ day: today, new_players: 1, active_players: 1, sessions: 3, page_views: 0 });
    expect(byDay.get(day(-1))).toEqual({ day: day(-1), new_players: 0, active_players: 0, sessions: 0, page_views: 0 });
  });

  it('takes a chosen period', async () => {
    const { data } = (await server.call('GET', url(`?from=${day(-41)}&to=${day(-39)}`), { token: owner.token })).body;
    expect(data.days).toEqual([
      { day: day(-41), new_players: 0, active_players: 0, sessions: 0, page_views: 0 },
      { day: day(-40), new_players: 1, active_players: 1, sessions: 9, page_views: 9 },
      { day: day(-39), new_players: 0, active_players: 0, sessions: 0, page_views: 0 },
    ]);
    expect(data.top_events).toEqual([{ name: 'old_campaign', count: 7 }]);
  });

  it('keeps days that can no longer change, and drops them when a player is deleted', async () => {
    // Day -33 (not read before) is settled, since item times are clamped to the last week: it is added up on
    // its first read, then served from memory.
    const player = await insertPlayer(server, APP, 'dash-settled', { created_at: at(-60) });
    await db(server).insertInto('player_days').values({ application_id: APP, day: day(-33), player_id: player, sessions: 4, page_views: 6 }).execute();
    const dayOf = async (offset: number) => {
      const { data } = (await server.call('GET', url(`?from=${day(-35)}&to=${today}`), { token: owner.token })).body;
      return data.days.find((entry: { day: string }) => entry.day === day(offset));
    };
    expect(await dayOf(-33)).toEqual({ day: day(-33), new_players: 0, active_players: 1, sessions: 4, page_views: 6 });
    // Deleting the player, in the console, takes its activity away at once, from every process's kept days.
    expect((await server.call('DELETE', `/api/application/${APP}/player/${player}`, { token: owner.token })).status).toBe(200);
    expect(await dayOf(-33)).toEqual({ day: day(-33), new_players: 0, active_players: 0, sessions: 0, page_views: 0 });
    // Recent days are added up on every call.
    await db(server).insertInto('player_days').values({ application_id: APP, day: day(-1), player_id: await insertPlayer(server, APP, 'dash-recent'), sessions: 1, page_views: 2 }).execute();
    expect(await dayOf(-1)).toMatchObject({ active_players: 1, sessions: 1, page_views: 2 });
  });

  it('refuses a period ending before it starts, longer than a year, or an impossible day', async () => {
    for (const query of [`?from=${day(0)}&to=${day(-1)}`, `?from=${day(-400)}&to=${day(0)}`, '?from=2025-02-30&to=2025-03-01']) {
      const answer = await server.call('GET', url(query), { token: owner.token, lang: 'en' });
      expect(answer.status, query).toBe(400);
      expect(answer.body.error).toBe('INVALID_PARAM');
    }
    expect((await server.call('GET', url('?from=yesterday'), { token: owner.token })).status).toBe(400);
  });

  it("counts days from midnight in the application's timezone and ends the period on today there", async () => {
    const hanoi = await createApplication(server, owner, 'dashboard_hanoi', 'Hanoi', 420);
    // It is 01:00 in Hanoi (UTC+07:00), 18:00 UTC the day before. Midnight there was 17:00 UTC: a minute before
    // it is yesterday there, on the same UTC day.
    const nextMidnight = dayStartAtOffset(addDays(dayAtOffset(server.clock.now().getTime(), 420), 1), 420);
    server.clock.advance(nextMidnight + 3_600_000 - server.clock.now().getTime());
    const local = dayAtOffset(server.clock.now().getTime(), 420);
    const midnight = dayStartAtOffset(local, 420);
    expect(server.clock.now().toISOString().slice(0, 10)).toBe(addDays(local, -1));
    await insertPlayer(server, 'dashboard_hanoi', 'hanoi-before-midnight', { created_at: new Date(midnight - 60_000).toISOString() });
    // A visit from the storefront at midnight: a new player, a session and a page view on today there.
    const visit = await server.call('POST', '/api/sdk/track', {
      body: {
        key: hanoi.client_key,
        visitor_id: 'hanoi-at-midnight',
        items: [
          { type: 'session', id: 'hanoi-s1', at: midnight, session_id: 'hanoi-1' },
          { type: 'page', id: 'hanoi-p1', at: midnight, session_id: 'hanoi-1', url: 'https://shop.example.vn/' },
        ],
      },
    });
    expect(visit.status).toBe(200);
    const { data } = (await server.call('GET', '/api/application/dashboard_hanoi/dashboard', { token: owner.token })).body;
    expect([data.from, data.to]).toEqual([addDays(local, -29), local]);
    const byDay = new Map(data.days.map((entry: { day: string }) => [entry.day, entry]));
    expect(byDay.get(addDays(local, -1))).toEqual({ day: addDays(local, -1), new_players: 1, active_players: 0, sessions: 0, page_views: 0 });
    expect(byDay.get(local)).toEqual({ day: local, new_players: 1, active_players: 1, sessions: 1, page_views: 1 });
  });

  it('is readable by every member, a viewer too, and by nobody else', async () => {
    expect((await server.call('GET', url(), { token: viewer.token })).status).toBe(200);
    const outsider = await createUser(server, { name: 'outsider' });
    expect((await server.call('GET', url(), { token: outsider.token })).body.error).toBe('NO_PERMISSION');
    expect((await server.call('GET', url())).body.error).toBe('NOT_AUTHORIZED');
  });
});
