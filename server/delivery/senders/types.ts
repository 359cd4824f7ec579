/**
 * What every channel sender shares: one `send(target, message)` that never throws for a provider's answer,
 * and a result the delivery engine can act on without knowing the protocol: `gone`/`invalid` → unsubscribe
 * the device and don't retry, `rate_limited` → wait `retryAfterMs`, `retryable` → backoff, the rest → fail.
 */

/** Why a send failed, in the engine's terms. */
export type SendFailureReason =
  | 'gone' // the device/subscription no longer exists (404/410, UNREGISTERED, Unregistered)
  | 'invalid' // the device token/address is malformed or belongs elsewhere (BadDeviceToken, INVALID_ARGUMENT on the token)
  | 'rate_limited' // the provider asked us to slow down (429, QUOTA_EXCEEDED)
  | 'retryable' // transient: 5xx, network errors, timeouts
  | 'auth' // our credentials were refused (VAPID, OAuth, provider token, certificate, page token)
  | 'payload' // the message itself was refused (too large, malformed)
  | 'other';

/** The outcome of one send. */
export type SendResult =
  | { ok: true; providerId?: string }
  | { ok: false; reason: SendFailureReason; retryAfterMs?: number; status?: number; detail: string };

/** Per-send options every sender accepts. */
export interface SendOptions {
  /** Aborts the request (the result is then `retryable`). */
  signal?: AbortSignal;
}

/** A channel sender. Implementations keep connections and tokens between sends; `close()` releases them. */
export interface Sender<Target, Message> {
  send(target: Target, message: Message, opts?: SendOptions): Promise<SendResult>;
  close(): Promise<void>;
}

/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** Whether the engine should unsubscribe the device after this result. */
export function shouldUnsubscribe(result: SendResult): boolean {
  return !result.ok && (result.reason === 'gone' || result.reason === 'invalid');
}

export interface BackoffOptions {
  /** Delay before the first retry, before jitter. Default 1 s. */
  baseMs?: number;
  /** Largest delay, before jitter. Default 10 min. */
  capMs?: number;
  /** A number in [0, 1); injected in tests. */
  random?: () => number;
}

/**
 * Delay before retry number `attempt` (0 for the first retry): exponential, capped, with "equal jitter" —
 * half the delay fixed, half random — so retries spread out but never collapse to zero.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 1_000;
  const cap = options.capMs ?? 10 * 60_000;
  const random = options.random ?? Math.random;
  const exp = Math.min(cap, base * 2 ** Math.max(0, Math.min(attempt, 52)));
  const half = exp / 2;
  return Math.round(half + random() * half);
}

/**
 * Milliseconds to wait from a Retry-After header (delta-seconds or an HTTP date), or undefined when absent
 * or unreadable. Negative waits become 0.
 */
export function parseRetryAfter(value: string | string[] | undefined | null, now: number = Date.now()): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (header == null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** A failure result; `detail` says what the provider said, for the recipients' log. */
export function failure(
  reason: SendFailureReason,
  detail: string,
  extra: { status?: number; retryAfterMs?: number } = {},
): SendResult {
  return { ok: false, reason, detail, ...extra };
}

/** Maps a thrown network error (refused, reset, timeout, abort) to a retryable result. */
export function networkFailure(error: unknown): SendResult {
  const err = error as { code?: string; message?: string; name?: string };
  return failure('retryable', `network: ${err?.code ?? err?.name ?? 'error'} ${err?.message ?? String(error)}`.trim());
}
