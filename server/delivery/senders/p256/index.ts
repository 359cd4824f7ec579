/**
 * The one ECDH that RFC 8291 asks of every web push message: a new P-256 key pair of the application server's,
 * and the secret it shares with the subscriber's public key (p256dh).
 *
 * Node's own ways cost twice what the multiplication does. `ECDH.computeSecret` checks the object's own key pair
 * before each use (OpenSSL's EC_KEY_check_key: the public key times the group order, a second full scalar
 * multiplication, and the private key times the generator), though the key was generated a moment before by
 * OpenSSL; `crypto.diffieHellman` validates the peer's key the same way, and building its KeyObjects costs more
 * again (measured on two cores, AMD EPYC, 2026-12-07: computeSecret with generateKeys 131 µs a message;
 * diffieHellman alone 116 µs, with the KeyObjects 449 µs; OpenSSL's own `speed ecdhp256` 53 µs). So p256.c, a
 * small Node-API addon built at `npm install` (node-gyp, against the OpenSSL inside Node), generates the key
 * and derives the secret with OpenSSL's calls and nothing else: 65 µs. The subscriber's key is still checked
 * to be a point of the curve (EC_POINT_oct2point refuses any other); P-256's cofactor is 1, so that is all an
 * invalid-curve attack needs checked, and the key pair is thrown away after one message either way.
 *
 * Where the addon was not built (no compiler at install), Node's ECDH does the same work, slower; `P256_NATIVE`
 * says which one runs.
 */
import { createECDH, type ECDH } from 'node:crypto';
import { createRequire } from 'node:module';

interface Addon {
  /** asPublic (65 bytes, uncompressed) followed by the 32-byte shared secret. */
  ecdh(peerPublic: Buffer): Buffer;
}

function loadAddon(): Addon | null {
  if (process.env.NUDGE_P256 === 'node') return null;
  try {
    return createRequire(import.meta.url)('./build/Release/p256.node') as Addon;
  } catch {
    return null;
  }
}

const addon = loadAddon();

/** Whether the addon does the ECDH (else Node's crypto.ECDH). */
export const P256_NATIVE = addon !== null;

export interface EphemeralSecret {
  /** The new key pair's public key, 65 bytes uncompressed: the record header's keyid. */
  asPublic: Buffer;
  /** The ECDH secret shared with `peerPublic`, 32 bytes. */
  secret: Buffer;
}

let reused: ECDH | undefined;

/**
 * A new key pair and the secret it shares with `peerPublic` (65 bytes, uncompressed). Throws a RangeError when
 * the key is not a point of P-256.
 */
export function ephemeralEcdh(peerPublic: Buffer): EphemeralSecret {
  if (addon) {
    let both: Buffer;
    try {
      both = addon.ecdh(peerPublic);
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_P256_KEY') throw new RangeError((error as Error).message);
      throw error;
    }
    return { asPublic: both.subarray(0, 65), secret: both.subarray(65) };
  }
  return ecdhByNode(peerPublic);
}

/**
 * Node's way, for where the addon is missing and for tests. generateKeys() replaces the pair held by one reused
 * ECDH object, which spares building the curve for each message, and answers the new public key.
 */
export function ecdhByNode(peerPublic: Buffer): EphemeralSecret {
  const ecdh = (reused ??= createECDH('prime256v1'));
  const asPublic = ecdh.generateKeys();
  try {
    return { asPublic, secret: ecdh.computeSecret(peerPublic) };
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_CRYPTO_ECDH_INVALID_PUBLIC_KEY') throw new RangeError('the public key is not a point of P-256');
    throw error;
  }
}
