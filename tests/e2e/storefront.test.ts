import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE, api, createAccount, freePort, newPage, shot, signIn, startStack, type Stack } from './harness';

/**
 * What a shop's visitors see: a plain sample shop on another origin (`localhost`, while the API is on
 * `127.0.0.1`) adds the one script tag; each widget type appears by its rules; the visitor spins the wheel,
 * sends the contact form and clicks a contact button; the merchant then finds the leads, the spin's prize and
 * the counts in the console.
 */

const PASSWORD = 'correct horse 42';
const stamp = Date.now().toString(36);
const owner = { name: 'Lê Thu Hà', email: `ha.${stamp}@shop.example` };
const APP = `hoasen_${stamp}`;
const HOSTILE = '<img src=x onerror=alert(1)><script>alert(2)</script>';

let stack: Stack;
let shop: Server;
let shopUrl: string;
let token: string;
let clientKey: string;
const ids: Record<string, number> = {};
const pageErrors: string[] = [];

const rules = (over: Record<string, unknown> = {}) => ({
  pages: [],
  devices: ['desktop', 'mobile'],
  delay_seconds: 0,
  scroll: 'none',
  exit_intent: false,
  frequency: 'every_page',
  start_at: null,
  end_at: null,
  ...over,
});
const onPage = (value: string, over: Record<string, unknown> = {}) => rules({ pages: [{ match: 'contains', value }], ...over });

function shopPage(apiUrl: string, key: string): string {
  const products = Array.from({ length: 12 }, (_, i) => `<div class="card"><div class="img"></div><h3>Sản phẩm ${i + 1}</h3><p>${(i + 1) * 50}.000₫</p><button>Thêm vào giỏ</button></div>`).join('');
  return `<!doctype html><html lang="vi"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Hoa Sen shop</title>
<style>
  * { font-family: Georgia, serif !important; }
  body { margin: 0; color: #333; line-height: 2; text-transform: uppercase; }
  button { background: hotpink !important; border: 3px dotted blue; }
  header { background: #222; color: #fff; padding: 18px 24px; }
  .hero { background: linear-gradient(120deg, #f6d365, #fda085); padding: 60px 24px; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 20px; padding: 24px; }
  .card { border: 1px solid #ddd; padding: 12px; } .img { height: 160px; background: #eee; }
</style></head><body>
<header><strong>HOA SEN</strong></header>
<section class="hero"><h1>Bộ sưu tập mới</h1></section>
<main class="grid">${products}</main>
<footer style="padding:40px 24px;background:#f4f4f4">© Hoa Sen</footer>
<script>window.__alerts = []; window.alert = (m) => window.__alerts.push(String(m));</script>
<script async src="${apiUrl}/sdk/nudge.js" data-app="${key}"></script>
</body></html>`;
}

beforeAll(async () => {
  stack = await startStack();
  token = await createAccount(stack, owner.name, owner.email, PASSWORD);
  const created = await api(stack, token, 'POST', '/application', { application_id: APP, name: 'Hoa Sen' });
  expect(created.success).toBe(true);
  clientKey = created.data.client_key;

  const now = Date.now();
  const widgets = [
    {
      type: 'schedule',
      name: 'Flash sale',
      settings: { title: 'FLASH SALE -50%', mode: 'fixed', sale_start: new Date(now - 3600e3).toISOString(), sale_end: new Date(now + 26 * 3600e3).toISOString(), link: 'https://shop.example/sale', button_text: 'Mua ngay', position: 'top', sticky: true },
      rules: onPage('sale=1'),
    },
    {
      type: 'banner',
      name: 'Banner',
      settings: { title: `Summer ${HOSTILE}`, text: 'Free shipping', link: 'https://shop.example/summer', button_text: 'Xem', position: 'bottom_right' },
      // Shown after one second, never on the cart.
      rules: rules({ pages: [{ match: 'contains', value: 'banner=1' }, { match: 'excludes', value: 'cart' }], delay_seconds: 1 }),
    },
    {
      type: 'contact',
      name: 'Contact form',
      settings: { title: 'Liên hệ với chúng tôi', fields: ['name', 'email', 'phone', 'message'], required: ['email'], success_text: 'Cảm ơn bạn!', position: 'center' },
      rules: onPage('contact=1'),
    },
    {
      type: 'spin',
      name: 'Wheel',
      settings: {
        title: 'Quay là trúng',
        gate: 'email',
        slices: [
          { id: 'ten', label: 'Giảm 10%', color: '#ff8a00', weight: 1, code_prefix: 'TEN-' },
          { id: 'ship', label: 'Free ship', color: '#2c6ecb', weight: 1, code_prefix: 'SHIP-' },
          { id: 'gift', label: 'Quà tặng', color: '#008060', weight: 1, stock: 5, code_prefix: 'GIFT-' },
        ],
      },
      rules: onPage('spin=1'),
    },
    {
      type: 'suggestion',
      name: 'Suggestions',
      settings: { title: 'Có thể bạn thích', items: [{ title: 'Áo thun', url: 'https://shop.example/p/1', price: '199.000₫' }, { title: 'Quần jeans', url: 'https://shop.example/p/2', price: '459.000₫' }] },
      rules: onPage('suggestion=1'),
    },
    {
      type: 'fake_noti',
      name: 'Notices',
      settings: { items: [{ name: '', city: 'Hà Nội', product: 'Áo thun', minutes_ago: 5 }], min_interval_seconds: 3, max_interval_seconds: 4, display_seconds: 6, max_per_session: 3 },
      rules: onPage('noti=1'),
    },
    {
      type: 'maxlead',
      name: 'Contact buttons',
      settings: { capture: 'phone', greeting: 'Chào bạn!', buttons: [{ type: 'zalo', value: '0912345678' }, { type: 'mail', value: 'hello@shop.example' }, { type: 'whatapps', value: '(081) 234-5678' }] },
      rules: onPage('maxlead=1'),
    },
  ];
  for (const widget of widgets) {
    const answer = await api(stack, token, 'POST', `/application/${APP}/widget`, { ...widget, status: 'active' });
    expect(answer, JSON.stringify(answer)).toMatchObject({ success: true });
    ids[widget.type] = answer.data.id;
  }

  const port = await freePort();
  shopUrl = `http://localhost:${port}`;
  const html = shopPage(stack.url, clientKey);
  shop = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(request.url?.startsWith('/cart') ? html.replace('<h1>Bộ sưu tập mới</h1>', '<h1>Giỏ hàng</h1>') : html);
  });
  await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
});

afterAll(async () => {
  expect(pageErrors).toEqual([]);
  await new Promise((resolve) => shop?.close(resolve));
  await stack?.stop();
});

async function visit(browser: Browser, path: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await newPage(browser, viewport);
  // Layout shifts the page suffers, as Chrome scores them (CLS), with what moved; widgets must add none.
  await opened.page.addInitScript(() => {
    type Shift = PerformanceEntry & { value: number; hadRecentInput: boolean; sources?: { node?: Node; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[] };
    const shop = window as unknown as { __shifts: string[] };
    shop.__shifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Shift[]) {
        if (entry.hadRecentInput) continue;
        const moved = (entry.sources ?? []).map(({ node, previousRect: a, currentRect: b }) => `${node?.nodeName ?? '?'} ${a.x},${a.y} ${a.width}x${a.height} → ${b.x},${b.y} ${b.width}x${b.height}`);
        shop.__shifts.push(`${entry.value} at ${Math.round(entry.startTime)} ms, viewport ${innerWidth}x${innerHeight}: ${moved.join('; ')}`);
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  // A widget must never break the shop's page: any script error there fails the test.
  opened.page.on('pageerror', (error) => pageErrors.push(`${path}: ${error.message}`));
  await opened.page.goto(`${shopUrl}${path}`);
  return opened;
}

/** The text a widget shows, read through its (open) shadow root. */
async function widgetText(page: Page): Promise<string> {
  return page.evaluate(() => [...document.querySelectorAll('nudge-widget')].map((host) => host.shadowRoot?.textContent ?? '').join('\n'));
}

describe('a shop page with the loader', () => {
  it('shows each widget type by its rules, at desktop and phone widths, without running merchant HTML', async () => {
    for (const [type, query] of Object.entries({ schedule: 'sale=1', banner: 'banner=1', contact: 'contact=1', spin: 'spin=1', suggestion: 'suggestion=1', fake_noti: 'noti=1', maxlead: 'maxlead=1' })) {
      for (const [size, viewport] of [['desktop', DESKTOP], ['375', PHONE]] as const) {
        const { context, page } = await visit(stack.browser, `/?${query}`, viewport);
        await page.locator('nudge-widget').first().waitFor({ state: 'attached', timeout: 10_000 });
        // Give the widget its entrance (fake-buyer notices wait a few seconds by design).
        await expect.poll(() => widgetText(page), { timeout: 10_000 }).not.toBe('');
        await page.waitForTimeout(500);
        // Read before the screenshot: a full-page capture lays the page out again at its whole height.
        expect(await page.evaluate(() => (window as unknown as { __shifts: string[] }).__shifts), `layout shifts with ${type} at ${size}`).toEqual([]);
        await shot(page, `storefront-${type}-${size}`);
        expect(await page.locator('nudge-widget').count()).toBe(1);
        await context.close();
      }
    }
  });

  it('keeps to the page rules and the delay: nothing on the cart, the banner only after its second', async () => {
    const { context, page } = await visit(stack.browser, '/cart?banner=1');
    await page.waitForTimeout(2500);
    expect(await page.locator('nudge-widget').count()).toBe(0);
    await context.close();

    const plain = await visit(stack.browser, '/');
    await plain.page.waitForTimeout(2000);
    expect(await plain.page.locator('nudge-widget').count()).toBe(0);
    await plain.context.close();

    const delayed = await visit(stack.browser, '/?banner=1');
    const shownAt = Date.now();
    await delayed.page.locator('nudge-widget').first().waitFor({ state: 'attached', timeout: 10_000 });
    expect(Date.now() - shownAt).toBeGreaterThanOrEqual(900);
    await delayed.context.close();
  });

  it('renders merchant text as text: no script runs, the markup shows literally', async () => {
    const { context, page } = await visit(stack.browser, '/?banner=1');
    await expect.poll(() => widgetText(page), { timeout: 10_000 }).toContain('<img src=x onerror=alert(1)>');
    expect(await page.evaluate(() => (window as unknown as { __alerts: string[] }).__alerts)).toEqual([]);
    expect(await page.evaluate(() => document.querySelector('nudge-widget')?.shadowRoot?.querySelector('img[src="x"], script'))).toBeNull();
    await context.close();
    // A javascript: link never gets stored.
    const refused = await api(stack, token, 'POST', `/application/${APP}/widget`, {
      type: 'banner',
      name: 'Evil',
      settings: { title: 'x', link: 'javascript:alert(1)' },
    });
    expect(refused).toMatchObject({ success: false, error: 'INVALID_PARAM' });
    expect(refused.fields?.[0].path).toBe('settings.link');
  });

  it('takes a spin, a contact form and a contact-button lead from a visitor', async () => {
    // Spin: the server draws; the wheel shows the server's prize and code.
    const spinner = await visit(stack.browser, '/?spin=1', PHONE);
    await spinner.page.locator('input[name=email]').fill(`khach.${stamp}@mail.example`);
    await spinner.page.locator('button[type=submit]').click();
    await spinner.page.locator('.code').waitFor({ timeout: 15_000 });
    const code = /(?:TEN|SHIP|GIFT)-[A-Z0-9]+/.exec(await spinner.page.locator('.code').innerText())?.[0];
    expect(code).toBeTruthy();
    await shot(spinner.page, 'storefront-spin-result-375');
    await spinner.context.close();

    // Contact form: a bad email is refused in the visitor's language, then it is sent.
    const form = await visit(stack.browser, '/?contact=1');
    await form.page.locator('input[name=email]').fill('khach@');
    await form.page.locator('button[type=submit]').click();
    await form.page.locator('input[name=email][aria-invalid="true"]').waitFor();
    expect(await form.page.locator('.er').first().innerText()).not.toBe('');
    await shot(form.page, 'storefront-contact-invalid');
    await form.page.locator('input[name=name]').fill('Phạm Minh');
    await form.page.locator('input[name=email]').fill(`minh.${stamp}@mail.example`);
    await form.page.locator('input[name=phone]').fill('0912 345 678');
    await form.page.locator('textarea[name=message]').fill('Gọi cho tôi nhé');
    await form.page.locator('button[type=submit]').click();
    await form.page.locator('[role=status]').waitFor();
    await shot(form.page, 'storefront-contact-sent');
    await form.context.close();

    // Contact button: open the list, pick Zalo, leave a phone number; Zalo opens in a new window.
    const buttons = await visit(stack.browser, '/?maxlead=1');
    // No outside network here: the channel's page is answered by a stand-in, so its address can be read.
    await buttons.context.route('https://zalo.me/**', (route) => route.fulfill({ contentType: 'text/html', body: '<h1>Zalo</h1>' }));
    await buttons.page.locator('.fab').click();
    await buttons.page.locator('a.ch', { hasText: 'Zalo' }).click();
    await buttons.page.locator('input[name=phone]').fill('0987 654 321');
    const popup = buttons.context.waitForEvent('page', { timeout: 5000 });
    await buttons.page.locator('.cap button[type=submit]').click();
    expect((await popup).url()).toContain('zalo.me/0912345678');
    await buttons.context.close();

    // A shop in Thailand: its WhatsApp number, written the Thai way, opens a chat with +66, not Vietnam's +84.
    expect((await api(stack, token, 'PUT', `/application/${APP}`, { name: 'Hoa Sen', phone_country: 'TH' })).success).toBe(true);
    const thai = await visit(stack.browser, '/?maxlead=1');
    await thai.page.locator('.fab').click();
    expect(await thai.page.locator('a.ch', { hasText: 'WhatsApp' }).getAttribute('href')).toBe('https://wa.me/66812345678');
    await thai.context.close();
    expect((await api(stack, token, 'PUT', `/application/${APP}`, { name: 'Hoa Sen', phone_country: 'VN' })).success).toBe(true);

    // The merchant's API sees them all, with the spin's prize and code.
    await expect
      .poll(async () => (await api(stack, token, 'GET', `/application/${APP}/lead?limit=50`)).data?.total, { timeout: 10_000 })
      .toBe(3);
    const leads = (await api(stack, token, 'GET', `/application/${APP}/lead?limit=50`)).data.items as { source: string; code: string | null; phone: string | null }[];
    expect(leads.map((lead) => lead.source).sort()).toEqual(['contact', 'maxlead', 'spin']);
    expect(leads.find((lead) => lead.source === 'spin')?.code).toBe(code);

    // The merchant, in the console: the leads report shows the three leads and the spin's code…
    const { context, page } = await newPage(stack.browser);
    await signIn(page, stack, owner.email, PASSWORD);
    await page.getByRole('button', { name: 'English' }).click();
    await page.goto(`${stack.url}/application/${APP}/maxlead_report`);
    await page.getByText(code!).first().waitFor();
    await page.getByText(`minh.${stamp}@mail.example`).first().waitFor();
    await page.getByText('0987 654 321').or(page.getByText('0987654321')).first().waitFor();
    await page.getByRole('list', { name: 'Clicks per button' }).waitFor();
    await shot(page, 'console-leads-report-en');
    // …and the banner list counts the views and the leads of each widget.
    await page.goto(`${stack.url}/application/${APP}/banner`);
    await page.getByText('Wheel').first().waitFor();
    await shot(page, 'console-banners-en');
    const wheel = (await api(stack, token, 'GET', `/application/${APP}/widget?types=spin`)).data.items[0];
    expect(wheel.views).toBeGreaterThanOrEqual(1);
    expect(wheel.leads).toBe(1);
    await context.close();
  });
});
