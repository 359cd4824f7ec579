import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from '../../server/security/secret-box';
import { SECRET_PURPOSE } from '../../server/webhooks/dispatcher';
import { emitWebhookEvent } from '../../server/webhooks/events';
import { generateSecret } from '../../server/webhooks/signing';
import { addMember, createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';

/**
 * Outbound webhooks end to end: the real server's dispatcher POSTs to a local receiver that checks every
 * signature the way a customer's server would (Standard Webhooks), and the test clock walks through the retry
 * schedule. The server allows 127.0.0.1 (WEBHOOK_ALLOWED_HOSTS) so the receiver can be reached; a second
 * server without that allow-list shows what is refused.
 */

const SECOND = 1000;
const HOUR = 3600_000;

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Which of the receiver's known secrets signed it (none: the signature did not verify). */
  signedWith: string[];
}

/** The customer's server: answers each path with scripted status codes and verifies each request. */
class Receiver {
  server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      this.requests.push({ path, headers: request.headers, body, signedWith: this.verify(path, request.headers, body) });
      const script = this.scripts.get(path) ?? [];
      const status = script.length > 1 ? script.shift()! : (script[0] ?? 200);
      response.writeHead(status, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  requests: Received[] = [];
  /** Status codes to answer per path, in turn; the last one repeats. */
  scripts = new Map<string, number[]>();
  /** The signing secrets each path trusts. */
  secrets = new Map<string, string[]>();
  port = 0;

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string) {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string) {
    return this.requests.filter((request) => request.path === path);
  }

  /** Standard Webhooks verification, written from the spec: HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the bytes after whsec_. */
  verify(path: string, headers: Received['headers'], body: string): string[] {
    const id = String(headers['webhook-id'] ?? '');
    const timestamp = String(headers['webhook-timestamp'] ?? '');
    const signatures = String(headers['webhook-signature'] ?? '').split(' ');
    return (this.secrets.get(path) ?? []).filter((secret) => {
      const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${id}.${timestamp}.${body}`).digest();
      return signatures.some((signature) => {
        const [version, value] = signature.split(',');
        const given = Buffer.from(value ?? '', 'base64');
        return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
      });
    });
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Polls until `check` gives a value (the dispatcher runs every second). */
async function eventually<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, what: string, timeoutMs = 8000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const receiver = new Receiver();
let server: TestServer;
let owner: TestUser;
let counter = 0;

/** A fresh application with an active contact form, so each test's events reach only its own webhooks. */
async function shop(label: string) {
  counter += 1;
  const applicationId = `wh_${label}_${counter}`;
  const application = await createApplication(server, owner, applicationId);
  const widget = await server.call('POST', `/api/application/${applicationId}/widget`, {
    token: owner.token,
    body: { type: 'contact', name: 'Contact', status: 'active', settings: { title: 'Talk to us', fields: ['name', 'email'], required: ['email'] } },
  });
  if (widget.status !== 200) throw new Error(JSON.stringify(widget.body));
  return { applicationId, key: application.client_key as string, widgetId: widget.body.data.id as number };
}

/** A visitor leaves their email in the shop's form, as the storefront widget sends it. */
async function lead(target: Awaited<ReturnType<typeof shop>>, email: string) {
  const answer = await server.call('POST', '/api/sdk/lead', {
    body: JSON.stringify({ key: target.key, widget_id: target.widgetId, visitor_id: `visitor_${email.replace(/\W/g, '_')}`, email }),
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    ip: `10.9.${counter}.${Math.floor(Math.random() * 250)}`,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

async function addWebhook(applicationId: string, path: string, body: Record<string, unknown> = {}) {
  const answer = await server.call('POST', `/api/application/${applicationId}/webhook`, {
    token: owner.token,
    body: { url: receiver.url(path), event_types: ['new_lead'], ...body },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  receiver.secrets.set(path, [answer.body.data.signing_secret]);
  return answer.body.data as { id: number; signing_secret: string; secret_hint: string };
}

const attemptsOf = async (applicationId: string, webhookId: number) =>
  (await server.call('GET', `/api/application/${applicationId}/webhook/${webhookId}/attempts`, { token: owner.token })).body.data;
const webhookOf = async (applicationId: string, webhookId: number) =>
  (await server.call('GET', `/api/application/${applicationId}/webhook/${webhookId}`, { token: owner.token })).body.data;

beforeAll(async () => {
  await receiver.start();
  server = await startServer({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  owner = await createUser(server, { name: 'Shop owner' });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await receiver.close();
});

describe('a webhook as a super user adds it', () => {
  it('answers the whole signing secret once, and only a hint of it afterwards', async () => {
    const { applicationId } = await shop('secret');
    const created = await addWebhook(applicationId, '/secret', { event_types: ['new_lead', 'delivery_failure'] });
    expect(created.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.secret_hint).toBe(`whsec_…${created.signing_secret.slice(-4)}`);
    const list = await server.call('GET', `/api/application/${applicationId}/webhook`, { token: owner.token });
    expect(list.body.data).toMatchObject({ total: 1, items: [{ id: created.id, url: receiver.url('/secret'), event_types: ['new_lead', 'delivery_failure'], status: 'active', last_attempt: null }] });
    expect(JSON.stringify(list.body)).not.toContain(created.signing_secret.slice(6, 30));
    const row = await db(server).selectFrom('webhooks').select('secret').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(created.signing_secret.slice(6, 30));
  });
});

describe('a new lead', () => {
  it('arrives at the receiver as a signed Standard Webhooks request', async () => {
    const target = await shop('lead');
    const webhook = await addWebhook(target.applicationId, '/leads');
    await lead(target, 'an@example.com');

    const [request] = await eventually(() => receiver.at('/leads').length > 0 && receiver.at('/leads'), 'the lead webhook');
    expect(request.signedWith).toEqual([webhook.signing_secret]);
    expect(request.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]+$/);
    const sentAt = Number(request.headers['webhook-timestamp']);
    expect(Math.abs(sentAt - server.clock.now().getTime() / 1000)).toBeLessThan(300);
    expect(request.headers['content-type']).toBe('application/json');
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({ type: 'new_lead', application_id: target.applicationId, data: { lead: { email: 'an@example.com', widget_id: target.widgetId, source: 'contact' } } });
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);

    const log = await eventually(async () => {
      const page = await attemptsOf(target.applicationId, webhook.id);
      return page.total === 1 && page;
    }, 'the attempt in the log');
    expect(log.items[0]).toMatchObject({ msg_id: request.headers['webhook-id'], event_type: 'new_lead', attempt: 1, status_code: 200, error: null, outcome: 'delivered', next_attempt_at: null });
    expect((await webhookOf(target.applicationId, webhook.id)).last_attempt).toMatchObject({ ok: true, status_code: 200 });
  });

  it('goes only to the webhooks that subscribe to new_lead', async () => {
    const target = await shop('subscribers');
    await addWebhook(target.applicationId, '/only-deliveries', { event_types: ['delivery_completed'] });
    await addWebhook(target.applicationId, '/also-leads', { event_types: ['delivery_completed', 'new_lead'] });
    await lead(target, 'bao@example.com');
    await eventually(() => receiver.at('/also-leads').length === 1, 'the subscribed webhook');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(receiver.at('/only-deliveries')).toHaveLength(0);
  });
});

describe('a receiver that fails', () => {
  it('gets the same webhook-id on every retry, on the schedule, until it answers 2xx', async () => {
    const target = await shop('retry');
    receiver.scripts.set('/flaky', [500, 500, 200]);
    const webhook = await addWebhook(target.applicationId, '/flaky');
    await lead(target, 'chi@example.com');

    await eventually(() => receiver.at('/flaky').length === 1, 'the first attempt');
    const first = await eventually(async () => (await attemptsOf(target.applicationId, webhook.id)).items[0], 'the first attempt logged');
    expect(first).toMatchObject({ attempt: 1, status_code: 500, outcome: 'retrying' });
    // Five seconds after the attempt, plus up to 10% jitter: not before. The wait runs from the attempt's end:
    // created_at is when it was sent and duration_ms how long it took (50 ms more for the steps around it, on a
    // busy machine; without them a 3 ms attempt once made it 5,503 ms).
    const wait = Date.parse(first.next_attempt_at) - Date.parse(first.created_at);
    expect(wait).toBeGreaterThanOrEqual(5 * SECOND);
    expect(wait - first.duration_ms).toBeLessThanOrEqual(5.5 * SECOND + 50);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(receiver.at('/flaky')).toHaveLength(1);

    server.clock.advance(6 * SECOND);
    await eventually(() => receiver.at('/flaky').length === 2, 'the second attempt');
    // The clock moves on only once the second attempt is logged with its next time: moved before, the retry
    // would be scheduled from the later time and not come within the wait.
    await eventually(async () => (await attemptsOf(target.applicationId, webhook.id)).total === 2, 'the second attempt logged');
    server.clock.advance(6 * 60 * SECOND);
    await eventually(() => receiver.at('/flaky').length === 3, 'the third attempt');

    const requests = receiver.at('/flaky');
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    for (const request of requests) expect(request.signedWith).toEqual([webhook.signing_secret]);
    // Each attempt carries its own time.
    expect(Number(requests[2].headers['webhook-timestamp'])).toBeGreaterThan(Number(requests[0].headers['webhook-timestamp']));

    const log = await eventually(async () => {
      const page = await attemptsOf(target.applicationId, webhook.id);
      return page.total === 3 && page;
    }, 'three attempts logged');
    expect(log.items.map((item: { attempt: number; status_code: number; outcome: string }) => [item.attempt, item.status_code, item.outcome])).toEqual([
      [3, 200, 'delivered'],
      [2, 500, 'retrying'],
      [1, 500, 'retrying'],
    ]);
    expect(await webhookOf(target.applicationId, webhook.id)).toMatchObject({ status: 'active', failing_since: null, consecutive_failures: 0 });
  });

  it('is disabled after failing for 24 hours, its super users are mailed, and nothing more is sent until it is re-enabled', async () => {
    const target = await shop('down');
    const manager = await createUser(server, { name: 'Manager' });
    await addMember(server, owner, target.applicationId, manager, 'manager');
    receiver.scripts.set('/down', [503]);
    const webhook = await addWebhook(target.applicationId, '/down');
    await lead(target, 'dung@example.com');
    await eventually(() => receiver.at('/down').length === 1, 'the first attempt');
    expect(await eventually(async () => (await webhookOf(target.applicationId, webhook.id)).failing_since, 'failing since')).toBeTruthy();

    server.clock.advance(25 * HOUR);
    await eventually(() => receiver.at('/down').length === 2, 'the attempt a day later');
    const disabled = await eventually(async () => {
      const current = await webhookOf(target.applicationId, webhook.id);
      return current.status === 'disabled' && current;
    }, 'the webhook disabled');
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });

    const mail = await server.smtp.waitFor(owner.email, (message) => message.subject.includes(target.applicationId));
    // The owner's language is Vietnamese, the default.
    expect(mail.subject).toBe(`Một webhook của App ${target.applicationId} đã bị tắt`);
    expect(mail.text).toContain(receiver.url('/down'));
    expect(mail.text).toContain(`/application/${target.applicationId}/webhook`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.smtp.messages().filter((message) => message.to.includes(manager.email.toLowerCase()) && message.subject.includes('webhook'))).toEqual([]);

    // Off: neither the waiting message nor a new lead is sent.
    await lead(target, 'dung2@example.com');
    server.clock.advance(HOUR);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.at('/down')).toHaveLength(2);

    // Back on: the waiting message goes out at once, with a clean record.
    receiver.scripts.set('/down', [200]);
    const enabled = await server.call('PUT', `/api/application/${target.applicationId}/webhook/${webhook.id}`, {
      token: owner.token,
      body: { url: receiver.url('/down'), event_types: ['new_lead'], active: true },
    });
    expect(enabled.body.data).toMatchObject({ status: 'active', disabled_reason: null, failing_since: null });
    await eventually(() => receiver.at('/down').length === 3, 'the waiting message after re-enabling');
    expect(receiver.at('/down')[2].headers['webhook-id']).toBe(receiver.at('/down')[0].headers['webhook-id']);
  });

  it('is disabled at once when it answers 410 Gone', async () => {
    const target = await shop('gone');
    receiver.scripts.set('/gone', [410]);
    const webhook = await addWebhook(target.applicationId, '/gone');
    await lead(target, 'em@example.com');
    const current = await eventually(async () => {
      const row = await webhookOf(target.applicationId, webhook.id);
      return row.status === 'disabled' && row;
    }, 'the webhook disabled');
    expect(current.disabled_reason).toBe('gone');
    expect((await attemptsOf(target.applicationId, webhook.id)).items[0]).toMatchObject({ status_code: 410, outcome: 'failed' });
  });
});

describe('events emitted by the delivery engine', () => {
  it('reach message_with_tag webhooks only for messages carrying their tag', async () => {
    const target = await shop('tags');
    await addWebhook(target.applicationId, '/vip', { event_types: ['message_with_tag'], tag: 'vip' });
    await addWebhook(target.applicationId, '/sale', { event_types: ['message_with_tag'], tag: 'sale' });
    await emitWebhookEvent(db(server), target.applicationId, 'message_with_tag', { notification_id: 7 }, { tags: ['vip', 'new'], now: server.clock.now() });
    const [request] = await eventually(() => receiver.at('/vip').length === 1 && receiver.at('/vip'), 'the vip webhook');
    expect(JSON.parse(request.body)).toMatchObject({ type: 'message_with_tag', data: { notification_id: 7 } });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(receiver.at('/sale')).toHaveLength(0);
  });
});

describe('the webhook actions', () => {
  it('sends a signed test event at once and answers the attempt', async () => {
    const { applicationId } = await shop('test');
    const webhook = await addWebhook(applicationId, '/test-event');
    const answer = await server.call('POST', `/api/application/${applicationId}/webhook/${webhook.id}/test`, { token: owner.token });
    expect(answer.body.data).toMatchObject({ event_type: 'test', attempt: 1, status_code: 200, outcome: 'delivered' });
    const [request] = receiver.at('/test-event');
    expect(request.signedWith).toEqual([webhook.signing_secret]);
    expect(JSON.parse(request.body)).toMatchObject({ type: 'test', application_id: applicationId, data: { webhook_id: webhook.id } });
  });

  it('reports a failed test without retrying it or counting it against the webhook', async () => {
    const { applicationId } = await shop('testfail');
    receiver.scripts.set('/test-fail', [500]);
    const webhook = await addWebhook(applicationId, '/test-fail');
    const answer = await server.call('POST', `/api/application/${applicationId}/webhook/${webhook.id}/test`, { token: owner.token });
    expect(answer.body.data).toMatchObject({ status_code: 500, outcome: 'failed', next_attempt_at: null });
    server.clock.advance(10 * SECOND);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(receiver.at('/test-fail')).toHaveLength(1);
    expect(await webhookOf(applicationId, webhook.id)).toMatchObject({ status: 'active', failing_since: null, consecutive_failures: 0 });
  });

  it('rotates the secret: the new one is shown once and both sign for a while', async () => {
    const { applicationId } = await shop('rotate');
    const webhook = await addWebhook(applicationId, '/rotate');
    const rotated = await server.call('POST', `/api/application/${applicationId}/webhook/${webhook.id}/rotate_secret`, { token: owner.token });
    const fresh = rotated.body.data.signing_secret as string;
    expect(fresh).not.toBe(webhook.signing_secret);
    expect(rotated.body.data.secret_hint).toBe(`whsec_…${fresh.slice(-4)}`);
    receiver.secrets.set('/rotate', [fresh, webhook.signing_secret]);
    await server.call('POST', `/api/application/${applicationId}/webhook/${webhook.id}/test`, { token: owner.token });
    expect(receiver.at('/rotate')[0].signedWith).toEqual([fresh, webhook.signing_secret]);

    server.clock.advance(25 * HOUR);
    await server.call('POST', `/api/application/${applicationId}/webhook/${webhook.id}/test`, { token: owner.token });
    expect(receiver.at('/rotate')[1].signedWith).toEqual([fresh]);
    expect(String(receiver.at('/rotate')[1].headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('edits, switches off by hand and deletes', async () => {
    const { applicationId } = await shop('edit');
    const webhook = await addWebhook(applicationId, '/edit');
    const edited = await server.call('PUT', `/api/application/${applicationId}/webhook/${webhook.id}`, {
      token: owner.token,
      body: { url: receiver.url('/edited'), event_types: ['delivery_started', 'message_with_tag', 'delivery_started'], tag: 'flash', active: false },
    });
    expect(edited.body.data).toMatchObject({ url: receiver.url('/edited'), event_types: ['delivery_started', 'message_with_tag'], tag: 'flash', status: 'disabled', disabled_reason: 'manual' });
    const removed = await server.call('DELETE', `/api/application/${applicationId}/webhook/${webhook.id}`, { token: owner.token });
    expect(removed.body).toEqual({ success: true, data: {} });
    expect((await server.call('GET', `/api/application/${applicationId}/webhook/${webhook.id}`, { token: owner.token })).body.error).toBe('NOT_FOUND');
    expect(await db(server).selectFrom('webhooks').select('id').where('id', '=', webhook.id).execute()).toEqual([]);
  });

  it('refuses a form without events, a message_with_tag webhook without a valid tag, and a URL that is not http(s)', async () => {
    const { applicationId } = await shop('invalid');
    const post = (body: Record<string, unknown>) =>
      server.call('POST', `/api/application/${applicationId}/webhook`, { token: owner.token, lang: 'en', body: { url: receiver.url('/x'), event_types: ['new_lead'], ...body } });
    expect((await post({ event_types: [] })).body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'event_types', message: 'Choose at least one event' }] });
    expect((await post({ event_types: ['message_with_tag'] })).body.fields).toEqual([{ path: 'tag', message: 'This field is required' }]);
    expect((await post({ event_types: ['message_with_tag'], tag: 'two words' })).body.fields).toEqual([{ path: 'tag', message: 'Invalid tag value' }]);
    for (const url of ['ftp://hooks.example.com/x', 'https://user:secret@hooks.example.com/', 'hooks.example.com/x']) {
      expect((await post({ url })).body, url).toMatchObject({ error: 'INVALID_PARAM', message: 'Invalid Payload URL', fields: [{ path: 'url', message: 'Invalid Payload URL' }] });
    }
    expect(await db(server).selectFrom('webhooks').select('id').where('application_id', '=', applicationId).execute()).toEqual([]);
  });
});

describe('who may manage webhooks (spec §6: super users only)', () => {
  it('refuses managers and viewers, and changes nothing', async () => {
    const { applicationId } = await shop('roles');
    const webhook = await addWebhook(applicationId, '/roles');
    for (const role of ['manager', 'viewer', 'user', 'ads_manager']) {
      const member = await createUser(server, { name: role });
      await addMember(server, owner, applicationId, member, role);
      const base = `/api/application/${applicationId}/webhook`;
      const calls = [
        server.call('GET', base, { token: member.token }),
        server.call('POST', base, { token: member.token, body: { url: receiver.url('/intruder'), event_types: ['new_lead'] } }),
        server.call('PUT', `${base}/${webhook.id}`, { token: member.token, body: { url: receiver.url('/intruder'), event_types: ['new_lead'] } }),
        server.call('POST', `${base}/${webhook.id}/rotate_secret`, { token: member.token }),
        server.call('POST', `${base}/${webhook.id}/test`, { token: member.token }),
        server.call('GET', `${base}/${webhook.id}/attempts`, { token: member.token }),
        server.call('DELETE', `${base}/${webhook.id}`, { token: member.token }),
      ];
      for (const answer of await Promise.all(calls)) {
        expect(answer.status, role).toBe(403);
        expect(answer.body.error).toBe('NO_PERMISSION');
      }
    }
    const rows = await db(server).selectFrom('webhooks').select(['id', 'url', 'secret']).where('application_id', '=', applicationId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].url).toBe(receiver.url('/roles'));
    expect(receiver.at('/intruder')).toEqual([]);
  });

  it("keeps another application's super user out", async () => {
    const { applicationId } = await shop('private');
    const webhook = await addWebhook(applicationId, '/private');
    const stranger = await createUser(server);
    await createApplication(server, stranger, `wh_strangers_${counter}`);
    const answer = await server.call('GET', `/api/application/${applicationId}/webhook/${webhook.id}`, { token: stranger.token });
    expect(answer.body.error).toBe('NO_PERMISSION');
    const crossed = await server.call('GET', `/api/application/wh_strangers_${counter}/webhook/${webhook.id}`, { token: stranger.token });
    expect(crossed.body.error).toBe('NOT_FOUND');
  });
});

describe('the dispatcher', () => {
  it('ran every pass and attempt above without an error in the log', () => {
    const failures = server.logs.filter((line) => /webhook (dispatcher pass|attempt) failed/.test(line));
    expect(failures).toEqual([]);
  });
});

describe('without WEBHOOK_ALLOWED_HOSTS (the SSRF guard)', () => {
  let strict: TestServer;
  let admin: TestUser;
  const APP = 'wh_strict';

  beforeAll(async () => {
    strict = await startServer();
    admin = await createUser(strict, { name: 'Strict owner' });
    await createApplication(strict, admin, APP);
  }, 60_000);
  afterAll(async () => strict?.close());

  it("refuses at save every URL that leads into the server's own networks, and creates nothing", async () => {
    const urls = [
      'http://127.0.0.1/hook',
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0x7f.0.0.1/hook',
      'http://100.64.0.1/hook',
      `http://localhost:${receiver.port}/hook`,
    ];
    for (const url of urls) {
      const answer = await strict.call('POST', `/api/application/${APP}/webhook`, { token: admin.token, lang: 'en', body: { url, event_types: ['new_lead'] } });
      expect(answer.status, url).toBe(400);
      expect(answer.body, url).toEqual({
        success: false,
        error: 'INVALID_PARAM',
        message: 'Invalid Payload URL',
        fields: [{ path: 'url', message: 'Invalid Payload URL: it leads to a private, local or reserved network address' }],
      });
    }
    const vi = await strict.call('POST', `/api/application/${APP}/webhook`, { token: admin.token, body: { url: 'http://10.1.2.3/', event_types: ['new_lead'] } });
    expect(vi.body.message).toBe('Payload URL không hợp lệ');
    expect(await db(strict).selectFrom('webhooks').select('id').execute()).toEqual([]);
  });

  it('checks again at send: a URL that leads inside now is refused without connecting', async () => {
    // As if the host resolved to a public address when it was saved and was pointed at the machine since.
    const now = strict.clock.now().toISOString();
    const secret = generateSecret();
    const { id } = await db(strict)
      .insertInto('webhooks')
      .values({
        application_id: APP,
        url: receiver.url('/rebound'),
        event_types: JSON.stringify(['delivery_failure']),
        tag: null,
        secret: sealSecret(strict.config.secretKey, SECRET_PURPOSE, secret),
        previous_secret: null,
        previous_secret_until: null,
        status: 'active',
        consecutive_failures: 0,
        failing_since: null,
        disabled_at: null,
        disabled_reason: null,
        created_by: admin.id,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await emitWebhookEvent(db(strict), APP, 'delivery_failure', { notification_id: 1 }, { now: strict.clock.now() });
    const log = await eventually(async () => {
      const page = (await strict.call('GET', `/api/application/${APP}/webhook/${id}/attempts`, { token: admin.token })).body.data;
      return page.total > 0 && page;
    }, 'the refused attempt');
    expect(log.items[0]).toMatchObject({ attempt: 1, status_code: null, error: 'address_not_allowed', outcome: 'retrying' });
    expect(receiver.at('/rebound')).toEqual([]);
  });
});
