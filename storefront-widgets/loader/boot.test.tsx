import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DisplayRules, PublicWidget } from '../../shared/contract/widget';
import type { WidgetModule } from '../types';
import * as trackModule from '../sdk/track';
import { boot } from './boot';

const RELEASE = 'r3l3a5e000';
const LOADER = 'https://cdn.nudge.example/sdk/nudge.js';

const rules = (over: Partial<DisplayRules> = {}): DisplayRules => ({
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

const widget = (id: number, type: PublicWidget['type'], over: Partial<DisplayRules> = {}): PublicWidget => ({
  id,
  type,
  settings: { title: `Widget ${id}` },
  rules: rules(over),
});

/** The loader as a shop's page runs it: its script tag, the config answer, the chunks it imports. */
function page(widgets: PublicWidget[]) {
  const mount = vi.fn<WidgetModule['mount']>(() => Object.assign(() => undefined, { update: () => undefined }));
  const importer = vi.fn(async (url: string) => {
    await Promise.resolve();
    // The collection chunk is the real one: it takes over the queue and hands `show` back.
    if (url.includes('/chunks/track-')) return trackModule;
    return { mount } as WidgetModule;
  });
  const fetch = vi.fn(async (_url: string) => ({ ok: true, json: async () => ({ success: true, data: { application_id: 'shop', widgets } }) }));
  vi.stubGlobal('fetch', fetch);
  vi.spyOn(navigator, 'sendBeacon').mockReturnValue(true);
  const script = document.createElement('script');
  script.src = LOADER;
  script.dataset.app = 'ck_live_12345678';
  const start = () => boot(script, RELEASE, importer);
  return { mount, importer, fetch, start };
}

/** Lets the config fetch, the chunk imports and the mounts settle. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await vi.advanceTimersByTimeAsync(0);
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

beforeEach(() => {
  vi.useFakeTimers();
  localStorage.clear();
  delete window.nudge;
  history.replaceState(null, '', '/products/ao-thun');
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the loader on a shop page', () => {
  it('defines the call queue, so the shop can call nudge() before the loader has run', () => {
    const { start } = page([]);
    start();
    expect(typeof window.nudge).toBe('function');
  });

  it("reads the application's config from its own origin with the client key", async () => {
    const { start, fetch } = page([]);
    start();
    await settle();
    expect(fetch).toHaveBeenCalledWith('https://cdn.nudge.example/api/sdk/config?key=ck_live_12345678');
  });

  it('loads each widget chunk once, next to the loader, however many widgets of the type show', async () => {
    const { start, importer, mount } = page([widget(1, 'banner'), widget(2, 'banner'), widget(3, 'maxlead')]);
    start();
    await settle();
    const urls = importer.mock.calls.map(([url]) => url);
    expect(urls.filter((u) => u.endsWith(`/sdk/chunks/banner-${RELEASE}.js`))).toHaveLength(1);
    expect(urls.filter((u) => u.endsWith(`/sdk/chunks/maxlead-${RELEASE}.js`))).toHaveLength(1);
    expect(urls.filter((u) => u.endsWith(`/sdk/chunks/runtime-${RELEASE}.js`))).toHaveLength(1);
    expect(mount.mock.calls.map(([w]) => w.id)).toEqual([1, 2, 3]);
  });

  it('loads nothing for widgets the page, the device or the dates rule out', async () => {
    const { start, importer } = page([
      widget(1, 'spin', { pages: [{ match: 'contains', value: '/checkout' }] }),
      widget(2, 'contact', { devices: ['mobile'] }),
      widget(3, 'schedule', { end_at: '2000-01-01T00:00:00Z' }),
    ]);
    start();
    await settle();
    expect(importer.mock.calls.map(([url]) => url)).toEqual([`https://cdn.nudge.example/sdk/chunks/track-${RELEASE}.js`]);
  });

  it('loads the collection chunk once the config is in, and no widget chunk for a page without widgets', async () => {
    const { start, importer } = page([]);
    start();
    await settle();
    expect(importer).toHaveBeenCalledTimes(1);
    expect(importer.mock.calls[0][0]).toBe(`https://cdn.nudge.example/sdk/chunks/track-${RELEASE}.js`);
  });

  it('runs only once when the script tag is on the page twice', async () => {
    const { start, fetch } = page([]);
    start();
    start();
    await settle();
    expect(fetch.mock.calls.filter(([url]) => url.includes('/api/sdk/config'))).toHaveLength(1);
  });
});

describe('the triggers', () => {
  it('waits for the delay', async () => {
    const { start, mount } = page([widget(1, 'banner', { delay_seconds: 5 })]);
    start();
    await settle();
    await vi.advanceTimersByTimeAsync(4900);
    expect(mount).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(200);
    await settle();
    expect(mount).toHaveBeenCalledTimes(1);
  });

  it('waits for the pointer to leave through the top of the window on desktop', async () => {
    const { start, mount } = page([widget(1, 'spin', { exit_intent: true })]);
    start();
    await settle();
    document.dispatchEvent(new MouseEvent('mouseout', { clientY: 200, bubbles: true }));
    await settle();
    expect(mount).not.toHaveBeenCalled();
    document.dispatchEvent(new MouseEvent('mouseout', { clientY: -1, bubbles: true }));
    await settle();
    expect(mount).toHaveBeenCalledTimes(1);
  });

  it('waits for the scroll depth', async () => {
    Object.defineProperty(document.documentElement, 'scrollHeight', { configurable: true, value: 3000 });
    const { start, mount } = page([widget(1, 'suggestion', { scroll: '50' })]);
    start();
    await settle();
    expect(mount).not.toHaveBeenCalled();
    vi.stubGlobal('scrollY', (3000 - innerHeight) * 0.6);
    window.dispatchEvent(new Event('scroll'));
    await settle();
    expect(mount).toHaveBeenCalledTimes(1);
  });

  it("shows a widget at once when the shop calls nudge('show', id), even one that waits for exit intent", async () => {
    window.nudge = function () {
      (window.nudge!.q ||= [] as ArrayLike<unknown>[]).push(arguments);
    };
    window.nudge('show', 7);
    const { start, mount } = page([widget(7, 'contact', { exit_intent: true })]);
    start();
    await settle();
    expect(mount).toHaveBeenCalledTimes(1);
    window.nudge('show', 7);
    await settle();
    expect(mount).toHaveBeenCalledTimes(1);
  });
});

describe('the frequency', () => {
  it('shows a "once" widget on the first page view only', async () => {
    const first = page([widget(1, 'banner', { frequency: 'once' })]);
    first.start();
    await settle();
    expect(first.mount).toHaveBeenCalledTimes(1);

    delete window.nudge;
    const second = page([widget(1, 'banner', { frequency: 'once' })]);
    second.start();
    await settle();
    expect(second.mount).not.toHaveBeenCalled();
  });

  it('shows a "once a session" widget again after 30 idle minutes', async () => {
    const first = page([widget(1, 'banner', { frequency: 'once_session' })]);
    first.start();
    await settle();

    delete window.nudge;
    vi.setSystemTime(Date.now() + 10 * 60_000);
    const sameVisit = page([widget(1, 'banner', { frequency: 'once_session' })]);
    sameVisit.start();
    await settle();
    expect(sameVisit.mount).not.toHaveBeenCalled();

    delete window.nudge;
    vi.setSystemTime(Date.now() + 31 * 60_000);
    const nextVisit = page([widget(1, 'banner', { frequency: 'once_session' })]);
    nextVisit.start();
    await settle();
    expect(nextVisit.mount).toHaveBeenCalledTimes(1);
  });

  it('does not count a widget as shown when it had nothing to show', async () => {
    const quiet = page([widget(1, 'schedule', { frequency: 'once' })]);
    quiet.mount.mockReturnValue(null);
    quiet.start();
    await settle();

    delete window.nudge;
    const later = page([widget(1, 'schedule', { frequency: 'once' })]);
    later.start();
    await settle();
    expect(later.mount).toHaveBeenCalledTimes(1);
  });
});
