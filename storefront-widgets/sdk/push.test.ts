import { describe, expect, it } from 'vitest';
import { DENY_MS, keyBytes, mayOffer } from './push';

describe('the subscription box offer', () => {
  const now = 1_700_000_000_000;

  it('is made only while the browser has not asked yet', () => {
    expect(mayOffer('default', null, now)).toBe(true);
    expect(mayOffer('granted', null, now)).toBe(false);
    expect(mayOffer('denied', null, now)).toBe(false);
  });

  it('waits 7 days after the visitor said "later"', () => {
    expect(mayOffer('default', String(now - DENY_MS + 60_000), now)).toBe(false);
    expect(mayOffer('default', String(now - DENY_MS), now)).toBe(true);
  });
});

describe('the VAPID key', () => {
  it('turns base64url text into the bytes PushManager wants', () => {
    const bytes = Uint8Array.from({ length: 65 }, (_, i) => (i * 37) % 256);
    expect(Array.from(keyBytes(Buffer.from(bytes).toString('base64url')))).toEqual(Array.from(bytes));
  });
});
