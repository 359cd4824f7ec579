import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createUser, db, startServer, type TestServer } from './helpers';
import { daysAgo, insertAttribute, insertPlayer, insertTags } from './players-fixtures';

/** The public playerinfo page's API: a player's own record by the device id the SDK holds, and unsubscribing. */
const APP = 'playerinfo_app';
const DEVICE = 'k3Jd9sLq0pXz8vT2wR5yU1';

let server: TestServer;
let playerId: number;
let lastSeenAt: string;
let subscribedAt: string;
const url = (device = DEVICE, app = APP) => `/api/public/application/${app}/playerinfo/${device}`;

beforeAll(async () => {
  server = await startServer({ limits: { playerInfoPerIp: { max: 5, windowMs: 60_000 } } });
  const owner = await createUser(server);
  await createApplication(server, owner, APP, 'Player info');
  lastSeenAt = daysAgo(server, 1);
  subscribedAt = daysAgo(server, 10);
  playerId = await insertPlayer(server, APP, DEVICE, {
    device_type: 'mobile',
    os: 'Android',
    os_version: '14',
    browser: 'Chrome',
    language: 'vi',
    country: 'VN',
    city: 'Hà Nội',
    last_seen_at: lastSeenAt,
    subscribed: 1,
    subscribed_at: subscribedAt,
    push_endpoint: 'https://push.example.com/secret-endpoint',
    push_p256dh: 'p256dh-key',
    push_auth: 'auth-secret',
    // What the merchant knows or decided about the person, which the page does not show them.
    email: 'lan@example.com',
    mobile_number: '+84912345678',
    external_user_id: 'crm-customer-4711',
    fb_psid: 'psid-99887766',
    device_token: 'fcm-token-secret',
    gender: 'female',
    utm_source: 'retarget-list',
    utm_campaign: 'win-back-high-value',
  });
  // The merchant's own segmentation labels and attributes.
  await insertTags(server, APP, playerId, ['cart_abandoner', 'vip', 'wholesale']);
  await insertAttribute(server, APP, playerId, 'lifetime_value', 'tier-platinum');
}, 60_000);
afterAll(async () => server?.close());

describe('GET playerinfo', () => {
  it('answers the player’s own record without signing in, and never the push keys', async () => {
    const answer = await server.call('GET', url(), { ip: '10.0.0.1' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ device_id: DEVICE, country: 'VN', subscribed: true, channels: ['web_push', 'sms', 'facebook'], application_name: 'Player info' });
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.body.data).not.toHaveProperty('push_endpoint');
    expect(JSON.stringify(answer.body)).not.toMatch(/secret-endpoint|p256dh-key|auth-secret/);
  });

  it('answers what the person sees about their own device and subscription, and nothing of the merchant’s: no tags, identities, attribution or attributes', async () => {
    const answer = await server.call('GET', url(), { ip: '10.0.0.8' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      device_id: DEVICE,
      platform: 'web',
      device_type: 'mobile',
      os: 'Android',
      os_version: '14',
      browser: 'Chrome',
      language: 'vi',
      country: 'VN',
      city: 'Hà Nội',
      last_seen_at: lastSeenAt,
      subscribed: true,
      subscribed_at: subscribedAt,
      unsubscribed_at: null,
      opted_out_at: null,
      channels: ['web_push', 'sms', 'facebook'],
      application_name: 'Player info',
    });
    const text = JSON.stringify(answer.body);
    for (const secret of ['cart_abandoner', 'vip', 'wholesale', 'tier-platinum', 'lifetime_value', 'lan@example.com', '912345678', 'crm-customer-4711', 'psid-99887766', 'fcm-token-secret', 'female', 'retarget-list', 'win-back-high-value']) {
      expect(text).not.toContain(secret);
    }
    // Nor does the OpenAPI document promise them: the route's answer is OwnPlayer.
    const docs = await server.call('GET', '/api/docs/json');
    const schema = docs.body.paths['/api/public/application/{application_id}/playerinfo/{device_id}'].get.responses['200'].content['application/json'].schema;
    const data = schema.properties.data.properties as Record<string, unknown>;
    for (const field of ['tags', 'email', 'external_user_id', 'device_token', 'utm_source', 'id']) expect(data).not.toHaveProperty(field);
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
    expect(answer.body.data).toMatchObject({ subscribed: false, channels: ['sms', 'facebook'], unsubscribed_at: server.clock.now().toISOString().slice(0, 10) + answer.body.data.unsubscribed_at.slice(10) });
    // The answer to the unsubscribe is the same own record: no tags there either.
    expect(answer.body.data).not.toHaveProperty('tags');
    expect(JSON.stringify(answer.body)).not.toMatch(/cart_abandoner|wholesale|lan@example\.com/);
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
