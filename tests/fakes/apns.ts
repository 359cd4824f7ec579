/**
 * A local APNs: HTTP/2 over TLS with a self-signed certificate generated at start, checking provider tokens
 * or client certificates the way Apple does and answering Apple's reasons.
 *
 * Knobs:
 * - `start({ topic = 'com.example.app', clock, record })`.
 * - `ca`: the certificate to trust; `tokenKey`: `{ keyId, teamId, key }` (.p8-style PKCS#8 PEM) it accepts;
 *   `clientCertificate`: `{ cert, key }` it accepts for certificate auth.
 * - `registerDevice()`: a 64-hex device token it knows; `unregister(token)` → 410 Unregistered. Unknown
 *   well-formed tokens answer 400 BadDeviceToken (as a sandbox token sent to production does).
 * - `failNext(deviceToken | '*', { status, reason }, times = 1)`: e.g. 429 TooManyRequests, 500
 *   InternalServerError, 503 ServiceUnavailable, 403 ExpiredProviderToken.
 * - `goaway()`: sends GOAWAY on every open connection (clients must reconnect).
 * - `connections()`: TLS connections accepted so far; `tokenUpdates()`: distinct provider tokens seen.
 * Checks: POST /3/device/<token> (405/404); token auth: `authorization: bearer <ES256 JWT>` with kid = keyId,
 * iss = teamId, signature (403 InvalidProviderToken), iat not older than 1 h (403 ExpiredProviderToken),
 * a new token on a connection less than 20 min after the last one (429 TooManyProviderTokenUpdates);
 * certificate auth: a client certificate signed by the fake (else 403 MissingProviderToken); apns-topic
 * (400 MissingTopic / TopicDisallowed), apns-push-type (400 InvalidPushType), apns-priority (400
 * BadPriority), apns-expiration (400 BadExpirationDate), apns-collapse-id ≤ 64 bytes (400 BadCollapseId),
 * payload non-empty (400 PayloadEmpty) and ≤ 4096 bytes (413 PayloadTooLarge). Success: 200 with apns-id.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, randomUUID, verify, type KeyObject } from 'node:crypto';
import { createSecureServer, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { FailureScript, listen } from './http-util';
import { testCertificates } from './tls';

export interface ReceivedApns {
  deviceToken: string;
  payload: Record<string, unknown>;
  headers: { topic: string; pushType: string; priority: string | null; expiration: string | null; collapseId: string | null };
  auth: 'token' | 'certificate';
  receivedAt: Date;
}

export interface ApnsFailure {
  status: number;
  reason: string;
}

export interface ApnsFake {
  /** https://127.0.0.1:<port> */
  url: string;
  host: string;
  port: number;
  ca: string;
  topic: string;
  tokenKey: { keyId: string; teamId: string; key: string };
  clientCertificate: { cert: string; key: string };
  received: ReceivedApns[];
  count(): number;
  connections(): number;
  tokenUpdates(): number;
  registerDevice(): string;
  unregister(deviceToken: string): void;
  failNext(target: string, failure: ApnsFailure, times?: number): void;
  goaway(): void;
  close(): Promise<void>;
}

const PUSH_TYPES = new Set(['alert', 'background', 'voip', 'complication', 'fileprovider', 'mdm', 'location', 'liveactivity', 'pushtotalk']);

export async function start(options: { topic?: string; clock?: () => number; record?: boolean } = {}): Promise<ApnsFake> {
  const certs = await testCertificates();
  const clock = options.clock ?? Date.now;
  const record = options.record ?? true;
  const topic = options.topic ?? 'com.example.app';
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const tokenKey = {
    keyId: randomBytes(5).toString('hex').toUpperCase(),
    teamId: randomBytes(5).toString('hex').toUpperCase(),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
  const verifyKey: KeyObject = createPublicKey(publicKey.export({ type: 'spki', format: 'pem' }));
  const devices = new Set<string>();
  const unregistered = new Map<string, number>();
  const failures = new FailureScript<ApnsFailure>();
  const sessions = new Set<Http2Session>();
  // Per connection: the provider token last accepted and when it was first seen there.
  const tokensBySession = new WeakMap<Http2Session, { token: string; since: number }>();
  const verified = new Map<string, { iat: number }>();
  const received: ReceivedApns[] = [];
  let connectionCount = 0;
  let tokenUpdateCount = 0;
  let accepted = 0;

  function answer(stream: ServerHttp2Stream, status: number, reason?: string, extra: Record<string, unknown> = {}): void {
    const apnsId = randomUUID().toUpperCase();
    if (stream.destroyed) return;
    if (!reason) {
      stream.respond({ ':status': status, 'apns-id': apnsId });
      stream.end();
      return;
    }
    stream.respond({ ':status': status, 'apns-id': apnsId, 'content-type': 'application/json' });
    stream.end(JSON.stringify({ reason, ...extra }));
  }

  function checkToken(session: Http2Session, authorization: string): { status: number; reason: string } | null {
    const jwt = /^bearer (.+)$/i.exec(authorization)?.[1];
    if (!jwt) return { status: 403, reason: 'InvalidProviderToken' };
    let claims = verified.get(jwt);
    if (!claims) {
      const [h, p, s] = jwt.split('.');
      try {
        const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string; kid?: string };
        const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as { iss?: string; iat?: number };
        if (header.alg !== 'ES256' || header.kid !== tokenKey.keyId || payload.iss !== tokenKey.teamId) return { status: 403, reason: 'InvalidProviderToken' };
        if (!verify('sha256', Buffer.from(`${h}.${p}`), { key: verifyKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))) {
          return { status: 403, reason: 'InvalidProviderToken' };
        }
        if (typeof payload.iat !== 'number') return { status: 403, reason: 'InvalidProviderToken' };
        claims = { iat: payload.iat };
        verified.set(jwt, claims);
      } catch {
        return { status: 403, reason: 'InvalidProviderToken' };
      }
    }
    const now = clock();
    if (now - claims.iat * 1000 > 3600_000) return { status: 403, reason: 'ExpiredProviderToken' };
    const last = tokensBySession.get(session);
    if (last?.token !== jwt) {
      if (last && now - last.since < 20 * 60_000) return { status: 429, reason: 'TooManyProviderTokenUpdates' };
      tokensBySession.set(session, { token: jwt, since: now });
      tokenUpdateCount += 1;
    }
    return null;
  }

  function handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer): void {
    if (headers[':method'] !== 'POST') return answer(stream, 405, 'MethodNotAllowed');
    const match = /^\/3\/device\/([^/?]+)$/.exec(String(headers[':path']));
    if (!match) return answer(stream, 404, 'BadPath');
    const deviceToken = match[1];
    const session = stream.session!;
    const socket = session.socket as TLSSocket;
    let auth: ReceivedApns['auth'];
    if (headers.authorization) {
      const problem = checkToken(session, String(headers.authorization));
      if (problem) return answer(stream, problem.status, problem.reason);
      auth = 'token';
    } else if (socket.authorized && socket.getPeerCertificate()?.subject) {
      auth = 'certificate';
    } else {
      return answer(stream, 403, 'MissingProviderToken');
    }
    const apnsTopic = headers['apns-topic'];
    if (!apnsTopic) return answer(stream, 400, 'MissingTopic');
    if (apnsTopic !== topic) return answer(stream, 400, 'TopicDisallowed');
    const pushType = String(headers['apns-push-type'] ?? 'alert');
    if (!PUSH_TYPES.has(pushType)) return answer(stream, 400, 'InvalidPushType');
    const priority = headers['apns-priority'];
    if (priority !== undefined && !['1', '5', '10'].includes(String(priority))) return answer(stream, 400, 'BadPriority');
    const expiration = headers['apns-expiration'];
    if (expiration !== undefined && !/^\d+$/.test(String(expiration))) return answer(stream, 400, 'BadExpirationDate');
    const collapseId = headers['apns-collapse-id'];
    if (collapseId !== undefined && Buffer.byteLength(String(collapseId)) > 64) return answer(stream, 400, 'BadCollapseId');
    if (!/^[0-9a-fA-F]{64,200}$/.test(deviceToken)) return answer(stream, 400, 'BadDeviceToken');
    const scripted = failures.take(deviceToken);
    if (scripted) return answer(stream, scripted.status, scripted.reason);
    if (unregistered.has(deviceToken)) return answer(stream, 410, 'Unregistered', { timestamp: unregistered.get(deviceToken) });
    if (!devices.has(deviceToken)) return answer(stream, 400, 'BadDeviceToken');
    if (body.length === 0) return answer(stream, 400, 'PayloadEmpty');
    if (body.length > 4096) return answer(stream, 413, 'PayloadTooLarge');
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(body.toString()) as Record<string, unknown>;
    } catch {
      return answer(stream, 400, 'PayloadEmpty');
    }
    accepted += 1;
    if (record) {
      received.push({
        deviceToken,
        payload,
        headers: {
          topic: String(apnsTopic),
          pushType,
          priority: priority === undefined ? null : String(priority),
          expiration: expiration === undefined ? null : String(expiration),
          collapseId: collapseId === undefined ? null : String(collapseId),
        },
        auth,
        receivedAt: new Date(),
      });
    }
    answer(stream, 200);
  }

  const server = createSecureServer({
    cert: certs.cert,
    key: certs.key,
    ca: certs.cert,
    requestCert: true,
    rejectUnauthorized: false,
    settings: { maxConcurrentStreams: 1000 },
  });
  server.on('session', (session) => {
    connectionCount += 1;
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => handle(stream, headers, Buffer.concat(chunks)));
    stream.on('error', () => undefined);
  });
  const port = await listen(server);

  return {
    url: `https://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    ca: certs.cert,
    topic,
    tokenKey,
    clientCertificate: { cert: certs.clientCert, key: certs.clientKey },
    received,
    count: () => accepted,
    connections: () => connectionCount,
    tokenUpdates: () => tokenUpdateCount,
    registerDevice() {
      const token = randomBytes(32).toString('hex');
      devices.add(token);
      return token;
    },
    unregister(token) {
      devices.delete(token);
      unregistered.set(token, clock());
    },
    failNext: (target, failure, times = 1) => failures.add(target, failure, times),
    goaway() {
      for (const session of sessions) session.goaway();
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      });
    },
  };
}
