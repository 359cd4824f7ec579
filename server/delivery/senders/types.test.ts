import { describe, expect, it } from 'vitest';
import { backoffDelayMs, parseRetryAfter, shouldUnsubscribe } from './types';

describe('backoffDelayMs', () => {
  it('doubles per attempt between half and all of the exponential delay', () => {
    expect([0, 1, 2, 3].map((a) => backoffDelayMs(a, { baseMs: 1000, random: () => 0 }))).toEqual([500, 1000, 2000, 4000]);
    expect([0, 1, 2, 3].map((a) => backoffDelayMs(a, { baseMs: 1000, random: () => 0.999999 }))).toEqual([1000, 2000, 4000, 8000]);
  });
  it('never exceeds the cap, even for huge attempt numbers', () => {
    expect(backoffDelayMs(40, { baseMs: 1000, capMs: 60_000, random: () => 0.999999 })).toBe(60_000);
    expect(backoffDelayMs(10_000, { capMs: 60_000, random: () => 0 })).toBe(30_000);
  });
  it('spreads delays with the default random source', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelayMs(5)));
    expect(delays.size).toBeGreaterThan(1);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, ignores garbage', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(30_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:00 GMT', Date.parse('2026-01-01T00:01:00Z'))).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('shouldUnsubscribe', () => {
  it('is true only for gone and invalid', () => {
    expect(shouldUnsubscribe({ ok: false, reason: 'gone', detail: '' })).toBe(true);
    expect(shouldUnsubscribe({ ok: false, reason: 'invalid', detail: '' })).toBe(true);
    expect(shouldUnsubscribe({ ok: false, reason: 'retryable', detail: '' })).toBe(false);
    expect(shouldUnsubscribe({ ok: true })).toBe(false);
  });
});
