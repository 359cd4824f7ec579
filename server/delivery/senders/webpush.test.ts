import { createECDH } from 'node:crypto';
import { Agent } from 'node:https';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptAes128gcm, start, type WebPushFake } from '../../../tests/fakes/webpush';
import { MAX_PAYLOAD_BYTES, WebPushSender, encryptWebPushPayload, generateVapidKeys, mapWebPushResponse } from './webpush';

let fake: WebPushFake;
const vapid = { ...generateVapidKeys(), subject: 'mailto:ops@nudge.test' };

beforeAll(async () => {
  fake = await start();
});
afterAll(() => fake.close());

function sender(clock?: () => number) {
  return new WebPushSender({ vapid, ca: fake.ca, clock });
}

describe('WebPushSender against the push-service fake', () => {
  it('delivers a payload the push service decrypts to exactly what was sent, with TTL, urgency and topic', async () => {
    const s = sender();
    const sub = fake.createSubscription({ applicationServerKey: vapid.publicKey });
    const payload = JSON.stringify({ title: 'Xin chào', body: 'Giảm giá 50% hôm nay 🎉', url: 'https://shop.example/sale' });
    const result = await s.send(sub, { payload, ttl: 3600, urgency: 'high', topic: 'sale-today' });
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.providerId).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/message\//);
    const got = fake.received.find((r) => r.subscriptionId === sub.id)!;
    expect(got.text).toBe(payload);
    expect(got).toMatchObject({ ttl: 3600, urgency: 'high', topic: 'sale-today' });
    expect(got.vapid).toMatchObject({ aud: fake.url, sub: 'mailto:ops@nudge.test', publicKey: vapid.publicKey });
    await s.close();
  });

  it('sends a payload-less push and a payload of the largest size that fits one record', async () => {
    const s = sender();
    const sub = fake.createSubscription();
    expect(await s.send(sub, {})).toMatchObject({ ok: true });
    const big = 'x'.repeat(MAX_PAYLOAD_BYTES);
    expect(await s.send(sub, { payload: big })).toMatchObject({ ok: true });
    const mine = fake.received.filter((r) => r.subscriptionId === sub.id);
    expect(mine.map((r) => r.payload?.length ?? null)).toEqual([null, MAX_PAYLOAD_BYTES]);
    await s.close();
  });

  it('refuses locally a payload over one record, a bad topic and malformed subscription keys', async () => {
    const s = sender();
    const sub = fake.createSubscription();
    expect(await s.send(sub, { payload: 'x'.repeat(MAX_PAYLOAD_BYTES + 1) })).toMatchObject({ ok: false, reason: 'payload' });
    expect(await s.send(sub, { payload: 'a', topic: 'has spaces' })).toMatchObject({ ok: false, reason: 'payload' });
    expect(await s.send({ ...sub, keys: { p256dh: 'AAAA', auth: sub.keys.auth } }, { payload: 'a' })).toMatchObject({
      ok: false,
      reason: 'invalid',
    });
    expect(fake.received.filter((r) => r.subscriptionId === sub.id)).toHaveLength(0);
    await s.close();
  });

  it('signs one VAPID JWT per push-service origin and reuses it until an hour before it expires', async () => {
    let now = Date.now();
    const s = sender(() => now);
    const subs = [fake.createSubscription(), fake.createSubscription(), fake.createSubscription()];
    for (const sub of subs) expect(await s.send(sub, { payload: 'a' })).toMatchObject({ ok: true });
    expect(s.jwtsSigned).toBe(1);
    expect(s.authorization('https://other.push.example')).not.toBe(s.authorization(fake.url));
    expect(s.jwtsSigned).toBe(2);
    now += 10 * 3600 * 1000; // 10 h into a 12 h JWT: still reused
    s.authorization(fake.url);
    expect(s.jwtsSigned).toBe(2);
    now += 1.5 * 3600 * 1000; // 11.5 h: within the last hour, re-signed
    s.authorization(fake.url);
    expect(s.jwtsSigned).toBe(3);
    await s.close();
  });

  it('is refused with auth when the subscription belongs to another VAPID key', async () => {
    const s = sender();
    const sub = fake.createSubscription({ applicationServerKey: generateVapidKeys().publicKey });
    expect(await s.send(sub, { payload: 'a' })).toMatchObject({ ok: false, reason: 'auth', status: 403 });
    await s.close();
  });

  it('is refused when its JWT has expired by the push service clock', async () => {
    const s = sender(() => Date.now() - 13 * 3600 * 1000);
    const sub = fake.createSubscription();
    const result = await s.send(sub, { payload: 'a' });
    expect(result).toMatchObject({ ok: false, reason: 'auth', status: 403 });
    expect(!result.ok && result.detail).toContain('expired');
    await s.close();
  });

  it('maps 410 and 404 to gone, 413 to payload, 429 to rate_limited with Retry-After, 5xx to retryable, 400 to invalid', async () => {
    const s = sender();
    const sub = fake.createSubscription();
    fake.failNext(sub.id, { status: 404 });
    fake.failNext(sub.id, { status: 413 });
    fake.failNext(sub.id, { status: 429, retryAfter: '30' });
    fake.failNext(sub.id, { status: 503, retryAfter: '5' });
    fake.failNext(sub.id, { status: 500 });
    fake.failNext(sub.id, { status: 400 });
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await s.send(sub, { payload: 'a' }));
    expect(results.map((r) => !r.ok && r.reason)).toEqual(['gone', 'payload', 'rate_limited', 'retryable', 'retryable', 'invalid']);
    expect(results[2]).toMatchObject({ retryAfterMs: 30_000, status: 429 });
    expect(results[3]).toMatchObject({ retryAfterMs: 5_000 });
    fake.remove(sub.id);
    expect(await s.send(sub, { payload: 'a' })).toMatchObject({ ok: false, reason: 'gone', status: 410 });
    await s.close();
  });

  it('answers retryable when the push service cannot be reached', async () => {
    const s = new WebPushSender({ vapid, ca: fake.ca });
    const result = await s.send({ endpoint: 'https://127.0.0.1:1/push/x', keys: fake.createSubscription().keys }, { payload: 'a' });
    expect(result).toMatchObject({ ok: false, reason: 'retryable' });
    await s.close();
  });
});

describe('interoperability with the web-push package', () => {
  it('the push service decrypts both our output and web-push output for the same subscription', async () => {
    const sub = fake.createSubscription({ applicationServerKey: vapid.publicKey });
    const agent = new Agent({ ca: fake.ca });
    const theirs = await webpush.sendNotification(sub, 'from web-push', {
      vapidDetails: vapid,
      TTL: 60,
      agent,
      contentEncoding: 'aes128gcm',
    });
    expect(theirs.statusCode).toBe(201);
    const s = sender();
    expect(await s.send(sub, { payload: 'from nudge', ttl: 60 })).toMatchObject({ ok: true });
    const texts = fake.received.filter((r) => r.subscriptionId === sub.id).map((r) => r.text);
    expect(texts).toEqual(['from web-push', 'from nudge']);
    agent.destroy();
    await s.close();
  });

  it('reads VAPID keys produced by web-push', async () => {
    const keys = webpush.generateVAPIDKeys();
    const s = new WebPushSender({ vapid: { ...keys, subject: 'https://nudge.test' }, ca: fake.ca });
    expect(await s.send(fake.createSubscription({ applicationServerKey: keys.publicKey }), { payload: 'ok' })).toMatchObject({ ok: true });
    await s.close();
  });

  it('reproduces the RFC 8291 Appendix A example byte for byte, and the push service decrypts it', () => {
    const rfc = {
      uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
      uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
      asPrivate: 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw',
      auth: 'BTBZMqHH6r4Tts7J_aSIgg',
      salt: 'DGv6ra1nlYgDCS1FRnbzlw',
      body:
        'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
    };
    const plaintext = Buffer.from('When I grow up, I want to be a watermelon');
    const body = encryptWebPushPayload({ p256dh: rfc.uaPublic, auth: rfc.auth }, plaintext, {
      salt: Buffer.from(rfc.salt, 'base64url'),
      ephemeralPrivateKey: Buffer.from(rfc.asPrivate, 'base64url'),
    });
    expect(body.toString('base64url')).toBe(rfc.body);
    const ua = createECDH('prime256v1');
    ua.setPrivateKey(Buffer.from(rfc.uaPrivate, 'base64url'));
    const decrypted = decryptAes128gcm(body, { ecdh: ua, publicKey: Buffer.from(rfc.uaPublic, 'base64url'), auth: Buffer.from(rfc.auth, 'base64url') });
    expect(decrypted.toString()).toBe(plaintext.toString());
  });

  it('uses a new application-server key and a new salt for every message', () => {
    const sub = fake.createSubscription();
    const bodies = Array.from({ length: 50 }, () => encryptWebPushPayload(sub.keys, Buffer.from('same')));
    const keyIds = new Set(bodies.map((b) => b.subarray(21, 86).toString('hex')));
    const salts = new Set(bodies.map((b) => b.subarray(0, 16).toString('hex')));
    expect(keyIds.size).toBe(50);
    expect(salts.size).toBe(50);
  });

  it('encrypts deterministically given salt and ephemeral key, and differently otherwise', () => {
    const sub = fake.createSubscription();
    const salt = Buffer.alloc(16, 7);
    const eph = Buffer.alloc(32, 9);
    const a = encryptWebPushPayload(sub.keys, Buffer.from('same'), { salt, ephemeralPrivateKey: eph });
    const b = encryptWebPushPayload(sub.keys, Buffer.from('same'), { salt, ephemeralPrivateKey: eph });
    expect(a.equals(b)).toBe(true);
    expect(a.readUInt32BE(16)).toBe(4096);
    expect(encryptWebPushPayload(sub.keys, Buffer.from('same')).equals(a)).toBe(false);
  });
});

describe('mapWebPushResponse', () => {
  it('reads an HTTP-date Retry-After', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(mapWebPushResponse(429, '', 'Wed, 01 Jan 2025 00:01:00 GMT', now)).toMatchObject({ retryAfterMs: 60_000 });
  });
  it('treats 401 as auth and 202 as ok', () => {
    expect(mapWebPushResponse(401, '', undefined, 0)).toMatchObject({ ok: false, reason: 'auth' });
    expect(mapWebPushResponse(202, '', undefined, 0)).toEqual({ ok: true });
  });
});
