import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';
import { daysAgo } from './players-fixtures';

/** The console's /event screen: event definitions by last seen, one by name, property types, roles. */
const APP = 'event_app';
const OTHER = 'event_other';

let server: TestServer;
let owner: TestUser;
const members = {} as Record<'manager' | 'viewer' | 'user' | 'ads_manager', TestUser>;

async function define(app: string, name: string, count: number, lastSeenDaysAgo: number, properties: Record<string, string> = {}) {
  await db(server)
    .insertInto('event_definitions')
    .values({ application_id: app, name, count, first_seen_at: daysAgo(server, 100), last_seen_at: daysAgo(server, lastSeenDaysAgo), properties: JSON.stringify(properties) })
    .execute();
}

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server, { name: 'owner' });
  await createApplication(server, owner, APP, 'Events');
  await createApplication(server, owner, OTHER, 'Other');
  for (const role of ['manager', 'viewer', 'user', 'ads_manager'] as const) {
    members[role] = await createUser(server, { name: role });
    await addMember(server, owner, APP, members[role], role);
  }
  await define(APP, 'purchase', 1200, 1, { amount: 'number', 'delivery.date': 'text', coupon: 'text', gift: 'boolean' });
  await define(APP, 'page view', 90_000, 0);
  await define(APP, 'signup.v2', 15, 30);
  await define(OTHER, 'secret', 1, 0);
}, 60_000);
afterAll(async () => server?.close());

describe('GET /event', () => {
  it('lists the events seen, most recently seen first, with counts', async () => {
    const answer = await server.call('GET', `/api/application/${APP}/event`, { token: owner.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data.total).toBe(3);
    expect(answer.body.data.items.map((item: { name: string; count: number }) => [item.name, item.count])).toEqual([
      ['page view', 90_000],
      ['purchase', 1200],
      ['signup.v2', 15],
    ]);
  });

  it('pages', async () => {
    const second = await server.call('GET', `/api/application/${APP}/event?limit=2&page=2`, { token: owner.token });
    expect(second.body.data.items.map((item: { name: string }) => item.name)).toEqual(['signup.v2']);
    expect(second.body.data.total).toBe(3);
  });
});

describe('GET /event/{name}', () => {
  it('answers one event with its property types, a `.date` property typed as a date', async () => {
    const answer = await server.call('GET', `/api/application/${APP}/event/purchase`, { token: owner.token });
    expect(answer.body.data).toMatchObject({ name: 'purchase', count: 1200, properties: { amount: 'number', 'delivery.date': 'date', coupon: 'text', gift: 'boolean' } });
  });

  it('finds names with spaces and dots, and answers NOT_FOUND for unknown or foreign ones', async () => {
    expect((await server.call('GET', `/api/application/${APP}/event/${encodeURIComponent('page view')}`, { token: owner.token })).body.data.name).toBe('page view');
    expect((await server.call('GET', `/api/application/${APP}/event/signup.v2`, { token: owner.token })).body.data.name).toBe('signup.v2');
    expect((await server.call('GET', `/api/application/${APP}/event/refund`, { token: owner.token, lang: 'en' })).body).toEqual({
      success: false,
      error: 'NOT_FOUND',
      message: 'This application has seen no event named refund.',
    });
    expect((await server.call('GET', `/api/application/${APP}/event/secret`, { token: owner.token })).body.error).toBe('NOT_FOUND');
  });
});

describe('who may read events (spec §6: super users, managers, viewers)', () => {
  it('lets managers and viewers read', async () => {
    for (const role of ['manager', 'viewer'] as const) {
      expect((await server.call('GET', `/api/application/${APP}/event`, { token: members[role].token })).status).toBe(200);
    }
  });

  it('refuses users and ads managers', async () => {
    for (const role of ['user', 'ads_manager'] as const) {
      expect((await server.call('GET', `/api/application/${APP}/event`, { token: members[role].token })).body.error).toBe('NO_PERMISSION');
      expect((await server.call('GET', `/api/application/${APP}/event/purchase`, { token: members[role].token })).body.error).toBe('NO_PERMISSION');
    }
  });
});
