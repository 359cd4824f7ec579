/**
 * SMS through a provider's HTTP API. The spec names no provider, so this is the plain JSON shape most
 * Vietnamese brand-name SMS gateways offer, documented here so an adapter can be put in front of any one:
 *
 *   POST {baseUrl}/v1/sms
 *   Authorization: Basic base64(username:password)
 *   Content-Type: application/json
 *   { "brandName": "NUDGE", "to": "+84901234567", "text": "…" }
 *
 *   200/201 { "id": "…", "status": "queued" }
 *   400 { "error": { "code": "INVALID_NUMBER" | "TEXT_TOO_LONG" | "INVALID_REQUEST", "message": "…" } }
 *   401 { "error": { "code": "UNAUTHORIZED" } }                 wrong username/password
 *   403 { "error": { "code": "BRAND_NAME_NOT_APPROVED" } }      brand name not registered for this account
 *   402 { "error": { "code": "INSUFFICIENT_BALANCE" } }
 *   422 { "error": { "code": "NUMBER_OPTED_OUT" | "NUMBER_UNREACHABLE" } }
 *   429 (Retry-After) · 5xx
 */
import { HttpClient, header, parseJson, type HttpClientOptions } from './http';
import { failure, networkFailure, parseRetryAfter, systemClock, type Clock, type SendOptions, type SendResult, type Sender } from './types';

export interface SmsTarget {
  /** E.164 phone number, e.g. +84901234567. */
  phone: string;
}

export interface SmsMessage {
  text: string;
}

export interface SmsSenderOptions extends HttpClientOptions {
  baseUrl: string;
  username: string;
  password: string;
  /** The registered sender id shown on the phone. */
  brandName: string;
  clock?: Clock;
}

/** Longest text accepted: 10 concatenated GSM-7 segments. */
export const SMS_MAX_LENGTH = 1530;

/** Maps the SMS API's answer to a send result. */
export function mapSmsResponse(status: number, body: string, retryAfter: string | undefined, now: number): SendResult {
  const json = parseJson<{ id?: string; error?: { code?: string; message?: string } }>(body);
  if (status === 200 || status === 201) return { ok: true, providerId: json?.id };
  const code = json?.error?.code ?? '';
  const detail = `${status} ${code} ${json?.error?.message ?? ''}`.trim();
  if (status === 429) return failure('rate_limited', detail, { status, retryAfterMs: parseRetryAfter(retryAfter, now) });
  if (status >= 500) return failure('retryable', detail, { status, retryAfterMs: parseRetryAfter(retryAfter, now) });
  if (code === 'NUMBER_OPTED_OUT' || code === 'NUMBER_UNREACHABLE') return failure('gone', detail, { status });
  if (code === 'INVALID_NUMBER') return failure('invalid', detail, { status });
  if (code === 'TEXT_TOO_LONG') return failure('payload', detail, { status });
  if (status === 401 || status === 403 || status === 402) return failure('auth', detail, { status });
  return failure('other', detail, { status });
}

/** Sends SMS through one provider account and brand name. */
export class SmsSender implements Sender<SmsTarget, SmsMessage> {
  private readonly http: HttpClient;
  private readonly url: string;
  private readonly authorization: string;
  private readonly clock: Clock;

  constructor(private readonly options: SmsSenderOptions) {
    this.http = new HttpClient(options);
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/v1/sms`;
    this.authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
    this.clock = options.clock ?? systemClock;
  }

  async send(target: SmsTarget, message: SmsMessage, opts: SendOptions = {}): Promise<SendResult> {
    if (!/^\+?[1-9]\d{6,14}$/.test(target.phone)) return failure('invalid', 'phone number is not E.164');
    if (!message.text) return failure('payload', 'empty text');
    if (message.text.length > SMS_MAX_LENGTH) return failure('payload', `text over ${SMS_MAX_LENGTH} characters`);
    try {
      const response = await this.http.request(this.url, {
        method: 'POST',
        headers: { authorization: this.authorization, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ brandName: this.options.brandName, to: target.phone, text: message.text }),
        signal: opts.signal,
      });
      return mapSmsResponse(response.status, response.body, header(response.headers, 'retry-after'), this.clock());
    } catch (error) {
      return networkFailure(error);
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
