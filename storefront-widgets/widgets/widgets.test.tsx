import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PublicWidget } from '../../shared/contract/widget';
import type { MountWidget, WidgetContext } from '../types';
import { mount as banner } from './banner';
import { mount as contact } from './contact';
import { mount as fakeNoti } from './fake_noti';
import { mount as maxlead } from './maxlead';
import { mount as schedule } from './schedule';
import { mount as spin } from './spin';
import { mount as suggestion } from './suggestion';

const EVIL = '<img src=x onerror=alert(1)>';
const SCRIPT = '<script>alert(2)</script>';
const JS = 'javascript:alert(3)';

const CTX: WidgetContext = { api: 'https://api.nudge.example', key: 'ck_live_12345678', lang: 'en', mobile: false };

const config = (id: number, type: PublicWidget['type'], settings: Record<string, unknown>): PublicWidget => ({
  id,
  type,
  settings,
  rules: { pages: [], devices: ['desktop', 'mobile'], delay_seconds: 0, scroll: 'none', exit_intent: false, frequency: 'every_page', start_at: null, end_at: null },
});

/** Mounts a widget on the page as the loader does and returns its shadow root. */
function show(mount: MountWidget, widget: PublicWidget, ctx: Partial<WidgetContext> = {}) {
  const unmount = mount(widget, { ...CTX, ...ctx });
  const hosts = document.querySelectorAll('nudge-widget');
  const host = hosts[hosts.length - 1];
  return { unmount, host, root: host?.shadowRoot as ShadowRoot };
}

/** Lets Preact re-render after state changes (it batches them in microtasks). */
const flush = async () => {
  for (let i = 0; i < 8; i++) await Promise.resolve();
};

function type(root: ShadowRoot, selector: string, value: string) {
  const input = root.querySelector<HTMLInputElement>(selector)!;
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

const submit = (root: ShadowRoot) => root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));

const answer = (body: unknown) => ({ json: async () => body });

let fetchMock: ReturnType<typeof vi.fn>;
let beaconMock: ReturnType<typeof vi.fn>;

beforeEach(() => {
  localStorage.clear();
  document.body.innerHTML = '';
  fetchMock = vi.fn(async () => answer({ success: true, data: {} }));
  vi.stubGlobal('fetch', fetchMock);
  beaconMock = vi.fn(() => true);
  Object.defineProperty(navigator, 'sendBeacon', { configurable: true, value: beaconMock });
  vi.spyOn(window, 'alert').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const now = Date.now();
const iso = (offset: number) => new Date(now + offset).toISOString();

/** Every widget type, with hostile merchant text in every text field and script links in every link. */
const HOSTILE: [string, MountWidget, PublicWidget][] = [
  ['schedule', schedule, config(1, 'schedule', { title: EVIL, before_text: SCRIPT, after_text: SCRIPT, sale_start: iso(-60_000), sale_end: iso(3600_000), link: JS, button_text: EVIL })],
  ['banner', banner, config(2, 'banner', { title: EVIL, text: SCRIPT, image_url: JS, link: JS, button_text: EVIL, position: 'center' })],
  ['contact', contact, config(3, 'contact', { title: EVIL, text: SCRIPT, fields: ['name', 'email'], required: ['email'], submit_text: EVIL })],
  ['spin', spin, config(4, 'spin', { title: EVIL, text: SCRIPT, slices: [{ id: 'a', label: EVIL, color: '#ff0000', lose: false }, { id: 'b', label: SCRIPT, color: 'red;background:url(x)', lose: true }] })],
  ['suggestion', suggestion, config(5, 'suggestion', { title: EVIL, items: [{ title: EVIL, url: JS, image_url: JS, price: SCRIPT }, { title: SCRIPT, url: 'https://shop.example.vn/p/1', image_url: JS, price: EVIL }] })],
  ['fake_noti', fakeNoti, config(6, 'fake_noti', { items: [{ name: EVIL, city: SCRIPT, product: EVIL, url: JS, image_url: JS, minutes_ago: 5 }] })],
  ['maxlead', maxlead, config(7, 'maxlead', { greeting: EVIL, buttons: [{ type: 'telegram', value: JS, label: EVIL }, { type: 'zalo', value: '0912345678', label: SCRIPT }, { type: 'cart', value: JS, label: EVIL }] })],
];

describe("merchant text on the shop's page", () => {
  for (const [name, mount, widget] of HOSTILE) {
    it(`renders as literal text in the ${name} widget, and its javascript: links are dropped`, async () => {
      const { root } = show(mount, widget);
      // The contact buttons show their channels once opened.
      root.querySelector<HTMLButtonElement>('.fab')?.click();
      await flush();
      expect(root.querySelectorAll('script')).toHaveLength(0);
      expect(root.querySelector('img[src="x"], img[onerror], [onerror]')).toBeNull();
      expect(root.textContent).toMatch(/<img src=x onerror=alert\(1\)>|<script>alert\(2\)<\/script>/);
      for (const a of root.querySelectorAll('a')) expect(a.getAttribute('href') ?? '', name).toMatch(/^(https?:|mailto:|tel:|sms:|viber:)/);
      for (const img of root.querySelectorAll('img')) expect(img.getAttribute('src'), name).toMatch(/^https?:/);
      expect(root.innerHTML).not.toContain('javascript:');
      expect(window.alert).not.toHaveBeenCalled();
    });
  }

  it("keeps a colour that isn't one out of the widget's CSS", () => {
    const { root } = show(spin, HOSTILE[3][2]);
    expect(root.innerHTML).not.toContain('url(x)');
  });
});

describe('the Shadow DOM', () => {
  it("puts each widget in its own open shadow root with its own styles, out of the shop's CSS and queries", () => {
    const first = show(banner, config(10, 'banner', { title: 'Sale', position: 'bottom_right' }));
    const second = show(banner, config(11, 'banner', { title: 'Other', position: 'bottom_left' }));
    expect(first.host).not.toBe(second.host);
    expect(first.root.mode).toBe('open');
    expect(first.root.querySelector('style')?.textContent).toContain(':host{all:initial}');
    expect(document.querySelector('.pn, h2')).toBeNull();
    expect(first.root.querySelector('h2')?.textContent).toBe('Sale');
  });

  it('takes the widget off the page when the visitor closes it', () => {
    const { root } = show(banner, config(12, 'banner', { title: 'Sale', position: 'top' }));
    root.querySelector<HTMLButtonElement>('.x')!.click();
    expect(document.querySelector('nudge-widget')).toBeNull();
  });

  it('records a view when a widget shows, by beacon, as text the API reads as JSON', () => {
    show(banner, config(13, 'banner', { title: 'Sale' }));
    expect(beaconMock).toHaveBeenCalledTimes(1);
    const [url, body] = beaconMock.mock.calls[0];
    expect(url).toBe('https://api.nudge.example/api/sdk/event');
    expect(JSON.parse(body)).toMatchObject({ key: 'ck_live_12345678', widget_id: 13, kind: 'view', visitor_id: expect.stringMatching(/^[\w-]{8,64}$/) });
  });
});

describe('a centred dialog', () => {
  it('is a labelled modal dialog that takes the focus and closes with Escape', () => {
    const { root } = show(contact, config(20, 'contact', { title: 'Write to us', fields: ['email'], position: 'center' }));
    const dialog = root.querySelector('[role=dialog]')!;
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.getAttribute('aria-label')).toBe('Write to us');
    expect(root.activeElement).toBe(root.querySelector('input[name=email]'));
    dialog.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(document.querySelector('nudge-widget')).toBeNull();
  });
});

describe('the contact form', () => {
  const form = (over: Record<string, unknown> = {}) =>
    config(30, 'contact', { title: 'Talk to us', fields: ['name', 'email', 'phone', 'message'], required: ['email', 'phone'], success_text: 'We will call you.', ...over });

  it("asks for the required fields in the visitor's language, and sends nothing", async () => {
    const { root } = show(contact, form(), { lang: 'vi' });
    submit(root);
    await flush();
    const email = root.querySelector('input[name=email]')!;
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(root.querySelector(`#${email.getAttribute('aria-describedby')}`)?.textContent).toBe('Vui lòng nhập thông tin này.');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('refuses a malformed email and phone number with a clear message', async () => {
    const { root } = show(contact, form());
    type(root, 'input[name=email]', 'an@');
    type(root, 'input[name=phone]', '12');
    submit(root);
    await flush();
    expect(root.textContent).toContain('Enter a valid email address.');
    expect(root.textContent).toContain('Enter a valid phone number.');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('hides the honeypot from people: off screen, out of the tab order, out of the accessibility tree', () => {
    const { root } = show(contact, form());
    const trap = root.querySelector<HTMLInputElement>('input[name=website]')!;
    expect(trap.tabIndex).toBe(-1);
    expect(trap.closest('[aria-hidden=true]')?.className).toBe('hp');
  });

  it('submits the lead as text/plain JSON and thanks the visitor', async () => {
    const { root } = show(contact, form());
    type(root, 'input[name=name]', 'Nguyễn Văn A');
    type(root, 'input[name=email]', 'a@shop.example.vn');
    type(root, 'input[name=phone]', '0912 345 678');
    type(root, 'textarea[name=message]', `Call me ${EVIL}`);
    submit(root);
    await flush();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('https://api.nudge.example/api/sdk/lead');
    expect(init).toMatchObject({ method: 'POST', keepalive: true });
    expect(init.headers).toBeUndefined();
    expect(JSON.parse(init.body)).toMatchObject({
      key: 'ck_live_12345678',
      widget_id: 30,
      name: 'Nguyễn Văn A',
      email: 'a@shop.example.vn',
      phone: '0912 345 678',
      message: `Call me ${EVIL}`,
      website: '',
      page_url: location.href,
    });
    expect(root.querySelector('[role=status]')?.textContent).toBe('We will call you.');
  });

  it("shows the server's refusal of a field beside that field", async () => {
    fetchMock.mockResolvedValueOnce(answer({ success: false, error: 'INVALID_PARAM', message: 'Invalid', fields: [{ path: 'email', message: 'validation.email' }] }));
    const { root } = show(contact, form({ required: ['email'] }));
    type(root, 'input[name=email]', 'someone@localhost.example');
    submit(root);
    await flush();
    expect(root.querySelector('input[name=email]')?.getAttribute('aria-invalid')).toBe('true');
    expect(root.textContent).toContain('Enter a valid email address.');
  });
});

describe('the spin wheel', () => {
  // A wheel remembers its result in the page's store: each test spins a wheel of its own.
  let nextId = 40;
  const wheel = () => config(nextId++, 'spin', {
    title: 'Spin to win',
    gate: 'phone',
    slices: [
      { id: 'ten', label: '10% off', color: '#ff8a00', lose: false },
      { id: 'ship', label: 'Free shipping', color: '#2c6ecb', lose: false },
      { id: 'none', label: 'Try again', color: '#eeeeee', lose: true },
    ],
  });

  it("turns to the server's slice and hands over its code with a copy button", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    fetchMock.mockResolvedValueOnce(answer({ success: true, data: { slice_id: 'ship', label: 'Free shipping', lose: false, code: 'SHIP-7K2Q9' } }));
    const { root } = show(spin, wheel());
    type(root, 'input[name=phone]', '0912345678');
    submit(root);
    await flush();
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('https://api.nudge.example/api/sdk/spin');
    expect(JSON.parse(init.body)).toMatchObject({ phone: '0912345678', website: '' });
    const turn = root.querySelector<SVGGElement>('.rot')!.style.transform;
    const degrees = Number(/rotate\(([-\d.]+)deg\)/.exec(turn)![1]);
    // Slice 1 of 3 spans 120°–240° clockwise from the pointer at the top.
    const underPointer = (360 - (degrees % 360)) % 360;
    expect(underPointer).toBeGreaterThan(120);
    expect(underPointer).toBeLessThan(240);
    expect(root.textContent).not.toContain('SHIP-7K2Q9');
    await vi.advanceTimersByTimeAsync(5300);
    await flush();
    expect(root.querySelector('[role=status]')?.textContent).toContain('Free shipping');
    expect(root.querySelector('code')?.textContent).toBe('SHIP-7K2Q9');
    root.querySelector<HTMLButtonElement>('.code button')!.click();
    await flush();
    expect(writeText).toHaveBeenCalledWith('SHIP-7K2Q9');
    expect(root.querySelector('.code button')?.textContent).toBe('Copied');
  });

  it("shows the server's refusal of a second spin, in the server's words", async () => {
    fetchMock.mockResolvedValueOnce(
      answer({ success: false, error: 'CONFLICT', message: 'Already spun', fields: [{ path: 'phone', message: 'This email or phone number has already spun the wheel' }] }),
    );
    const { root } = show(spin, wheel());
    type(root, 'input[name=phone]', '0912345678');
    submit(root);
    await flush();
    expect(root.querySelector('#se')?.textContent).toBe('This email or phone number has already spun the wheel');
    expect(root.querySelector('input[name=phone]')?.getAttribute('aria-invalid')).toBe('true');
  });

  it('says so when the wheel cannot be reached', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    const { root } = show(spin, wheel());
    type(root, 'input[name=phone]', '0912345678');
    submit(root);
    await flush();
    expect(root.querySelector('[role=alert]')?.textContent).toBe('Could not send. Please try again.');
    expect(root.querySelector<HTMLButtonElement>('button[type=submit]')?.disabled).toBe(false);
  });

  it('asks for the gate before spinning', async () => {
    const { root } = show(spin, wheel(), { lang: 'vi' });
    submit(root);
    await flush();
    expect(root.textContent).toContain('Vui lòng nhập thông tin này.');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe('the contact buttons', () => {
  const buttons = (over: Record<string, unknown> = {}) =>
    config(50, 'maxlead', {
      buttons: [
        { type: 'zalo', value: '0912345678', label: '' },
        { type: 'whatapps', value: '+84 912 345 678', label: 'WhatsApp us' },
        { type: 'mail', value: 'hello@shop.example.vn', label: '' },
      ],
      phones: [{ number: '1900 1234', label: 'Hotline' }],
      ...over,
    });

  it('open a list of channels whose links go straight to each app', async () => {
    const { root } = show(maxlead, buttons(), { lang: 'vi' });
    const fab = root.querySelector<HTMLButtonElement>('.fab')!;
    expect(fab.getAttribute('aria-expanded')).toBe('false');
    fab.click();
    await flush();
    expect(fab.getAttribute('aria-expanded')).toBe('true');
    const links = [...root.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('target')]);
    expect(links).toEqual([
      ['☎Hotline', 'tel:19001234', null],
      ['ZaloZalo', 'https://zalo.me/0912345678', '_blank'],
      ['WAWhatsApp us', 'https://wa.me/84912345678', '_blank'],
      ['@Email', 'mailto:hello@shop.example.vn', null],
    ]);
  });

  it('record a click with the button type', async () => {
    const { root } = show(maxlead, buttons());
    root.querySelector<HTMLButtonElement>('.fab')!.click();
    await flush();
    const zalo = root.querySelector<HTMLAnchorElement>('a[href^="https://zalo.me"]')!;
    zalo.addEventListener('click', (event) => event.preventDefault());
    zalo.click();
    const click = beaconMock.mock.calls.map(([, body]) => JSON.parse(body)).find((b) => b.kind === 'click');
    expect(click).toMatchObject({ widget_id: 50, kind: 'click', button_type: 'zalo' });
  });

  it('close with Escape, giving the focus back to the button', async () => {
    const { root } = show(maxlead, buttons());
    const fab = root.querySelector<HTMLButtonElement>('.fab')!;
    fab.click();
    await flush();
    root.querySelector('.ls')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    await flush();
    expect(root.querySelector('.ls')).toBeNull();
    expect(root.activeElement).toBe(fab);
  });

  it('ask for a phone number first when the merchant wants one, send it as a lead, then open the channel', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue({} as Window);
    const { root } = show(maxlead, buttons({ capture: 'phone' }));
    root.querySelector<HTMLButtonElement>('.fab')!.click();
    await flush();
    root.querySelector<HTMLAnchorElement>('a[href^="https://wa.me"]')!.click();
    await flush();
    expect(open).not.toHaveBeenCalled();
    type(root, 'input[name=phone]', 'abc');
    submit(root);
    await flush();
    expect(root.querySelector('input[name=phone]')?.getAttribute('aria-invalid')).toBe('true');
    type(root, 'input[name=phone]', '0987654321');
    submit(root);
    await flush();
    const lead = beaconMock.mock.calls.find(([url]) => url.endsWith('/api/sdk/lead'));
    expect(JSON.parse(lead![1])).toMatchObject({ widget_id: 50, phone: '0987654321', button_type: 'whatapps', website: '' });
    expect(open).toHaveBeenCalledWith('https://wa.me/84912345678', '_blank');
    // Asked once: the next channel opens at once.
    root.querySelector<HTMLAnchorElement>('a[href^="https://zalo.me"]')!.addEventListener('click', (e) => e.preventDefault());
    root.querySelector<HTMLAnchorElement>('a[href^="https://zalo.me"]')!.click();
    await flush();
    expect(root.querySelector('form')).toBeNull();
  });
});

describe('the fake-buyer notices', () => {
  const notices = (over: Record<string, unknown> = {}) =>
    config(60, 'fake_noti', {
      items: [
        { name: '', city: 'Hanoi', product: 'Áo thun basic', url: '', image_url: '', minutes_ago: 5 },
        { name: 'Lan', city: '', product: 'Quần jean', url: 'https://shop.example.vn/p/2', image_url: '', minutes_ago: 120 },
      ],
      min_interval_seconds: 10,
      max_interval_seconds: 10,
      display_seconds: 4,
      max_per_session: 3,
      ...over,
    });

  it('say who bought what and when, in a polite live region', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { root } = show(fakeNoti, notices());
    await flush();
    const region = root.querySelector('[role=status]')!;
    expect(region.getAttribute('aria-live')).toBe('polite');
    expect(region.textContent).toBe('Someone in Hanoi bought Áo thun basic5 minutes ago');
  });

  it('come one at a time, at the interval, for the display time, up to the cap of the session', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    localStorage.setItem('nudge_s', `visit1|${Date.now()}`);
    const { root } = show(fakeNoti, notices());
    await flush();
    expect(root.textContent).toContain('Áo thun basic');
    await vi.advanceTimersByTimeAsync(4000);
    await flush();
    expect(root.querySelector('.nt')).toBeNull();
    await vi.advanceTimersByTimeAsync(10_000);
    await flush();
    expect(root.textContent).toContain('Lan bought Quần jean');
    await vi.advanceTimersByTimeAsync(14_000);
    await flush();
    expect(root.textContent).toContain('Áo thun basic');
    await vi.advanceTimersByTimeAsync(14_000);
    await flush();
    // Three shown: the series ends and the widget leaves the page.
    expect(document.querySelector('nudge-widget')).toBeNull();
    expect(show(fakeNoti, notices()).unmount).toBeNull();
  });
});

describe('the flash sale bar', () => {
  it('counts down to the end of the sale in a timer', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'Date'] });
    vi.setSystemTime(new Date('2025-06-15T10:00:00Z'));
    const { root } = show(schedule, config(70, 'schedule', { title: 'Flash sale', sale_start: '2025-06-15T09:00:00Z', sale_end: '2025-06-17T12:30:15Z', link: 'https://shop.example.vn/sale' }));
    const bar = root.querySelector('[role=region]')!;
    expect(bar.getAttribute('aria-label')).toBe('Flash sale');
    expect(root.querySelector('[role=timer]')?.textContent).toBe('Ends in 2 d02:30:15');
    expect(root.querySelector('a')?.getAttribute('href')).toBe('https://shop.example.vn/sale');
  });

  it('shows nothing once the sale is over and there is nothing to say after it', () => {
    const over = config(71, 'schedule', { title: 'Flash sale', sale_start: iso(-7200_000), sale_end: iso(-3600_000) });
    expect(schedule(over, CTX)).toBeNull();
    expect(schedule({ ...over, settings: { ...over.settings, after_text: 'See you next week' } }, CTX)).not.toBeNull();
  });
});
