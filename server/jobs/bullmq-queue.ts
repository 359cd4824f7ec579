import { Queue, WaitingError, Worker, type Job } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import {
  checkJobOptions,
  checkQueueName,
  concurrencyOf,
  DEFAULT_GRACE_MS,
  DEFAULT_MAX_ATTEMPTS,
  defaultRetryDelay,
  errorText,
  type RetryDelay,
} from './common';
import type { JobHandler, JobOptions, JobQueue, WorkerOptions } from './types';

/** The backoff type every job names; the workers compute it with the senders' backoffDelayMs. */
const BACKOFF_TYPE = 'nudge';
/** Given-up jobs kept in BullMQ's failed set for inspection. */
const KEEP_FAILED = { age: 30 * 24 * 3600, count: 10_000 };

export interface BullmqQueueOptions {
  /** redis://host:port/db — the database index in the path is respected. */
  url: string;
  log: FastifyBaseLogger;
  /** Prefix of every key. Default `nudge`. */
  prefix?: string;
  /** How long close() waits for running handlers. */
  graceMs?: number;
  /** A running job's lock, renewed at half of it; a dead worker's jobs are taken again after it. Default 30 s. */
  lockDurationMs?: number;
  /** How often workers look for jobs whose lock expired. Default 30 s. */
  stalledIntervalMs?: number;
  /** Delay before a failed job's next try. */
  retryDelayMs?: RetryDelay;
}

interface Running {
  job: Job;
  token: string;
  done: Promise<unknown>;
}

/**
 * The scale mode's queue: BullMQ on Redis, the same JobQueue as the database queue. dedupeKey is BullMQ's
 * deduplication id (kept until the job completes or is given up), delayMs its delay, maxAttempts its attempts
 * with the senders' backoff. A worker that dies leaves its jobs locked until the lock expires; another worker's
 * stalled check then runs them again, once (BullMQ's maxStalledCount 1: a job that keeps killing its worker
 * is given up the second time). Completed jobs are removed at once; given-up ones stay 30 days.
 */
export class BullmqJobQueue implements JobQueue {
  private readonly url: string;
  private readonly log: FastifyBaseLogger;
  private readonly prefix: string;
  private readonly graceMs: number;
  private readonly lockDurationMs: number;
  private readonly stalledIntervalMs: number;
  private readonly retryDelayMs: RetryDelay;
  /** Shared by the producers (Queue objects); workers get their own, which BullMQ duplicates for blocking reads. */
  private producer: Redis | null = null;
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, { worker: Worker; connection: Redis }>();
  private readonly running = new Map<string, Running>();
  private readonly abort = new AbortController();
  private closing: Promise<void> | null = null;
  private closed = false;

  constructor(options: BullmqQueueOptions) {
    this.url = options.url;
    this.log = options.log;
    this.prefix = options.prefix ?? 'nudge';
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.lockDurationMs = options.lockDurationMs ?? 30_000;
    this.stalledIntervalMs = options.stalledIntervalMs ?? 30_000;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelay;
  }

  private connect(role: string, blocking: boolean): Redis {
    // Workers must wait for Redis forever (BullMQ requires maxRetriesPerRequest null); producers fail a
    // request after a few tries so an API call reports the outage instead of hanging.
    const redis = new Redis(this.url, { maxRetriesPerRequest: blocking ? null : 3, connectionName: `nudge:${role}` });
    redis.on('error', (error) => this.log.warn({ err: error, role }, 'job queue: Redis connection error'));
    return redis;
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      this.producer ??= this.connect('producer', false);
      queue = new Queue(name, { connection: this.producer, prefix: this.prefix });
      queue.on('error', (error) => this.log.warn({ err: error, queue: name }, 'job queue error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  async add<P>(queue: string, name: string, payload: P, options: JobOptions = {}): Promise<void> {
    if (this.closed) throw new Error('the job queue is closed');
    checkQueueName(queue);
    checkJobOptions(options);
    await this.queue(queue).add(name, payload ?? null, {
      ...(options.delayMs ? { delay: Math.round(options.delayMs) } : {}),
      attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      backoff: { type: BACKOFF_TYPE },
      ...(options.dedupeKey ? { deduplication: { id: options.dedupeKey } } : {}),
      removeOnComplete: true,
      removeOnFail: KEEP_FAILED,
    });
  }

  work(queue: string, handlers: Record<string, JobHandler<any>>, options?: WorkerOptions): void {
    if (this.closing) throw new Error('the job queue is closed');
    checkQueueName(queue);
    if (this.workers.has(queue)) throw new Error(`queue "${queue}" already has a worker in this process`);
    const connection = this.connect(`worker:${queue}`, true);
    const worker = new Worker(queue, (job, token, signal) => this.process(queue, handlers, job, token, signal), {
      connection,
      prefix: this.prefix,
      concurrency: concurrencyOf(options),
      lockDuration: this.lockDurationMs,
      stalledInterval: this.stalledIntervalMs,
      maxStalledCount: 1,
      settings: {
        backoffStrategy: (attemptsMade: number) => this.retryDelayMs(Math.max(0, attemptsMade - 1)),
      },
    });
    worker.on('error', (error) => this.log.error({ err: error, queue }, 'job worker error'));
    worker.on('completed', (job) => this.log.debug({ queue, job: job.name, jobId: job.id, attempt: job.attemptsMade + 1 }, 'job done'));
    worker.on('failed', (job, error) => {
      if (!job) return;
      const attempts = job.opts.attempts ?? 1;
      const context = { queue, job: job.name, jobId: job.id, attempt: job.attemptsMade, maxAttempts: attempts, err: error };
      if (job.attemptsMade >= attempts || job.finishedOn) this.log.error(context, 'job given up after its last attempt');
      else this.log.warn(context, 'job failed: it will be retried');
    });
    this.workers.set(queue, { worker, connection });
  }

  private async process(
    queue: string,
    handlers: Record<string, JobHandler<any>>,
    job: Job,
    token: string | undefined,
    bullSignal: AbortSignal | undefined,
  ): Promise<void> {
    const handler = handlers[job.name];
    if (!handler) throw new Error(`no handler for job "${job.name}" in queue "${queue}"`);
    const signal = bullSignal ? AbortSignal.any([this.abort.signal, bullSignal]) : this.abort.signal;
    const key = `${queue}:${job.id}`;
    // BullMQ fails the job for good once attemptsMade reaches opts.attempts (a stalled rerun doesn't count one).
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const done = handler(job.data, { attempt: job.attemptsMade + 1, lastAttempt, signal, jobId: job.id });
    if (token) this.running.set(key, { job, token, done });
    try {
      await done;
    } catch (error) {
      if (this.closing && this.abort.signal.aborted && token) {
        // Stopped by the shutdown, not failed: back to waiting without using up a try.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      throw error instanceof Error ? error : new Error(errorText(error));
    } finally {
      this.running.delete(key);
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const workers = [...this.workers.values()];
    // No new jobs; the running ones are told to stop at their next safe point.
    await Promise.all(workers.map(({ worker }) => worker.pause(true).catch(() => {})));
    this.abort.abort(new Error('the worker is shutting down'));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.graceMs)));
    const running = [...this.running.values()];
    const outcome = await Promise.race([Promise.allSettled(running.map((r) => r.done)).then(() => 'done' as const), grace]);
    clearTimeout(timer);
    const stuck = outcome === 'timeout' ? [...this.running.values()] : [];
    if (stuck.length > 0) {
      this.log.warn({ jobs: stuck.length }, 'jobs still running at shutdown: released to other workers');
      // Their locks go now, so another worker takes them at once rather than after the lock expires.
      await Promise.all(stuck.map(({ job, token }) => job.moveToWait(token).catch(() => {})));
    }
    await Promise.all(workers.map(({ worker }) => worker.close(stuck.length > 0).catch(() => {})));
    await Promise.all([...this.queues.values()].map((queue) => queue.close().catch(() => {})));
    this.closed = true;
    const connections = [...workers.map(({ connection }) => connection), ...(this.producer ? [this.producer] : [])];
    await Promise.all(connections.map((redis) => redis.quit().catch(() => redis.disconnect())));
  }
}
