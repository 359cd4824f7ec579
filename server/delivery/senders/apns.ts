/**
 * Apple Push Notification service over HTTP/2: one persistent session per sender (host + credentials),
 * reopened after GOAWAY, close or error. Authenticates with a provider token (ES256 JWT with kid and iss,
 * re-signed after 50 minutes: Apple refuses tokens older than an hour and updates more often than every 20
 * minutes) or with a client certificate.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { SignJWT, importPKCS8, type CryptoKey } from 'jose';
import { APNS_TOKEN_PATTERN } from '../../../shared/validation';
import { parseJson } from './http';
import { failure, networkFailure, systemClock, type Clock, type SendOptions, type SendResult, type Sender } from './types';

export const APNS_PRODUCTION_HOST = 'api.push.apple.com';
export const APNS_SANDBOX_HOST = 'api.sandbox.push.apple.com';

/** Provider-token auth (.p8 key) or certificate auth (PEM certificate and key). */
export type ApnsAuth =
  | { kind: 'token'; keyId: string; teamId: string; /** The .p8 file's PEM text. */ key: string }
  | { kind: 'certificate'; cert: string; key: string; passphrase?: string };

export interface ApnsTarget {
  /** The device token in hex. */
  deviceToken: string;
}

export interface ApnsMessage {
  /** The JSON payload: `{ aps: { alert, badge, sound, … }, …custom }`. */
  payload: Record<string, unknown>;
  /** Default alert. */
  pushType?: 'alert' | 'background' | 'voip' | 'complication' | 'fileprovider' | 'mdm' | 'location' | 'liveactivity' | 'pushtotalk';
  /** 10 immediate (default for alert), 5 power-considerate (required for background), 1 lowest. */
  priority?: 10 | 5 | 1;
  /** UNIX seconds after which APNs stops trying; 0 = deliver once or drop. */
  expiration?: number;
  /** Messages with the same id replace each other on the device (≤ 64 bytes). */
  collapseId?: string;
  /** Defaults to the sender's topic (the app's bundle id). */
  topic?: string;
}

export interface ApnsSenderOptions {
  auth: ApnsAuth;
  /** The app's bundle id, sent as apns-topic. */
  topic: string;
  /** Chooses the default host: production api.push.apple.com, else the sandbox. */
  production?: boolean;
  /** Overrides the host (tests: 127.0.0.1). */
  host?: string;
  /** Default 443. */
  port?: number;
  /** Extra CA to trust (tests). */
  ca?: string;
  clock?: Clock;
  /** Response timeout per notification, ms. Default 30 s. */
  timeoutMs?: number;
}

/** Provider tokens are re-signed after this age (Apple: between 20 and 60 minutes). */
export const TOKEN_REFRESH_MS = 50 * 60_000;
/** A token refused as expired is only re-signed early if at least this old, so we never exceed Apple's update rate. */
const MIN_TOKEN_AGE_MS = 20 * 60_000;

/** Maps APNs' answer (status and `reason`) to a send result. */
export function mapApnsResponse(status: number, reason: string | undefined): SendResult {
  const detail = `${status} ${reason ?? ''}`.trim();
  if (status === 200) return { ok: true };
  if (status === 410 || reason === 'Unregistered' || reason === 'ExpiredToken') return failure('gone', detail, { status });
  if (reason === 'BadDeviceToken' || reason === 'DeviceTokenNotForTopic') return failure('invalid', detail, { status });
  if (status === 413 || reason === 'PayloadTooLarge' || reason === 'PayloadEmpty') return failure('payload', detail, { status });
  if (status === 429) return failure('rate_limited', detail, { status });
  // The app's configuration, not the device: every send would fail the same way.
  if (reason && ['TopicDisallowed', 'BadTopic', 'MissingTopic', 'BadCertificate', 'BadCertificateEnvironment'].includes(reason)) {
    return failure('auth', detail, { status });
  }
  if (status >= 500) return failure('retryable', detail, { status });
  if (status === 403) return failure('auth', detail, { status });
  if (status === 400) return failure('payload', detail, { status }); // BadTopic, BadPriority, BadCollapseId, …
  return failure('other', detail, { status });
}

/** Whether a stream error guarantees the notification was not delivered, so resending can't duplicate it. */
function neverProcessed(error: unknown): boolean {
  const err = error as { code?: string; message?: string };
  if (['ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_INVALID_SESSION', 'ERR_HTTP2_OUT_OF_STREAMS', 'ECONNREFUSED'].includes(err?.code ?? '')) {
    return true;
  }
  return err?.code === 'ERR_HTTP2_STREAM_ERROR' && /REFUSED_STREAM/.test(err.message ?? '');
}

interface ApnsResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stream awaiting its answer; the timeout sweep cancels it after `deadline`. */
interface InFlight {
  stream: ClientHttp2Stream;
  deadline: number;
  timedOut: boolean;
}

/** Sends APNs notifications for one app's credentials over one HTTP/2 connection. */
export class ApnsSender implements Sender<ApnsTarget, ApnsMessage> {
  private session?: ClientHttp2Session;
  private readonly clock: Clock;
  private readonly origin: string;
  private readonly timeoutMs: number;
  private signingKey?: Promise<CryptoKey>;
  private token?: { value: string; issuedAt: number; authorization: string };
  private pendingToken?: Promise<string>;
  /** Streams awaiting an answer. One sweep timer bounds them all, instead of a timer per notification. */
  private readonly inFlight = new Set<InFlight>();
  private sweeper?: NodeJS.Timeout;
  /** Connections opened so far (tests check one serves many sends). */
  connectionsOpened = 0;
  /** Provider tokens signed so far. */
  tokensSigned = 0;

  constructor(private readonly options: ApnsSenderOptions) {
    this.clock = options.clock ?? systemClock;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const host = options.host ?? (options.production ? APNS_PRODUCTION_HOST : APNS_SANDBOX_HOST);
    this.origin = `https://${host}:${options.port ?? 443}`;
  }

  private connection(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const { auth, ca } = this.options;
    const session = connect(this.origin, {
      ca,
      ...(auth.kind === 'certificate' ? { cert: auth.cert, key: auth.key, passphrase: auth.passphrase } : {}),
    });
    this.connectionsOpened += 1;
    const drop = () => {
      if (this.session === session) this.session = undefined;
    };
    session.on('goaway', drop);
    session.on('close', drop);
    session.on('error', drop);
    session.on('frameError', drop);
    session.unref();
    this.session = session;
    return session;
  }

  /** The current provider token: re-signed once it is 50 minutes old (or when `force` and it is 20+). */
  providerToken(force = false): Promise<string> {
    const auth = this.options.auth;
    if (auth.kind !== 'token') return Promise.resolve('');
    const now = this.clock();
    const age = this.token ? now - this.token.issuedAt : Infinity;
    if (this.token && age < TOKEN_REFRESH_MS && !(force && age >= MIN_TOKEN_AGE_MS)) return Promise.resolve(this.token.value);
    this.pendingToken ??= (async () => {
      this.signingKey ??= importPKCS8(auth.key, 'ES256');
      const iat = Math.floor(this.clock() / 1000);
      const value = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: auth.keyId })
        .setIssuer(auth.teamId)
        .setIssuedAt(iat)
        .sign(await this.signingKey);
      this.token = { value, issuedAt: iat * 1000, authorization: `bearer ${value}` };
      this.tokensSigned += 1;
      return value;
    })().finally(() => {
      this.pendingToken = undefined;
    });
    return this.pendingToken;
  }

  /** The `authorization` value when the current provider token is still fresh, without awaiting anything. */
  private freshAuthorization(): string | undefined {
    const token = this.token;
    return token && this.clock() - token.issuedAt < TOKEN_REFRESH_MS ? token.authorization : undefined;
  }

  private request(headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<ApnsResponse> {
    return new Promise((resolve, reject) => {
      let stream: ClientHttp2Stream;
      try {
        stream = this.connection().request(headers, signal ? { signal } : undefined);
      } catch (error) {
        reject(error);
        return;
      }
      const entry: InFlight = { stream, deadline: Date.now() + this.timeoutMs, timedOut: false };
      this.track(entry);
      let settled = false;
      const settle = () => {
        settled = true;
        this.untrack(entry);
      };
      stream.once('response', (responseHeaders) => {
        const status = Number(responseHeaders[':status'] ?? 0);
        if (status === 200) {
          // Success has no body: answer now and let the stream drain and close on its own.
          settle();
          resolve({ status, headers: responseHeaders, body: '' });
          stream.resume();
          return;
        }
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          text += chunk;
        });
        stream.once('end', () => {
          if (settled) return;
          settle();
          resolve({ status, headers: responseHeaders, body: text });
        });
      });
      stream.on('error', (error) => {
        if (settled) return;
        settle();
        reject(error);
      });
      stream.once('close', () => {
        if (settled) return;
        settle();
        const why = entry.timedOut ? `no answer within ${this.timeoutMs} ms` : 'stream closed without a response';
        reject(Object.assign(new Error(why), { code: entry.timedOut ? 'ETIMEDOUT' : 'ERR_HTTP2_STREAM_CANCEL' }));
      });
      stream.end(body);
    });
  }

  private track(entry: InFlight): void {
    this.inFlight.add(entry);
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(1_000, this.timeoutMs / 2)));
    this.sweeper.unref();
  }

  private untrack(entry: InFlight): void {
    this.inFlight.delete(entry);
  }

  /** Cancels streams past their deadline (RST_STREAM CANCEL), whose sends then answer retryable; stops when idle. */
  private sweep(): void {
    if (this.inFlight.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
      return;
    }
    const now = Date.now();
    for (const entry of this.inFlight) {
      if (entry.deadline > now) continue;
      entry.timedOut = true;
      entry.stream.close(constants.NGHTTP2_CANCEL);
    }
  }

  async send(target: ApnsTarget, message: ApnsMessage, opts: SendOptions = {}): Promise<SendResult> {
    if (!APNS_TOKEN_PATTERN.test(target.deviceToken)) return failure('invalid', 'device token is not hex');
    const body = JSON.stringify(message.payload);
    const pushType = message.pushType ?? 'alert';
    const headers: Record<string, string> = {
      ':method': 'POST',
      ':path': `/3/device/${target.deviceToken}`,
      'apns-topic': message.topic ?? this.options.topic,
      'apns-push-type': pushType,
      'apns-priority': message.priority !== undefined ? String(message.priority) : pushType === 'background' ? '5' : '10',
      'content-type': 'application/json',
    };
    if (message.expiration !== undefined) headers['apns-expiration'] = String(Math.max(0, Math.floor(message.expiration)));
    if (message.collapseId) headers['apns-collapse-id'] = message.collapseId;

    const tokenAuth = this.options.auth.kind === 'token';
    let refreshed = false;
    let reconnected = false;
    for (;;) {
      try {
        if (tokenAuth) headers.authorization = (!refreshed && this.freshAuthorization()) || `bearer ${await this.providerToken(refreshed)}`;
        const response = await this.request(headers, body, opts.signal);
        if (response.status === 200) {
          const apnsId = response.headers['apns-id'];
          return typeof apnsId === 'string' ? { ok: true, providerId: apnsId } : { ok: true };
        }
        const reason = response.body ? parseJson<{ reason?: string }>(response.body)?.reason : undefined;
        if (response.status === 403 && reason === 'ExpiredProviderToken' && !refreshed) {
          refreshed = true;
          continue;
        }
        return mapApnsResponse(response.status, reason);
      } catch (error) {
        // A stream APNs never processed (refused by GOAWAY, dead session): one retry on a fresh connection.
        if (!reconnected && !opts.signal?.aborted && neverProcessed(error)) {
          reconnected = true;
          this.session?.destroy();
          this.session = undefined;
          continue;
        }
        return networkFailure(error);
      }
    }
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const session = this.session;
    this.session = undefined;
    if (session && !session.closed) await new Promise<void>((resolve) => session.close(() => resolve()));
  }
}
