import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type FcmFake } from '../../../tests/fakes/fcm';
import { FcmSender, mapFcmError } from './fcm';

let fake: FcmFake;
let now = Date.now();
const clock = () => now;

beforeAll(async () => {
  fake = await start({ clock });
});
afterAll(() => fake.close());

function sender() {
  return new FcmSender({ serviceAccount: fake.serviceAccount, baseUrl: fake.url, clock });
}

const message = { notification: { title: 'Flash sale', body: 'Giảm 30% trong 2 giờ' }, data: { url: 'https://shop.example' } };

describe('FcmSender against the FCM fake', () => {
  it('gets an OAuth token with a signed assertion and delivers the message to the registration token', async () => {
    const s = sender();
    const token = fake.registerToken();
    const result = await s.send({ token }, message);
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.providerId).toMatch(/^projects\/nudge-test\/messages\//);
    expect(fake.received.at(-1)).toMatchObject({ token, message: { ...message, token } });
    await s.close();
  });

  it('fetches one access token for many concurrent sends and refreshes it five minutes before expiry', async () => {
    const s = sender();
    const before = fake.tokenRequests();
    const tokens = Array.from({ length: 20 }, () => fake.registerToken());
    const results = await Promise.all(tokens.map((token) => s.send({ token }, message)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(s.tokensFetched).toBe(1);
    expect(fake.tokenRequests() - before).toBe(1);
    now += 50 * 60_000; // 50 min into a 59:59 token: still used
    await s.send({ token: tokens[0] }, message);
    expect(s.tokensFetched).toBe(1);
    now += 6 * 60_000; // 56 min: inside the 5-minute margin, refreshed
    expect(await s.send({ token: tokens[0] }, message)).toMatchObject({ ok: true });
    expect(s.tokensFetched).toBe(2);
    await s.close();
  });

  it('refreshes the token once on 401 and succeeds', async () => {
    const s = sender();
    const token = fake.registerToken();
    await s.send({ token }, message);
    fake.revokeAccessTokens();
    expect(await s.send({ token }, message)).toMatchObject({ ok: true });
    expect(s.tokensFetched).toBe(2);
    await s.close();
  });

  it('answers auth when the 401 persists after one refresh', async () => {
    const s = sender();
    const token = fake.registerToken();
    fake.failNext(token, { status: 401 }, 2);
    expect(await s.send({ token }, message)).toMatchObject({ ok: false, reason: 'auth', status: 401 });
    expect(s.tokensFetched).toBe(2);
    await s.close();
  });

  it('answers auth when the token endpoint refuses the assertion (wrong key)', async () => {
    const other = await start();
    const s = new FcmSender({
      serviceAccount: { ...fake.serviceAccount, private_key: other.serviceAccount.private_key },
      baseUrl: fake.url,
      clock,
    });
    const result = await s.send({ token: fake.registerToken() }, message);
    expect(result).toMatchObject({ ok: false, reason: 'auth', status: 400 });
    expect(!result.ok && result.detail).toContain('invalid_grant');
    await s.close();
    await other.close();
  });

  it('maps UNREGISTERED to gone, a malformed token to invalid, bad data to payload', async () => {
    const s = sender();
    const token = fake.registerToken();
    fake.unregister(token);
    expect(await s.send({ token }, message)).toMatchObject({ ok: false, reason: 'gone', status: 404 });
    expect(await s.send({ token: 'not-a-token' }, message)).toMatchObject({ ok: false, reason: 'invalid', status: 400 });
    const live = fake.registerToken();
    expect(await s.send({ token: live }, { data: { n: 1 as unknown as string } })).toMatchObject({ ok: false, reason: 'payload' });
    await s.close();
  });

  it('maps QUOTA_EXCEEDED with Retry-After to rate_limited, INTERNAL and UNAVAILABLE to retryable, SENDER_ID_MISMATCH to invalid', async () => {
    const s = sender();
    const token = fake.registerToken();
    fake.failNext(token, { status: 429, retryAfter: '17' });
    fake.failNext(token, { status: 500 });
    fake.failNext(token, { status: 503 });
    fake.failNext(token, { status: 403 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await s.send({ token }, message));
    expect(results.map((r) => !r.ok && r.reason)).toEqual(['rate_limited', 'retryable', 'retryable', 'invalid']);
    expect(results[0]).toMatchObject({ retryAfterMs: 17_000 });
    expect(await s.send({ token }, message)).toMatchObject({ ok: true });
    await s.close();
  });
});

describe('mapFcmError', () => {
  it('treats THIRD_PARTY_AUTH_ERROR as auth and an unknown 4xx as other', () => {
    const body = JSON.stringify({ error: { code: 401, status: 'UNAUTHENTICATED', details: [{ errorCode: 'THIRD_PARTY_AUTH_ERROR' }] } });
    expect(mapFcmError(401, body, undefined, 0)).toMatchObject({ reason: 'auth' });
    expect(mapFcmError(409, 'x', undefined, 0)).toMatchObject({ reason: 'other' });
  });
});
