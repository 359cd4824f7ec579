import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './passwords';

describe('password hashing', () => {
  it('stores scrypt at OWASP cost with its parameters, salted, and verifies only the right password', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    expect(await hashPassword('correct horse')).not.toBe(hash);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
  }, 20_000);

  it('never matches a malformed or foreign hash', async () => {
    for (const stored of ['', 'plain', 'scrypt$17$8$1$salt', 'bcrypt$x$y$z$a$b', 'scrypt$40$8$1$c2FsdA$aGFzaA']) {
      expect(await verifyPassword('anything', stored)).toBe(false);
    }
  });

  it('treats canonically equal Unicode spellings as the same password', async () => {
    const composed = 'mật khẩu';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    expect(await verifyPassword(decomposed, await hashPassword(composed))).toBe(true);
  }, 20_000);
});
