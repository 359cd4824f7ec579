import { describe, expect, it } from 'vitest';
import { remaining, salePhase } from './phase';

const at = (iso: string) => Date.parse(iso);
const fixed = { mode: 'fixed' as const, sale_start: '2025-06-15T10:00:00Z', sale_end: '2025-06-15T22:00:00Z', evergreen_minutes: 60 };

describe('a flash sale with fixed dates', () => {
  it('counts down to the start before the sale', () => {
    expect(salePhase(fixed, at('2025-06-15T09:00:00Z'), 0)).toEqual({ phase: 'before', until: at('2025-06-15T10:00:00Z') });
  });

  it('counts down to the end during the sale', () => {
    expect(salePhase(fixed, at('2025-06-15T10:00:00Z'), 0)).toEqual({ phase: 'during', until: at('2025-06-15T22:00:00Z') });
  });

  it('is over at its end', () => {
    expect(salePhase(fixed, at('2025-06-15T22:00:00Z'), 0).phase).toBe('after');
  });

  it('runs without a countdown when it has no end', () => {
    expect(salePhase({ ...fixed, sale_end: null }, at('2025-07-01T00:00:00Z'), 0)).toEqual({ phase: 'during', until: null });
  });
});

describe('an evergreen flash sale', () => {
  const evergreen = { ...fixed, mode: 'evergreen' as const, evergreen_minutes: 30 };
  it("gives each visitor their own window from their first view", () => {
    const firstSeen = at('2025-06-20T08:00:00Z');
    expect(salePhase(evergreen, firstSeen + 29 * 60_000, firstSeen)).toEqual({ phase: 'during', until: firstSeen + 30 * 60_000 });
    expect(salePhase(evergreen, firstSeen + 30 * 60_000, firstSeen).phase).toBe('after');
  });
});

describe('the countdown', () => {
  it('shows days, hours, minutes and seconds left, never below zero', () => {
    const now = at('2025-06-15T10:00:00Z');
    expect(remaining(now + ((2 * 24 + 5) * 3600 + 11 * 60 + 9) * 1000, now)).toEqual([2, 5, 11, 9]);
    expect(remaining(now - 5000, now)).toEqual([0, 0, 0, 0]);
  });
});
