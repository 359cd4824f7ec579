import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUtcOffset } from '../../shared/format';
import { start as startFcm, type FcmFake } from '../fakes/fcm';
import { start as startSms, type SmsFake } from '../fakes/sms';
import { start as startWebPush, type WebPushFake } from '../fakes/webpush';
import { PHONE, api, createAccount, deviceApi, newPage, resize, shot, signIn, startStack, type Stack } from './harness';

/**
 * The reason the product exists, as a merchant meets it: set up web push and an SMS provider in /platform,
 * build a segment, write a web push for it, send it, and watch it go from waiting to executed with its numbers
 * on the detail page; the push service (a local fake that checks the VAPID JWT and decrypts the RFC 8291
 * payload) received it on exactly the segment's subscribers, and an SMS reached the SMS gateway's fake.
 */

const PASSWORD = 'correct horse 42';
const stamp = Date.now().toString(36);
const APP = `lan_${stamp}`;
const owner = { name: 'Trần Thu Lan', email: `lan.${stamp}@shop.example` };
let stack: Stack;
let token: string;
let clientKey: string;
let push: WebPushFake;
let sms: SmsFake;
let fcm: FcmFake;
/** The merchant's own webhook receiver (on-premises, so allowed by WEBHOOK_ALLOWED_HOSTS). */
let receiver: Server;
const hooks: { headers: Record<string, unknown>; body: { type: string; data: Record<string, unknown> } }[] = [];

/** A call of the public device API, as an app or the shop's server makes it with the client key, which must succeed; its data. */
const call = <T = unknown>(method: string, path: string, body: unknown) => deviceApi<T>(stack, clientKey, method, path, body);

/** A device of the shop's site, registered through the public device API, subscribed at the fake push service. */
async function subscriber(deviceId: string, country: string, phone?: string) {
  await call('POST', '/v1/devices', { device_id: deviceId, platform: 'web', device_type: 'mobile', os: 'Android', language: 'vi', country });
  await call('POST', `/v1/devices/${deviceId}/sessions`, {});
  if (phone) await call('PUT', `/v1/devices/${deviceId}/identity`, { mobile_number: phone });
  const subscription = push.createSubscription();
  const response = await fetch(`${stack.url}/api/sdk/push/subscribe`, {
    method: 'POST',
    body: JSON.stringify({ key: clientKey, visitor_id: deviceId, subscription: { endpoint: subscription.endpoint, keys: subscription.keys } }),
  });
  expect(((await response.json()) as { success: boolean }).success).toBe(true);
  return subscription;
}

/**
 * From the messages list, a new message of a type (its name in the type picker: 'Web push', 'Mobile push'), its
 * heading and text written in the create form that opens.
 */
const MESSAGE_ROUTES = { 'Web push': 'web_push', 'Mobile push': 'mobile_push' } as const;
async function writeMessage(page: Page, type: keyof typeof MESSAGE_ROUTES, heading: string, text: string) {
  await page.goto(`${stack.url}/application/${APP}/notification/basic`);
  await page.getByRole('button', { name: 'Create message' }).first().click();
  await page.getByRole('dialog').getByRole('button', { name: `New ${type}` }).click();
  await page.waitForURL(new RegExp(`/notification/${MESSAGE_ROUTES[type]}`));
  await page.getByLabel('Heading').fill(heading);
  await page.getByLabel('Message', { exact: true }).fill(text);
}

/** An Android install of the shop's app, registered by the app through the public device API. */
const appInstall = (deviceId: string, fields: Record<string, unknown>) =>
  call<{ player_id: number; subscribed: boolean }>('POST', '/v1/devices', { device_id: deviceId, platform: 'android', os: 'Android', app_version: '2.1.0', ...fields });

beforeAll(async () => {
  push = await startWebPush();
  sms = await startSms({ username: 'lan_shop', password: 'sms-pass-1', brandNames: ['LANSHOP'] });
  fcm = await startFcm();
  // The fake push service's TLS certificate authority, trusted by the server for provider connections.
  const caFile = join(mkdtempSync(join(tmpdir(), 'nudge-ca-')), 'providers.pem');
  writeFileSync(caFile, push.ca);
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      hooks.push({ headers: request.headers, body: JSON.parse(body) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  stack = await startStack({ SMS_BASE_URL: sms.url, FCM_BASE_URL: fcm.url, PROVIDER_CA_FILE: caFile, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  token = await createAccount(stack, owner.name, owner.email, PASSWORD);
  const created = await api(stack, token, 'POST', '/application', { application_id: APP, name: 'Lan Shop' });
  clientKey = created.data.client_key;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await push?.close();
  await sms?.close();
  await fcm?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('sending a message', () => {
  it('sets up web push and SMS, segments, sends a web push, and shows it executed with its numbers', async () => {
    const { page } = await newPage(stack.browser);
    page.context().setDefaultTimeout(30_000);
    await signIn(page, stack, owner.email, PASSWORD);
    await page.getByRole('button', { name: 'English' }).click();

    // Settings: web push on, then the SMS provider with a wrong brand field first.
    await page.goto(`${stack.url}/application/${APP}/platform`);
    await page.getByLabel('Site URL').fill('https://lan.example');
    await page.getByLabel('Web push is on').check();
    const webCard = page.getByRole('region', { name: 'Web push (browsers)' });
    await webCard.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await api(stack, token, 'GET', `/application/${APP}/platform/web_push`)).data.settings?.enabled).toBe(true);

    const smsCard = page.getByRole('region', { name: 'SMS', exact: true });
    await smsCard.getByLabel('Username').fill('lan_shop');
    await smsCard.getByLabel('Password').fill('sms-pass-1');
    await smsCard.getByLabel('Brand name').fill('LAN SHOP!');
    await smsCard.getByRole('button', { name: 'Save' }).click();
    // Up to 11 letters and digits: refused beside the field, nothing stored.
    await expect.poll(async () => await smsCard.locator('.Polaris-InlineError').count()).toBeGreaterThan(0);
    expect((await api(stack, token, 'GET', `/application/${APP}/platform`)).data.find((p: { kind: string }) => p.kind === 'sms').status).toBe('not_configured');
    await smsCard.getByLabel('Brand name').fill('LANSHOP');
    const active = smsCard.getByLabel('Active: send messages through this platform');
    if (!(await active.isChecked())) await active.check();
    await smsCard.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await api(stack, token, 'GET', `/application/${APP}/platform`)).data.find((p: { kind: string }) => p.kind === 'sms').status).toBe('active');
    await shot(page, 'messaging-platforms-en');

    // A webhook told when a delivery starts and completes.
    const port = (receiver.address() as { port: number }).port;
    const hook = await api(stack, token, 'POST', `/application/${APP}/webhook`, { url: `http://127.0.0.1:${port}/nudge`, event_types: ['delivery_started', 'delivery_completed'] });
    expect(hook.success, JSON.stringify(hook)).toBe(true);

    // The audience: two subscribers in Vietnam (one with a phone), one in the US.
    const hanoi = await subscriber(`hanoi-${stamp}`, 'VN', '+84901234567');
    const saigon = await subscriber(`saigon-${stamp}`, 'VN');
    const boston = await subscriber(`boston-${stamp}`, 'US');
    // The Hanoi shopper's app told the shop her first name.
    await call('PUT', `/v1/devices/hanoi-${stamp}/attributes`, { attributes: { first_name: 'Hoa' } });

    // A segment built in the console.
    await page.goto(`${stack.url}/application/${APP}/segment`);
    await page.getByRole('button', { name: 'Create segment' }).first().click();
    await page.getByLabel('Segment name').fill('Vietnam');
    await page.getByLabel('Condition 1.1: what to test').selectOption('field');
    await page.getByLabel('Condition 1.1: field').selectOption('country');
    await page.getByLabel('Condition 1.1: operator').selectOption('eq');
    await page.getByRole('combobox', { name: 'Condition 1.1: value' }).fill('vietnam');
    await page.getByRole('option', { name: 'Vietnam (VN)' }).click();
    await page.getByRole('button', { name: 'Save' }).first().click();
    await expect.poll(async () => (await api(stack, token, 'GET', `/application/${APP}/segment`)).data.items.length).toBe(1);

    // The web push, written in the create form.
    await writeMessage(page, 'Web push', 'Áo dài sale', 'Hi , everything −30 % until Sunday');
    // Personal: the first name from the attributes, where the cursor is, then a default for shoppers without one.
    const text = page.getByLabel('Message', { exact: true });
    await text.evaluate((element: HTMLTextAreaElement) => element.setSelectionRange(3, 3));
    await page.getByRole('button', { name: 'Add a personal value' }).click();
    await page.getByRole('button', { name: /^first_name/ }).click();
    await expect.poll(() => text.inputValue()).toBe('Hi {{first_name}}, everything −30 % until Sunday');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type(' | friend');
    expect(await text.inputValue()).toBe('Hi {{first_name | friend}}, everything −30 % until Sunday');
    // The preview reads as a shopper without a first name would, then as the Hanoi shopper, found by her device id.
    const preview = page.getByRole('img', { name: /The message as it appears on/ });
    await preview.getByText('Hi friend, everything −30 % until Sunday').waitFor();
    const previewFor = page.getByRole('combobox', { name: 'Preview for' });
    await previewFor.fill(`hanoi-${stamp}`);
    await page.getByRole('option', { name: '+84901234567' }).click();
    await preview.getByText('Hi Hoa, everything −30 % until Sunday').waitFor();
    await page.getByText('As +84901234567 will read it, with their own attributes.').waitFor();
    await page.getByLabel('Link').fill('https://lan.example/sale');
    await page.getByLabel('Segment').selectOption({ label: 'Vietnam' });
    await shot(page, 'messaging-create-web-push-en');
    await page.getByRole('button', { name: 'Send now' }).first().click();
    await page.getByText('Send message successfully').first().waitFor();

    // It moves to executed; the detail page shows its numbers.
    const list = await api(stack, token, 'GET', `/application/${APP}/notification`);
    const message = list.data.items[0];
    await expect.poll(async () => (await api(stack, token, 'GET', `/application/${APP}/notification/${message.id}`)).data.status, { timeout: 60_000 }).toBe('executed');
    await page.goto(`${stack.url}/application/${APP}/notification/${message.id}/detail`);
    await page.getByText('Executed').first().waitFor();
    const report = (await api(stack, token, 'GET', `/application/${APP}/notification/${message.id}/report`)).data;
    expect(report.stats).toMatchObject({ targeted: 2, sent: 2, failed: 0 });
    await page.getByText('Targeted').first().waitFor();
    // The chart's hours are the application's, and the card says which they are.
    await page.getByText(`Hours in ${formatUtcOffset(report.utc_offset)}, the application’s timezone`).waitFor();
    // The audience names the segment and links to it.
    const segmentLink = page.getByRole('link', { name: 'Vietnam' });
    await segmentLink.waitFor();
    expect(await segmentLink.getAttribute('href')).toMatch(/\/segment\/\d+$/);
    await shot(page, 'messaging-detail-en');

    // The push service got it, decrypted, on the two Vietnamese subscriptions only, with the UTM-free link.
    const received = push.received.filter((item) => item.text?.includes('Áo dài sale'));
    expect(received.map((item) => item.endpoint).sort()).toEqual([hanoi.endpoint, saigon.endpoint].sort());
    expect(received.some((item) => item.endpoint === boston.endpoint)).toBe(false);
    const payloadTo = (endpoint: string) => JSON.parse(received.find((item) => item.endpoint === endpoint)!.text!);
    expect(payloadTo(hanoi.endpoint)).toMatchObject({ title: 'Áo dài sale', body: 'Hi Hoa, everything −30 % until Sunday', url: 'https://lan.example/sale' });
    expect(payloadTo(saigon.endpoint)).toMatchObject({ title: 'Áo dài sale', body: 'Hi friend, everything −30 % until Sunday' });

    // The webhook heard the start and the end, signed the Standard Webhooks way, the end with the numbers.
    await expect.poll(() => hooks.map((item) => item.body.type).sort(), { timeout: 30_000 }).toEqual(['delivery_completed', 'delivery_started']);
    for (const item of hooks) expect(item.headers['webhook-signature']).toMatch(/^v1,/);

    // The recipients' log lists them.
    await page.goto(`${stack.url}/application/${APP}/message?notification_id=${message.id}`);
    await page.getByText(`hanoi-${stamp}`).first().waitFor();
    await page.getByText(`saigon-${stamp}`).first().waitFor();
    expect(await page.getByText(`boston-${stamp}`).count()).toBe(0);
    await shot(page, 'messaging-recipients-en');
    // A recipient's own page lists the message among those they received.
    await page.getByRole('link', { name: `hanoi-${stamp}` }).first().click();
    await page.waitForURL(/\/player\/\d+$/);
    await page.getByRole('link', { name: 'Áo dài sale' }).waitFor();
    await shot(page, 'messaging-player-messages-en');

    // An SMS to the same segment reaches the gateway under the brand name.
    await page.goto(`${stack.url}/application/${APP}/notification/sms`);
    await page.getByLabel('Message', { exact: true }).fill('Lan Shop: áo dài -30% đến Chủ nhật');
    await page.getByLabel('Segment').selectOption({ label: 'Vietnam' });
    await page.getByRole('button', { name: 'Send now' }).first().click();
    await page.getByText('Send message successfully').first().waitFor();
    await expect.poll(() => sms.received.length, { timeout: 60_000 }).toBe(1);
    expect(sms.received[0]).toMatchObject({ brandName: 'LANSHOP', to: '+84901234567' });

    // The list and the detail on a phone.
    await page.goto(`${stack.url}/application/${APP}/notification/basic`);
    await page.getByText('Áo dài sale').first().waitFor();
    await resize(page, PHONE);
    await shot(page, 'messaging-list-en-375');
    await page.goto(`${stack.url}/application/${APP}/notification/${message.id}/detail`);
    await page.getByText('Targeted').first().waitFor();
    await shot(page, 'messaging-detail-en-375');

    // The merchant's colleague on a phone, in Vietnamese (the console's default language).
    const phone = await newPage(stack.browser, PHONE);
    await signIn(phone.page, stack, owner.email, PASSWORD);
    await phone.page.goto(`${stack.url}/application/${APP}/notification/${message.id}/detail`);
    await phone.page.getByText('Áo dài sale').first().waitFor();
    await shot(phone.page, 'messaging-detail-vi-375');
    await phone.page.goto(`${stack.url}/application/${APP}/notification/basic`);
    await phone.page.getByText('Áo dài sale').first().waitFor();
    await shot(phone.page, 'messaging-list-vi-375');
    await phone.context.close();
  });

  it("sends a mobile push to the shop app's installs that allow it, registered by the app through the device API", async () => {
    const { page, context } = await newPage(stack.browser);
    context.setDefaultTimeout(30_000);
    await signIn(page, stack, owner.email, PASSWORD);
    await page.getByRole('button', { name: 'English' }).click();

    // Android set up in /platform with the Firebase service-account file's text, pasted.
    await page.goto(`${stack.url}/application/${APP}/platform`);
    const androidCard = page.getByRole('region', { name: 'Android (FCM)' });
    await androidCard.getByRole('textbox', { name: 'FCM key (service account JSON)' }).fill(JSON.stringify(fcm.serviceAccount));
    const active = androidCard.getByLabel('Active: send messages through this platform');
    if (!(await active.isChecked())) await active.check();
    await androidCard.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await api(stack, token, 'GET', `/application/${APP}/platform`)).data.find((p: { kind: string }) => p.kind === 'android').status).toBe('active');

    // The app registers its installs: one with the token FCM gave it, one before the person allowed notifications
    // (no token yet), one whose person turned them off.
    const allowedToken = fcm.registerToken();
    const allowed = await appInstall(`app-allowed-${stamp}`, { device_token: allowedToken });
    expect(allowed.subscribed).toBe(true);
    expect((await appInstall(`app-no-token-${stamp}`, {})).subscribed).toBe(false);
    const offToken = fcm.registerToken();
    await appInstall(`app-turned-off-${stamp}`, { device_token: offToken });
    expect((await appInstall(`app-turned-off-${stamp}`, { device_token: offToken, subscribed: false })).subscribed).toBe(false);

    // The install's page says it can be reached by mobile push.
    await page.goto(`${stack.url}/application/${APP}/player/${allowed.player_id}`);
    await page.getByText('Mobile push').first().waitFor();
    await shot(page, 'messaging-app-install-en');

    // The mobile push, to everyone it can reach.
    await writeMessage(page, 'Mobile push', 'Giờ vàng', 'Free shipping in the app until midnight');
    await shot(page, 'messaging-create-mobile-push-en');
    await page.getByRole('button', { name: 'Send now' }).first().click();
    await page.getByText('Send message successfully').first().waitFor();

    const list = await api(stack, token, 'GET', `/application/${APP}/notification`);
    const message = list.data.items.find((item: { type: string }) => item.type === 'mobile_push');
    await expect.poll(async () => (await api(stack, token, 'GET', `/application/${APP}/notification/${message.id}`)).data.status, { timeout: 60_000 }).toBe('executed');
    expect((await api(stack, token, 'GET', `/application/${APP}/notification/${message.id}/report`)).data.stats).toMatchObject({ targeted: 1, sent: 1, failed: 0 });
    // FCM got it for the install that allows it, and for no other.
    const received = fcm.received.filter((item) => JSON.stringify(item.message).includes('Giờ vàng'));
    expect(received.map((item) => item.token)).toEqual([allowedToken]);
    expect(received[0].message).toMatchObject({ notification: { title: 'Giờ vàng', body: 'Free shipping in the app until midnight' } });
    await page.goto(`${stack.url}/application/${APP}/notification/${message.id}/detail`);
    await page.getByText('Executed').first().waitFor();
    await shot(page, 'messaging-mobile-push-detail-en');
    await context.close();
  });
});
