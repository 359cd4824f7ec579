import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateMessageId, generateSecret, secretHint, sign, signatureHeaders } from './signing';

describe('sign', () => {
  it("matches the Standard Webhooks reference libraries' published vector", () => {
    // standard-webhooks/libraries/javascript/src/webhook.test.ts, "sign function works".
    expect(sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('signs the id, the timestamp and the exact body: a change in any gives another signature', () => {
    const secret = generateSecret();
    const base = sign(secret, 'msg_a', 1700000000, '{"a":1}');
    expect(sign(secret, 'msg_b', 1700000000, '{"a":1}')).not.toBe(base);
    expect(sign(secret, 'msg_a', 1700000001, '{"a":1}')).not.toBe(base);
    expect(sign(secret, 'msg_a', 1700000000, '{"a": 1}')).not.toBe(base);
    expect(sign(generateSecret(), 'msg_a', 1700000000, '{"a":1}')).not.toBe(base);
  });
});

describe('signatureHeaders', () => {
  it('sends the id, the attempt time in seconds, and one v1 signature per secret, current first', () => {
    const current = generateSecret();
    const previous = generateSecret();
    const headers = signatureHeaders([current, previous], 'msg_x', new Date('2025-03-01T10:00:00.900Z'), '{}');
    expect(headers['webhook-id']).toBe('msg_x');
    expect(headers['webhook-timestamp']).toBe(String(Date.parse('2025-03-01T10:00:00Z') / 1000));
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    // A receiver's own check: HMAC-SHA256 keyed with the bytes after whsec_, over "{id}.{timestamp}.{body}".
    const expected = (secret: string) =>
      'v1,' + createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update(`msg_x.${headers['webhook-timestamp']}.{}`).digest('base64');
    expect(signatures).toEqual([expected(current), expected(previous)]);
  });
});

describe('secrets and ids', () => {
  it('makes whsec_ secrets of 32 random bytes, never twice the same', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
  });

  it('makes msg_ ids without dots', () => {
    const id = generateMessageId();
    expect(id).toMatch(/^msg_[A-Za-z0-9_-]{24}$/);
    expect(generateMessageId()).not.toBe(id);
  });

  it('hints at a secret by its last four characters only', () => {
    expect(secretHint('whsec_abcdefghijklmnop')).toBe('whsec_…mnop');
  });
});
