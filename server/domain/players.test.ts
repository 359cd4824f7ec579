import { describe, expect, it } from 'vitest';
import { prefixEnd } from './players';

describe('the end of a prefix’s range (prefixEnd)', () => {
  it('is the prefix with its last character one higher', () => {
    expect(prefixEnd('customer-1')).toBe('customer-2');
    expect(prefixEnd('hoa.')).toBe('hoa/');
    expect(prefixEnd('khá')).toBe('khâ');
  });

  it('steps over the surrogates and a last character that has none higher', () => {
    expect(prefixEnd('a\u{d7ff}')).toBe('a\u{e000}');
    expect(prefixEnd('a\u{1f600}')).toBe('a\u{1f601}');
    expect(prefixEnd('a\u{10ffff}')).toBe('b');
    expect(prefixEnd('\u{10ffff}\u{10ffff}')).toBeNull();
  });

  it('bounds every string that begins with the prefix and no other, in code point order', () => {
    const prefix = 'ab\u{ffff}';
    const end = prefixEnd(prefix)!;
    const compare = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    for (const inside of [prefix, `${prefix}\u{0}`, `${prefix}\u{10ffff}\u{10ffff}`, `${prefix}zz`]) {
      expect(compare(inside, prefix) >= 0 && compare(inside, end) < 0, inside).toBe(true);
    }
    for (const outside of ['ab', 'ab\u{fffe}z', 'ac', 'ab\u{10000}']) {
      expect(compare(outside, prefix) >= 0 && compare(outside, end) < 0, outside).toBe(false);
    }
  });
});
