import { jwtVerify } from 'jose';
import type { ShopifyConfig } from '../../server/config';
import { sanitizeShop } from './shop-domain';

/*
 * The platform's session tokens (App Bridge's `idToken()`), checked as its own library does: HS256 signed with
 * the app's secret and nothing else (no `none`, no RS256 with a key of the caller's choosing), audience = the
 * app's API key, exp and nbf required with 10 s of clock tolerance, and the shop taken from `dest`.
 */

/** Clock skew allowed on exp and nbf, as the platform's library allows. */
export const SESSION_TOKEN_CLOCK_TOLERANCE_S = 10;
/** Real tokens are a few hundred bytes; anything far longer is not one. */
const MAX_TOKEN_LENGTH = 4096;

/** What a valid session token says. */
export interface SessionTokenClaims {
  /** The shop's domain, from `dest`. */
  shop: string;
  /** The staff member of the shop (the platform's user id), when the token names one. */
  userId: string | null;
  /** The admin session, when the token names one. */
  sessionId: string | null;
}

/** A session token that failed a check; the message says which, for the log only. */
export class InvalidSessionToken extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidSessionToken';
  }
}

function claimUrl(value: unknown, name: string): URL {
  if (typeof value !== 'string') throw new InvalidSessionToken(`${name} is missing`);
  try {
    return new URL(value);
  } catch {
    throw new InvalidSessionToken(`${name} is not a URL`);
  }
}

/** Checks a session token against the app's secret and key; throws InvalidSessionToken when any check fails. */
export async function verifySessionToken(config: ShopifyConfig, token: string, now: Date): Promise<SessionTokenClaims> {
  if (token.length > MAX_TOKEN_LENGTH) throw new InvalidSessionToken('token too long');
  let payload;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(config.apiSecret), {
      algorithms: ['HS256'],
      audience: config.apiKey,
      clockTolerance: SESSION_TOKEN_CLOCK_TOLERANCE_S,
      currentDate: now,
      requiredClaims: ['exp', 'nbf', 'iss', 'dest'],
    }));
  } catch (error) {
    throw new InvalidSessionToken(error instanceof Error ? error.message : 'unreadable token');
  }
  const dest = claimUrl(payload.dest, 'dest');
  const shop = sanitizeShop(dest.hostname);
  // Compared as whole URLs: no port, user, path or query may ride along with the shop's name.
  if (!shop || dest.href !== `https://${shop}/`) throw new InvalidSessionToken('dest is not a shop');
  if (claimUrl(payload.iss, 'iss').href !== `https://${shop}/admin`) throw new InvalidSessionToken('iss is not the admin of dest');
  return {
    shop,
    userId: typeof payload.sub === 'string' ? payload.sub : null,
    sessionId: typeof payload.sid === 'string' ? payload.sid : null,
  };
}

/** The token of `Authorization: Bearer <token>`; null without one. */
export function bearerToken(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match ? match[1] : null;
}
