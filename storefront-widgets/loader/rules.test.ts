import { describe, expect, it } from 'vitest';
import type { DisplayRules } from '../../shared/contract/widget';
import { deviceOf, eligible, frequencyAllows, inDates, isExitIntent, pageAllowed, scrollFraction, scrollReached, showingRecord } from './rules';

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

describe('page rules', () => {
  const page = 'https://shop.example.vn/products/ao-thun?utm_source=fb#reviews';

  it('shows everywhere when there are no page rules', () => {
    expect(pageAllowed([], page)).toBe(true);
  });

  it('shows where the URL contains the value, ignoring letter case', () => {
    expect(pageAllowed([{ match: 'contains', value: '/PRODUCTS/' }], page)).toBe(true);
    expect(pageAllowed([{ match: 'contains', value: '/collections/' }], page)).toBe(false);
  });

  it('matches "equals" against the full URL, the URL without its query, or the path, ignoring a trailing slash and the fragment', () => {
    for (const value of ['https://shop.example.vn/products/ao-thun', '/products/ao-thun', '/products/ao-thun/', '/products/ao-thun?utm_source=fb']) {
      expect(pageAllowed([{ match: 'equals', value }], page), value).toBe(true);
    }
    expect(pageAllowed([{ match: 'equals', value: '/products' }], page)).toBe(false);
    expect(pageAllowed([{ match: 'equals', value: '/' }], 'https://shop.example.vn/')).toBe(true);
    expect(pageAllowed([{ match: 'equals', value: '/' }], page)).toBe(false);
  });

  it('hides where the URL contains an excluded value, whatever the other rules say', () => {
    expect(pageAllowed([{ match: 'contains', value: 'products' }, { match: 'excludes', value: 'ao-thun' }], page)).toBe(false);
    expect(pageAllowed([{ match: 'excludes', value: '/cart' }], page)).toBe(true);
  });

  it('shows when any one of several contains/equals rules matches', () => {
    expect(pageAllowed([{ match: 'equals', value: '/' }, { match: 'contains', value: 'ao-thun' }], page)).toBe(true);
  });
});

describe('device', () => {
  it('counts phones by user agent and narrow windows as mobile, tablets and wide windows as desktop', () => {
    expect(deviceOf(390, 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148')).toBe('mobile');
    expect(deviceOf(1280, 'Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36')).toBe('mobile');
    expect(deviceOf(700, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120')).toBe('mobile');
    expect(deviceOf(1024, 'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X)')).toBe('desktop');
    expect(deviceOf(1440, 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120')).toBe('desktop');
  });

  it('leaves a desktop-only widget off phones', () => {
    const page = { href: 'https://shop.example.vn/', now: 0 };
    expect(eligible(rules({ devices: ['desktop'] }), { ...page, device: 'mobile' })).toBe(false);
    expect(eligible(rules({ devices: ['desktop'] }), { ...page, device: 'desktop' })).toBe(true);
  });
});

describe('start and end dates', () => {
  const now = Date.parse('2025-06-15T12:00:00Z');
  it('shows only from the start date and until the end date', () => {
    expect(inDates({ start_at: '2025-06-16T00:00:00Z', end_at: null }, now)).toBe(false);
    expect(inDates({ start_at: '2025-06-15T00:00:00Z', end_at: '2025-06-15T12:00:00Z' }, now)).toBe(false);
    expect(inDates({ start_at: '2025-06-15T00:00:00Z', end_at: '2025-06-15T12:00:01Z' }, now)).toBe(true);
    expect(inDates({ start_at: null, end_at: null }, now)).toBe(true);
  });
});

describe('scroll depth', () => {
  it('measures how far down the page the visitor is, and counts a page that does not scroll as read', () => {
    expect(scrollFraction(0, 800, 4000)).toBe(0);
    expect(scrollFraction(1600, 800, 4000)).toBe(0.5);
    expect(scrollFraction(0, 800, 700)).toBe(1);
  });

  it('is reached at each quarter, and at the end within 2 %', () => {
    expect(scrollReached('none', 0)).toBe(true);
    expect(scrollReached('25', 0.2)).toBe(false);
    expect(scrollReached('25', 0.25)).toBe(true);
    expect(scrollReached('75', 0.7)).toBe(false);
    expect(scrollReached('100', 0.97)).toBe(false);
    expect(scrollReached('100', 0.985)).toBe(true);
  });
});

describe('exit intent', () => {
  it('fires when the pointer leaves the window through its top edge, not when it moves onto another element', () => {
    expect(isExitIntent({ clientY: -2, relatedTarget: null })).toBe(true);
    expect(isExitIntent({ clientY: 300, relatedTarget: null })).toBe(false);
    expect(isExitIntent({ clientY: 0, relatedTarget: {} as EventTarget })).toBe(false);
  });
});

describe('frequency', () => {
  const t0 = Date.parse('2025-06-15T08:00:00Z');
  const shown = showingRecord('s1', t0);

  it('shows on every page, whatever was shown before', () => {
    expect(frequencyAllows('every_page', shown, 's1', t0 + 1000)).toBe(true);
  });

  it('shows once a session: not again in the same session, again in the next', () => {
    expect(frequencyAllows('once_session', null, 's1', t0)).toBe(true);
    expect(frequencyAllows('once_session', shown, 's1', t0 + 1000)).toBe(false);
    expect(frequencyAllows('once_session', shown, 's2', t0 + 1000)).toBe(true);
  });

  it('shows once a day: not again within 24 hours, again after', () => {
    expect(frequencyAllows('once_day', shown, 's2', t0 + 23 * 3600_000)).toBe(false);
    expect(frequencyAllows('once_day', shown, 's2', t0 + 24 * 3600_000)).toBe(true);
  });

  it('shows once: never again once shown', () => {
    expect(frequencyAllows('once', null, 's1', t0)).toBe(true);
    expect(frequencyAllows('once', shown, 's9', t0 + 365 * 24 * 3600_000)).toBe(false);
  });
});
