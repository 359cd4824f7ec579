import type { Services } from '../context';
import type { JobQueue } from '../jobs/types';
import type { ChannelCache } from './channels';

/** The queues of the engine: fan-outs (one job per message) and delivery batches (one job per page of recipients). */
export const FANOUT_QUEUE = 'delivery-fanout';
export const SEND_QUEUE = 'delivery-send';

/** The engine's tuning; the defaults are what production runs. */
export interface EngineOptions {
  /** Players per fan-out page, and so recipients per delivery batch. */
  pageSize: number;
  /** Sends in flight per batch. */
  sendConcurrency: number;
  /** Batches handled at once per process. */
  batchConcurrency: number;
  /** Fan-outs handled at once per process. */
  fanoutConcurrency: number;
  /** Results written per transaction: a crash loses at most these (plus the sends in flight). */
  flushEvery: number;
  /** Tries of one delivery against a failing provider (5xx, network, 429) before it fails for good. */
  maxDeliveryAttempts: number;
  /** Tries of one batch job (crashes and provider errors both count); more than maxDeliveryAttempts. */
  maxBatchAttempts: number;
  /** Rate-limited rounds of one batch (each waits Retry-After) before what is left fails as rate_limited. */
  maxRateLimitRounds: number;
  /** How often the dispatcher looks for due messages. */
  dispatchEveryMs: number;
  /** How often it also re-queues stalled fan-outs and completes finished messages (crash recovery). */
  recoverEveryMs: number;
}

export const DEFAULT_ENGINE_OPTIONS: EngineOptions = {
  pageSize: 1000,
  sendConcurrency: 64,
  batchConcurrency: 4,
  fanoutConcurrency: 2,
  flushEvery: 50,
  maxDeliveryAttempts: 5,
  maxBatchAttempts: 8,
  maxRateLimitRounds: 30,
  dispatchEveryMs: 250,
  recoverEveryMs: 5_000,
};

/**
 * The most deliveries one process can have sent without their results written when it dies: per batch, the
 * sends in flight plus the results waiting for (or in) a write, which the writer keeps under two chunks.
 * A restarted worker sends those again: the crash test holds the engine to this bound.
 */
export function inFlightBound(options: EngineOptions = DEFAULT_ENGINE_OPTIONS): number {
  return options.batchConcurrency * (options.sendConcurrency + 2 * options.flushEvery);
}

/** What the job handlers share in one process. */
export interface Engine {
  s: Services;
  queue: JobQueue;
  channels: ChannelCache;
  options: EngineOptions;
  /** Aborted by stop(): batches stop starting sends, write what they have and hand the rest back to the queue. */
  stopping: AbortSignal;
}

/** The fan-out job: one per message. */
export interface FanoutPayload {
  notification_id: number;
}

/** A delivery batch job: the message's queued deliveries of players (from_id, to_id], of one offset for local time. */
export interface BatchPayload {
  notification_id: number;
  from_id: number;
  to_id: number;
  /** Local-time messages: the recipients' UTC offset in minutes; null otherwise. */
  offset: number | null;
  /** Rate-limited continuations count up from 0. */
  round?: number;
}

export const fanoutKey = (id: number) => `fanout:${id}`;

export function batchKey(payload: BatchPayload): string {
  const base = `deliver:${payload.notification_id}:${payload.from_id}:${payload.to_id}${payload.offset === null ? '' : `:${payload.offset}`}`;
  return payload.round ? `${base}:r${payload.round}` : base;
}

/** Thrown to hand a job back to the queue (it is tried again later). */
export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryLater';
  }
}
