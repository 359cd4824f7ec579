import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** A bearer secret: 32 random bytes, base64url (43 characters). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** How session tokens and link tokens are stored: SHA-256, base64url. They carry 256 bits, so no salt is needed. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** A 6-digit one-time code, uniformly drawn. */
export function randomOtp(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * One-time codes have only 10^6 values, so a plain hash would fall to a table lookup; an HMAC under the
 * server's secret, bound to the user and purpose, keeps a leaked table useless.
 */
export function hashOtp(secret: string, userId: number, purpose: string, code: string): string {
  return createHmac('sha256', secret).update(`${userId}:${purpose}:${code}`).digest('base64url');
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The public key storefront SDKs will send; public by design, but unguessable so it cannot be enumerated. */
export function randomClientKey(): string {
  return randomBytes(16).toString('hex');
}
