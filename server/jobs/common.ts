import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { backoffDelayMs } from '../delivery/senders/types';
import type { JobOptions, WorkerOptions } from './types';

/** Tries of a job whose options name none (JobOptions.maxAttempts). */
export const DEFAULT_MAX_ATTEMPTS = 10;

/** How long close() waits for running handlers before it releases them to other workers. */
export const DEFAULT_GRACE_MS = 10_000;

/** Delay before retry number `retry` (0 for the first): the senders' capped exponential backoff with jitter. */
export type RetryDelay = (retry: number) => number;

export const defaultRetryDelay: RetryDelay = (retry) => backoffDelayMs(retry);

/** Who holds a lease or lock: host, process and a random part, so two instances in one process differ too. */
export function workerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Queue names become Redis key parts and log fields: letters, digits, `-`, `_` and `.`. */
export function checkQueueName(queue: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(queue)) throw new TypeError(`invalid queue name "${queue}"`);
}

/** Rejects options that would store a job no worker can run as meant. */
export function checkJobOptions(options: JobOptions): void {
  const { delayMs, maxAttempts, dedupeKey } = options;
  if (delayMs !== undefined && !(Number.isFinite(delayMs) && delayMs >= 0)) {
    throw new TypeError(`delayMs must be a number ≥ 0, got ${delayMs}`);
  }
  if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new TypeError(`maxAttempts must be an integer ≥ 1, got ${maxAttempts}`);
  }
  if (dedupeKey !== undefined && (typeof dedupeKey !== 'string' || dedupeKey === '' || dedupeKey.length > 500)) {
    throw new TypeError('dedupeKey must be a non-empty string of at most 500 characters');
  }
}

export function concurrencyOf(options: WorkerOptions | undefined): number {
  const concurrency = options?.concurrency ?? 1;
  if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 1000)) {
    throw new TypeError(`concurrency must be an integer from 1 to 1000, got ${concurrency}`);
  }
  return concurrency;
}

/** What is kept of a handler's error: its message, bounded. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
