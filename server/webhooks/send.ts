import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { WebhookAttemptError } from '../../shared/contract';
import type { AllowList } from './addresses';
import { type Lookup, TargetRefused, resolveTarget, systemLookup } from './guard';

/** What one attempt came to. */
export interface SendOutcome {
  /** The receiver's status code; null when no answer came. */
  statusCode: number | null;
  error: WebhookAttemptError | null;
  durationMs: number;
  /** A 429 or 503 answer's Retry-After, in milliseconds. */
  retryAfterMs: number | null;
}

export interface SendOptions {
  allowed: AllowList;
  timeoutMs: number;
  userAgent: string;
  lookup?: Lookup;
  /** Aborted when the server shuts down: the attempt is dropped unrecorded and its lease lets another take it. */
  signal?: AbortSignal;
}

/** The receiver's answer is read and thrown away, up to this much. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** A lookup that answers the checked address whatever the name, in the form net.connect asks for. */
function pinnedLookup(target: { address: string; family: 4 | 6 }): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
}

function retryAfterOf(value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * POSTs one signed body to a payload URL. The host is resolved and checked here, at send time, and the
 * connection goes to the checked address (a name that resolved to a public address when the webhook was
 * saved may point inside since). Redirects are not followed; the whole attempt has `timeoutMs`.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: WebhookAttemptError): SendOutcome => ({ statusCode: null, error, durationMs: elapsed(), retryAfterMs: null });

  const parsed = new URL(url);
  let target;
  try {
    target = await resolveTarget(parsed, options.allowed, options.lookup ?? systemLookup);
  } catch (error) {
    if (error instanceof TargetRefused) return failed(error.problem);
    throw error;
  }

  const agent = new Agent({
    connect: { lookup: pinnedLookup(target), timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const response = await request(parsed, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': options.userAgent, ...headers },
      body,
      dispatcher: agent,
      signal,
    });
    await response.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
    const retryAfterMs = response.statusCode === 429 || response.statusCode === 503 ? retryAfterOf(response.headers['retry-after'], Date.now()) : null;
    return { statusCode: response.statusCode, error: null, durationMs: elapsed(), retryAfterMs };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const code = (error as { code?: unknown }).code;
    if (timeout.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code))) return failed('timeout');
    return failed('connection');
  } finally {
    agent.destroy().catch(() => undefined);
  }
}
