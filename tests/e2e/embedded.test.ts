import { createServer, type Server } from 'node:http';
import type { Frame, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShopPlatform, type ShopPlatform } from '../fakes/shop-platform';
import { DESKTOP, PHONE, freePort, newPage, resize, shot, startStack, type Stack } from './harness';

/**
 * A merchant inside the shop platform's admin, as the platform frames Nudge: the fake platform's admin page
 * puts the app in an iframe with `shop`, `host` and a signed `id_token`, and serves a stand-in App Bridge
 * (`window.shopify`) that hands out freshly signed session tokens. The merchant lands on /shopify-banner
 * (installing the shop on first open), creates a flash sale, opens /shopify-maxlead and adds contact
 * buttons, and the shop's storefront shows both.
 */

const SHOP = 'hoa-mai.myshopify.com';
const APP = 'hoa_mai_myshopify_com';
let platform: ShopPlatform;
let stack: Stack;
let storefront: Server;
let storefrontUrl: string;

/** The API as the embedded admin calls it: a fresh session token and the placeholder X-Token. */
async function embeddedApi(path: string) {
  const response = await fetch(`${stack.url}/api${path}`, {
    headers: { authorization: `Bearer ${await platform.sessionToken(SHOP)}`, 'x-token': 'shopify-embedded' },
  });
  return (await response.json()) as { success: boolean; data?: any; error?: string };
}

function appFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe');
}

async function frameOf(page: Page): Promise<Frame> {
  await expect.poll(() => page.frames().find((frame) => frame.url().includes(new URL(stack.url).host)) !== undefined, { timeout: 20_000 }).toBe(true);
  return page.frames().find((frame) => frame.url().includes(new URL(stack.url).host))!;
}

beforeAll(async () => {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  platform = await startShopPlatform({ appUrl });
  platform.setShop(SHOP, { name: 'Hoa Mai', email: 'owner@hoamai.example' });
  stack = await startStack({ ...platform.env(), SHOPIFY_APP_URL: appUrl }, port);
}, 90_000);

afterAll(async () => {
  await new Promise((resolve) => (storefront ? storefront.close(resolve) : resolve(null)));
  await stack?.stop();
  await platform?.close();
});

describe('Nudge inside the shop admin', () => {
  it('explains how to open it when the page is opened on its own, outside the admin', async () => {
    const { context, page } = await newPage(stack.browser);
    await page.goto(`${stack.url}/shopify-banner`);
    await page.getByText(/Open Nudge from your shop admin|Mở Nudge từ trang quản trị/).first().waitFor();
    await shot(page, 'embedded-outside-frame');
    await context.close();
  });

  it('lands on the banner app, creates a flash sale, adds contact buttons in the contact app, and the shop shows both', async () => {
    const { context, page } = await newPage(stack.browser);
    context.setDefaultTimeout(20_000);
    await page.goto(`${platform.url}/admin/${SHOP}/apps/shopify-banner`);
    const app = appFrame(page);

    // First open installs the shop (token exchange) and lands on the banner app, in English.
    await app.getByRole('button', { name: 'Create banner' }).first().waitFor();
    await expect.poll(async () => (await app.locator('#shopify-nav-menu').textContent()) ?? '').toContain('Banners');
    expect(await app.locator('#shopify-nav-menu').textContent()).toContain('Fake-buyer notices');
    expect(await app.locator('#shopify-title-bar').textContent()).toContain('Banners');
    const session = await embeddedApi('/embed/session');
    expect(session.data).toMatchObject({ application_id: APP, shop: SHOP, roles: ['super_user'] });
    await shot(page, 'embedded-banner-app');

    // The frame's page carries the platform's requirements.
    const frame = await frameOf(page);
    const head = await frame.evaluate(() => ({
      apiKey: document.querySelector('meta[name="shopify-api-key"]')?.getAttribute('content'),
      firstScript: document.querySelector('head script')?.getAttribute('src'),
      lang: document.documentElement.lang,
    }));
    expect(head).toEqual({ apiKey: platform.apiKey, firstScript: platform.appBridgeUrl, lang: 'en' });
    const pageResponse = await fetch(frame.url());
    // Only the platform's admin may frame it: here shop and admin are both the fake (in production
    // `https://{shop} https://admin.shopify.com`, which tests/api/embed-session.test.ts checks).
    expect(pageResponse.headers.get('content-security-policy')).toBe(`frame-ancestors ${platform.url}`);

    // A flash sale, created in the frame.
    await app.getByRole('button', { name: 'Create banner' }).first().click();
    await app.getByRole('button', { name: 'New flash sale' }).click();
    await app.getByLabel('Widget name').fill('Tết sale');
    await app.getByLabel('Sale text').fill('TẾT SALE -30%');
    const ends = new Date(Date.now() + 3 * 24 * 3600e3);
    const local = new Date(ends.getTime() - ends.getTimezoneOffset() * 60e3).toISOString().slice(0, 16);
    await app.getByText('Fixed dates', { exact: true }).click();
    await app.getByLabel('Sale ends').fill(local);
    await app.getByRole('switch', { name: 'Show on the shop' }).click();
    await app.getByRole('button', { name: 'Save' }).first().click();
    await app.getByText('Tết sale').first().waitFor();
    await expect
      .poll(async () => (await embeddedApi(`/application/${APP}/widget?types=schedule`)).data.items.map((w: { name: string; status: string }) => `${w.name}:${w.status}`))
      .toEqual(['Tết sale:active']);
    // The platform's toast, not the console's own.
    await expect.poll(async () => (await app.locator('#shopify-toast').count()) > 0, { timeout: 10_000 }).toBe(true);
    await shot(page, 'embedded-banner-saved');

    // The contact-button app: its own menu, two buttons, switched on.
    await page.goto(`${platform.url}/admin/${SHOP}/apps/shopify-maxlead`);
    await expect.poll(async () => (await app.locator('#shopify-nav-menu').textContent()) ?? '').toContain('Contact buttons');
    expect(await app.locator('#shopify-nav-menu').textContent()).toContain('Leads');
    const channels = [
      ['zalo', 'Phone number', '0912345678'],
      ['mail', 'Email address', 'hello@hoamai.example'],
    ];
    for (const [index, [channel, field, value]] of channels.entries()) {
      const group = app.getByRole('group', { name: new RegExp(`^Button ${index + 1}:`) });
      if ((await group.count()) === 0) await app.getByRole('button', { name: 'Add a button' }).click();
      await group.getByLabel('Channel').selectOption(channel);
      await group.getByLabel(field).fill(value);
    }
    await app.getByRole('button', { name: 'Save' }).first().click();
    await expect
      .poll(async () => (await embeddedApi(`/application/${APP}/widget?types=maxlead`)).data.items.map((w: { settings: { buttons: unknown[] } }) => w.settings.buttons.length))
      .toEqual([2]);
    await shot(page, 'embedded-maxlead-app');
    await resize(page, PHONE);
    await shot(page, 'embedded-maxlead-app-375');
    await resize(page, DESKTOP);

    // Switched on from the Hotlines screen, reached through the platform's menu.
    await app.locator('#shopify-nav-menu a', { hasText: 'Hotlines' }).click();
    await app.getByRole('switch', { name: 'Show on the shop' }).click();
    await app.getByRole('button', { name: 'Save' }).first().click();
    await expect
      .poll(async () => (await embeddedApi(`/application/${APP}/widget?types=maxlead`)).data.items[0].status)
      .toBe('active');

    // The leads screen through the platform's menu.
    await app.locator('#shopify-nav-menu a', { hasText: 'Leads' }).click();
    await expect.poll(async () => (await app.locator('#shopify-title-bar').textContent()) ?? '').toMatch(/report|Leads/i);
    await shot(page, 'embedded-leads');
    await context.close();

    // The storefront: the theme app embed's script tag with the shop's client key.
    const application = await embeddedApi(`/application/${APP}`);
    const key = application.data.client_key as string;
    const port = await freePort();
    storefrontUrl = `http://localhost:${port}`;
    storefront = createServer((_request, response) => {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Hoa Mai</title></head><body style="margin:0;font:16px system-ui"><header style="padding:20px;background:#fecaca">HOA MAI</header><main style="height:1500px;padding:20px">Áo dài…</main><script async src="${stack.url}/sdk/nudge.js" data-app="${key}"></script></body></html>`);
    });
    await new Promise<void>((resolve) => storefront.listen(port, '127.0.0.1', resolve));
    const visitor = await newPage(stack.browser, PHONE);
    await visitor.page.goto(storefrontUrl);
    await expect.poll(() => visitor.page.locator('nudge-widget').count(), { timeout: 15_000 }).toBe(2);
    await visitor.page.getByText('TẾT SALE -30%').first().waitFor();
    await visitor.page.locator('.fab').click();
    await visitor.page.locator('a.ch', { hasText: 'Zalo' }).waitFor();
    await shot(visitor.page, 'embedded-storefront-375');
    await visitor.context.close();
  });
});
