import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE, api, createAccount, freePort, newPage, resize, shot, signIn, startStack, type Stack } from './harness';

/**
 * A merchant builds widgets in the console, as a new user would: a flash sale from /banner/create with its
 * live preview, then contact buttons on /maxlead (the plan's cap refused with the spec's words), and finds
 * both on the shop's page.
 */

const PASSWORD = 'correct horse 42';
const stamp = Date.now().toString(36);
const APP = `sen_${stamp}`;
let stack: Stack;
let shop: Server;
let shopUrl: string;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  token = await createAccount(stack, 'Đỗ Mai', `mai.${stamp}@shop.example`, PASSWORD);
  const created = await api(stack, token, 'POST', '/application', { application_id: APP, name: 'Sen Boutique' });
  const key = created.data.client_key as string;
  const port = await freePort();
  shopUrl = `http://localhost:${port}`;
  shop = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sen</title></head><body style="margin:0;font:16px system-ui"><header style="padding:20px;background:#fde68a">SEN BOUTIQUE</header><main style="height:1500px;padding:20px">Products…</main><script async src="${stack.url}/sdk/nudge.js" data-app="${key}"></script></body></html>`);
  });
  await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => shop?.close(resolve));
  await stack?.stop();
});

describe('a merchant building widgets in the console', () => {
  it('creates a flash sale with its preview and contact buttons within the plan, and the shop shows both', async () => {
    const { context, page } = await newPage(stack.browser);
    await signIn(page, stack, `mai.${stamp}@shop.example`, PASSWORD);
    await page.getByRole('button', { name: 'English' }).click();

    // A flash sale, from the banner list.
    await page.goto(`${stack.url}/application/${APP}/banner`);
    await page.getByRole('button', { name: 'Create banner' }).first().click();
    await page.getByRole('button', { name: 'New flash sale' }).click();
    await page.getByLabel('Widget name').fill('Black Friday');
    await page.getByLabel('Sale text').fill('BLACK FRIDAY -40%');
    const ends = new Date(Date.now() + 3 * 24 * 3600e3);
    const local = new Date(ends.getTime() - ends.getTimezoneOffset() * 60e3).toISOString().slice(0, 16);
    await page.getByText('Fixed dates', { exact: true }).click();
    await page.getByLabel('Sale ends').fill(local);
    await page.getByRole('switch', { name: 'Show on the shop' }).click();
    // The live preview runs the real widget code with the draft.
    const previewText = () =>
      Promise.all(
        page.frames().filter((frame) => frame !== page.mainFrame()).map((frame) =>
          frame.evaluate(() => [...document.querySelectorAll('nudge-widget')].map((host) => host.shadowRoot?.textContent ?? '').join(' ')).catch(() => ''),
        ),
      ).then((texts) => texts.join(' '));
    await expect.poll(previewText, { timeout: 15_000 }).toContain('BLACK FRIDAY -40%');
    await shot(page, 'editor-flash-sale-en');
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Black Friday').first().waitFor();
    await expect
      .poll(async () => (await api(stack, token, 'GET', `/application/${APP}/widget?types=schedule`)).data.items.map((w: { name: string; status: string }) => `${w.name}:${w.status}`))
      .toEqual(['Black Friday:active']);

    // Contact buttons: four are more than the free plan's three, and the server says so in the spec's words.
    await page.goto(`${stack.url}/application/${APP}/maxlead`);
    const channels = [
      ['zalo', 'Phone number', '0912345678'],
      ['facebook', 'Username, page or link', 'senboutique'],
      ['mail', 'Email address', 'hello@sen.example'],
      ['telegram', 'Username, page or link', 'senboutique'],
    ];
    for (const [index, [channel, field, value]] of channels.entries()) {
      const group = page.getByRole('group', { name: new RegExp(`^Button ${index + 1}:`) });
      // The editor starts with one empty button; the others are added.
      if ((await group.count()) === 0) await page.getByRole('button', { name: 'Add a button' }).click();
      await group.getByLabel('Channel').selectOption(channel);
      await group.getByLabel(field).fill(value);
    }
    // The cap shows ahead of time; saving anyway, the server refuses and nothing is stored.
    await page.getByText('Your account only support maximum 3 buttons').first().waitFor();
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.waitForTimeout(1000);
    await shot(page, 'editor-maxlead-plan-limit-en');
    expect((await api(stack, token, 'GET', `/application/${APP}/widget?types=maxlead`)).data.items).toEqual([]);
    await page.getByRole('button', { name: /^Remove Button 4/ }).click();
    await page.getByText('Zalo', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Save' }).first().click();
    await expect
      .poll(async () => (await api(stack, token, 'GET', `/application/${APP}/widget?types=maxlead`)).data.items.map((w: { settings: { buttons: unknown[] } }) => w.settings.buttons.length))
      .toEqual([3]);
    await resize(page, PHONE);
    await shot(page, 'editor-maxlead-en-375');
    await resize(page, DESKTOP);
    // The contact buttons are switched on, with a hotline, on /feature.
    await page.goto(`${stack.url}/application/${APP}/feature`);
    await page.getByRole('switch', { name: 'Show on the shop' }).click();
    await page.getByRole('button', { name: 'Save' }).first().click();
    await expect
      .poll(async () => (await api(stack, token, 'GET', `/application/${APP}/widget?types=maxlead`)).data.items[0].status)
      .toBe('active');
    await shot(page, 'editor-feature-en');
    await context.close();

    // The shop's page shows the sale bar and the contact button.
    const visitor = await newPage(stack.browser, PHONE);
    await visitor.page.goto(shopUrl);
    await expect.poll(() => visitor.page.locator('nudge-widget').count(), { timeout: 10_000 }).toBe(2);
    await visitor.page.getByText('BLACK FRIDAY -40%').first().waitFor();
    await visitor.page.locator('.fab').click();
    await visitor.page.locator('a.ch', { hasText: 'Zalo' }).waitFor();
    await shot(visitor.page, 'editor-shop-shows-both-375');
    await visitor.context.close();
  });
});
