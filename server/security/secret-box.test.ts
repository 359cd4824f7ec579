import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from './secret-box';

const KEY = 'a-secret-key-of-the-server';

describe('secrets at rest', () => {
  it('opens what it sealed, and seals the same text differently each time', () => {
    const a = sealSecret(KEY, 'vapid', 'private-key');
    const b = sealSecret(KEY, 'vapid', 'private-key');
    expect(a).not.toBe(b);
    expect(a).not.toContain('private-key');
    expect(openSecret(KEY, 'vapid', a)).toBe('private-key');
  });

  it('refuses a value sealed for another purpose or under another key', () => {
    const sealed = sealSecret(KEY, 'vapid', 'private-key');
    expect(openSecret(KEY, 'shop-token', sealed)).toBeNull();
    expect(openSecret('another-key', 'vapid', sealed)).toBeNull();
  });

  it('refuses a tampered value', () => {
    const [version, iv, tag, text] = sealSecret(KEY, 'vapid', 'private-key').split('.');
    // One bit of the ciphertext flipped in its bytes (not in its last base64 letter, whose low bits may be padding).
    const bytes = Buffer.from(text, 'base64url');
    bytes[0] ^= 1;
    expect(openSecret(KEY, 'vapid', [version, iv, tag, bytes.toString('base64url')].join('.'))).toBeNull();
    // A tag cut short is refused, not checked on the bytes that are left.
    const shortTag = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    expect(openSecret(KEY, 'vapid', [version, iv, shortTag, text].join('.'))).toBeNull();
    expect(openSecret(KEY, 'vapid', [version, iv, tag, text].join('.'))).toBe('private-key');
    expect(openSecret(KEY, 'vapid', 'garbage')).toBeNull();
  });
});
