import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/*
 * Secrets at rest (a shop's offline Admin API token, an application's VAPID private key, issue 6's provider
 * credentials): AES-256-GCM under a key derived from SECRET_KEY with HKDF, so the key that signs one-time
 * codes never encrypts anything itself. Stored as `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the
 * version leaves room to rotate the scheme.
 */

const keys = new Map<string, Buffer>();

function keyFor(secretKey: string, purpose: string): Buffer {
  const id = `${purpose}\u0000${secretKey}`;
  let key = keys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secretKey, 'nudge', `nudge:${purpose}`, 32));
    keys.set(id, key);
  }
  return key;
}

/** Encrypts `plaintext` for `purpose` (the purpose is bound in as associated data, so a value can't be moved). */
export function sealSecret(secretKey: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secretKey, purpose), iv);
  cipher.setAAD(Buffer.from(purpose));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** The plaintext of a sealed value; null when it was tampered with or sealed under another key or purpose. */
export function openSecret(secretKey: string, purpose: string, sealed: string): string | null {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(secretKey, purpose), Buffer.from(iv, 'base64url'), {
      // the whole 16-byte tag: a shortened one would make forging easier
      authTagLength: 16,
    });
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
