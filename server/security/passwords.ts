import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** OWASP's scrypt parameters: N = 2^17, r = 8, p = 1 (about 128 MiB and a few hundred ms per hash). */
export const SCRYPT_PARAMS = { log2N: 17, r: 8, p: 1, keyLength: 64, saltLength: 16 } as const;

/**
 * The cost new hashes get: OWASP's, except in the API test suites (vitest.config.ts), which create and sign in
 * hundreds of accounts and set NUDGE_TEST_SCRYPT_LOG2N to 12 (a few ms a hash). Honoured only under vitest
 * (VITEST is set) and never below 2^10; verifying reads the cost from the stored hash either way.
 */
function hashCost(): number {
  const lowered = Number(process.env.NUDGE_TEST_SCRYPT_LOG2N);
  return process.env.VITEST && Number.isInteger(lowered) && lowered >= 10 && lowered < SCRYPT_PARAMS.log2N ? lowered : SCRYPT_PARAMS.log2N;
}

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  const N = 2 ** log2N;
  // scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is below OWASP's cost.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r + 16 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    // The callback form runs on libuv's thread pool, so a login does not stall the event loop.
    scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Hashes a password as `scrypt$log2N$r$p$salt$hash` (base64url), so the cost can rise later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const { r, p, keyLength, saltLength } = SCRYPT_PARAMS;
  const log2N = hashCost();
  const salt = randomBytes(saltLength);
  const key = await derive(password, salt, log2N, r, p, keyLength);
  return ['scrypt', log2N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Checks a password against a stored hash in constant time; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [log2N, r, p] = parts.slice(1, 4).map(Number);
  if (![log2N, r, p].every((n) => Number.isInteger(n) && n > 0) || log2N > 22 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  if (expected.length < 16) return false;
  const actual = await derive(password, salt, log2N, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password, to verify against when the account does not exist or has no password yet,
 * so that "unknown email" takes as long as "wrong password".
 */
export function createDummyHash(): () => Promise<string> {
  let pending: Promise<string> | null = null;
  return () => (pending ??= hashPassword(randomBytes(24).toString('base64url')));
}
