import { createECDH } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { P256_NATIVE, ecdhByNode, ephemeralEcdh } from '.';

const subscriber = createECDH('prime256v1');
const subscriberPublic = subscriber.generateKeys();
/** 65 bytes of an uncompressed point that is not on P-256 (x = 1, y = 1). */
const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(31), Buffer.from([1]), Buffer.alloc(31), Buffer.from([1])]);

describe('the P-256 addon', () => {
  it.skipIf(process.env.NUDGE_P256 === 'node')('is built at npm install and does the ECDH', () => {
    const missing = 'the P-256 addon is not built: npm install builds it with python3, make and a C compiler (or set NUDGE_P256=node)';
    expect(existsSync(fileURLToPath(new URL('./build/Release/p256.node', import.meta.url))), missing).toBe(true);
    expect(P256_NATIVE, 'the P-256 addon is built but does not load').toBe(true);
  });
});

describe.each([
  ['ephemeralEcdh (the addon where built)', ephemeralEcdh],
  ["Node's ECDH", ecdhByNode],
])('%s', (_name, ecdh) => {
  it('gives a new key pair each time, whose secret the subscriber derives alike from its side', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const { asPublic, secret } = ecdh(subscriberPublic);
      expect(asPublic).toHaveLength(65);
      expect(asPublic[0]).toBe(4);
      expect(secret).toHaveLength(32);
      expect(secret.equals(subscriber.computeSecret(asPublic))).toBe(true);
      keys.add(asPublic.toString('hex'));
    }
    expect(keys.size).toBe(50);
  });

  it('refuses a key that is not a point of the curve, or not 65 bytes, with a RangeError', () => {
    expect(() => ecdh(offCurve)).toThrow(RangeError);
    expect(() => ecdh(subscriberPublic.subarray(0, 33))).toThrow(RangeError);
    // The refusal leaves nothing behind: the next message is whole.
    const { asPublic, secret } = ecdh(subscriberPublic);
    expect(secret.equals(subscriber.computeSecret(asPublic))).toBe(true);
  });
});
