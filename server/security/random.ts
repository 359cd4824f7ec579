import { randomBytes } from 'node:crypto';

/** A source of uniform numbers in [0, 1): crypto in production, a seeded generator in tests. */
export type Random = () => number;

/** 48 bits from the operating system's CSPRNG: prize draws must not be predictable from earlier ones. */
export const cryptoRandom: Random = () => randomBytes(6).readUIntBE(0, 6) / 2 ** 48;

/**
 * A deterministic generator (mulberry32) for tests that must give the same draws on every run, so a
 * statistical check cannot fail by bad luck. Never used to draw real prizes.
 */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
