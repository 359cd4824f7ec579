import { afterEach, describe, expect, it, vi } from 'vitest';
import { SESSION_IDLE_MS, currentSession, randomId, touchSession } from './session';
import { safeStorage } from './storage';
import { visitorId } from './visitor';

/** A localStorage stand-in for the node test environment. */
function memoryStorage(): Storage {
  const data = new Map<string, string>();
  return {
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    getItem: (key) => data.get(key) ?? null,
    key: (i) => [...data.keys()][i] ?? null,
    removeItem: (key) => void data.delete(key),
    setItem: (key, value) => void data.set(key, String(value)),
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the visitor session', () => {
  it('keeps the same session while pages follow each other within 30 minutes', () => {
    const store = safeStorage();
    vi.stubGlobal('localStorage', memoryStorage());
    let n = 0;
    const next = () => `s${++n}`;
    const t0 = 1_700_000_000_000;
    const first = touchSession(store, t0, next);
    expect(touchSession(store, t0 + 20 * 60_000, next)).toBe(first);
    // 20 + 25 minutes after the first view, but only 25 after the last one: still the same visit.
    expect(touchSession(store, t0 + 45 * 60_000, next)).toBe(first);
    expect(currentSession(store)).toBe(first);
  });

  it('starts a new session after 30 minutes without a page view', () => {
    vi.stubGlobal('localStorage', memoryStorage());
    const store = safeStorage();
    const t0 = 1_700_000_000_000;
    const first = touchSession(store, t0);
    const later = touchSession(store, t0 + SESSION_IDLE_MS);
    expect(later).not.toBe(first);
    expect(currentSession(store)).toBe(later);
  });
});

describe('the visitor session across tabs', () => {
  it('goes on in an older tab while the shopper kept browsing in another, and ends 30 minutes after the last activity in any', () => {
    vi.stubGlobal('localStorage', memoryStorage());
    // Each tab is a page of its own with its own store, over the one localStorage of the shop.
    const older = safeStorage();
    const newer = safeStorage();
    const t0 = 1_700_000_000_000;
    const first = touchSession(older, t0);
    for (const minutes of [1, 12, 24, 36, 40]) expect(touchSession(newer, t0 + minutes * 60_000)).toBe(first);
    // Back in the first tab 41 minutes after its own last view, one minute after the other tab's.
    expect(touchSession(older, t0 + 41 * 60_000)).toBe(first);
    expect(currentSession(newer)).toBe(first);
    const next = touchSession(newer, t0 + 71 * 60_000);
    expect(next).not.toBe(first);
    expect(currentSession(older)).toBe(next);
  });
});

describe('when the browser refuses storage', () => {
  it('keeps what this page stored in memory instead of failing', () => {
    vi.stubGlobal('localStorage', {
      getItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      setItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    });
    const store = safeStorage();
    expect(store.getItem('nudge_s')).toBeNull();
    const session = touchSession(store, 1000);
    expect(touchSession(store, 2000)).toBe(session);
    expect(visitorId(store)).toBe(visitorId(store));
  });

  it('reads back its own writes when the quota is full', () => {
    const full = memoryStorage();
    full.setItem('nudge_f7', 'old|1');
    full.setItem = () => {
      throw new DOMException('full', 'QuotaExceededError');
    };
    vi.stubGlobal('localStorage', full);
    const store = safeStorage();
    store.setItem('nudge_f7', 'new|2');
    expect(store.getItem('nudge_f7')).toBe('new|2');
  });
});

describe('the visitor id', () => {
  it('is made once, kept in first-party storage and valid for the API', () => {
    vi.stubGlobal('localStorage', memoryStorage());
    const id = visitorId(safeStorage());
    expect(id).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(visitorId(safeStorage())).toBe(id);
  });

  it('differs between browsers', () => {
    const ids = new Set(Array.from({ length: 200 }, () => randomId()));
    expect(ids.size).toBe(200);
  });
});
