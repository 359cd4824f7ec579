import { describe, expect, it } from 'vitest';
import { NotificationContent } from '../../shared/contract';
import { classify } from './deliver';
import { apnsMessage, deliveryIdOf, fcmMessage, messengerMessage, MESSENGER_TEXT_MAX, smsText, webPushPayload, type PayloadContext } from './payloads';

const content = NotificationContent.parse({
  heading: 'Flash sale',
  content: 'Giảm 50% hôm nay',
  target_url: 'https://shop.example.vn/sale?ref=home#top',
  thumbnail_url: 'https://shop.example.vn/icon.png',
  image_url: 'https://shop.example.vn/banner.jpg',
  buttons: [{ action_id: 'buy', button_text: 'Mua ngay', launch_url: 'https://shop.example.vn/cart' }],
  utm: { source: 'nudge', medium: 'push', campaign: 'tet' },
  additional_data: '{"sku":"A-1","qty":2,"from":"reserved"}',
});

const ctx: PayloadContext = {
  notificationId: 42,
  content,
  clientKey: 'ck_client_key',
  apiUrl: 'https://nudge.example.com',
  iconUrl: 'https://shop.example.vn/default.png',
  urgency: 'high',
  ttlSeconds: 3600,
  expiresAt: 1_900_000_000,
};

describe('the web push payload', () => {
  it('is the service worker format with every link carrying the UTM, and the delivery id as message id', () => {
    const payload = JSON.parse(webPushPayload(ctx)(1234));
    expect(payload).toEqual({
      title: 'Flash sale',
      body: 'Giảm 50% hôm nay',
      icon: 'https://shop.example.vn/icon.png',
      image: 'https://shop.example.vn/banner.jpg',
      url: 'https://shop.example.vn/sale?ref=home&utm_source=nudge&utm_medium=push&utm_campaign=tet#top',
      buttons: [{ action: 'buy', title: 'Mua ngay', url: 'https://shop.example.vn/cart?utm_source=nudge&utm_medium=push&utm_campaign=tet' }],
      data: { sku: 'A-1', qty: 2, from: 'reserved' },
      key: 'ck_client_key',
      api: 'https://nudge.example.com',
      message_id: 'd_1234',
    });
    expect(deliveryIdOf(payload.message_id)).toBe(1234);
  });

  it("falls back to the platform's icon and leaves out what the message lacks", () => {
    const bare = NotificationContent.parse({ heading: 'Hi', content: 'There' });
    expect(JSON.parse(webPushPayload({ ...ctx, content: bare })(7))).toEqual({
      title: 'Hi',
      body: 'There',
      icon: 'https://shop.example.vn/default.png',
      key: 'ck_client_key',
      api: 'https://nudge.example.com',
      message_id: 'd_7',
    });
  });

  it('reads back only message ids the engine made', () => {
    for (const id of [undefined, '', 'm_12', 'd_', 'd_0', 'd_12x', 'd_-3']) expect(deliveryIdOf(id)).toBeNull();
  });
});

describe('the FCM message', () => {
  it('has the notification, string-only data without reserved keys, the TTL and the priority', () => {
    const message = fcmMessage(ctx);
    expect(message.notification).toEqual({ title: 'Flash sale', body: 'Giảm 50% hôm nay', image: 'https://shop.example.vn/banner.jpg' });
    expect(message.data).toEqual({
      sku: 'A-1',
      qty: '2',
      notification_id: '42',
      url: 'https://shop.example.vn/sale?ref=home&utm_source=nudge&utm_medium=push&utm_campaign=tet#top',
      thumbnail_url: 'https://shop.example.vn/icon.png',
      buttons: JSON.stringify([{ action: 'buy', title: 'Mua ngay', url: 'https://shop.example.vn/cart?utm_source=nudge&utm_medium=push&utm_campaign=tet' }]),
    });
    expect(message.android).toEqual({ ttl: '3600s', priority: 'HIGH', notification: { image: 'https://shop.example.vn/banner.jpg' } });
    expect(fcmMessage({ ...ctx, urgency: 'low' }).android).toMatchObject({ priority: 'NORMAL' });
  });
});

describe('the APNs notification', () => {
  it('alerts with mutable content, expires with the TTL and lowers the priority for low urgency', () => {
    const message = apnsMessage(ctx);
    expect(message.payload).toMatchObject({
      aps: { alert: { title: 'Flash sale', body: 'Giảm 50% hôm nay' }, 'mutable-content': 1 },
      notification_id: 42,
      url: 'https://shop.example.vn/sale?ref=home&utm_source=nudge&utm_medium=push&utm_campaign=tet#top',
      image_url: 'https://shop.example.vn/banner.jpg',
      sku: 'A-1',
    });
    expect(message).toMatchObject({ pushType: 'alert', priority: 10, expiration: 1_900_000_000 });
    expect(apnsMessage({ ...ctx, urgency: 'very-low' }).priority).toBe(5);
  });
});

describe('SMS and Messenger', () => {
  it('SMS sends the text and the target link with UTM', () => {
    expect(smsText(content)).toBe('Giảm 50% hôm nay https://shop.example.vn/sale?ref=home&utm_source=nudge&utm_medium=push&utm_campaign=tet#top');
  });

  it('Messenger sends a message with a link, an image or buttons as a generic template card, links with UTM', () => {
    expect(messengerMessage(content)).toEqual({
      card: {
        title: 'Flash sale',
        subtitle: 'Giảm 50% hôm nay',
        image_url: 'https://shop.example.vn/banner.jpg',
        default_action: { type: 'web_url', url: 'https://shop.example.vn/sale?ref=home&utm_source=nudge&utm_medium=push&utm_campaign=tet#top' },
        buttons: [{ type: 'web_url', url: 'https://shop.example.vn/cart?utm_source=nudge&utm_medium=push&utm_campaign=tet', title: 'Mua ngay' }],
      },
    });
    // Only a button: the card has just the button; only the thumbnail: it is the image.
    const onlyButton = NotificationContent.parse({ heading: 'Tết', content: 'Mở bán', buttons: [{ action_id: 'go', button_text: 'Xem', launch_url: 'https://shop.example.vn/tet' }] });
    expect(messengerMessage(onlyButton)).toEqual({ card: { title: 'Tết', subtitle: 'Mở bán', buttons: [{ type: 'web_url', url: 'https://shop.example.vn/tet', title: 'Xem' }] } });
    const thumbnail = NotificationContent.parse({ heading: 'Tết', content: 'Mở bán', thumbnail_url: 'https://shop.example.vn/t.png' });
    expect(messengerMessage(thumbnail)).toEqual({ card: { title: 'Tết', subtitle: 'Mở bán', image_url: 'https://shop.example.vn/t.png' } });
  });

  it("fits the card into Messenger's limits: 80-character title and subtitle, 20-character button titles, link buttons only", () => {
    const long = NotificationContent.parse({
      heading: 'Đại tiệc '.repeat(20),
      content: 'x'.repeat(300),
      target_url: 'https://shop.example.vn/a',
      buttons: [
        { action_id: 'one', button_text: 'Xem ngay sản phẩm một mới', launch_url: 'https://shop.example.vn/one' },
        { action_id: 'close', button_text: 'Đóng' },
        { action_id: 'two', button_text: 'Mua', launch_url: 'https://shop.example.vn/two' },
      ],
    });
    const card = messengerMessage(long).card!;
    expect(card.title).toHaveLength(80);
    expect(card.title.endsWith('…')).toBe(true);
    expect(card.subtitle).toBe(`${'x'.repeat(79)}…`);
    expect(card.buttons).toEqual([
      { type: 'web_url', url: 'https://shop.example.vn/one', title: 'Xem ngay sản phẩm m…' },
      { type: 'web_url', url: 'https://shop.example.vn/two', title: 'Mua' },
    ]);
    // Without a heading the content's start is the title, not repeated as a subtitle; no emoji is cut in half.
    const noHeading = messengerMessage(NotificationContent.parse({ content: `${'a'.repeat(78)}🎉 sale`, target_url: 'https://shop.example.vn/a' }));
    expect(noHeading.card).toMatchObject({ title: `${'a'.repeat(78)}…` });
    expect(noHeading.card).not.toHaveProperty('subtitle');
  });

  it('stays plain text for text alone, or a link that is not https, with every link in it', () => {
    expect(messengerMessage(NotificationContent.parse({ heading: 'Hi', content: 'There' }))).toEqual({ text: 'Hi\n\nThere' });
    // An http image alone is no reason for a card (it can't show it).
    expect(messengerMessage(NotificationContent.parse({ content: 'There', image_url: 'http://shop.example.vn/b.jpg' }))).toEqual({ text: 'There' });
    const http = NotificationContent.parse({ ...content, target_url: 'http://shop.example.vn/sale' });
    expect(messengerMessage(http)).toEqual({
      text: 'Flash sale\n\nGiảm 50% hôm nay\n\nhttp://shop.example.vn/sale?utm_source=nudge&utm_medium=push&utm_campaign=tet\nMua ngay: https://shop.example.vn/cart?utm_source=nudge&utm_medium=push&utm_campaign=tet',
    });
  });

  it("shortens a long Messenger text to Messenger's limit without cutting a link", () => {
    const long = NotificationContent.parse({ heading: 'H', content: 'x'.repeat(2000), target_url: 'http://shop.example.vn/a' });
    const text = messengerMessage(long).text!;
    expect(text.length).toBeLessThanOrEqual(MESSENGER_TEXT_MAX);
    expect(text.endsWith('http://shop.example.vn/a')).toBe(true);
  });
});

describe('what a provider answer does to a delivery', () => {
  const fail = (reason: 'gone' | 'invalid' | 'rate_limited' | 'retryable' | 'auth' | 'payload' | 'other', status?: number) =>
    ({ ok: false, reason, status, detail: '' }) as const;

  it('unsubscribes on gone and invalid, retries 429 and 5xx until the last try, fails the rest at once', () => {
    expect(classify({ ok: true, providerId: 'p' }, 0, 5)).toEqual({ kind: 'sent', providerId: 'p' });
    expect(classify(fail('gone', 410), 0, 5)).toEqual({ kind: 'failed', reason: 'unsubscribed', unsubscribe: true });
    expect(classify(fail('invalid', 400), 0, 5)).toEqual({ kind: 'failed', reason: 'unsubscribed', unsubscribe: true });
    expect(classify(fail('rate_limited', 429), 0, 5)).toEqual({ kind: 'retry', reason: 'rate_limited' });
    expect(classify(fail('rate_limited', 429), 4, 5)).toEqual({ kind: 'failed', reason: 'rate_limited' });
    expect(classify(fail('retryable', 503), 3, 5)).toEqual({ kind: 'retry', reason: 'provider_error' });
    expect(classify(fail('retryable', 503), 4, 5)).toEqual({ kind: 'failed', reason: 'provider_error' });
    expect(classify(fail('retryable'), 0, 5, true)).toEqual({ kind: 'failed', reason: 'network' });
    expect(classify(fail('auth', 403), 0, 5)).toEqual({ kind: 'failed', reason: 'auth' });
    expect(classify(fail('payload', 413), 0, 5)).toEqual({ kind: 'failed', reason: 'invalid_request' });
    expect(classify(fail('other', 422), 0, 5)).toEqual({ kind: 'failed', reason: 'invalid_request' });
  });
});
