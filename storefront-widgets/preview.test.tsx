import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WIDGET_TYPES, type PublicWidget } from '../shared/contract/widget';
import { renderWidgetPreview } from './preview';

const rules = { pages: [], devices: ['desktop', 'mobile'] as ('desktop' | 'mobile')[], delay_seconds: 0, scroll: 'none' as const, exit_intent: false, frequency: 'every_page' as const, start_at: null, end_at: null };

/** Drafts as the console's editors hold them: full settings, odds and stock included. */
const DRAFTS: Record<PublicWidget['type'], Record<string, unknown>> = {
  schedule: { title: 'Flash sale', mode: 'evergreen', evergreen_minutes: 90, link: 'https://shop.example.vn/sale', position: 'top', sticky: true, background: '#d72c0d', color: '#ffffff' },
  banner: { title: 'Summer', text: 'Up to 50% off', link: 'https://shop.example.vn/summer', button_text: 'Shop', position: 'center' },
  contact: { title: 'Talk to us', fields: ['name', 'email'], required: ['email'], position: 'center' },
  spin: {
    title: 'Spin to win',
    gate: 'email',
    slices: [
      { id: 'a', label: '10% off', color: '#ff8a00', weight: 1, lose: false, stock: null, code_prefix: 'TEN-' },
      { id: 'b', label: 'Try again', color: '#eeeeee', weight: 3, lose: true, stock: null, code_prefix: '' },
    ],
  },
  suggestion: { title: 'You may like', kind: 'recommendation', items: [{ title: 'Áo thun', url: 'https://shop.example.vn/p/1', image_url: '', price: '199.000₫' }], position: 'bottom_left' },
  fake_noti: { items: [{ name: '', city: 'Hà Nội', product: 'Áo thun', url: '', image_url: '', minutes_ago: 5 }], min_interval_seconds: 8, max_interval_seconds: 20, display_seconds: 6, max_per_session: 5, position: 'bottom_left' },
  maxlead: { buttons: [{ type: 'zalo', value: '0912345678', label: '' }], phones: [], capture: 'phone', position: 'bottom_right', color: '#008060' },
};

const draft = (type: PublicWidget['type']): PublicWidget => ({ id: 0, type, settings: DRAFTS[type], rules });
const flush = async () => {
  for (let i = 0; i < 8; i++) await Promise.resolve();
};

let host: HTMLElement;
let network: ReturnType<typeof vi.fn>;

beforeEach(() => {
  document.body.innerHTML = '<div id="frame" style="width:375px;height:640px"></div>';
  host = document.getElementById('frame')!;
  network = vi.fn(async () => ({ json: async () => ({ success: true, data: {} }) }));
  vi.stubGlobal('fetch', network);
  Object.defineProperty(navigator, 'sendBeacon', { configurable: true, value: network });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the live preview in the console', () => {
  for (const type of WIDGET_TYPES) {
    it(`mounts the real ${type} widget inside the editor's frame, in its own shadow root, and takes it away`, async () => {
      const unmount = renderWidgetPreview(host, draft(type), { lang: 'vi', device: 'mobile' });
      await flush();
      const widgetHost = host.querySelector('nudge-widget');
      expect(widgetHost?.shadowRoot?.querySelector('.r')).not.toBeNull();
      expect(document.body.querySelectorAll(':scope > nudge-widget')).toHaveLength(0);
      unmount();
      expect(host.innerHTML).toBe('');
      expect(network).not.toHaveBeenCalled();
    });
  }

  it('shows an edited draft in place, keeping what the widget was doing', async () => {
    const preview = renderWidgetPreview(host, draft('maxlead'), { lang: 'en', device: 'desktop' });
    const widgetHost = host.querySelector('nudge-widget')!;
    widgetHost.shadowRoot!.querySelector<HTMLButtonElement>('.fab')!.click();
    await flush();
    preview.update({ ...draft('maxlead'), settings: { ...DRAFTS.maxlead, greeting: 'Xin chào!' } }, { lang: 'en', device: 'desktop' });
    await flush();
    expect(host.querySelector('nudge-widget')).toBe(widgetHost);
    expect(widgetHost.shadowRoot!.querySelector('.g')?.textContent).toBe('Xin chào!');
    preview.update(draft('banner'), { lang: 'en', device: 'desktop' });
    expect(host.querySelectorAll('nudge-widget')).toHaveLength(1);
    expect(host.querySelector('nudge-widget')!.shadowRoot!.querySelector('h2')?.textContent).toBe('Summer');
  });

  it('lays the widget out for a phone in the mobile frame and for a desktop in the other', () => {
    renderWidgetPreview(host, draft('banner'), { lang: 'en', device: 'mobile' });
    renderWidgetPreview(host, draft('banner'), { lang: 'en', device: 'desktop' });
    const [phone, desktop] = [...host.querySelectorAll('nudge-widget')].map((h) => h.shadowRoot!.querySelector('.r')!.className);
    expect(phone).toBe('r mob');
    expect(desktop).toBe('r');
  });

  it('simulates a contact submission without sending it, and says so', async () => {
    renderWidgetPreview(host, draft('contact'), { lang: 'en', device: 'desktop' });
    const root = host.querySelector('nudge-widget')!.shadowRoot!;
    root.querySelector<HTMLInputElement>('input[name=email]')!.value = 'a@shop.example.vn';
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await flush();
    expect(root.querySelector('[role=status]')).not.toBeNull();
    expect(root.textContent).toContain('Preview: nothing is sent.');
    expect(network).not.toHaveBeenCalled();
  });

  it('simulates a spin with the draft odds, and says the code is only an example', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    vi.spyOn(Math, 'random').mockReturnValue(0.1);
    renderWidgetPreview(host, draft('spin'), { lang: 'en', device: 'desktop' });
    const root = host.querySelector('nudge-widget')!.shadowRoot!;
    root.querySelector<HTMLInputElement>('input[name=email]')!.value = 'a@shop.example.vn';
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await flush();
    await vi.advanceTimersByTimeAsync(6000);
    await flush();
    expect(root.querySelector('code')?.textContent).toBe('TEN-PREVIEW');
    expect(root.textContent).toContain('this code is an example');
    expect(network).not.toHaveBeenCalled();
  });

  it("keeps the console on its page when a preview's link is clicked", () => {
    renderWidgetPreview(host, draft('banner'), { lang: 'en', device: 'desktop' });
    const link = host.querySelector('nudge-widget')!.shadowRoot!.querySelector('a')!;
    const click = new MouseEvent('click', { bubbles: true, cancelable: true, composed: true });
    link.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
  });

  it("shows the contact buttons' capture question without storing or sending anything", async () => {
    const open = vi.spyOn(window, 'open');
    renderWidgetPreview(host, draft('maxlead'), { lang: 'vi', device: 'desktop' });
    const root = host.querySelector('nudge-widget')!.shadowRoot!;
    root.querySelector<HTMLButtonElement>('.fab')!.click();
    await flush();
    root.querySelector('a')!.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, composed: true }));
    await flush();
    expect(root.textContent).toContain('Số điện thoại của bạn');
    root.querySelector<HTMLInputElement>('input[name=phone]')!.value = '0912345678';
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await flush();
    expect(open).not.toHaveBeenCalled();
    expect(network).not.toHaveBeenCalled();
    expect(localStorage.getItem('nudge_cap')).toBeNull();
  });
});
