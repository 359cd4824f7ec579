import { generateKeyPairSync } from 'node:crypto';
import { createSecureServer, type ServerHttp2Stream } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type ApnsFake } from '../../../tests/fakes/apns';
import { listen } from '../../../tests/fakes/http-util';
import { testCertificates } from '../../../tests/fakes/tls';
import { ApnsSender, mapApnsResponse } from './apns';

let fake: ApnsFake;
let now = Date.now();
const clock = () => now;

beforeAll(async () => {
  fake = await start({ clock });
});
afterAll(() => fake.close());

function tokenSender() {
  return new ApnsSender({ auth: { kind: 'token', ...fake.tokenKey }, topic: fake.topic, host: fake.host, port: fake.port, ca: fake.ca, clock });
}

const alert = { payload: { aps: { alert: { title: 'Đơn hàng', body: 'Đã giao thành công' }, sound: 'default' } } };

describe('ApnsSender against the APNs fake', () => {
  it('delivers with a provider token and the apns headers', async () => {
    const s = tokenSender();
    const deviceToken = fake.registerDevice();
    const result = await s.send({ deviceToken }, { ...alert, collapseId: 'order-42', expiration: 1_900_000_000, priority: 5 });
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.providerId).toMatch(/^[0-9A-F-]{36}$/);
    expect(fake.received.at(-1)).toMatchObject({
      deviceToken,
      payload: alert.payload,
      auth: 'token',
      headers: { topic: fake.topic, pushType: 'alert', priority: '5', expiration: '1900000000', collapseId: 'order-42' },
    });
    await s.close();
  });

  it('delivers with a client certificate and no authorization header', async () => {
    const s = new ApnsSender({ auth: { kind: 'certificate', ...fake.clientCertificate }, topic: fake.topic, host: fake.host, port: fake.port, ca: fake.ca });
    const deviceToken = fake.registerDevice();
    expect(await s.send({ deviceToken }, alert)).toMatchObject({ ok: true });
    expect(fake.received.at(-1)).toMatchObject({ deviceToken, auth: 'certificate' });
    await s.close();
  });

  it('answers auth for a provider token signed by another key', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const s = new ApnsSender({ auth: { kind: 'token', ...fake.tokenKey, key: other }, topic: fake.topic, host: fake.host, port: fake.port, ca: fake.ca, clock });
    expect(await s.send({ deviceToken: fake.registerDevice() }, alert)).toMatchObject({ ok: false, reason: 'auth', detail: '403 InvalidProviderToken' });
    await s.close();
  });

  it('sends many notifications over one HTTP/2 connection', async () => {
    const s = tokenSender();
    const before = fake.connections();
    const devices = Array.from({ length: 200 }, () => fake.registerDevice());
    const results = await Promise.all(devices.map((deviceToken) => s.send({ deviceToken }, alert)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(s.connectionsOpened).toBe(1);
    expect(fake.connections() - before).toBe(1);
    await s.close();
  });

  it('keeps its provider token for 50 minutes, then re-signs one that APNs accepts', async () => {
    const s = tokenSender();
    const deviceToken = fake.registerDevice();
    await s.send({ deviceToken }, alert);
    now += 49 * 60_000;
    expect(await s.send({ deviceToken }, alert)).toMatchObject({ ok: true });
    expect(s.tokensSigned).toBe(1);
    now += 2 * 60_000;
    expect(await s.send({ deviceToken }, alert)).toMatchObject({ ok: true });
    expect(s.tokensSigned).toBe(2);
    await s.close();
  });

  it('re-signs on ExpiredProviderToken and retries once; a second refusal is auth', async () => {
    const s = tokenSender();
    const deviceToken = fake.registerDevice();
    await s.send({ deviceToken }, alert);
    now += 25 * 60_000;
    fake.failNext(deviceToken, { status: 403, reason: 'ExpiredProviderToken' });
    expect(await s.send({ deviceToken }, alert)).toMatchObject({ ok: true });
    expect(s.tokensSigned).toBe(2);
    fake.failNext(deviceToken, { status: 403, reason: 'ExpiredProviderToken' }, 2);
    expect(await s.send({ deviceToken }, alert)).toMatchObject({ ok: false, reason: 'auth', detail: '403 ExpiredProviderToken' });
    await s.close();
  });

  it('keeps a token younger than 20 minutes on ExpiredProviderToken, so APNs never answers TooManyProviderTokenUpdates', async () => {
    const s = tokenSender();
    const deviceToken = fake.registerDevice();
    await s.send({ deviceToken }, alert);
    now += 5 * 60_000;
    fake.failNext(deviceToken, { status: 403, reason: 'ExpiredProviderToken' }); // too young to re-sign: same token retried
    expect(await s.send({ deviceToken }, alert)).toMatchObject({ ok: true });
    expect(s.tokensSigned).toBe(1);
    await s.close();
  });

  it('reconnects after GOAWAY and keeps sending', async () => {
    const s = tokenSender();
    const deviceToken = fake.registerDevice();
    await s.send({ deviceToken }, alert);
    fake.goaway();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await s.send({ deviceToken }, alert)).toMatchObject({ ok: true });
    expect(s.connectionsOpened).toBe(2);
    await s.close();
  });

  it('maps Unregistered to gone, BadDeviceToken to invalid, 429 to rate_limited, 5xx to retryable, 413 to payload', async () => {
    const s = tokenSender();
    const gone = fake.registerDevice();
    fake.unregister(gone);
    expect(await s.send({ deviceToken: gone }, alert)).toMatchObject({ ok: false, reason: 'gone', status: 410 });
    expect(await s.send({ deviceToken: 'ab'.repeat(32) }, alert)).toMatchObject({ ok: false, reason: 'invalid', detail: '400 BadDeviceToken' });
    const live = fake.registerDevice();
    fake.failNext(live, { status: 429, reason: 'TooManyRequests' });
    fake.failNext(live, { status: 500, reason: 'InternalServerError' });
    fake.failNext(live, { status: 503, reason: 'ServiceUnavailable' });
    const reasons = [];
    for (let i = 0; i < 3; i++) {
      const r = await s.send({ deviceToken: live }, alert);
      reasons.push(!r.ok && r.reason);
    }
    expect(reasons).toEqual(['rate_limited', 'retryable', 'retryable']);
    expect(await s.send({ deviceToken: live }, { payload: { aps: {}, blob: 'x'.repeat(5000) } })).toMatchObject({ ok: false, reason: 'payload', status: 413 });
    expect(await s.send({ deviceToken: live }, { ...alert, topic: 'com.other.app' })).toMatchObject({ ok: false, reason: 'auth', detail: '400 TopicDisallowed' });
    expect(await s.send({ deviceToken: 'zz' }, alert)).toMatchObject({ ok: false, reason: 'invalid' });
    await s.close();
  });

  it('cancels a notification APNs does not answer within the timeout, and an aborted one, as retryable', async () => {
    // An HTTP/2 peer that reads requests and never answers.
    const silent = createSecureServer({ cert: fake.ca, key: (await testCertificates()).key });
    const held: ServerHttp2Stream[] = [];
    silent.on('stream', (stream) => {
      held.push(stream);
      stream.on('error', () => undefined);
      stream.resume();
    });
    const port = await listen(silent);
    const s = new ApnsSender({ auth: { kind: 'token', ...fake.tokenKey }, topic: fake.topic, host: '127.0.0.1', port, ca: fake.ca, clock, timeoutMs: 150 });
    const began = Date.now();
    const timedOut = await s.send({ deviceToken: fake.registerDevice() }, alert);
    expect(timedOut).toMatchObject({ ok: false, reason: 'retryable' });
    expect(!timedOut.ok && timedOut.detail).toMatch(/ETIMEDOUT no answer within 150 ms/);
    expect(Date.now() - began).toBeLessThan(2_000);
    const controller = new AbortController();
    const aborted = s.send({ deviceToken: fake.registerDevice() }, alert, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect(await aborted).toMatchObject({ ok: false, reason: 'retryable' });
    expect(held).toHaveLength(2);
    await s.close();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('answers retryable when APNs cannot be reached', async () => {
    const s = new ApnsSender({ auth: { kind: 'token', ...fake.tokenKey }, topic: fake.topic, host: '127.0.0.1', port: 1, ca: fake.ca, clock });
    expect(await s.send({ deviceToken: fake.registerDevice() }, alert)).toMatchObject({ ok: false, reason: 'retryable' });
    await s.close();
  });
});

describe('mapApnsResponse', () => {
  it('treats ExpiredToken as gone and DeviceTokenNotForTopic as invalid', () => {
    expect(mapApnsResponse(410, 'ExpiredToken')).toMatchObject({ reason: 'gone' });
    expect(mapApnsResponse(400, 'DeviceTokenNotForTopic')).toMatchObject({ reason: 'invalid' });
  });
});
