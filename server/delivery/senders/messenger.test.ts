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

  it('sends a card as a generic template attachment, with or without a tag', async () => {
    const page = fake.addPage();
    const psid = fake.addPerson(page.id);
    const s = new MessengerSender({ pageToken: page.token, baseUrl: fake.url });
    const card = {
      title: 'Flash sale',
      subtitle: 'Giảm 50% hôm nay',
      image_url: 'https://shop.example.vn/banner.jpg',
      default_action: { type: 'web_url' as const, url: 'https://shop.example.vn/sale' },
      buttons: [{ type: 'web_url' as const, url: 'https://shop.example.vn/cart', title: 'Mua ngay' }],
    };
    expect(await s.send({ psid }, { card })).toMatchObject({ ok: true });
    expect(await s.send({ psid }, { card, tag: 'POST_PURCHASE_UPDATE' })).toMatchObject({ ok: true });
    expect(fake.received.slice(-2)).toMatchObject([
      { psid, messagingType: 'UPDATE', tag: null, text: null, template: { template_type: 'generic', elements: [card] } },
      { psid, messagingType: 'MESSAGE_TAG', tag: 'POST_PURCHASE_UPDATE', text: null, template: { template_type: 'generic', elements: [card] } },
    ]);
    await s.close();
  });

  it('refuses a card Facebook would refuse before sending it, and the fake answers #100 as Facebook does', async () => {
    const page = fake.addPage();
    const psid = fake.addPerson(page.id);
    const s = new MessengerSender({ pageToken: page.token, baseUrl: fake.url });
    const before = fake.received.length;
    const button = (title: string, url = 'https://shop.example.vn/a') => ({ type: 'web_url' as const, url, title });
    for (const card of [
      { title: '' },
      { title: 'x'.repeat(81) },
      { title: 'ok', subtitle: 'y'.repeat(81) },
      { title: 'ok', buttons: [button('a'), button('b'), button('c'), button('d')] },
      { title: 'ok', buttons: [button('Một nút có tên quá dài')] },
      { title: 'ok', buttons: [button('Xem', 'http://shop.example.vn/a')] },
    ]) {
      expect(await s.send({ psid }, { card })).toMatchObject({ ok: false, reason: 'payload' });
    }
    expect(fake.received.length).toBe(before);

    // The fake itself: text and attachment together, or a bad card, is 400 OAuthException #100.
    const post = (message: unknown) =>
      fetch(`${fake.url}/me/messages?access_token=${page.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ recipient: { id: psid }, messaging_type: 'UPDATE', message }),
      });
    const template = (elements: unknown[]) => ({ attachment: { type: 'template', payload: { template_type: 'generic', elements } } });
    for (const message of [
      { text: 'hi', ...template([{ title: 'ok' }]) },
      template([{ title: '' }]),
      template([{ title: 'x'.repeat(81) }]),
      template([{ title: 'ok', subtitle: 'y'.repeat(81) }]),
      template([{ title: 'ok', buttons: [button('a'), button('b'), button('c'), button('d')] }]),
      template([{ title: 'ok', buttons: [button('Một nút có tên quá dài')] }]),
      template([{ title: 'ok', buttons: [button('Xem', 'http://shop.example.vn/a')] }]),
    ]) {
      const answer = await post(message);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error: { type: 'OAuthException', code: 100 } });
    }
    expect((await post(template([{ title: 'ok', buttons: [button('Xem')] }]))).status).toBe(200);
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
