import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type GraphFake } from '../../../tests/fakes/graph';
import { MessengerSender, checkPage } from './messenger';

let fake: GraphFake;
beforeAll(async () => {
  fake = await start();
});
afterAll(() => fake.close());

describe('MessengerSender against the Graph API fake', () => {
  it('sends UPDATE without a tag and MESSAGE_TAG with one, to the PSID, as the page', async () => {
    const page = fake.addPage();
    const psid = fake.addPerson(page.id);
    const s = new MessengerSender({ pageToken: page.token, baseUrl: fake.url });
    const plain = await s.send({ psid }, { text: 'Chào bạn!' });
    expect(plain).toMatchObject({ ok: true });
    expect(plain.ok && plain.providerId).toMatch(/^m_/);
    expect(await s.send({ psid }, { text: 'Đơn hàng đã gửi', tag: 'POST_PURCHASE_UPDATE' })).toMatchObject({ ok: true });
    expect(fake.received.slice(-2)).toMatchObject([
      { pageId: page.id, psid, messagingType: 'UPDATE', tag: null, text: 'Chào bạn!' },
      { pageId: page.id, psid, messagingType: 'MESSAGE_TAG', tag: 'POST_PURCHASE_UPDATE', text: 'Đơn hàng đã gửi' },
    ]);
    await s.close();
  });

  it('maps #190 to auth, #551 and unknown users to gone, #613 to rate_limited, #2 and #1200 to retryable', async () => {
    const page = fake.addPage();
    const psid = fake.addPerson(page.id);
    const bad = new MessengerSender({ pageToken: 'expired', baseUrl: fake.url });
    expect(await bad.send({ psid }, { text: 'a' })).toMatchObject({ ok: false, reason: 'auth' });
    const s = new MessengerSender({ pageToken: page.token, baseUrl: fake.url });
    const blocked = fake.addPerson(page.id);
    fake.block(blocked);
    expect(await s.send({ psid: blocked }, { text: 'a' })).toMatchObject({ ok: false, reason: 'gone' });
    expect(await s.send({ psid: fake.addPerson(fake.addPage().id) }, { text: 'a' })).toMatchObject({ ok: false, reason: 'gone' });
    fake.failNext(psid, { status: 400, code: 613, message: '(#613) Calls to this api have exceeded the rate limit.' });
    fake.failNext(psid, { status: 500, code: 2, message: 'An unexpected error has occurred. Please retry your request later.' });
    fake.failNext(psid, { status: 500, code: 1200, message: 'Temporary send message failure. Please try again later' });
    const reasons = [];
    for (let i = 0; i < 3; i++) {
      const r = await s.send({ psid }, { text: 'a' });
      reasons.push(!r.ok && r.reason);
    }
    expect(reasons).toEqual(['rate_limited', 'retryable', 'retryable']);
    await bad.close();
    await s.close();
  });

  it('checkPage accepts the page token of that page and refuses a bad token or another page id', async () => {
    const page = fake.addPage('Cửa hàng Nudge');
    expect(await checkPage(page.id, page.token, { baseUrl: fake.url })).toEqual({ ok: true, id: page.id, name: 'Cửa hàng Nudge' });
    expect(await checkPage(page.id, 'wrong', { baseUrl: fake.url })).toMatchObject({ ok: false, reason: 'auth' });
    expect(await checkPage(fake.addPage().id, page.token, { baseUrl: fake.url })).toMatchObject({ ok: false, reason: 'payload' });
    expect(await checkPage(page.id, page.token, { baseUrl: 'http://127.0.0.1:1/v19.0' })).toMatchObject({ ok: false, reason: 'retryable' });
  });
});
