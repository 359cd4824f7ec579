import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiSendBody } from '../../shared/contract';
import { sendFromApi } from '../../server/domain/notifications';
import { addMember, createApplication, createUser, db, startServer, type Answer, type TestServer, type TestUser } from './helpers';

/**
 * The REST send API (POST /api/v1/notifications, GET /api/v1/notifications/{id}) and its keys through the real
 * server: keys made, shown once, stored hashed, revoked; every way of failing to authenticate; messages with
 * source api and direct recipients; the Idempotency-Key (replay, another body, concurrency, expiry).
 */
const APP = 'send_api_app';
const OTHER = 'send_api_other';

let server: TestServer;
let owner: TestUser;
let manager: TestUser;
let clientKey: string;
let key: string;
let otherKey: string;

async function makeKey(applicationId: string, user: TestUser = owner): Promise<{ id: number; key: string; prefix: string }> {
  const answer = await server.call('POST', `/api/application/${applicationId}/api_key`, { token: user.token });
  if (answer.status !== 200) throw new Error(`key failed: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

function send(body: unknown, options: { key?: string | null; idempotency?: string; authorization?: string; lang?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const authorization = options.authorization ?? (options.key === null ? undefined : `Key ${options.key ?? key}`);
  if (authorization) headers.authorization = authorization;
  if (options.idempotency !== undefined) headers['idempotency-key'] = options.idempotency;
  return server.call('POST', '/api/v1/notifications', { headers, body, lang: options.lang ?? 'en' });
}

const body = (over: Record<string, unknown> = {}) => ({ type: 'sms', content: { content: 'Your order has shipped' }, ...over });

async function countNotifications(applicationId = APP) {
  const found = await db(server).selectFrom('notifications').select((eb) => eb.fn.countAll().as('n')).where('application_id', '=', applicationId).executeTakeFirst();
  return Number(found?.n ?? 0);
}

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server, { name: 'Owner' });
  manager = await createUser(server, { name: 'Manager' });
  clientKey = (await createApplication(server, owner, APP, 'Send API')).client_key;
  await createApplication(server, owner, OTHER, 'Other');
  await addMember(server, owner, APP, manager, 'manager');
  const now = server.clock.now().toISOString();
  for (const applicationId of [APP, OTHER]) {
    await db(server).insertInto('platforms').values({ application_id: applicationId, kind: 'sms', status: 'active', settings: '{}', created_at: now }).execute();
  }
  key = (await makeKey(APP)).key;
  otherKey = (await makeKey(OTHER)).key;
}, 60_000);
afterAll(async () => server?.close());

describe('REST API keys', () => {
  it('shows a new key whole once, then only its start; stores only its hash', async () => {
    const made = await makeKey(APP);
    expect(made.key).toMatch(/^nk_[A-Za-z0-9_-]{43}$/);
    expect(made.prefix).toBe(made.key.slice(0, 11));
    const list = await server.call('GET', `/api/application/${APP}/api_key`, { token: owner.token });
    expect(list.status).toBe(200);
    const listed = list.body.data.find((item: { id: number }) => item.id === made.id);
    expect(listed).toEqual({ id: made.id, prefix: made.prefix, created_at: expect.any(String), last_used_at: null });
    expect(JSON.stringify(list.body)).not.toContain(made.key);
    const stored = await db(server).selectFrom('api_keys').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    expect(stored.key_hash).not.toContain(made.key.slice(3));
    expect(stored.key_hash).toHaveLength(43);
  });

  it('records when a key was last used', async () => {
    const made = await makeKey(APP);
    expect((await send(body(), { key: made.key })).status).toBe(200);
    const list = await server.call('GET', `/api/application/${APP}/api_key`, { token: owner.token });
    expect(list.body.data.find((item: { id: number }) => item.id === made.id).last_used_at).toEqual(expect.any(String));
  });

  it('revokes a key: it is refused from then on and leaves the list', async () => {
    const made = await makeKey(APP);
    expect((await send(body(), { key: made.key })).status).toBe(200);
    expect((await server.call('DELETE', `/api/application/${APP}/api_key/${made.id}`, { token: owner.token })).status).toBe(200);
    const refused = await send(body(), { key: made.key });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('NOT_AUTHORIZED');
    const list = await server.call('GET', `/api/application/${APP}/api_key`, { token: owner.token });
    expect(list.body.data.map((item: { id: number }) => item.id)).not.toContain(made.id);
    expect((await server.call('DELETE', `/api/application/${APP}/api_key/${made.id}`, { token: owner.token })).status).toBe(404);
  });

  it("can't revoke another application's key", async () => {
    const theirs = await makeKey(OTHER);
    expect((await server.call('DELETE', `/api/application/${APP}/api_key/${theirs.id}`, { token: owner.token })).status).toBe(404);
    expect((await send(body(), { key: theirs.key })).status).toBe(200);
  });

  it('is for the platform settings roles only: a manager is refused', async () => {
    expect((await server.call('GET', `/api/application/${APP}/api_key`, { token: manager.token })).status).toBe(403);
    expect((await server.call('POST', `/api/application/${APP}/api_key`, { token: manager.token })).status).toBe(403);
  });
});

describe('authentication', () => {
  const cases: [string, { key?: string | null; authorization?: string }][] = [
    ['no Authorization header', { key: null }],
    ['an unknown key', { authorization: `Key nk_${'A'.repeat(43)}` }],
    ['a key in the wrong shape', { authorization: 'Key not-a-key' }],
    ['the public client key', { authorization: '' }],
    ['a Bearer token', { authorization: 'Bearer whatever' }],
  ];
  it.each(cases)('answers NOT_AUTHORIZED for %s and creates nothing', async (name, options) => {
    const before = await countNotifications();
    const authorization = name === 'the public client key' ? `Key ${clientKey}` : options.authorization;
    const answer = await send(body(), { ...options, authorization });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      success: false,
      error: 'NOT_AUTHORIZED',
      message: 'The API key is missing, wrong or revoked. Send it as: Authorization: Key <REST API key>',
    });
    expect(await countNotifications()).toBe(before);
  });

  it('authenticates before reading the body: a bad body with a bad key is still NOT_AUTHORIZED', async () => {
    const answer = await send({ type: 'nope' }, { key: null });
    expect(answer.status).toBe(401);
  });

  it('refuses the status read without a key, and a session token is no key', async () => {
    const sent = await send(body());
    const url = `/api/v1/notifications/${sent.body.data.id}`;
    expect((await server.call('GET', url)).status).toBe(401);
    expect((await server.call('GET', url, { token: owner.token })).status).toBe(401);
  });
});

describe('sending', () => {
  it('creates a message with source api, due now, and reads back its status and counters', async () => {
    const answer = await send(body({ include_device_ids: ['device-00000001', 'device-00000002'], include_external_user_ids: ['customer-1'] }));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ id: expect.any(Number), status: 'waiting', duplicate: false });
    const id = answer.body.data.id;
    const stored = await db(server).selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ application_id: APP, source: 'api', status: 'waiting', created_by: null, type: 'sms' });
    expect(JSON.parse(stored.audience)).toEqual({
      segment_id: null,
      filters: null,
      tags: [],
      device_ids: ['device-00000001', 'device-00000002'],
      external_user_ids: ['customer-1'],
    });

    await db(server).updateTable('notifications').set({ targeted: 3, sent: 2, delivered: 2, failed: 1, clicked: 1 }).where('id', '=', id).execute();
    const read = await server.call('GET', `/api/v1/notifications/${id}`, { headers: { authorization: `Key ${key}` } });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      id,
      type: 'sms',
      status: 'waiting',
      source: 'api',
      stats: { targeted: 3, sent: 2, delivered: 2, failed: 1, clicked: 1 },
      ctr: 50,
      send_at: stored.send_at,
      started_at: null,
      finished_at: null,
      created_at: stored.created_at,
    });
    // The console sees it as an API message.
    const listed = await server.call('GET', `/api/application/${APP}/notification?source=api`, { token: owner.token });
    expect(listed.body.data.items.map((item: { id: number }) => item.id)).toContain(id);
  });

  it("answers NOT_FOUND for another application's message", async () => {
    const theirs = await send(body(), { key: otherKey });
    const answer = await server.call('GET', `/api/v1/notifications/${theirs.body.data.id}`, { headers: { authorization: `Key ${key}` }, lang: 'en' });
    expect(answer.status).toBe(404);
    expect(answer.body.message).toBe(`There is no message ${theirs.body.data.id} in this application.`);
  });

  it("applies the console's checks: the platform, the content, the schedule", async () => {
    const before = await countNotifications();
    const web = await send(body({ type: 'web_push', content: { heading: 'Hi', content: 'x' } }));
    expect(web.status).toBe(400);
    expect(web.body.message).toBe('Configure web push in Settings before creating a web push notification.');
    const long = await send(body({ content: { content: 'x'.repeat(641) } }));
    expect(long.body.fields).toEqual([{ path: 'content.content', message: 'This value is too long' }]);
    const past = await send(body({ schedule: { mode: 'at', at: '2020-01-01T00:00:00Z' } }));
    expect(past.body.fields).toEqual([{ path: 'schedule.at', message: 'The time to send has already passed' }]);
    const shortDevice = await send(body({ include_device_ids: ['short'] }));
    expect(shortDevice.body.fields).toEqual([{ path: 'include_device_ids.0', message: 'A device id is 8 to 64 letters, digits, - or _' }]);
    // An empty list would name nobody: refused rather than read as "everyone".
    const nobody = await send(body({ include_external_user_ids: [] }));
    expect(nobody.body.fields).toEqual([{ path: 'include_external_user_ids', message: 'This field is required' }]);
    expect(await countNotifications()).toBe(before);
  });

  it('answers APPLICATION_DELETING while the application is being deleted', async () => {
    await db(server).updateTable('applications').set({ deleting_at: server.clock.now().toISOString() }).where('application_id', '=', OTHER).execute();
    try {
      const answer = await send(body(), { key: otherKey });
      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe('APPLICATION_DELETING');
    } finally {
      await db(server).updateTable('applications').set({ deleting_at: null }).where('application_id', '=', OTHER).execute();
    }
  });
});

describe('Idempotency-Key', () => {
  it('answers a retry with the same message and creates nothing', async () => {
    const before = await countNotifications();
    const first = await send(body(), { idempotency: 'order-1001-shipped' });
    expect(first.body.data).toMatchObject({ status: 'waiting', duplicate: false });
    // The same request, its keys in another order.
    const again = await send({ content: { content: 'Your order has shipped' }, type: 'sms' }, { idempotency: 'order-1001-shipped' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ id: first.body.data.id, status: 'waiting', duplicate: true });
    expect(await countNotifications()).toBe(before + 1);
  });

  it('answers the message’s current status on a replay', async () => {
    const first = await send(body(), { idempotency: 'replay-status' });
    await db(server).updateTable('notifications').set({ status: 'running' }).where('id', '=', first.body.data.id).execute();
    const again = await send(body(), { idempotency: 'replay-status' });
    expect(again.body.data).toEqual({ id: first.body.data.id, status: 'running', duplicate: true });
  });

  it('refuses the same key with another body, and creates nothing', async () => {
    await send(body(), { idempotency: 'order-1002' });
    const before = await countNotifications();
    const answer = await send(body({ content: { content: 'Another text' } }), { idempotency: 'order-1002' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, error: 'INVALID_PARAM', message: 'Idempotency-Key was used with another request' });
    const vi = await send(body({ content: { content: 'Another text' } }), { idempotency: 'order-1002', lang: 'vi' });
    expect(vi.body.message).toBe('Idempotency-Key đã được dùng cho một yêu cầu khác');
    expect(await countNotifications()).toBe(before);
  });

  it('keeps keys apart per application', async () => {
    const mine = await send(body(), { idempotency: 'shared-key' });
    const theirs = await send(body(), { idempotency: 'shared-key', key: otherKey });
    expect(theirs.body.data.duplicate).toBe(false);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('leaves the key unused when the request is refused', async () => {
    const refused = await send(body({ content: { content: '' } }), { idempotency: 'fix-and-retry' });
    expect(refused.status).toBe(400);
    const fixed = await send(body(), { idempotency: 'fix-and-retry' });
    expect(fixed.status).toBe(200);
    expect(fixed.body.data.duplicate).toBe(false);
  });

  it('refuses a key longer than 255 characters', async () => {
    const before = await countNotifications();
    const answer = await send(body(), { idempotency: 'k'.repeat(256) });
    expect(answer.status).toBe(400);
    expect(answer.body.fields).toEqual([{ path: 'idempotency-key', message: 'This value is too long' }]);
    expect((await send(body(), { idempotency: 'k'.repeat(255) })).status).toBe(200);
    expect(await countNotifications()).toBe(before + 1);
  });

  it('creates one message for 10 concurrent requests with one key', async () => {
    const before = await countNotifications();
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(body({ content: { content: 'Flash sale now' } }), { idempotency: 'burst-1' })));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const ids = new Set(answers.map((answer) => answer.body.data.id));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer.body.data.duplicate === false)).toHaveLength(1);
    expect(await countNotifications()).toBe(before + 1);
  });

  it('lets the key’s primary key decide when the requests pass the first lookup together', async () => {
    // Called side by side without HTTP in between, every call misses the key on its first lookup, so only the
    // insert in the message's transaction can keep the others from creating a second message.
    const application = await db(server).selectFrom('applications').selectAll().where('application_id', '=', APP).executeTakeFirstOrThrow();
    const parsed = ApiSendBody.parse(body({ content: { content: 'Back in stock' } }));
    const before = await countNotifications();
    const results = await Promise.all(Array.from({ length: 10 }, () => sendFromApi(server.app.services, application, parsed, 'burst-2')));
    expect(new Set(results.map((result) => result.id)).size).toBe(1);
    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
    expect(await countNotifications()).toBe(before + 1);
  });

  it(`forgets a key after 24 hours`, async () => {
    const first = await send(body(), { idempotency: 'daily-digest' });
    server.clock.advance(23 * 3_600_000);
    expect((await send(body(), { idempotency: 'daily-digest' })).body.data).toMatchObject({ id: first.body.data.id, duplicate: true });
    server.clock.advance(2 * 3_600_000);
    const later = await send(body(), { idempotency: 'daily-digest' });
    expect(later.body.data.duplicate).toBe(false);
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });
});

describe('the OpenAPI document', () => {
  it('documents the send API with its key scheme and the Idempotency-Key header', async () => {
    const doc = (await server.call('GET', '/api/docs/json')).body;
    expect(doc.components.securitySchemes.restApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    const post = doc.paths['/api/v1/notifications'].post;
    expect(post.security).toEqual([{ restApiKey: [] }]);
    expect(post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key' })]));
    expect(doc.paths['/api/v1/notifications/{notification_id}'].get.security).toEqual([{ restApiKey: [] }]);
    for (const path of ['/api/application/{application_id}/notification', '/api/application/{application_id}/message', '/api/application/{application_id}/campaign/{campaign_id}']) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
