import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createUser, db, startServer, type TestServer } from './helpers';
import { daysAgo, insertPlayer } from './players-fixtures';

/** The public playerinfo page's API: a player's own record by the device id the SDK holds, and unsubscribing. */
const APP = 'playerinfo_app';
const DEVICE = 'k3Jd9sLq0pXz8vT2wR5yU1';

let server: TestServer;
let playerId: number;
const url = (device = DEVICE, app = APP) => `/api/public/application/${app}/playerinfo/${device}`;

beforeAll(async () => {
  server = await startServer({ limits: { playerInfoPerIp: { max: 5, windowMs: 60_000 } } });
  const owner = await createUser(server);
  await createApplication(server, owner, APP, 'Player info');
  playerId = await insertPlayer(server, APP, DEVICE, {
    country: 'VN',
    email: 'lan@example.com',
    subscribed: 1,
    subscribed_at: daysAgo(server, 10),
    push_endpoint: 'https://push.example.com/secret-endpoint',
    push_p256dh: 'p256dh-key',
    push_auth: 'auth-secret',
  });
}, 60_000);
afterAll(async () => server?.close());

describe('GET playerinfo', () => {
  it('answers the player’s own record without signing in, and never the push keys', async () => {
    const answer = await server.call('GET', url(), { ip: '10.0.0.1' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: playerId, device_id: DEVICE, country: 'VN', email: 'lan@example.com', subscribed: true, channels: ['web_push'], application_name: 'Player info' });
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.body.data).not.toHaveProperty('push_endpoint');
    expect(JSON.stringify(answer.body)).not.toMatch(/secret-endpoint|p256dh-key|auth-secret/);
  });

  it('answers the same NOT_FOUND for an unknown device and an unknown application', async () => {
    const device = await server.call('GET', url('unknown-device-1234'), { ip: '10.0.0.2' });
    const app = await server.call('GET', url(DEVICE, 'no_such_app'), { ip: '10.0.0.2' });
    expect(device.status).toBe(404);
    expect(device.body.error).toBe('NOT_FOUND');
    expect(app.body).toEqual(device.body);
  });

  it('is rate limited per address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) statuses.push((await server.call('GET', url(`guess-${i}-0000000`), { ip: '10.0.0.3' })).status);
    expect(statuses.slice(0, 5)).toEqual([404, 404, 404, 404, 404]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    // The limit is the address's: the player's own browser elsewhere still gets in.
    expect((await server.call('GET', url(), { ip: '10.0.0.4' })).status).toBe(200);
  });
});

describe('POST playerinfo/unsubscribe', () => {
  it('unsubscribes: not subscribed, unsubscribed now, endpoint and keys forgotten', async () => {
    const answer = await server.call('POST', `${url()}/unsubscribe`, { ip: '10.0.0.5' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ subscribed: false, channels: [], unsubscribed_at: server.clock.now().toISOString().slice(0, 10) + answer.body.data.unsubscribed_at.slice(10) });
    const row = await db(server).selectFrom('players').selectAll().where('id', '=', playerId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ subscribed: 0, push_endpoint: null, push_p256dh: null, push_auth: null });
    expect(row.unsubscribed_at).toBe(answer.body.data.unsubscribed_at);
  });

  it('keeps the first unsubscription time when asked again', async () => {
    const first = (await db(server).selectFrom('players').select('unsubscribed_at').where('id', '=', playerId).executeTakeFirstOrThrow()).unsubscribed_at;
    server.clock.advance(60_000);
    const again = await server.call('POST', `${url()}/unsubscribe`, { ip: '10.0.0.6' });
    expect(again.body.data.unsubscribed_at).toBe(first);
  });

  it('is NOT_FOUND for an unknown device, changing nothing', async () => {
    const answer = await server.call('POST', `${url('unknown-device-5678')}/unsubscribe`, { ip: '10.0.0.7' });
    expect(answer.body.error).toBe('NOT_FOUND');
  });
});
