/**
 * The job queue every background task goes through (fan-out, delivery batches, webhook sends, scheduled work).
 * Two implementations behind this one interface, chosen by configuration:
 * - embedded (default): durable rows in the `jobs` table (0008_messaging), claimed with a lease
 *   (locked_by/locked_until); a crashed process's lease expires and another worker takes the job again;
 * - scale (REDIS_URL set): BullMQ queues on Redis, workers started with `npm run worker`.
 * Delivery is at least once: a handler may see a job again after a crash, so handlers are idempotent (the
 * delivery engine relies on the unique (notification_id, player_id) row, not on the queue, to send once).
 */

export interface JobOptions {
  /** Don't run before this many milliseconds from now. */
  delayMs?: number;
  /** While a job with this key is waiting or running, adding another with the same key adds nothing. */
  dedupeKey?: string;
  /** Tries before the job is given up (default 10); a failed try waits with capped exponential backoff. */
  maxAttempts?: number;
}

export interface JobContext {
  /** 1 on the first try. */
  attempt: number;
  /**
   * No try follows this one if it fails: the queue gives the job up (a try cut short by close(), `signal`
   * aborted, is handed back uncounted instead). A handler that leaves work marked as in progress settles it
   * here: the delivery engine fails the batch's deliveries rather than leave its message running forever.
   */
  lastAttempt: boolean;
  /** Aborted when the worker shuts down; long handlers stop at the next safe point. */
  signal: AbortSignal;
  /** The queue's id of this job, for logs (the same on every try). */
  jobId?: string;
}

export type JobHandler<P = unknown> = (payload: P, context: JobContext) => Promise<void>;

export interface WorkerOptions {
  /** Jobs of this queue handled at once by this process (default 1). */
  concurrency?: number;
}

export interface JobQueue {
  /** Adds a job to a named queue (`name` selects the handler within it). Resolves once it is durable. */
  add<P>(queue: string, name: string, payload: P, options?: JobOptions): Promise<void>;
  /** Handles the queue's jobs in this process until close(). One call per queue and process. */
  work(queue: string, handlers: Record<string, JobHandler<any>>, options?: WorkerOptions): void;
  /** Stops taking jobs, waits for the running ones (up to a grace period), releases connections. */
  close(): Promise<void>;
}
