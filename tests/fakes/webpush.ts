/**
 * A local web push service (RFC 8030) that checks what real push services check and decrypts what they
 * can't: tests get the plaintext the browser would.
 *
 * Knobs:
 * - `start({ record })`: `record: false` keeps only the count (benchmarks).
 * - `createSubscription({ applicationServerKey })`: a browser-side subscription (P-256 key pair + auth
 *   secret) at `${url}/push/<id>`; with `applicationServerKey` the subscription is restricted to that VAPID
 *   key (RFC 8292 §4.2, a mismatch answers 403).
 * - `failNext(idOrEndpoint | '*', { status, retryAfter?, body? }, times = 1)`: the next send(s) to that
 *   subscription answer `status` (410/404 gone, 413, 429 with Retry-After, 500 …) without delivering.
 * - `remove(idOrEndpoint)`: the subscription expires; every later send answers 410 Gone.
 * - `clock`: the time JWT `exp` is checked against (ms).
 * - `delayMs`: every request is answered this much later, like a push service far away (crash tests).
 * Checks: `Authorization: vapid t=<JWT>, k=<key>` present (401) and valid (403): ES256 signature by `k`,
 * `aud` = this origin, `exp` in the future and ≤ 24 h ahead, `sub` mailto:/https:; `TTL` present and
 * numeric, `Urgency` and `Topic` well-formed (400); body ≤ 4096 bytes (413); `Content-Encoding: aes128gcm`
 * and an RFC 8291 record that decrypts with the subscription's key (400). Success: 201 with a Location.
 */
import { createECDH, createDecipheriv, createHmac, createPublicKey, randomBytes, randomUUID, verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { FailureScript, closeServer, listen, readBody } from './http-util';
import { testCertificates } from './tls';

/** One message as the push service accepted it, decrypted. */
export interface ReceivedPush {
  subscriptionId: string;
  endpoint: string;
  /** Decrypted payload, or null for a payload-less push. */
  payload: Buffer | null;
  text: string | null;
  ttl: number;
  urgency: string | null;
  topic: string | null;
  vapid: { aud: string; sub: string; exp: number; publicKey: string };
  receivedAt: Date;
}

export interface FakeSubscription {
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface WebPushFailure {
  status: number;
  retryAfter?: string;
  body?: string;
}

export interface WebPushFake {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The self-signed certificate to trust (PEM). */
  ca: string;
  received: ReceivedPush[];
  /** Messages accepted, also when `record` is off. */
  count(): number;
  /** Requests answered with an error status. */
  rejected(): number;
  createSubscription(options?: { applicationServerKey?: string }): FakeSubscription;
  failNext(target: string, failure: WebPushFailure, times?: number): void;
  remove(target: string): void;
  close(): Promise<void>;
}

interface SubscriptionState {
  id: string;
  ecdh: ReturnType<typeof createECDH>;
  publicKey: Buffer;
  auth: Buffer;
  applicationServerKey?: string;
  gone: boolean;
}

const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);

function idOf(target: string): string {
  const i = target.lastIndexOf('/push/');
  return i >= 0 ? target.slice(i + 6) : target;
}

const KEY_INFO = Buffer.from('WebPush: info\0');
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0');
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0');
const ONE = Buffer.from([1]);

function hmac(key: Buffer, ...parts: Buffer[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Decrypts one aes128gcm record (RFC 8188/8291) for a subscription, or throws saying why. */
export function decryptAes128gcm(body: Buffer, sub: { ecdh: ReturnType<typeof createECDH>; publicKey: Buffer; auth: Buffer }): Buffer {
  if (body.length < 21 + 65 + 17) throw new Error('body shorter than header and one record');
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body.readUInt8(20);
  if (idlen !== 65) throw new Error(`keyid length ${idlen}, expected 65`);
  const asPublic = body.subarray(21, 86);
  const ciphertext = body.subarray(86);
  if (rs < 18) throw new Error('record size too small');
  if (ciphertext.length > rs) throw new Error('more than one record');
  const secret = sub.ecdh.computeSecret(asPublic);
  // HKDF-SHA-256 (RFC 5869) spelled out as HMACs, the same derivation hkdfSync does for outputs of one block.
  const ikm = hmac(hmac(sub.auth, secret), KEY_INFO, sub.publicKey, asPublic, ONE);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, CEK_INFO, ONE).subarray(0, 16);
  const nonce = hmac(prk, NONCE_INFO, ONE).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (end < 0 || padded[end] !== 2) throw new Error('missing last-record delimiter 0x02');
  return padded.subarray(0, end);
}

export async function start(options: { record?: boolean; clock?: () => number; delayMs?: number } = {}): Promise<WebPushFake> {
  const { cert, key } = await testCertificates();
  const record = options.record ?? true;
  const clock = options.clock ?? Date.now;
  const subscriptions = new Map<string, SubscriptionState>();
  const failures = new FailureScript<WebPushFailure>();
  const received: ReceivedPush[] = [];
  // Signature checks are the costly part; a verified JWT is remembered (by its whole Authorization value too,
  // which skips parsing it again), its claims re-checked every time.
  const verifiedJwts = new Map<string, { aud: string; sub: string; exp: number }>();
  const verifiedHeaders = new Map<string, { k: string; claims: { aud: string; sub: string; exp: number } }>();
  const vapidKeys = new Map<string, KeyObject>();
  let accepted = 0;
  let rejectedCount = 0;
  let origin = '';

  function answer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
    if (status >= 300) rejectedCount += 1;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  function checkVapid(authorization: string | undefined): { error?: [number, string]; claims?: ReceivedPush['vapid'] } {
    if (!authorization) return { error: [401, 'missing Authorization'] };
    const known = verifiedHeaders.get(authorization);
    if (known) return checkClaims(known.k, known.claims);
    const match = /^vapid\s+(.+)$/i.exec(authorization.trim());
    if (!match) return { error: [401, 'Authorization scheme must be vapid'] };
    const params = new Map<string, string>();
    for (const part of match[1].split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0) params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
    }
    const token = params.get('t');
    const k = params.get('k');
    if (!token || !k) return { error: [401, 'vapid needs t and k'] };
    let claims = verifiedJwts.get(`${k} ${token}`);
    if (!claims) {
      const [h, p, s] = token.split('.');
      if (!h || !p || !s) return { error: [403, 'malformed JWT'] };
      let header: { alg?: string };
      try {
        header = JSON.parse(Buffer.from(h, 'base64url').toString());
        claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      } catch {
        return { error: [403, 'malformed JWT'] };
      }
      if (header.alg !== 'ES256') return { error: [403, 'JWT alg must be ES256'] };
      let publicKey = vapidKeys.get(k);
      if (!publicKey) {
        const raw = Buffer.from(k, 'base64url');
        if (raw.length !== 65 || raw[0] !== 4) return { error: [403, 'k is not a P-256 public key'] };
        publicKey = createPublicKey({
          format: 'jwk',
          key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') },
        });
        vapidKeys.set(k, publicKey);
      }
      const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
      if (!ok) return { error: [403, 'JWT signature does not verify with k'] };
      verifiedJwts.set(`${k} ${token}`, claims!);
    }
    verifiedHeaders.set(authorization, { k, claims: claims! });
    return checkClaims(k, claims!);
  }

  function checkClaims(k: string, c: { aud: string; sub: string; exp: number }): { error?: [number, string]; claims?: ReceivedPush['vapid'] } {
    const now = Math.floor(clock() / 1000);
    if (c.aud !== origin) return { error: [403, `JWT aud ${c.aud} is not ${origin}`] };
    if (typeof c.exp !== 'number' || c.exp <= now) return { error: [403, 'JWT expired'] };
    if (c.exp > now + 24 * 3600) return { error: [403, 'JWT exp more than 24 hours ahead'] };
    if (typeof c.sub !== 'string' || !/^(mailto:|https:)/.test(c.sub)) return { error: [403, 'JWT sub must be mailto: or https:'] };
    return { claims: { ...c, publicKey: k } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const path = req.url ?? '';
    if (req.method !== 'POST' || !path.startsWith('/push/')) return answer(res, 404, 'not found');
    const id = path.slice(6);
    const sub = subscriptions.get(id);
    if (!sub || sub.gone) return answer(res, 410, 'push subscription has unsubscribed or expired');
    const scripted = failures.take(id);
    if (scripted) {
      return answer(res, scripted.status, scripted.body ?? `scripted ${scripted.status}`, scripted.retryAfter ? { 'retry-after': scripted.retryAfter } : {});
    }
    const vapid = checkVapid(req.headers.authorization);
    if (vapid.error) return answer(res, vapid.error[0], vapid.error[1]);
    if (sub.applicationServerKey && vapid.claims!.publicKey !== sub.applicationServerKey) {
      return answer(res, 403, 'VAPID key does not match the subscription');
    }
    const ttlHeader = req.headers.ttl;
    if (typeof ttlHeader !== 'string' || !/^\d+$/.test(ttlHeader)) return answer(res, 400, 'TTL header missing or not a number');
    const urgency = req.headers.urgency;
    if (urgency !== undefined && (typeof urgency !== 'string' || !URGENCIES.has(urgency))) return answer(res, 400, 'bad Urgency');
    const topic = req.headers.topic;
    if (topic !== undefined && (typeof topic !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(topic))) return answer(res, 400, 'bad Topic');
    if (body.length > 4096) return answer(res, 413, 'payload too large');
    let payload: Buffer | null = null;
    if (body.length > 0) {
      if (req.headers['content-encoding'] !== 'aes128gcm') return answer(res, 400, 'Content-Encoding must be aes128gcm');
      try {
        payload = decryptAes128gcm(body, sub);
      } catch (error) {
        return answer(res, 400, `decryption failed: ${(error as Error).message}`);
      }
    }
    accepted += 1;
    if (record) {
      received.push({
        subscriptionId: id,
        endpoint: `${origin}/push/${id}`,
        payload,
        text: payload ? payload.toString('utf8') : null,
        ttl: Number(ttlHeader),
        urgency: (urgency as string | undefined) ?? null,
        topic: (topic as string | undefined) ?? null,
        vapid: vapid.claims!,
        receivedAt: new Date(),
      });
    }
    answer(res, 201, '', { location: `${origin}/message/${randomUUID()}` });
  }

  const server = createServer({ cert, key, keepAlive: true }, (req, res) => {
    handle(req, res).catch((error) => answer(res, 500, String(error)));
  });
  server.keepAliveTimeout = 60_000;
  const port = await listen(server);
  origin = `https://127.0.0.1:${port}`;

  return {
    url: origin,
    ca: cert,
    received,
    count: () => accepted,
    rejected: () => rejectedCount,
    createSubscription(opts = {}) {
      const ecdh = createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const auth = randomBytes(16);
      const id = randomBytes(12).toString('base64url');
      subscriptions.set(id, { id, ecdh, publicKey, auth, applicationServerKey: opts.applicationServerKey, gone: false });
      return { id, endpoint: `${origin}/push/${id}`, keys: { p256dh: publicKey.toString('base64url'), auth: auth.toString('base64url') } };
    },
    failNext: (target, failure, times = 1) => failures.add(target === '*' ? '*' : idOf(target), failure, times),
    remove(target) {
      const sub = subscriptions.get(idOf(target));
      if (sub) sub.gone = true;
    },
    close: () => closeServer(server),
  };
}
