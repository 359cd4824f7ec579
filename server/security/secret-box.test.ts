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
    const flipped = text.slice(0, -1) + (text.endsWith('A') ? 'B' : 'A');
    expect(openSecret(KEY, 'vapid', [version, iv, tag, flipped].join('.'))).toBeNull();
    expect(openSecret(KEY, 'vapid', 'garbage')).toBeNull();
  });
});
