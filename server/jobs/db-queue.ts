import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db';
import type { Database } from '../db/schema';
import {
  checkJobOptions,
  checkQueueName,
  concurrencyOf,
  DEFAULT_GRACE_MS,
  DEFAULT_MAX_ATTEMPTS,
  defaultRetryDelay,
  errorText,
  workerId,
  type RetryDelay,
} from './common';
import type { JobHandler, JobOptions, JobQueue, WorkerOptions } from './types';

/** run_at of a job that was given up: it stays for inspection and no claim ever reaches it. */
export const DEAD_RUN_AT = '9999-12-31T23:59:59.999Z';

/** last_error of a job whose worker stopped (crashed, killed) while running it. */
export const LEASE_EXPIRED = 'lease expired: the worker stopped while running it';

/** Dead jobs older than this are deleted. */
const DEAD_KEEP_MS = 30 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;
/** Wait after a failed claim (database away) before the next one. */
const CLAIM_ERROR_WAIT_MS = 1_000;

export interface DbQueueOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  log: FastifyBaseLogger;
  /** Where "now" comes from (Services.clock); run_at, leases and created_at use it. */
  clock?: () => Date;
  /** How long a claim holds a job; renewed every third of it while the handler runs. Default 30 s. */
  leaseMs?: number;
  /** How often an idle worker looks for due jobs added by other processes. Default 200 ms. */
  pollMs?: number;
  /** How long close() waits for running handlers. */
  graceMs?: number;
  /** Delay before a failed job's next try. */
  retryDelayMs?: RetryDelay;
}

interface Claimed {
  id: number;
  name: string;
  payload: string;
  /** Tries that ended before this one (failed, or cut short by a stopped worker). */
  attempts: number;
  max_attempts: number;
}

/**
 * The embedded mode's durable queue on the `jobs` table, for SQLite and PostgreSQL, safe with any number of
 * processes on one database. A worker claims due jobs with one conditional UPDATE that sets a lease
 * (locked_by, locked_until) and renews it while the handler runs; success deletes the row, failure schedules
 * the next try with backoff, and a job whose worker died is claimed again once its lease has expired.
 *
 * `attempts` counts tries that ended: failed ones, and ones cut short by a stopped worker (counted when the
 * job is claimed again). A job is given up when a failed try brings attempts to max_attempts, or when a
 * stopped worker's try brings it past max_attempts: a crash on the last try still gets one more, so a job is
 * lost only to a job that keeps killing its worker. Given-up jobs stay with run_at = DEAD_RUN_AT and their
 * last_error for 30 days; their dedupe key is freed.
 */
export class DbJobQueue implements JobQueue {
  private readonly db: Kysely<Database>;
  private readonly dialect: Dialect;
  private readonly log: FastifyBaseLogger;
  private readonly clock: () => Date;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly graceMs: number;
  private readonly retryDelayMs: RetryDelay;
  /** This instance's name in locked_by. */
  readonly workerId = workerId();
  private readonly workers = new Map<string, QueueWorker>();
  private readonly abort = new AbortController();
  private renewTimer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;

  constructor(options: DbQueueOptions) {
    this.db = options.db;
    this.dialect = options.dialect;
    this.log = options.log;
    this.clock = options.clock ?? (() => new Date());
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 200;
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelay;
  }

  get isClosing(): boolean {
    return this.closing !== null;
  }

  /** Works after close() too: the row waits for the next worker (the database belongs to the caller). */
  async add<P>(queue: string, name: string, payload: P, options: JobOptions = {}): Promise<void> {
    checkQueueName(queue);
    checkJobOptions(options);
    const now = this.now();
    await this.db
      .insertInto('jobs')
      .values({
        queue,
        name,
        payload: JSON.stringify(payload ?? null),
        dedupe_key: options.dedupeKey ?? null,
        run_at: new Date(now + (options.delayMs ?? 0)).toISOString(),
        max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        created_at: new Date(now).toISOString(),
      })
      // While a job with the key exists (waiting, retrying or running), the new one is not added.
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .execute();
    if (!options.delayMs) this.workers.get(queue)?.wake();
  }

  work(queue: string, handlers: Record<string, JobHandler<any>>, options?: WorkerOptions): void {
    if (this.closing) throw new Error('the job queue is closed');
    checkQueueName(queue);
    if (this.workers.has(queue)) throw new Error(`queue "${queue}" already has a worker in this process`);
    const worker = new QueueWorker(this, queue, handlers, concurrencyOf(options));
    this.workers.set(queue, worker);
    if (!this.renewTimer) {
      this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(50, Math.floor(this.leaseMs / 3)));
      this.pruneTimer = setInterval(() => void this.pruneDead(), PRUNE_EVERY_MS);
      this.pruneTimer.unref();
      void this.pruneDead();
    }
    worker.start();
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.abort.abort(new Error('the worker is shutting down'));
    const workers = [...this.workers.values()];
    for (const worker of workers) worker.wake();
    await Promise.all(workers.map((worker) => worker.stopped));
    const running = workers.flatMap((worker) => worker.runningTasks());
    if (running.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.graceMs)));
      const outcome = await Promise.race([Promise.allSettled(running).then(() => 'done' as const), grace]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        this.log.warn({ jobs: workers.reduce((n, w) => n + w.runningCount, 0) }, 'jobs still running at shutdown: released to other workers');
      }
    }
    if (this.renewTimer) clearInterval(this.renewTimer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    // Whatever still runs is handed back now, so the next worker takes it at once instead of after the lease.
    await this.releaseLeases(null).catch((error: unknown) => this.log.error({ err: error }, 'could not release job leases'));
  }

  // ---- used by QueueWorker ----

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get poll(): number {
    return this.pollMs;
  }

  get logger(): FastifyBaseLogger {
    return this.log;
  }

  now(): number {
    return this.clock().getTime();
  }

  /** Takes up to `limit` due jobs of the queue, oldest first, under a fresh lease. */
  async claim(queue: string, limit: number): Promise<Claimed[]> {
    const nowMs = this.now();
    const now = new Date(nowMs).toISOString();
    const until = new Date(nowMs + this.leaseMs).toISOString();
    const set = {
      locked_by: this.workerId,
      locked_until: until,
      // A row still naming a worker is one whose lease expired: that try was cut short, and counts.
      attempts: sql<number>`attempts + case when locked_by is null then 0 else 1 end`,
      last_error: sql<string | null>`case when locked_by is null then last_error else ${LEASE_EXPIRED} end`,
    };
    const due = (db: Kysely<Database>) =>
      db
        .selectFrom('jobs')
        .select('id')
        .where('queue', '=', queue)
        .where('run_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('run_at')
        .orderBy('id')
        .limit(limit);
    const returning = ['jobs.id', 'jobs.name', 'jobs.payload', 'jobs.attempts', 'jobs.max_attempts'] as const;

    // An idle poll only reads the (queue, run_at, id) index: no write lock on SQLite, no row locks on PostgreSQL.
    if (!(await due(this.db).executeTakeFirst())) return [];

    let rows: Array<{ id: number | string; name: string; payload: string; attempts: number; max_attempts: number }>;
    if (this.dialect === 'postgres') {
      // SKIP LOCKED: concurrent claimers pass over each other's rows instead of waiting or taking them twice.
      rows = await this.db
        .with('due', () => due(this.db).forUpdate().skipLocked())
        .updateTable('jobs')
        .set(set)
        .from('due')
        .whereRef('jobs.id', '=', 'due.id')
        .returning(returning)
        .execute();
    } else {
      // One UPDATE takes SQLite's write lock before it reads, so the subquery and the update are one step.
      rows = await this.db.updateTable('jobs').set(set).where('id', 'in', due(this.db)).returning(returning).execute();
    }
    const claimed = rows
      .map((row) => ({ ...row, id: Number(row.id), attempts: Number(row.attempts), max_attempts: Number(row.max_attempts) }))
      .sort((a, b) => a.id - b.id);

    const runnable: Claimed[] = [];
    for (const job of claimed) {
      if (job.attempts > job.max_attempts) {
        await this.bury(queue, job, LEASE_EXPIRED);
      } else {
        runnable.push(job);
      }
    }
    return runnable;
  }

  /** Records a try's outcome, if this worker still holds the job. */
  async settle(queue: string, job: Claimed, error: unknown, aborted: boolean): Promise<void> {
    if (error === null) {
      const result = await this.db
        .deleteFrom('jobs')
        .where('id', '=', job.id)
        .where('locked_by', '=', this.workerId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 1) {
        this.log.debug({ queue, job: job.name, jobId: job.id, attempt: job.attempts + 1 }, 'job done');
      } else if (!this.closing) {
        this.log.warn({ queue, job: job.name, jobId: job.id }, 'job finished after its lease was lost: it may run again');
      }
      return;
    }
    if (aborted && this.closing) {
      // Stopped by the shutdown, not failed: back to the queue as it was.
      await this.releaseLeases([job.id]);
      return;
    }
    const attempts = job.attempts + 1;
    const message = errorText(error);
    if (attempts >= job.max_attempts) {
      await this.bury(queue, { ...job, attempts }, message, error);
      return;
    }
    const delay = this.retryDelayMs(attempts - 1);
    const result = await this.db
      .updateTable('jobs')
      .set({ attempts, run_at: new Date(this.now() + delay).toISOString(), last_error: message, locked_by: null, locked_until: null })
      .where('id', '=', job.id)
      .where('locked_by', '=', this.workerId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) {
      this.log.warn(
        { queue, job: job.name, jobId: job.id, attempt: attempts, maxAttempts: job.max_attempts, retryInMs: delay, err: error },
        'job failed: it will be retried',
      );
    }
  }

  /** Gives a job up: kept for inspection, never claimed again, its dedupe key free for a new job. */
  private async bury(queue: string, job: Claimed, lastError: string, error?: unknown): Promise<void> {
    const result = await this.db
      .updateTable('jobs')
      .set({ attempts: job.attempts, run_at: DEAD_RUN_AT, last_error: lastError, dedupe_key: null, locked_by: null, locked_until: null })
      .where('id', '=', job.id)
      .where('locked_by', '=', this.workerId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) {
      this.log.error(
        { queue, job: job.name, jobId: job.id, attempts: job.attempts, maxAttempts: job.max_attempts, lastError, ...(error ? { err: error } : {}) },
        'job given up after its last attempt',
      );
    }
  }

  /** Hands jobs this instance holds back to the queue (some, or all with null), without counting a try. */
  async releaseLeases(ids: number[] | null): Promise<void> {
    if (ids?.length === 0) return;
    let query = this.db
      .updateTable('jobs')
      .set({ locked_by: null, locked_until: null })
      .where('locked_by', '=', this.workerId);
    if (ids !== null) query = query.where('id', 'in', ids);
    await query.execute();
  }

  private async renewLeases(): Promise<void> {
    if (!this.hasRunning()) return;
    try {
      await this.db
        .updateTable('jobs')
        .set({ locked_until: new Date(this.now() + this.leaseMs).toISOString() })
        .where('locked_by', '=', this.workerId)
        .execute();
    } catch (error) {
      this.log.error({ err: error }, 'could not renew job leases');
    }
  }

  private hasRunning(): boolean {
    for (const worker of this.workers.values()) if (worker.runningCount > 0) return true;
    return false;
  }

  private async pruneDead(): Promise<void> {
    try {
      await this.db
        .deleteFrom('jobs')
        .where('run_at', '=', DEAD_RUN_AT)
        .where('created_at', '<', new Date(this.now() - DEAD_KEEP_MS).toISOString())
        .execute();
    } catch (error) {
      this.log.error({ err: error }, 'could not delete old dead jobs');
    }
  }
}

/** One queue's loop in one process: claims as many jobs as it has free slots, runs them, sleeps when idle. */
class QueueWorker {
  private readonly running = new Map<number, Promise<void>>();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  stopped: Promise<void> = Promise.resolve();

  constructor(
    private readonly owner: DbJobQueue,
    private readonly queue: string,
    private readonly handlers: Record<string, JobHandler<any>>,
    private readonly concurrency: number,
  ) {}

  get runningCount(): number {
    return this.running.size;
  }

  runningTasks(): Promise<void>[] {
    return [...this.running.values()];
  }

  start(): void {
    this.stopped = this.loop();
  }

  /** Ends the current wait at once: a job was added here, a slot came free, or close() was called. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async loop(): Promise<void> {
    const log = this.owner.logger;
    while (!this.owner.isClosing) {
      const free = this.concurrency - this.running.size;
      if (free > 0) {
        let claimed: Claimed[];
        try {
          claimed = await this.owner.claim(this.queue, free);
        } catch (error) {
          log.error({ err: error, queue: this.queue }, 'could not claim jobs');
          await this.idle(CLAIM_ERROR_WAIT_MS);
          continue;
        }
        if (this.owner.isClosing) {
          // close() came while claiming: these go back untouched.
          await this.owner.releaseLeases(claimed.map((job) => job.id)).catch((error: unknown) => {
            log.error({ err: error, queue: this.queue }, 'could not release job leases');
          });
          break;
        }
        for (const job of claimed) this.run(job);
        // A full batch means more may be due: look again at once (the slots decide when).
        if (claimed.length === free) continue;
      }
      // Idle: a poll finds other processes' jobs; with every slot busy only a finishing job wakes the loop.
      await this.idle(free > 0 ? this.owner.poll : null);
    }
  }

  private idle(ms: number | null): Promise<void> {
    if (this.woken || this.owner.isClosing) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = ms === null ? null : setTimeout(done, ms);
      const self = this;
      function done() {
        if (timer) clearTimeout(timer);
        self.wakeUp = null;
        self.woken = false;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private run(job: Claimed): void {
    const log = this.owner.logger;
    const signal = this.owner.signal;
    const task = (async () => {
      let error: unknown = null;
      try {
        const handler = this.handlers[job.name];
        if (!handler) throw new Error(`no handler for job "${job.name}" in queue "${this.queue}"`);
        // A failed try that brings attempts to max_attempts buries the job (settle), so this one is the last.
        const lastAttempt = job.attempts + 1 >= job.max_attempts;
        await handler(JSON.parse(job.payload), { attempt: job.attempts + 1, lastAttempt, signal, jobId: String(job.id) });
      } catch (caught) {
        error = caught ?? new Error('job failed');
      }
      try {
        await this.owner.settle(this.queue, job, error, signal.aborted);
      } catch (settleError) {
        // The lease runs out and another worker tries again: at least once, never lost.
        log.error({ err: settleError, queue: this.queue, jobId: job.id }, 'could not record a job outcome');
      }
    })().finally(() => {
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, task);
  }
}
