import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type SmsFake } from '../../../tests/fakes/sms';
import { SMS_MAX_LENGTH, SmsSender } from './sms';

let fake: SmsFake;
beforeAll(async () => {
  fake = await start();
});
afterAll(() => fake.close());

function sender(overrides: Partial<{ username: string; password: string; brandName: string }> = {}) {
  return new SmsSender({ baseUrl: fake.url, username: fake.username, password: fake.password, brandName: fake.brandName, ...overrides });
}

describe('SmsSender against the SMS gateway fake', () => {
  it('sends the text under the brand name with Basic auth', async () => {
    const s = sender();
    const result = await s.send({ phone: '+84901234567' }, { text: 'Mã giảm giá của bạn: SALE50' });
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.providerId).toBeTruthy();
    expect(fake.received.at(-1)).toMatchObject({ brandName: 'NUDGE', to: '+84901234567', text: 'Mã giảm giá của bạn: SALE50' });
    await s.close();
  });

  it('answers auth for a wrong password and for an unapproved brand name', async () => {
    const wrong = sender({ password: 'nope' });
    expect(await wrong.send({ phone: '+84901234567' }, { text: 'a' })).toMatchObject({ ok: false, reason: 'auth', status: 401 });
    const brand = sender({ brandName: 'OTHER' });
    expect(await brand.send({ phone: '+84901234567' }, { text: 'a' })).toMatchObject({ ok: false, reason: 'auth', detail: expect.stringContaining('BRAND_NAME_NOT_APPROVED') });
    await wrong.close();
    await brand.close();
  });

  it('maps an opted-out number to gone, a malformed one to invalid, 429 to rate_limited, 5xx to retryable', async () => {
    const s = sender();
    fake.optOut('+84900000001');
    expect(await s.send({ phone: '+84900000001' }, { text: 'a' })).toMatchObject({ ok: false, reason: 'gone', status: 422 });
    expect(await s.send({ phone: '0123' }, { text: 'a' })).toMatchObject({ ok: false, reason: 'invalid' });
    fake.failNext('+84900000002', { status: 429, retryAfter: '2' });
    fake.failNext('+84900000002', { status: 502 });
    expect(await s.send({ phone: '+84900000002' }, { text: 'a' })).toMatchObject({ ok: false, reason: 'rate_limited', retryAfterMs: 2000 });
    expect(await s.send({ phone: '+84900000002' }, { text: 'a' })).toMatchObject({ ok: false, reason: 'retryable', status: 502 });
    expect(await s.send({ phone: '+84900000002' }, { text: 'x'.repeat(SMS_MAX_LENGTH + 1) })).toMatchObject({ ok: false, reason: 'payload' });
    await s.close();
  });
});
