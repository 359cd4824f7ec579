import { createHmac, randomBytes } from 'node:crypto';

/*
 * Standard Webhooks signatures (standardwebhooks.com, "Signature scheme"): the secret is `whsec_` and the
 * base64 of 32 random bytes; the HMAC-SHA256 key is those bytes. Each request carries `webhook-id`,
 * `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`, a space-separated list of
 * `v1,<base64 HMAC of "{id}.{timestamp}.{body}">`: one per secret still in use, so a rotation loses nothing.
 */

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64 (the spec asks for at least 24). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A new message id, `msg_` and 24 url-safe characters: never a `.`, which would blur the signed content. */
export function generateMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/** The HMAC key of a secret: the bytes behind `whsec_`. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<base64 signature>` of one message under one secret. */
export function sign(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${msgId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one attempt, signed with every secret given (current first). */
export function signatureHeaders(secrets: readonly string[], msgId: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, msgId, timestamp, body)).join(' '),
  };
}

/** What the console shows of a secret: the prefix and its last four characters. */
export function secretHint(secret: string): string {
  return `${SECRET_PREFIX}…${secret.slice(-4)}`;
}
