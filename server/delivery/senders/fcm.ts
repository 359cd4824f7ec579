/**
 * Firebase Cloud Messaging HTTP v1. An OAuth2 access token is obtained from the service-account JSON with
 * an RS256 JWT assertion (RFC 7523), shared by every concurrent send, and kept until five minutes before it
 * expires; a 401 refreshes it once. Messages go to {base}/v1/projects/{project_id}/messages:send.
 */
import { SignJWT, importPKCS8, type CryptoKey } from 'jose';
import { HttpClient, header, parseJson, type HttpClientOptions } from './http';
import {
  failure,
  networkFailure,
  parseRetryAfter,
  systemClock,
  type Clock,
  type SendOptions,
  type SendResult,
  type Sender,
} from './types';

/** The fields of a Google service-account key file that FCM needs. */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/** An FCM device: the registration token the app reported. */
export interface FcmTarget {
  token: string;
}

/** The FCM v1 `message` without its `token`: notification, data (string values), android, apns, webpush. */
export interface FcmMessage {
  notification?: { title?: string; body?: string; image?: string };
  data?: Record<string, string>;
  android?: Record<string, unknown>;
  apns?: Record<string, unknown>;
  webpush?: Record<string, unknown>;
  fcm_options?: { analytics_label?: string };
}

export interface FcmSenderOptions extends HttpClientOptions {
  serviceAccount: ServiceAccount;
  /** Default https://fcm.googleapis.com. */
  baseUrl?: string;
  /** Default the service account's token_uri, else https://oauth2.googleapis.com/token. */
  tokenUrl?: string;
  clock?: Clock;
}

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const REFRESH_MARGIN_MS = 5 * 60_000;

interface GoogleError {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    details?: { '@type'?: string; errorCode?: string; fieldViolations?: { field?: string }[] }[];
  };
}

/** Maps an FCM v1 error answer to a send result. */
export function mapFcmError(status: number, body: string, retryAfter: string | undefined, now: number): SendResult {
  const parsed = parseJson<GoogleError>(body)?.error;
  const details = parsed?.details ?? [];
  const errorCode = details.find((d) => d.errorCode)?.errorCode ?? parsed?.status ?? '';
  const detail = `${status} ${errorCode} ${parsed?.message ?? body.slice(0, 200)}`.trim();
  const wait = parseRetryAfter(retryAfter, now);
  if (errorCode === 'UNREGISTERED' || status === 404) return failure('gone', detail, { status });
  if (errorCode === 'SENDER_ID_MISMATCH') return failure('invalid', detail, { status });
  if (errorCode === 'QUOTA_EXCEEDED' || errorCode === 'RESOURCE_EXHAUSTED' || status === 429) {
    return failure('rate_limited', detail, { status, retryAfterMs: wait });
  }
  if (errorCode === 'UNAVAILABLE' || errorCode === 'INTERNAL' || status >= 500) {
    return failure('retryable', detail, { status, retryAfterMs: wait });
  }
  if (errorCode === 'THIRD_PARTY_AUTH_ERROR' || status === 401 || status === 403) return failure('auth', detail, { status });
  if (errorCode === 'INVALID_ARGUMENT' || status === 400) {
    // INVALID_ARGUMENT covers both a bad token and a bad message; only the former unsubscribes the device.
    const aboutToken =
      details.some((d) => d.fieldViolations?.some((v) => v.field === 'message.token')) ||
      /registration token/i.test(parsed?.message ?? '');
    return failure(aboutToken ? 'invalid' : 'payload', detail, { status });
  }
  return failure('other', detail, { status });
}

/** Sends FCM messages for one Firebase project (one service account). */
export class FcmSender implements Sender<FcmTarget, FcmMessage> {
  private readonly http: HttpClient;
  private readonly clock: Clock;
  private readonly sendUrl: URL;
  private readonly tokenUrl: string;
  private signingKey?: Promise<CryptoKey>;
  private token?: { value: string; refreshAt: number; headers: Record<string, string> };
  private pending?: Promise<string>;
  /** How many access tokens were fetched (tests check one serves many sends). */
  tokensFetched = 0;

  constructor(private readonly options: FcmSenderOptions) {
    const account = options.serviceAccount;
    if (!account?.project_id || !account.client_email || !account.private_key) {
      throw new RangeError('service account needs project_id, client_email and private_key');
    }
    this.clock = options.clock ?? systemClock;
    this.tokenUrl = options.tokenUrl ?? account.token_uri ?? 'https://oauth2.googleapis.com/token';
    const base = (options.baseUrl ?? 'https://fcm.googleapis.com').replace(/\/+$/, '');
    this.sendUrl = new URL(`${base}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`);
    this.http = new HttpClient(options);
  }

  private async fetchToken(): Promise<string> {
    const account = this.options.serviceAccount;
    this.signingKey ??= importPKCS8(account.private_key, 'RS256');
    const iat = Math.floor(this.clock() / 1000);
    const assertion = await new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.private_key_id ? { kid: account.private_key_id } : {}) })
      .setIssuer(account.client_email)
      .setAudience(this.tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await this.signingKey);
    const response = await this.http.request(this.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    });
    const json = parseJson<{ access_token?: string; expires_in?: number; error?: string; error_description?: string }>(response.body);
    if (response.status !== 200 || !json?.access_token) {
      throw new TokenError(response.status, `${json?.error ?? ''} ${json?.error_description ?? response.body.slice(0, 200)}`.trim());
    }
    this.tokensFetched += 1;
    const lifetime = (json.expires_in ?? 3600) * 1000;
    this.token = {
      value: json.access_token,
      refreshAt: this.clock() + Math.max(lifetime - REFRESH_MARGIN_MS, lifetime / 2),
      headers: bearerHeaders(json.access_token),
    };
    return json.access_token;
  }

  /** The current access token; concurrent callers share one fetch. */
  accessToken(force = false): Promise<string> {
    if (!force && this.token && this.clock() < this.token.refreshAt) return Promise.resolve(this.token.value);
    if (force) this.token = undefined;
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  async send(target: FcmTarget, message: FcmMessage, opts: SendOptions = {}): Promise<SendResult> {
    if (!target.token) return failure('invalid', 'empty registration token');
    const body = JSON.stringify({ message: { ...message, token: target.token } });
    for (let attempt = 0; ; attempt++) {
      // The request headers of the current token, built once per token rather than once per message.
      let headers = attempt === 0 && this.token && this.clock() < this.token.refreshAt ? this.token.headers : undefined;
      if (!headers) {
        try {
          const bearer = await this.accessToken(attempt > 0);
          headers = this.token?.value === bearer ? this.token.headers : bearerHeaders(bearer);
        } catch (error) {
          if (error instanceof TokenError) {
            return error.status >= 500 ? failure('retryable', `token: ${error.message}`, { status: error.status }) : failure('auth', `token: ${error.message}`, { status: error.status });
          }
          return networkFailure(error);
        }
      }
      try {
        const response = await this.http.request(this.sendUrl, { method: 'POST', headers, body, signal: opts.signal });
        if (response.status === 200) return { ok: true, providerId: parseJson<{ name?: string }>(response.body)?.name };
        if (response.status === 401 && attempt === 0) continue; // token revoked or expired early: refresh once
        return mapFcmError(response.status, response.body, header(response.headers, 'retry-after'), this.clock());
      } catch (error) {
        return networkFailure(error);
      }
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

function bearerHeaders(accessToken: string): Record<string, string> {
  return { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json; charset=utf-8' };
}

class TokenError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`${status} ${message}`);
  }
}
