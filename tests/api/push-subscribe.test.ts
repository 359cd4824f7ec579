import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';

/** A shop's browsers subscribing to web push, ending it, and their service workers reporting back (/api/sdk/push/*). */
const APP = 'push_subscribe';

let server: TestServer;
let owner: TestUser;
let key: string;

/** A POST as the SDK and the service worker send it: the JSON as a text/plain body from the shop's origin. */
function sdk(path: string, body: Record<string, unknown>) {
  return server.call('POST', `/api/sdk/push/${path}`, {
    body: JSON.stringify(body),
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example.vn' },
  });
}

const subscription = (n: number) => ({
  endpoint: `https://push.example.net/send/endpoint-${n}`,
  expirationTime: null,
  keys: { p256dh: `BP256dh-key-${n}`, auth: `auth-${n}` },
});

const player = (visitor: string) =>
  db(server).selectFrom('players').selectAll().where('application_id', '=', APP).where('device_id', '=', visitor).executeTakeFirst();

async function enablePush(enabled: boolean) {
  const answer = await server.call('PUT', `/api/application/${APP}/platform/web_push`, {
    token: owner.token,
    body: {
      enabled,
      site_url: 'https://shop.example.vn',
      box: { text: 'Nhận tin?', allow_text: 'Có', deny_text: 'Không', delay_seconds: 0, position: 'top' },
    },
  });
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
}

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server);
  key = (await createApplication(server, owner, APP)).client_key;
  await enablePush(true);
}, 60_000);
afterAll(async () => server?.close());

describe('subscribing', () => {
  it("creates the visitor's player on a first contact and stores the subscription", async () => {
    const answer = await sdk('subscribe', {
      key,
      visitor_id: 'visitor0001abc',
      subscription: subscription(1),
      device: { device_type: 'mobile', os: 'Android', browser: 'Chrome', language: 'vi-VN', timezone: 'Asia/Ho_Chi_Minh' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    const row = await player('visitor0001abc');
    expect(row).toMatchObject({
      platform: 'web',
      device_type: 'mobile',
      os: 'Android',
      browser: 'Chrome',
      subscribed: 1,
      push_endpoint: subscription(1).endpoint,
      push_p256dh: 'BP256dh-key-1',
      push_auth: 'auth-1',
    });
    expect(row!.subscribed_at).toBeTruthy();
  });

  it('keeps the first subscription date when the browser renews its subscription', async () => {
    const before = (await player('visitor0001abc'))!.subscribed_at;
    server.clock.advance(60_000);
    await sdk('subscribe', { key, visitor_id: 'visitor0001abc', subscription: subscription(2) });
    const row = await player('visitor0001abc');
    expect(row!.push_endpoint).toBe(subscription(2).endpoint);
    expect(row!.subscribed_at).toBe(before);
  });

  it('takes an endpoint from the visitor that held it before', async () => {
    await sdk('subscribe', { key, visitor_id: 'visitor0002abc', subscription: subscription(3) });
    await sdk('subscribe', { key, visitor_id: 'visitor0003abc', subscription: subscription(3) });
    expect(await player('visitor0002abc')).toMatchObject({ subscribed: 0, push_endpoint: null });
    expect(await player('visitor0003abc')).toMatchObject({ subscribed: 1, push_endpoint: subscription(3).endpoint });
  });

  it('refuses a subscription that is not what PushManager gives', async () => {
    const answer = await sdk('subscribe', { key, visitor_id: 'visitor0004abc', subscription: { endpoint: 'not a url', keys: {} } });
    expect(answer.status).toBe(400);
    expect(await player('visitor0004abc')).toBeUndefined();
  });

  it('answers NOT_FOUND while web push is off, and for an unknown key', async () => {
    await enablePush(false);
    try {
      const off = await sdk('subscribe', { key, visitor_id: 'visitor0005abc', subscription: subscription(5) });
      expect(off.body.error).toBe('NOT_FOUND');
    } finally {
      await enablePush(true);
    }
    const unknown = await sdk('subscribe', { key: 'ck_unknown_key', visitor_id: 'visitor0005abc', subscription: subscription(5) });
    expect(unknown.body.error).toBe('NOT_FOUND');
  });
});

describe('unsubscribing', () => {
  it('clears the endpoint and records when the visitor left', async () => {
    await sdk('subscribe', { key, visitor_id: 'visitor0006abc', subscription: subscription(6) });
    const answer = await sdk('unsubscribe', { key, visitor_id: 'visitor0006abc' });
    expect(answer.status).toBe(200);
    const row = await player('visitor0006abc');
    expect(row).toMatchObject({ subscribed: 0, push_endpoint: null, push_p256dh: null, push_auth: null });
    expect(row!.unsubscribed_at).toBeTruthy();
  });

  it('leaves a newer subscription alone when an old endpoint is reported gone', async () => {
    await sdk('subscribe', { key, visitor_id: 'visitor0007abc', subscription: subscription(7) });
    await sdk('unsubscribe', { key, visitor_id: 'visitor0007abc', endpoint: subscription(70).endpoint });
    expect(await player('visitor0007abc')).toMatchObject({ subscribed: 1, push_endpoint: subscription(7).endpoint });
  });
});

describe('a visitor who unsubscribed on the playerinfo page', () => {
  const visitor = 'visitor0009abc';
  const unsubscribeThere = () => server.call('POST', `/api/public/application/${APP}/playerinfo/${visitor}/unsubscribe`, {});

  it('stays unsubscribed when their browser renews the subscription by itself, however often', async () => {
    await sdk('subscribe', { key, visitor_id: visitor, subscription: subscription(9), opt_in: true });
    expect((await unsubscribeThere()).status).toBe(200);
    const after = await player(visitor);
    expect(after).toMatchObject({ subscribed: 0, push_endpoint: null, opted_out_at: expect.any(String) });
    // The service worker's pushsubscriptionchange, then the SDK finding yet another endpoint on a later visit.
    server.clock.advance(60_000);
    for (const n of [90, 91]) expect((await sdk('subscribe', { key, visitor_id: visitor, subscription: subscription(n) })).status).toBe(200);
    expect(await player(visitor)).toEqual(after);
  });

  it('is subscribed again by their yes in the subscription box, which ends the opt-out', async () => {
    server.clock.advance(60_000);
    await sdk('subscribe', { key, visitor_id: visitor, subscription: subscription(92), opt_in: true });
    expect(await player(visitor)).toMatchObject({ subscribed: 1, push_endpoint: subscription(92).endpoint, opted_out_at: null });
    // From then on the browser's renewals count again.
    await sdk('subscribe', { key, visitor_id: visitor, subscription: subscription(93) });
    expect(await player(visitor)).toMatchObject({ subscribed: 1, push_endpoint: subscription(93).endpoint });
  });

  it('is unlike a visitor whose subscription ended otherwise: their renewed subscription subscribes them again', async () => {
    await sdk('subscribe', { key, visitor_id: 'visitor0010abc', subscription: subscription(10), opt_in: true });
    // The permission withdrawn (the SDK tells), or the push service answering 410 to a message (the engine clears it).
    await sdk('unsubscribe', { key, visitor_id: 'visitor0010abc' });
    await sdk('subscribe', { key, visitor_id: 'visitor0010abc', subscription: subscription(100) });
    expect(await player('visitor0010abc')).toMatchObject({ subscribed: 1, push_endpoint: subscription(100).endpoint, opted_out_at: null });
  });
});

describe('service worker reports', () => {
  const events = (name: string) =>
    db(server).selectFrom('events').selectAll().where('application_id', '=', APP).where('name', '=', name).execute();

  it('records delivery and clicks as events of the player holding the endpoint, once per message', async () => {
    await sdk('subscribe', { key, visitor_id: 'visitor0008abc', subscription: subscription(8) });
    const id = (await player('visitor0008abc'))!.id;
    const report = { key, kind: 'delivered', message_id: 'msg-42', endpoint: subscription(8).endpoint };
    expect((await sdk('report', report)).status).toBe(200);
    await sdk('report', report);
    await sdk('report', { ...report, kind: 'clicked', action: 'buy' });
    const delivered = await events('$push_delivered');
    expect(delivered).toHaveLength(1);
    expect(delivered[0].player_id).toBe(id);
    expect(JSON.parse(delivered[0].properties!)).toEqual({ message_id: 'msg-42' });
    const clicked = await events('$push_clicked');
    expect(JSON.parse(clicked[0].properties!)).toEqual({ message_id: 'msg-42', action: 'buy' });
  });

  it('accepts and drops a report for an endpoint no player holds', async () => {
    const answer = await sdk('report', { key, kind: 'clicked', message_id: 'msg-43', endpoint: 'https://push.example.net/send/nobody' });
    expect(answer.status).toBe(200);
    const clicked = await events('$push_clicked');
    expect(clicked.map((event) => JSON.parse(event.properties!).message_id)).not.toContain('msg-43');
  });
});
