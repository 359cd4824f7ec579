import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE, api, createAccount, resize, shot, signIn, startStack, type Stack } from './harness';

/**
 * The public playerinfo page, as a shopper opens it from the shop's link: it speaks the shopper's browser's
 * language (English to en-US, Vietnamese to vi-VN), whatever the console's own setting, which it leaves alone; and it
 * shows nothing of the merchant's own labels for the shopper (tags), nor does the API behind it send them.
 *
 * The shopper's device is an Android app install, registered through the device API with the application's public
 * client key as the app does; the merchant tags it and gives it an identity through the console's API.
 */

const PASSWORD = 'correct horse 42';
const stamp = Date.now().toString(36);
const APP = `tramoc_${stamp}`;
const DEVICE = `android-install-${stamp}-7f3k9q`;
const owner = { name: 'Nguyễn Thu Hà', email: `ha.${stamp}@shop.example` };
const TAGS = ['cart_abandoner', 'wholesale', 'vip'];
let stack: Stack;
let token: string;

const playerInfoUrl = () => `${stack.url}/application/${APP}/playerinfo?device=${DEVICE}`;

/** A shopper's browser whose languages are `locale`'s (navigator.languages, Accept-Language). */
async function shopperPage(browser: Browser, locale: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, locale });
  return { context, page: await context.newPage() };
}

/** Opens the page and waits for the record; answers the API's answer the page read. */
async function openRecord(page: Page, shopLine: string): Promise<Record<string, unknown>> {
  const answer = page.waitForResponse((response) => response.url().includes(`/api/public/application/${APP}/playerinfo/${DEVICE}`) && response.request().method() === 'GET');
  await page.goto(playerInfoUrl());
  const body = (await (await answer).json()) as { success: boolean; data: Record<string, unknown> };
  expect(body.success).toBe(true);
  await page.getByText(shopLine).waitFor({ timeout: 15_000 });
  return body.data;
}

/** None of the merchant's tags, nor the label they were shown under, anywhere on the page or in its answer. */
async function expectNoTags(page: Page, data: Record<string, unknown>): Promise<void> {
  expect(data).not.toHaveProperty('tags');
  expect(data).not.toHaveProperty('email');
  expect(data).not.toHaveProperty('external_user_id');
  expect(data).not.toHaveProperty('device_token');
  const text = await page.locator('body').innerText();
  for (const word of [...TAGS, 'Interests', 'Sở thích', 'lan.tran@example.vn', 'crm-4711']) expect(text).not.toContain(word);
}

beforeAll(async () => {
  stack = await startStack();
  token = await createAccount(stack, owner.name, owner.email, PASSWORD);
  const created = await api(stack, token, 'POST', '/application', { application_id: APP, name: 'Trà Mộc Shop' });
  expect(created.success).toBe(true);
  const key = created.data.client_key as string;
  // The shop's app registers the install with its push token (so it is subscribed), as the device API takes it.
  const device = (method: string, path: string, body: unknown) =>
    fetch(`${stack.url}/api/v1/devices${path}`, { method, headers: { authorization: `Key ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
      (r) => r.json() as Promise<{ success: boolean }>,
    );
  expect(
    await device('POST', '', {
      device_id: DEVICE,
      platform: 'android',
      device_type: 'mobile',
      device_token: `fcm-token-${stamp}-0123456789abcdef`,
      os: 'Android',
      os_version: '14',
      language: 'vi-VN',
      country: 'VN',
      city: 'Hà Nội',
    }),
  ).toMatchObject({ success: true });
  expect(await device('PUT', `/${DEVICE}/identity`, { email: 'lan.tran@example.vn', external_user_id: 'crm-4711' })).toMatchObject({ success: true });
  const found = await api(stack, token, 'GET', `/application/${APP}/player?q=${DEVICE}`);
  const player = found.data.items[0];
  expect(player.device_id).toBe(DEVICE);
  expect((await api(stack, token, 'POST', `/application/${APP}/player/${player.id}/tags`, { tags: TAGS })).success).toBe(true);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('the playerinfo page a shopper opens', () => {
  it("speaks English to an English browser, shows none of the merchant's tags, and leaves the console in Vietnamese", async () => {
    const { context, page } = await shopperPage(stack.browser, 'en-US');
    expect(await page.evaluate(() => navigator.languages)).toEqual(['en-US']);
    // The same browser is signed in to the console, which speaks Vietnamese, its default (spec §1).
    await signIn(page, stack, owner.email, PASSWORD);

    const data = await openRecord(page, 'Your device and notification settings at Trà Mộc Shop.');
    await page.getByRole('heading', { name: 'Your notification settings' }).waitFor();
    await page.getByText('Hà Nội, Vietnam (VN)').waitFor();
    await page.getByText('Subscribed', { exact: true }).waitFor();
    // Last seen when the app registered it, moments ago, in English words.
    await page.getByText(/^(just now|\d+ minutes? ago)$/).waitFor();
    await page.getByRole('button', { name: 'Unsubscribe' }).waitFor();
    expect(await page.getByText('Cài đặt thông báo của bạn').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await expectNoTags(page, data);
    await shot(page, 'playerinfo-en');
    await resize(page, PHONE);
    await shot(page, 'playerinfo-en-375');

    // The console still speaks Vietnamese: the page did not change its setting.
    await page.goto(`${stack.url}/application`);
    await page.getByRole('heading', { name: 'Ứng dụng' }).first().waitFor({ timeout: 15_000 });
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('nudge-console') ?? '{}') as { state?: { language?: string | null } });
    expect(saved.state?.language ?? null).toBeNull();
    await context.close();
  });

  it('speaks Vietnamese to a Vietnamese browser, and switches to English on its own switch', async () => {
    const { context, page } = await shopperPage(stack.browser, 'vi-VN', PHONE);
    const data = await openRecord(page, 'Thiết bị và cài đặt thông báo của bạn tại Trà Mộc Shop.');
    await page.getByRole('heading', { name: 'Cài đặt thông báo của bạn' }).waitFor();
    await page.getByText('Hà Nội, Việt Nam (VN)').waitFor();
    await page.getByText('Đã đăng ký', { exact: true }).waitFor();
    await page.getByText('Di động', { exact: true }).waitFor();
    await page.getByText(/^(vừa xong|\d+ phút trước)$/).waitFor();
    await page.getByRole('button', { name: 'Hủy đăng ký' }).waitFor();
    expect(await page.getByText('Your notification settings').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('vi');
    await expectNoTags(page, data);
    await shot(page, 'playerinfo-vi-375');
    await resize(page, DESKTOP);
    await shot(page, 'playerinfo-vi');

    await page.getByRole('button', { name: 'English' }).click();
    await page.getByText('Your device and notification settings at Trà Mộc Shop.').waitFor();
    await page.getByText('Switch Language Success').waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    // A shopper's pick is this page's: the console's setting was not written.
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('nudge-console') ?? '{}') as { state?: { language?: string | null } });
    expect(saved.state?.language ?? null).toBeNull();
    await context.close();
  });
});
