import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelivery } from '../../server/delivery';
import { resolveAudience } from '../../server/delivery/audience';
import { countDeliveries } from '../../server/delivery/status';
import { segmentNameKey } from '../../shared/contract';
import { DEAD_RUN_AT, DbJobQueue } from '../../server/jobs/db-queue';
import { start as startApns, type ApnsFake } from '../fakes/apns';
import { start as startFcm, type FcmFake } from '../fakes/fcm';
import { start as startGraph, type GraphFake } from '../fakes/graph';
import { start as startSms, type SmsFake } from '../fakes/sms';
import { testCertificates } from '../fakes/tls';
import { start as startWebPush, type FakeSubscription, type WebPushFake } from '../fakes/webpush';
import { createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';
import { daysAgo, insertAttribute, insertPlayer, insertTags, type PlayerFields } from './players-fixtures';

/**
 * The delivery engine end to end: messages created through the API, the engine running in this process on the
 * durable job queue, each channel against its local fake (which checks what the real service checks), the
 * reports of service workers and apps coming back through their public endpoints.
 */

let server: TestServer;
let owner: TestUser;
let webPush: WebPushFake;
let fcm: FcmFake;
let apns: ApnsFake;
let sms: SmsFake;
let graph: GraphFake;
let queue: DbJobQueue;
let engine: { stop(): Promise<void> };
let caDir: string;
let apps = 0;

beforeAll(async () => {
  [webPush, fcm, apns, sms, graph] = await Promise.all([startWebPush(), startFcm(), startApns(), startSms({ brandNames: ['NUDGE'] }), startGraph()]);
  caDir = mkdtempSync(join(tmpdir(), 'nudge-ca-'));
  writeFileSync(join(caDir, 'ca.pem'), (await testCertificates()).cert);
  server = await startServer({
    env: {
      PROVIDER_CA_FILE: join(caDir, 'ca.pem'),
      FCM_BASE_URL: fcm.url,
      APNS_DEVELOPMENT_HOST: `${apns.host}:${apns.port}`,
      SMS_BASE_URL: sms.url,
      GRAPH_BASE_URL: graph.url,
      LOG_LEVEL: 'warn',
    },
  });
  owner = await createUser(server);
  const s = server.app.services;
  // Quick retries keep the 5xx test short; production backs off exponentially (the queue's default).
  queue = new DbJobQueue({ db: s.db, dialect: s.dialect, log: s.log, clock: s.clock, pollMs: 25, retryDelayMs: () => 150 });
  engine = startDelivery(s, queue, { dispatchEveryMs: 50, recoverEveryMs: 500 });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await queue?.close();
  await server?.close();
  await Promise.all([webPush?.close(), fcm?.close(), apns?.close(), sms?.close(), graph?.close()]);
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

async function newApp(utcOffset = 0): Promise<{ id: string; key: string }> {
  apps += 1;
  const id = `delivery_${apps}`;
  const created = await createApplication(server, owner, id, undefined, utcOffset);
  return { id, key: created.client_key };
}

async function put(appId: string, path: string, body: unknown) {
  const answer = await server.call('PUT', `/api/application/${appId}/platform/${path}`, { token: owner.token, body });
  if (answer.status !== 200) throw new Error(`${path}: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

/** Turns the SMS platform on, with the credentials the SMS fake takes. */
async function enableSms(appId: string): Promise<void> {
  await put(appId, 'sms', { status: 'active', username: 'nudge', password: 'secret', brand_name: 'NUDGE' });
}

/** Web push on, and the application's VAPID public key (the browser subscribes with it). */
async function enableWebPush(appId: string): Promise<string> {
  await put(appId, 'web_push', {
    enabled: true,
    site_url: 'https://shop.example.vn',
    icon_url: 'https://shop.example.vn/icon.png',
    box: { text: 'Nhận tin?', allow_text: 'Có', deny_text: 'Không', delay_seconds: 0, position: 'top' },
  });
  const answer = await server.call('GET', `/api/application/${appId}/platform/web_push`, { token: owner.token });
  return answer.body.data.vapid_public_key;
}

let devices = 0;
const deviceId = () => `device-${++devices}-${Math.random().toString(36).slice(2, 10)}`;

/** A browser subscribed at the fake push service, and its player. */
async function webSubscriber(
  appId: string,
  vapidKey: string,
  fields: PlayerFields = {},
): Promise<{ playerId: number; visitor: string; sub: FakeSubscription }> {
  const sub = webPush.createSubscription({ applicationServerKey: vapidKey });
  const visitor = deviceId();
  const playerId = await insertPlayer(server, appId, visitor, {
    platform: 'web',
    subscribed: 1,
    push_endpoint: sub.endpoint,
    push_p256dh: sub.keys.p256dh,
    push_auth: sub.keys.auth,
    subscribed_at: server.clock.now().toISOString(),
    last_seen_at: server.clock.now().toISOString(),
    ...fields,
  });
  return { playerId, visitor, sub };
}

const CONTENT = {
  heading: 'Flash sale',
  content: 'Giảm 50% cho mọi đơn hàng hôm nay',
  target_url: 'https://shop.example.vn/sale',
  utm: { source: 'nudge', medium: 'push', campaign: 'flash' },
};

/** Creates and sends a message through the console's API; answers its id. */
async function send(appId: string, body: Record<string, unknown>): Promise<number> {
  const answer = await server.call('POST', `/api/application/${appId}/notification`, {
    token: owner.token,
    body: { type: 'web_push', content: CONTENT, ...body, draft: false },
  });
  if (answer.status !== 200) throw new Error(`send: ${JSON.stringify(answer.body)}`);
  return answer.body.data.id;
}

async function create(appId: string, body: Record<string, unknown>): Promise<number> {
  const answer = await server.call('POST', `/api/application/${appId}/notification`, { token: owner.token, body: { type: 'web_push', content: CONTENT, ...body } });
  if (answer.status !== 200) throw new Error(`create: ${JSON.stringify(answer.body)}`);
  return answer.body.data.id;
}

async function notification(id: number) {
  return db(server).selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

async function waitStatus(id: number, statuses: string[] = ['executed', 'opened'], timeoutMs?: number) {
  return waitFor(`message ${id} to be ${statuses.join('/')}`, async () => {
    const row = await notification(id);
    return statuses.includes(row.status) ? row : undefined;
  }, timeoutMs);
}

async function deliveriesOf(id: number) {
  const rows = await db(server).selectFrom('deliveries').selectAll().where('notification_id', '=', id).orderBy('player_id').execute();
  return rows.map((row) => ({ ...row, id: Number(row.id), player_id: Number(row.player_id) }));
}

/** The counters on the message row equal what its deliveries say. */
async function expectCountersMatch(id: number) {
  const row = await notification(id);
  const counted = await countDeliveries(db(server), id);
  expect({ targeted: row.targeted, sent: row.sent, delivered: row.delivered, clicked: row.clicked, failed: row.failed }).toEqual(counted);
  return counted;
}

const pushesTo = (sub: FakeSubscription) => webPush.received.filter((push) => push.subscriptionId === sub.id);

/** A POST of the service worker: JSON as text/plain. */
/** A call of the shop's browser (`subscribe`) or service worker (`report`) to /api/sdk/push/*, JSON sent as text/plain. */
function sdkPush(path: 'subscribe' | 'report', body: Record<string, unknown>) {
  return server.call('POST', `/api/sdk/push/${path}`, { body: JSON.stringify(body), headers: { 'content-type': 'text/plain;charset=UTF-8' } });
}
const swReport = (body: Record<string, unknown>) => sdkPush('report', body);

// ---------------------------------------------------------------------------------------------------------
// Web push
// ---------------------------------------------------------------------------------------------------------

describe('a web push message', () => {
  let app: { id: string; key: string };
  let subscribers: { playerId: number; sub: FakeSubscription }[];
  let id: number;

  beforeAll(async () => {
    app = await newApp();
    const vapid = await enableWebPush(app.id);
    subscribers = [];
    for (let i = 0; i < 25; i += 1) subscribers.push(await webSubscriber(app.id, vapid));
    // Not reachable by web push: unsubscribed, or a mobile device.
    await insertPlayer(server, app.id, deviceId(), { platform: 'web', subscribed: 0 });
    await insertPlayer(server, app.id, deviceId(), { platform: 'android', subscribed: 1, device_token: 'x'.repeat(40) });
    id = await send(app.id, { ttl_seconds: 7200, urgency: 'high' });
  });

  it('reaches every subscriber once, and the message ends executed with its counters', async () => {
    const row = await waitStatus(id);
    expect(row.status).toBe('executed');
    expect(row.started_at).toBeTruthy();
    expect(row.finished_at).toBeTruthy();
    for (const { sub } of subscribers) expect(pushesTo(sub)).toHaveLength(1);
    const rows = await deliveriesOf(id);
    expect(rows.map((d) => d.player_id)).toEqual(subscribers.map((s) => s.playerId));
    expect(rows.every((d) => d.status === 'sent' && d.platform === 'web' && d.sent_at && d.attempts === 1 && d.provider_id)).toBe(true);
    expect(await expectCountersMatch(id)).toEqual({ targeted: 25, sent: 25, delivered: 0, clicked: 0, failed: 0 });
  });

  it('carries the payload the service worker reads: text, links with UTM, icon, report key, the delivery as message id', async () => {
    const rows = await deliveriesOf(id);
    const { sub, playerId } = subscribers[3];
    const push = pushesTo(sub)[0];
    expect(push.ttl).toBeGreaterThan(7100);
    expect(push.ttl).toBeLessThanOrEqual(7200);
    expect(push.urgency).toBe('high');
    expect(JSON.parse(push.text!)).toEqual({
      title: 'Flash sale',
      body: 'Giảm 50% cho mọi đơn hàng hôm nay',
      icon: 'https://shop.example.vn/icon.png',
      url: 'https://shop.example.vn/sale?utm_source=nudge&utm_medium=push&utm_campaign=flash',
      key: app.key,
      api: server.config.publicUrl,
      message_id: `d_${rows.find((d) => d.player_id === playerId)!.id}`,
    });
  });

  it('counts a shown and a clicked report once each, and the first click makes the message opened', async () => {
    const rows = await deliveriesOf(id);
    const { sub, playerId } = subscribers[0];
    const delivery = rows.find((d) => d.player_id === playerId)!;
    const messageId = `d_${delivery.id}`;
    expect((await swReport({ key: app.key, kind: 'delivered', message_id: messageId, endpoint: sub.endpoint })).status).toBe(200);
    await swReport({ key: app.key, kind: 'delivered', message_id: messageId, endpoint: sub.endpoint });
    let row = await notification(id);
    expect({ status: row.status, delivered: row.delivered, clicked: row.clicked }).toEqual({ status: 'executed', delivered: 1, clicked: 0 });

    await swReport({ key: app.key, kind: 'clicked', message_id: messageId, endpoint: sub.endpoint, action: 'buy' });
    await swReport({ key: app.key, kind: 'clicked', message_id: messageId, endpoint: sub.endpoint });
    row = await notification(id);
    expect({ status: row.status, delivered: row.delivered, clicked: row.clicked }).toEqual({ status: 'opened', delivered: 1, clicked: 1 });

    // A click without a shown report first still counts the recipient as delivered.
    const other = subscribers[1];
    const otherDelivery = rows.find((d) => d.player_id === other.playerId)!;
    await swReport({ key: app.key, kind: 'clicked', message_id: `d_${otherDelivery.id}`, endpoint: other.sub.endpoint });
    expect(await expectCountersMatch(id)).toEqual({ targeted: 25, sent: 25, delivered: 2, clicked: 2, failed: 0 });
    const moved = (await deliveriesOf(id)).find((d) => d.id === otherDelivery.id)!;
    expect(moved).toMatchObject({ status: 'clicked' });
    expect(moved.delivered_at).toBeTruthy();
    expect(moved.clicked_at).toBeTruthy();

    // The events of the reports stay, as before the engine existed.
    const events = await db(server).selectFrom('events').select(['name', 'properties']).where('application_id', '=', app.id).where('name', 'like', '$push_%').execute();
    expect(events.filter((e) => e.name === '$push_clicked')).toHaveLength(2);
    expect(JSON.parse(events.find((e) => e.name === '$push_clicked')!.properties!)).toMatchObject({ notification_id: id });
  });

  it("ignores a report naming another player's delivery", async () => {
    const rows = await deliveriesOf(id);
    const victim = rows.find((d) => d.player_id === subscribers[5].playerId)!;
    await swReport({ key: app.key, kind: 'clicked', message_id: `d_${victim.id}`, endpoint: subscribers[6].sub.endpoint });
    expect((await deliveriesOf(id)).find((d) => d.id === victim.id)!.status).toBe('sent');
  });
});

describe('a personal message', () => {
  it("greets each player with their own attribute values, the tag's default where they have none", async () => {
    const app = await newApp();
    const vapid = await enableWebPush(app.id);
    const lan = await webSubscriber(app.id, vapid);
    const minh = await webSubscriber(app.id, vapid);
    const stranger = await webSubscriber(app.id, vapid);
    await insertAttribute(server, app.id, lan.playerId, 'first_name', 'Lan');
    await insertAttribute(server, app.id, lan.playerId, 'plan', 'gold');
    await insertAttribute(server, app.id, minh.playerId, 'first_name', 'Minh');
    await insertAttribute(server, app.id, minh.playerId, 'plan', 'silver');
    // Another attribute of the same name in another application is not read.
    const other = await newApp();
    await insertAttribute(server, other.id, await insertPlayer(server, other.id, deviceId()), 'first_name', 'Khác');
    const id = await send(app.id, { content: { ...CONTENT, heading: 'Chào {{first_name | bạn}}', content: 'Ưu đãi hạng {{ plan | thành viên }} hôm nay' } });
    await waitStatus(id);
    const shown = (sub: FakeSubscription) => {
      const { title, body } = JSON.parse(pushesTo(sub)[0].text!);
      return [title, body];
    };
    expect(shown(lan.sub)).toEqual(['Chào Lan', 'Ưu đãi hạng gold hôm nay']);
    expect(shown(minh.sub)).toEqual(['Chào Minh', 'Ưu đãi hạng silver hôm nay']);
    expect(shown(stranger.sub)).toEqual(['Chào bạn', 'Ưu đãi hạng thành viên hôm nay']);
    expect(await expectCountersMatch(id)).toMatchObject({ targeted: 3, sent: 3, failed: 0 });
  });

  it('texts each player their own SMS', async () => {
    const app = await newApp();
    await enableSms(app.id);
    const lan = await insertPlayer(server, app.id, deviceId(), { mobile_number: '+84901110001' });
    await insertPlayer(server, app.id, deviceId(), { mobile_number: '+84901110002' });
    await insertAttribute(server, app.id, lan, 'code', 'LAN50');
    const id = await send(app.id, { type: 'sms', content: { content: 'Mã của bạn: {{code | TET10}}' } });
    await waitStatus(id);
    expect(sms.received.filter((m) => m.to.startsWith('+8490111000')).map((m) => [m.to, m.text]).sort()).toEqual([
      ['+84901110001', 'Mã của bạn: LAN50'],
      ['+84901110002', 'Mã của bạn: TET10'],
    ]);
  });

  it('is refused, with nothing saved, when a tag is typed wrong', async () => {
    const app = await newApp();
    await enableWebPush(app.id);
    const answer = await server.call('POST', `/api/application/${app.id}/notification`, {
      token: owner.token,
      headers: { 'accept-language': 'vi' },
      body: { type: 'web_push', content: { ...CONTENT, heading: 'Chào {{first_name}' }, draft: false },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.fields).toEqual([{ path: 'content.heading', message: expect.stringContaining('{{tên_thuộc_tính | mặc định}}') }]);
    expect(await db(server).selectFrom('notifications').select('id').where('application_id', '=', app.id).execute()).toEqual([]);
  });
});

describe('when the push service answers with an error', () => {
  let app: { id: string; key: string };
  let vapid: string;

  beforeAll(async () => {
    app = await newApp();
    vapid = await enableWebPush(app.id);
  });

  it('410: the player is unsubscribed and the delivery fails without a retry', async () => {
    const gone = await webSubscriber(app.id, vapid);
    const fine = await webSubscriber(app.id, vapid);
    webPush.remove(gone.sub.endpoint);
    const rejectedBefore = webPush.rejected();
    const id = await send(app.id, { audience: { player_ids: [gone.playerId, fine.playerId] } });
    await waitStatus(id);
    const rows = await deliveriesOf(id);
    expect(rows.find((d) => d.player_id === gone.playerId)).toMatchObject({ status: 'failed', reason: 'unsubscribed', attempts: 1 });
    expect(rows.find((d) => d.player_id === fine.playerId)).toMatchObject({ status: 'sent' });
    expect(webPush.rejected() - rejectedBefore).toBe(1);
    const player = await db(server).selectFrom('players').selectAll().where('id', '=', gone.playerId).executeTakeFirstOrThrow();
    expect(player).toMatchObject({ subscribed: 0, push_endpoint: null, push_p256dh: null, push_auth: null });
    expect(player.unsubscribed_at).toBeTruthy();
    expect(await expectCountersMatch(id)).toEqual({ targeted: 2, sent: 1, delivered: 0, clicked: 0, failed: 1 });

    // The next message no longer targets it.
    const next = await send(app.id, { audience: { player_ids: [gone.playerId, fine.playerId] } });
    await waitStatus(next);
    expect((await deliveriesOf(next)).map((d) => d.player_id)).toEqual([fine.playerId]);
  });

  it('410: a browser that still holds the refused subscription is told to make a new one, which gets the next message', async () => {
    const stale = await webSubscriber(app.id, vapid);
    webPush.remove(stale.sub.endpoint);
    await waitStatus(await send(app.id, { audience: { player_ids: [stale.playerId] } }));
    const subscribe = (sub: FakeSubscription) =>
      sdkPush('subscribe', { key: app.key, visitor_id: stale.visitor, subscription: { endpoint: sub.endpoint, keys: sub.keys } });
    const player = () => db(server).selectFrom('players').selectAll().where('id', '=', stale.playerId).executeTakeFirstOrThrow();

    // Chrome may keep handing out a subscription its push service dropped: the SDK reports it again on a later visit.
    const again = await subscribe(stale.sub);
    expect(again.body).toEqual({ success: true, data: { subscribed: false, renew: true } });
    expect(await player()).toMatchObject({ subscribed: 0, push_endpoint: null });

    const fresh = webPush.createSubscription({ applicationServerKey: vapid });
    expect((await subscribe(fresh)).body).toEqual({ success: true, data: { subscribed: true, renew: false } });
    expect(await player()).toMatchObject({ subscribed: 1, push_endpoint: fresh.endpoint, push_expired_endpoint: null });
    const next = await send(app.id, { audience: { player_ids: [stale.playerId] } });
    await waitStatus(next);
    expect((await deliveriesOf(next))[0]).toMatchObject({ status: 'sent' });
    expect(pushesTo(fresh)).toHaveLength(1);
  });

  it('429: waits the Retry-After, then sends what is left', async () => {
    const limited = await webSubscriber(app.id, vapid);
    webPush.failNext(limited.sub.endpoint, { status: 429, retryAfter: '1' });
    const startedAt = Date.now();
    const id = await send(app.id, { audience: { player_ids: [limited.playerId] } });
    await waitStatus(id);
    const pushes = pushesTo(limited.sub);
    expect(pushes).toHaveLength(1);
    expect(pushes[0].receivedAt.getTime() - startedAt).toBeGreaterThanOrEqual(1000);
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'sent', attempts: 2 });
    await expectCountersMatch(id);
  });

  it('5xx: retried with backoff, then sent; a provider that keeps failing fails the delivery after its tries', async () => {
    const flaky = await webSubscriber(app.id, vapid);
    const broken = await webSubscriber(app.id, vapid);
    webPush.failNext(flaky.sub.endpoint, { status: 503 }, 2);
    webPush.failNext(broken.sub.endpoint, { status: 500 }, 100);
    const id = await send(app.id, { audience: { player_ids: [flaky.playerId, broken.playerId] } });
    await waitStatus(id, ['executed'], 30_000);
    const rows = await deliveriesOf(id);
    expect(rows.find((d) => d.player_id === flaky.playerId)).toMatchObject({ status: 'sent', attempts: 3 });
    expect(rows.find((d) => d.player_id === broken.playerId)).toMatchObject({ status: 'failed', reason: 'provider_error', attempts: 5 });
    expect(pushesTo(flaky.sub)).toHaveLength(1);
    expect(pushesTo(broken.sub)).toHaveLength(0);
    // Still subscribed: a server error says nothing about the subscription.
    expect((await db(server).selectFrom('players').select('subscribed').where('id', '=', broken.playerId).executeTakeFirstOrThrow()).subscribed).toBe(1);
    await expectCountersMatch(id);
  });
});

describe('a job that runs again (redelivered after a crash, or a retry)', () => {
  it('sends nothing twice: a batch finds only what is still queued, a fan-out from scratch inserts nothing new', async () => {
    const app = await newApp();
    const vapid = await enableWebPush(app.id);
    const done = await webSubscriber(app.id, vapid);
    const slow = await webSubscriber(app.id, vapid);
    // The second keeps the message running (its batch backs off and retries) while the jobs run again.
    webPush.failNext(slow.sub.endpoint, { status: 503 }, 4);
    const id = await send(app.id, {});
    await waitFor('the first subscriber to be sent', async () => (await deliveriesOf(id)).some((d) => d.player_id === done.playerId && d.status === 'sent'));
    expect((await notification(id)).status).toBe('running');

    // As if the fan-out had crashed before it saved its progress, and the whole batch were delivered again.
    await db(server).updateTable('notifications').set({ fanout_cursor: null, fanout_done_at: null }).where('id', '=', id).execute();
    await queue.add('delivery-fanout', 'fanout', { notification_id: id }, { dedupeKey: `again-fanout-${id}` });
    await queue.add('delivery-send', 'deliver', { notification_id: id, from_id: 0, to_id: slow.playerId, offset: null }, { dedupeKey: `again-batch-${id}` });

    await waitStatus(id, ['executed'], 30_000);
    expect(pushesTo(done.sub)).toHaveLength(1);
    expect(pushesTo(slow.sub).length).toBeGreaterThanOrEqual(1);
    expect((await deliveriesOf(id)).map((d) => [d.player_id, d.status])).toEqual([
      [done.playerId, 'sent'],
      [slow.playerId, 'sent'],
    ]);
    expect(await expectCountersMatch(id)).toMatchObject({ targeted: 2, sent: 2, failed: 0 });
  });
});

describe('a batch that fails on every try', () => {
  it('is given up with its queued deliveries failed as engine_error, and the message still completes', async () => {
    const app = await newApp();
    const vapid = await enableWebPush(app.id);
    const first = await webSubscriber(app.id, vapid);
    const second = await webSubscriber(app.id, vapid);
    const later = new Date(server.clock.now().getTime() + 3600_000).toISOString();
    const id = await send(app.id, { schedule: { mode: 'at', at: later } });
    // Content the engine can't read makes every try of the batch throw (the fan-out doesn't read it); then due now.
    await db(server).updateTable('notifications').set({ content: '{"heading":', send_at: server.clock.now().toISOString() }).where('id', '=', id).execute();

    const row = await waitStatus(id, ['executed'], 30_000);
    expect(row.finished_at).toBeTruthy();
    expect((await deliveriesOf(id)).map((d) => [d.player_id, d.status, d.reason])).toEqual([
      [first.playerId, 'failed', 'engine_error'],
      [second.playerId, 'failed', 'engine_error'],
    ]);
    expect(pushesTo(first.sub)).toHaveLength(0);
    expect(await expectCountersMatch(id)).toEqual({ targeted: 2, sent: 0, delivered: 0, clicked: 0, failed: 2 });
    // The queue still records the job as given up after all its tries, with the batch's own error. It writes that
    // once the last try has thrown, after that try settled the message: wait for it.
    const sendJobs = () => db(server).selectFrom('jobs').selectAll().where('queue', '=', 'delivery-send').where('payload', 'like', `{"notification_id":${id},%`).execute();
    await expect.poll(async () => (await sendJobs())[0]?.run_at, { timeout: 10_000 }).toBe(DEAD_RUN_AT);
    const jobs = await sendJobs();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ run_at: DEAD_RUN_AT, attempts: jobs[0].max_attempts });
    expect(jobs[0].last_error).toContain('SyntaxError');
  });
});

// ---------------------------------------------------------------------------------------------------------
// Audience
// ---------------------------------------------------------------------------------------------------------

describe('the audience', () => {
  let app: { id: string; key: string };
  let vapid: string;

  beforeAll(async () => {
    app = await newApp();
    vapid = await enableWebPush(app.id);
  });

  it('of a promotional message leaves out players not seen in the last 24 hours', async () => {
    const recent = await webSubscriber(app.id, vapid, { last_seen_at: daysAgo(server, 0.5) });
    const stale = await webSubscriber(app.id, vapid, { last_seen_at: daysAgo(server, 2) });
    const never = await webSubscriber(app.id, vapid, { last_seen_at: null });
    const promo = await send(app.id, { promotional: true, audience: { player_ids: [recent.playerId, stale.playerId, never.playerId] } });
    await waitStatus(promo);
    expect((await deliveriesOf(promo)).map((d) => d.player_id)).toEqual([recent.playerId]);
    const plain = await send(app.id, { promotional: false, audience: { player_ids: [recent.playerId, stale.playerId, never.playerId] } });
    await waitStatus(plain);
    expect((await deliveriesOf(plain)).map((d) => d.player_id)).toEqual([recent.playerId, stale.playerId, never.playerId]);
  });

  it('is the segment AND the extra filters AND every tag', async () => {
    const vnHanoiVip = await webSubscriber(app.id, vapid, { country: 'VN', city: 'Hanoi' });
    const vnHanoi = await webSubscriber(app.id, vapid, { country: 'VN', city: 'Hanoi' });
    const vnSaigonVip = await webSubscriber(app.id, vapid, { country: 'VN', city: 'Saigon' });
    const usHanoiVip = await webSubscriber(app.id, vapid, { country: 'US', city: 'Hanoi' });
    for (const { playerId } of [vnHanoiVip, vnSaigonVip, usHanoiVip]) await insertTags(server, app.id, playerId, ['vip', 'buyer']);
    await insertTags(server, app.id, vnHanoi.playerId, ['buyer']);
    const segment = await server.call('POST', `/api/application/${app.id}/segment`, {
      token: owner.token,
      body: { name: 'Vietnam', rule: { any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] } },
    });
    expect(segment.status).toBe(200);
    const id = await send(app.id, {
      audience: {
        segment_id: segment.body.data.id,
        filters: { any: [{ all: [{ kind: 'field', field: 'city', op: 'eq', value: 'Hanoi' }] }] },
        tags: ['vip', 'buyer'],
      },
    });
    await waitStatus(id);
    expect((await deliveriesOf(id)).map((d) => d.player_id)).toEqual([vnHanoiVip.playerId]);
    expect(pushesTo(vnHanoiVip.sub)).toHaveLength(1);
    expect(pushesTo(vnHanoi.sub)).toHaveLength(0);
  });

  it('reads a segment and a message saved before countries had to be codes as they were kept', async () => {
    const vn = await webSubscriber(app.id, vapid, { country: 'VN' });
    const us = await webSubscriber(app.id, vapid, { country: 'US' });
    for (const { playerId } of [vn, us]) await insertTags(server, app.id, playerId, ['kept']);
    // 'vn' and 'us' are no one's country as kept (exact): 'is not vn' is everyone; the filters 'is not us' AND
    // 'is VN' are the Vietnamese one.
    const isNot = (value: string) => ({ kind: 'field', field: 'country', op: 'neq', value });
    const kept = (value: string) => ({ any: [{ all: [isNot(value)] }] });
    const filters = { any: [{ all: [isNot('us'), { kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] };
    const at = server.clock.now().toISOString();
    const segment = await db(server)
      .insertInto('segments')
      .values({ application_id: app.id, name: 'Saved long ago', name_key: segmentNameKey('Saved long ago'), rule: JSON.stringify(kept('vn')), created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = await create(app.id, { audience: { tags: ['kept'] }, draft: true });
    const audience = JSON.stringify({ segment_id: Number(segment.id), filters, tags: ['kept'] });
    await db(server).updateTable('notifications').set({ audience }).where('id', '=', id).execute();
    const read = await server.call('GET', `/api/application/${app.id}/notification/${id}`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body.data.audience.filters).toEqual(filters);
    const resolved = await resolveAudience(server.app.services, { id, application_id: app.id, type: 'web_push', audience, promotional: 0 }, server.clock.now());
    expect(resolved).not.toBeNull();
    const chosen = await db(server).selectFrom('players').select('id').where((eb) => resolved!.where(eb)).execute();
    expect(chosen.map((player) => Number(player.id))).toEqual([vn.playerId]);
  });

  it('that is empty completes the message at once with zeros', async () => {
    const id = await send(app.id, { audience: { tags: ['nobody-has-this'] } });
    const row = await waitStatus(id);
    expect({ status: row.status, targeted: row.targeted, sent: row.sent, failed: row.failed }).toEqual({ status: 'executed', targeted: 0, sent: 0, failed: 0 });
    expect(row.finished_at).toBeTruthy();
  });
});

describe('a message at a local time', () => {
  it("goes to each timezone at its local moment (the application's for players whose zone is unknown), and fails as expired past the TTL in the zones it didn't reach in time", async () => {
    // A shop whose timezone is London's (UTC+00:00).
    const app = await newApp(0);
    const vapid = await enableWebPush(app.id);
    const hanoi = await webSubscriber(app.id, vapid, { timezone_offset: 420 });
    const unknown = await webSubscriber(app.id, vapid, { timezone_offset: null });
    const london = await webSubscriber(app.id, vapid, { timezone_offset: 0 });
    const newYork = await webSubscriber(app.id, vapid, { timezone_offset: -300 });
    // This minute in Hanoi (UTC+7): due now there; 7 hours later in London, 12 in New York.
    const hanoiNow = new Date(Math.floor(server.clock.now().getTime() / 60_000) * 60_000 + 7 * 3600_000);
    const schedule = { mode: 'local_time', date: hanoiNow.toISOString().slice(0, 10), time: hanoiNow.toISOString().slice(11, 16) };
    const id = await send(app.id, { schedule, ttl_seconds: 3 * 3600 });

    await waitFor('Hanoi', async () => (await deliveriesOf(id)).filter((d) => d.status === 'sent').length === 1);
    const rows = await deliveriesOf(id);
    expect(rows.map((d) => [d.player_id, d.tz_offset])).toEqual([
      [hanoi.playerId, 420],
      [unknown.playerId, 0],
      [london.playerId, 0],
      [newYork.playerId, -300],
    ]);
    expect(rows.filter((d) => d.status === 'queued').map((d) => d.player_id)).toEqual([unknown.playerId, london.playerId, newYork.playerId]);
    expect((await notification(id)).status).toBe('running');
    expect(pushesTo(london.sub)).toHaveLength(0);

    server.clock.advance(7 * 3600_000 + 60_000);
    await waitFor('London and the unknown zone', async () => pushesTo(london.sub).length === 1 && pushesTo(unknown.sub).length === 1);
    expect((await notification(id)).status).toBe('running');

    // New York's moment was 12 hours in; 16 hours in its 3-hour TTL has passed.
    server.clock.advance(9 * 3600_000);
    const row = await waitStatus(id);
    expect((await deliveriesOf(id)).find((d) => d.player_id === newYork.playerId)).toMatchObject({ status: 'failed', reason: 'expired' });
    expect(pushesTo(newYork.sub)).toHaveLength(0);
    expect({ sent: row.sent, failed: row.failed }).toEqual({ sent: 3, failed: 1 });
    await expectCountersMatch(id);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The other channels
// ---------------------------------------------------------------------------------------------------------

describe('mobile push', () => {
  let app: { id: string; key: string };

  beforeAll(async () => {
    app = await newApp();
    await put(app.id, 'android', { status: 'active', service_account: JSON.stringify(fcm.serviceAccount) });
    await put(app.id, 'ios', {
      status: 'active',
      environment: 'development',
      bundle_id: apns.topic,
      auth: { kind: 'token', key_id: apns.tokenKey.keyId, team_id: apns.tokenKey.teamId, p8: apns.tokenKey.key },
    });
  });

  it('goes to Android devices through FCM and to iOS devices through APNs, and app reports count', async () => {
    const androidToken = fcm.registerToken();
    const iosToken = apns.registerDevice();
    const androidDevice = deviceId();
    const iosDevice = deviceId();
    // Registered as the apps do, through the device API: sending its token subscribes an install.
    const register = async (device: string, platform: 'android' | 'ios', token: string) => {
      const answer = await server.call('POST', '/api/v1/devices', { body: { device_id: device, platform, device_token: token }, headers: { authorization: `Key ${app.key}` } });
      expect(answer.body.data.subscribed).toBe(true);
      return answer.body.data.player_id as number;
    };
    const android = await register(androidDevice, 'android', androidToken);
    const ios = await register(iosDevice, 'ios', iosToken);
    await insertPlayer(server, app.id, deviceId(), { platform: 'ios', device_type: 'mobile', subscribed: 0, device_token: null });
    const id = await send(app.id, {
      type: 'mobile_push',
      ttl_seconds: 600,
      content: { ...CONTENT, image_url: 'https://shop.example.vn/banner.jpg', additional_data: '{"sku":"A-1","qty":2}' },
    });
    await waitStatus(id);

    const toAndroid = fcm.received.filter((m) => m.token === androidToken);
    expect(toAndroid).toHaveLength(1);
    expect(toAndroid[0].message).toMatchObject({
      notification: { title: 'Flash sale', body: CONTENT.content, image: 'https://shop.example.vn/banner.jpg' },
      data: { notification_id: String(id), sku: 'A-1', qty: '2', url: 'https://shop.example.vn/sale?utm_source=nudge&utm_medium=push&utm_campaign=flash' },
      android: { ttl: expect.stringMatching(/^\d+s$/) },
    });
    const toIos = apns.received.filter((m) => m.deviceToken === iosToken);
    expect(toIos).toHaveLength(1);
    expect(toIos[0].payload).toMatchObject({ aps: { alert: { title: 'Flash sale', body: CONTENT.content }, 'mutable-content': 1 }, notification_id: id, sku: 'A-1' });
    expect(toIos[0].headers).toMatchObject({ topic: apns.topic, pushType: 'alert', priority: '10' });
    expect(Number(toIos[0].headers.expiration)).toBeGreaterThan(Date.now() / 1000);

    const rows = await deliveriesOf(id);
    expect(rows.map((d) => [d.player_id, d.platform, d.status])).toEqual([
      [android, 'android', 'sent'],
      [ios, 'ios', 'sent'],
    ]);

    // The app's reports, with its client key, through the device API.
    const report = (device: string, body: unknown, key = app.key) =>
      server.call('POST', `/api/v1/devices/${device}/notifications/${id}/report`, { body, headers: { authorization: `Key ${key}` } });
    expect((await report(iosDevice, { kind: 'delivered' })).status).toBe(200);
    expect((await report(iosDevice, { kind: 'clicked', action: 'open' })).status).toBe(200);
    expect((await report(iosDevice, { kind: 'clicked' })).status).toBe(200);
    const row = await notification(id);
    expect({ status: row.status, delivered: row.delivered, clicked: row.clicked }).toEqual({ status: 'opened', delivered: 1, clicked: 1 });
    expect((await report(iosDevice, { kind: 'clicked' }, 'not-the-key')).body.error).toBe('NOT_AUTHORIZED');
    expect((await report('unknown-device-id', { kind: 'clicked' })).body.error).toBe('NOT_FOUND');
    expect((await report(iosDevice, { kind: 'seen' })).status).toBe(400);
    await expectCountersMatch(id);
  });

  it('unsubscribes a device whose token FCM says is unregistered, or APNs calls a bad device token', async () => {
    const stale = `${'a'.repeat(11)}:APA91b${'b'.repeat(140)}`;
    const badToken = 'c'.repeat(64);
    const android = await insertPlayer(server, app.id, deviceId(), { platform: 'android', device_type: 'mobile', subscribed: 1, device_token: stale });
    const ios = await insertPlayer(server, app.id, deviceId(), { platform: 'ios', device_type: 'mobile', subscribed: 1, device_token: badToken });
    const id = await send(app.id, { type: 'mobile_push', audience: { player_ids: [android, ios] } });
    await waitStatus(id);
    const rows = await deliveriesOf(id);
    expect(rows.map((d) => [d.status, d.reason])).toEqual([
      ['failed', 'unsubscribed'],
      ['failed', 'unsubscribed'],
    ]);
    const players = await db(server).selectFrom('players').select(['subscribed', 'device_token']).where('id', 'in', [android, ios]).execute();
    expect(players).toEqual([
      { subscribed: 0, device_token: null },
      { subscribed: 0, device_token: null },
    ]);
  });
});

describe('SMS', () => {
  it('sends the text with the link (with UTM) through the provider, and 429 waits its Retry-After', async () => {
    const app = await newApp();
    await enableSms(app.id);
    const first = await insertPlayer(server, app.id, deviceId(), { mobile_number: '+84901234567' });
    const second = await insertPlayer(server, app.id, deviceId(), { mobile_number: '+84907654321' });
    await insertPlayer(server, app.id, deviceId(), { mobile_number: null });
    sms.failNext('+84907654321', { status: 429, retryAfter: '1' });
    const id = await send(app.id, { type: 'sms', content: { content: 'Mã giảm giá TET50', target_url: 'https://shop.example.vn/tet', utm: { source: 'sms' } } });
    await waitStatus(id);
    const texts = sms.received.filter((m) => m.to === '+84901234567' || m.to === '+84907654321');
    expect(texts.map((m) => [m.to, m.brandName, m.text]).sort()).toEqual([
      ['+84901234567', 'NUDGE', 'Mã giảm giá TET50 https://shop.example.vn/tet?utm_source=sms'],
      ['+84907654321', 'NUDGE', 'Mã giảm giá TET50 https://shop.example.vn/tet?utm_source=sms'],
    ]);
    expect((await deliveriesOf(id)).map((d) => [d.player_id, d.platform, d.status])).toEqual([
      [first, 'sms', 'sent'],
      [second, 'sms', 'sent'],
    ]);
    await expectCountersMatch(id);
  });

  it('drops a number the gateway says opted out from its player, so no later message texts it', async () => {
    const app = await newApp();
    await enableSms(app.id);
    const optedOut = await insertPlayer(server, app.id, deviceId(), { mobile_number: '+84912000001' });
    const fine = await insertPlayer(server, app.id, deviceId(), { mobile_number: '+84912000002' });
    sms.optOut('+84912000001');
    const players = () => db(server).selectFrom('players').select(['id', 'mobile_number', 'updated_at']).where('id', 'in', [optedOut, fine]).orderBy('id').execute();
    const [before] = await players();
    const id = await send(app.id, { type: 'sms', content: { content: 'Mã giảm giá TET50' } });
    await waitStatus(id);
    expect((await deliveriesOf(id)).map((d) => [d.player_id, d.status, d.reason])).toEqual([
      [optedOut, 'failed', 'unsubscribed'],
      [fine, 'sent', null],
    ]);
    const after = await players();
    expect(after.map((p) => [Number(p.id), p.mobile_number])).toEqual([
      [optedOut, null],
      [fine, '+84912000002'],
    ]);
    // updated_at moves, so the in-memory audience copy sees the player leave the channel.
    expect(after[0].updated_at > before.updated_at).toBe(true);

    const next = await send(app.id, { type: 'sms', content: { content: 'Mã giảm giá TET60' } });
    await waitStatus(next);
    expect((await deliveriesOf(next)).map((d) => d.player_id)).toEqual([fine]);
    expect(sms.received.filter((m) => m.to === '+84912000002').map((m) => m.text)).toEqual(['Mã giảm giá TET50', 'Mã giảm giá TET60']);
  });
});

describe('Facebook Messenger', () => {
  it('sends text alone as text to each PSID of the page; a person who is gone fails as unsubscribed and loses the PSID', async () => {
    const app = await newApp();
    const page = graph.addPage('Shop');
    await put(app.id, 'facebook', { status: 'active', page_id: page.id, page_access_token: page.token });
    const psid = graph.addPerson(page.id);
    const blocked = graph.addPerson(page.id);
    graph.block(blocked);
    const reachable = await insertPlayer(server, app.id, deviceId(), { fb_psid: psid });
    const gone = await insertPlayer(server, app.id, deviceId(), { fb_psid: blocked });
    const id = await send(app.id, { type: 'facebook', content: { heading: CONTENT.heading, content: CONTENT.content } });
    await waitStatus(id);
    const messages = graph.received.filter((m) => m.psid === psid);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ pageId: page.id, messagingType: 'UPDATE', text: 'Flash sale\n\nGiảm 50% cho mọi đơn hàng hôm nay', template: null });
    expect((await deliveriesOf(id)).map((d) => [d.player_id, d.status, d.reason])).toEqual([
      [reachable, 'sent', null],
      [gone, 'failed', 'unsubscribed'],
    ]);
    await expectCountersMatch(id);
    // Messenger's #551: the PSID is dropped (the other player keeps theirs), so the next message leaves them out.
    const players = await db(server).selectFrom('players').select(['id', 'fb_psid']).where('id', 'in', [reachable, gone]).orderBy('id').execute();
    expect(players.map((p) => [Number(p.id), p.fb_psid])).toEqual([
      [reachable, psid],
      [gone, null],
    ]);
    const next = await send(app.id, { type: 'facebook', content: { content: 'Còn 1 giờ' } });
    await waitStatus(next);
    expect((await deliveriesOf(next)).map((d) => [d.player_id, d.status])).toEqual([[reachable, 'sent']]);
  });

  it('sends a message with a link and a button as a generic template card', async () => {
    const app = await newApp();
    const page = graph.addPage('Shop');
    await put(app.id, 'facebook', { status: 'active', page_id: page.id, page_access_token: page.token });
    const psid = graph.addPerson(page.id);
    const player = await insertPlayer(server, app.id, deviceId(), { fb_psid: psid });
    const id = await send(app.id, {
      type: 'facebook',
      content: { ...CONTENT, image_url: 'https://shop.example.vn/banner.jpg', buttons: [{ action_id: 'buy', button_text: 'Mua ngay', launch_url: 'https://shop.example.vn/cart' }] },
    });
    await waitStatus(id);
    const messages = graph.received.filter((m) => m.psid === psid);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ pageId: page.id, messagingType: 'UPDATE', text: null });
    expect(messages[0].template).toEqual({
      template_type: 'generic',
      elements: [
        {
          title: 'Flash sale',
          subtitle: 'Giảm 50% cho mọi đơn hàng hôm nay',
          image_url: 'https://shop.example.vn/banner.jpg',
          default_action: { type: 'web_url', url: 'https://shop.example.vn/sale?utm_source=nudge&utm_medium=push&utm_campaign=flash' },
          buttons: [{ type: 'web_url', url: 'https://shop.example.vn/cart?utm_source=nudge&utm_medium=push&utm_campaign=flash', title: 'Mua ngay' }],
        },
      ],
    });
    expect((await deliveriesOf(id)).map((d) => [d.player_id, d.status])).toEqual([[player, 'sent']]);
    await expectCountersMatch(id);
  });
});
