import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TrackBatch, type TrackItem } from '../../shared/contract/audience';
import { isEmail } from '../../shared/validation';
import type { NudgeQueue } from '../loader/boot';
import { SESSION_IDLE_MS } from './session';
import { collect } from './track';

const API = 'https://api.nudge.example';

/**
 * Collection on a page, with the API's answers recorded: what each stored batch carried. `refuse`: batches the
 * API answers 400 (INVALID_PARAM), storing nothing of them.
 */
function start(
  options: {
    queued?: unknown[][];
    config?: Record<string, unknown>;
    refuse?: (batch: TrackBatch) => boolean;
    /** The transport's limits: throws as fetch does, or an answer that stores nothing, or null to go on. */
    limit?: (url: string, init?: RequestInit) => { ok: boolean; status: number; headers?: Headers; json: () => Promise<unknown> } | null;
  } = {},
) {
  const batches: TrackBatch[] = [];
  const fetch = vi.fn(async (url: string, init?: RequestInit) => {
    const limited = options.limit?.(url, init);
    if (limited) return limited;
    const batch = TrackBatch.parse(JSON.parse(String(init?.body)));
    if (options.refuse?.(batch)) return { ok: false, status: 400, json: async () => ({ success: false, error: 'INVALID_PARAM' }) };
    batches.push(batch);
    return { ok: true, status: 200, json: async () => ({ success: true, data: {} }) };
  });
  vi.stubGlobal('fetch', fetch);
  const queue = Object.assign(() => undefined, { q: (options.queued ?? []).map((args) => ({ ...args, length: args.length })) }) as unknown as NudgeQueue;
  const show = vi.fn();
  stops.push(collect({
    ctx: { api: API, key: 'ck_live_12345678', lang: 'vi', mobile: false },
    config: { application_id: 'shop_vn', widgets: [], ...options.config } as never,
    queue,
    show,
    load: vi.fn(),
  }));
  const items = () => batches.flatMap((batch) => batch.items);
  const call = (...args: unknown[]) => queue.q!.push(args);
  return { batches, items, show, call, fetch };
}

/** Each test's page ends before the next one starts. */
const stops: (() => void)[] = [];

const flushed = async () => {
  await vi.advanceTimersByTimeAsync(2100);
};
const types = (items: TrackItem[]) => items.map((item) => item.type);

beforeEach(() => {
  vi.useFakeTimers();
  localStorage.clear();
  history.replaceState(null, '', '/?utm_source=zalo&utm_campaign=tet');
});
afterEach(() => {
  // Last started, first stopped: each restores the history.pushState it found.
  stops.splice(0).reverse().forEach((stop) => stop());
  vi.clearAllTimers();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('collection on a shop page', () => {
  it('reports a new session with its landing UTM, then the page view, with the device facts', async () => {
    const page = start();
    await flushed();
    expect(types(page.items())).toEqual(['session', 'page']);
    const [session, view] = page.items();
    expect(session).toMatchObject({ utm: { utm_source: 'zalo', utm_campaign: 'tet' } });
    expect(view).toMatchObject({ url: `${location.origin}/?utm_source=zalo&utm_campaign=tet`, session_id: (session as { session_id: string }).session_id });
    expect(page.batches[0].device).toMatchObject({ platform: 'web', device_type: 'desktop', timezone_offset: -new Date().getTimezoneOffset() || 0 });
    expect(page.batches[0].visitor_id).toBe(localStorage.getItem('nudge_v'));
  });

  it('starts no new session for the next page within 30 minutes, and a new one after 30 idle minutes', async () => {
    start();
    await flushed();
    vi.setSystemTime(Date.now() + 10 * 60_000);
    const samePage = start();
    await flushed();
    expect(types(samePage.items())).toEqual(['page']);
    vi.setSystemTime(Date.now() + SESSION_IDLE_MS);
    const later = start();
    await flushed();
    expect(types(later.items())).toEqual(['session', 'page']);
  });

  it("sends the device facts with a session's first batch, and again only when they change or a new session begins", async () => {
    const page = start();
    await flushed();
    page.call('event', 'add_to_cart', { sku: 'A1' });
    await flushed();
    expect(page.batches).toHaveLength(2);
    expect(page.batches[0].device).toMatchObject({ platform: 'web', device_type: 'desktop' });
    expect(page.batches[1]).not.toHaveProperty('device');
    vi.setSystemTime(Date.now() + 10 * 60_000);
    const samePage = start();
    await flushed();
    expect(samePage.batches).toHaveLength(1);
    expect(samePage.batches[0]).not.toHaveProperty('device');
    // The visitor switched the browser to Vietnamese: the next batch says so.
    Object.defineProperty(navigator, 'language', { configurable: true, get: () => 'vi-VN' });
    try {
      const vietnamese = start();
      await flushed();
      expect(vietnamese.batches[0].device).toMatchObject({ language: 'vi' });
    } finally {
      delete (navigator as { language?: string }).language;
    }
    vi.setSystemTime(Date.now() + SESSION_IDLE_MS);
    const nextSession = start();
    await flushed();
    expect(types(nextSession.items())).toEqual(['session', 'page']);
    expect(nextSession.batches[0].device).toMatchObject({ platform: 'web', device_type: 'desktop' });
  });

  it('sends the device facts again after the batch that carried them was refused', async () => {
    let refused = false;
    const page = start({ refuse: () => !refused && (refused = true) });
    await flushed();
    expect(page.batches).toEqual([]);
    page.call('event', 'add_to_cart', { sku: 'A1' });
    await flushed();
    expect(types(page.items())).toEqual(['event']);
    expect(page.batches[0].device).toMatchObject({ platform: 'web' });
  });

  it('counts a single-page navigation as a page view', async () => {
    const page = start();
    history.pushState(null, '', '/products/ao-thun');
    await flushed();
    expect(page.items().filter((item) => item.type === 'page').map((item) => (item as { url: string }).url)).toEqual([
      `${location.origin}/?utm_source=zalo&utm_campaign=tet`,
      `${location.origin}/products/ao-thun`,
    ]);
  });

  it('runs the calls the shop queued before the SDK came, and later ones at once', async () => {
    const page = start({ queued: [['identify', 'customer-42'], ['show', '7']] });
    page.call('event', 'add_to_cart', { sku: 'A1' });
    page.call('set', { plan: 'gold' });
    await flushed();
    expect(page.show).toHaveBeenCalledWith(7);
    expect(page.items().filter((item) => !['session', 'page'].includes(item.type))).toMatchObject([
      { type: 'identify', identity: { external_user_id: 'customer-42' } },
      { type: 'event', name: 'add_to_cart', properties: { sku: 'A1' } },
      { type: 'set', attributes: { plan: 'gold' } },
    ]);
  });

  it("keeps a visit's page views when the shop passes a mistyped email to identify", async () => {
    // As the server does (server/domain/ingest.ts, checkIdentity): a bad email refuses the whole batch.
    const badEmail = (batch: TrackBatch) => batch.items.some((item) => item.type === 'identify' && item.identity.email !== undefined && !isEmail(item.identity.email));
    const page = start({ refuse: badEmail });
    page.call('identify', { external_user_id: 'customer-42', email: 'lan@@shop.vn', mobile_number: '12' });
    await flushed();
    expect(types(page.items())).toEqual(['session', 'page', 'identify']);
    expect(page.items()[2]).toMatchObject({ identity: { external_user_id: 'customer-42' } });
    expect(page.items()[2]).not.toHaveProperty('identity.email');
    expect(page.items()[2]).not.toHaveProperty('identity.mobile_number');
    expect(JSON.parse(localStorage.getItem('nudge_q') ?? '[]')).toEqual([]);
  });

  it('sends a limited batch again when the server said, not at once and not minutes later', async () => {
    let limited = true;
    const page = start({
      limit: () => {
        if (!limited) return null;
        limited = false;
        // As the server answers a visitor past its limit, with the header exposed to the shop's origin.
        return { ok: false, status: 429, headers: new Headers({ 'retry-after': '12' }), json: async () => ({ success: false, error: 'RATE_LIMITED' }) };
      },
    });
    await flushed();
    expect(page.fetch).toHaveBeenCalledTimes(1);
    expect(page.items()).toEqual([]);
    // Not after the 4 s of a first retry…
    await vi.advanceTimersByTimeAsync(11_000);
    expect(page.fetch).toHaveBeenCalledTimes(1);
    // …but at 12 s, with the device facts the limited one carried.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(types(page.items())).toEqual(['session', 'page']);
    expect(page.batches[0].device).toMatchObject({ platform: 'web' });
    expect(JSON.parse(localStorage.getItem('nudge_q') ?? '[]')).toEqual([]);
  });

  it('sends an event with properties too large for one request without the ones past the budget, and what follows', async () => {
    const limits = (_url: string, init?: RequestInit) => {
      const bytes = new TextEncoder().encode(String(init?.body)).length;
      // As browsers do: a keepalive body past 64 KB throws; as the server does: a body past 64 KB is 413.
      if (init?.keepalive && bytes > 65_536) throw new TypeError('keepalive request body too large');
      return bytes > 65_536 ? { ok: false, status: 413, json: async () => ({ success: false }) } : null;
    };
    const page = start({ limit: limits });
    await flushed();
    // A product description in every property: 25 × 1,000 Vietnamese letters, 75 KB in UTF-8 but 25,000 letters.
    page.call('event', 'view_item', Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`mo_ta_${i}`, 'ễ'.repeat(1000)])));
    page.call('event', 'add_to_cart', { sku: 'A1' });
    await vi.advanceTimersByTimeAsync(10_000);
    const events = page.items().filter((item) => item.type === 'event') as Extract<TrackItem, { type: 'event' }>[];
    expect(events.map((event) => event.name)).toEqual(['view_item', 'add_to_cart']);
    // The properties that fit, whole and in order.
    const kept = Object.keys(events[0].properties ?? {});
    expect(kept.length).toBeGreaterThan(10);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `mo_ta_${i}`));
    expect(JSON.parse(localStorage.getItem('nudge_q') ?? '[]')).toEqual([]);
  });

  it('reports each scroll quarter once', async () => {
    Object.defineProperty(document.documentElement, 'scrollHeight', { configurable: true, value: innerHeight + 1000 });
    const page = start();
    vi.stubGlobal('scrollY', 600);
    window.dispatchEvent(new Event('scroll'));
    window.dispatchEvent(new Event('scroll'));
    await flushed();
    expect(page.items().filter((item) => item.type === 'scroll').map((item) => (item as { depth: number }).depth)).toEqual([25, 50]);
  });

  it('keeps the session going while the visitor scrolls, and starts a new one on a scroll after 30 idle minutes', async () => {
    Object.defineProperty(document.documentElement, 'scrollHeight', { configurable: true, value: innerHeight + 1000 });
    const page = start();
    await flushed();
    const [first] = page.items() as { session_id: string }[];
    // 20 minutes reading, a scroll, 20 more, then the next page: 40 minutes after the first view, one session.
    vi.setSystemTime(Date.now() + 20 * 60_000);
    vi.stubGlobal('scrollY', 300);
    window.dispatchEvent(new Event('scroll'));
    vi.setSystemTime(Date.now() + 20 * 60_000);
    history.pushState(null, '', '/products/ao-thun');
    await flushed();
    expect(page.items().slice(2).map((item) => [item.type, (item as { session_id: string }).session_id])).toEqual([
      ['scroll', first.session_id],
      ['page', first.session_id],
    ]);
    // Away 31 minutes, back on the page, scrolling further: a new session, which the scroll belongs to.
    vi.setSystemTime(Date.now() + SESSION_IDLE_MS + 60_000);
    vi.stubGlobal('scrollY', 600);
    window.dispatchEvent(new Event('scroll'));
    await flushed();
    const [session, scroll] = page.items().slice(4) as { type: string; session_id: string }[];
    expect([session.type, scroll.type]).toEqual(['session', 'scroll']);
    expect(session.session_id).not.toBe(first.session_id);
    expect(scroll.session_id).toBe(session.session_id);
  });

  it("opens the visitor's playerinfo page on nudge('playerinfo')", () => {
    const open = vi.fn();
    vi.stubGlobal('open', open);
    const page = start();
    page.call('playerinfo');
    expect(open).toHaveBeenCalledWith(`${API}/application/shop_vn/playerinfo?device=${localStorage.getItem('nudge_v')}`, '_blank', 'noopener');
  });

  it('sends what is waiting with a beacon when the page is hidden', async () => {
    const beacon = vi.spyOn(navigator, 'sendBeacon').mockReturnValue(true);
    start();
    document.dispatchEvent(new Event('visibilitychange'));
    Object.defineProperty(document, 'visibilityState', { configurable: true, value: 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
    await Promise.resolve();
    expect(beacon).toHaveBeenCalledTimes(1);
    expect(beacon.mock.calls[0][0]).toBe(`${API}/api/sdk/track`);
    expect(JSON.parse(String(beacon.mock.calls[0][1])).items).toHaveLength(2);
    Object.defineProperty(document, 'visibilityState', { configurable: true, value: 'visible' });
    beacon.mockRestore();
  });

  it("sends what the last page's beacon carried again with the next page's view, in one request", async () => {
    // The browser takes the beacon, which the network then loses: the page cannot tell.
    const beacon = vi.spyOn(navigator, 'sendBeacon').mockReturnValue(true);
    start();
    dispatchEvent(new Event('pagehide'));
    await Promise.resolve();
    expect(beacon).toHaveBeenCalledTimes(1);
    beacon.mockRestore();
    stops.splice(0).reverse().forEach((stop) => stop());
    history.replaceState(null, '', '/products/ao-dai');
    const next = start();
    await vi.advanceTimersByTimeAsync(0);
    expect(next.fetch).not.toHaveBeenCalled();
    await flushed();
    expect(next.fetch).toHaveBeenCalledTimes(1);
    expect(types(next.items())).toEqual(['session', 'page', 'page']);
    expect(JSON.parse(localStorage.getItem('nudge_q') ?? '[]')).toEqual([]);
  });
});
