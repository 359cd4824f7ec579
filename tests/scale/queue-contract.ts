import { expect, it } from 'vitest';
import type { JobQueue } from '../../server/jobs/types';
import { crashAndRecover, deferred, sleep, waitFor, type LogLine } from './queue-harness';

/**
 * What every JobQueue must do, written once: the database queue (server/jobs/db-queue.test.ts, on each dialect)
 * and the BullMQ queue (tests/scale/bullmq.test.ts) each call queueContract() inside their describe block, whose
 * hooks make and close the queues. What only one implementation does stays in its own file.
 */

/** The options the shared tests set; each implementation maps them onto its own. */
export interface ContractQueueOptions {
  retryDelayMs?: (retry: number) => number;
  graceMs?: number;
  /** How long a running job stays claimed without a renewal (the lease, or BullMQ's lock). */
  leaseMs?: number;
}

/** A job the queue holds that is not given up, oldest first: waiting, delayed, or running on a worker. */
export interface HeldJob {
  name: string;
  payload: unknown;
  /** Tries counted so far. */
  attempts: number;
  /** Claimed by a worker (a lease or lock on it). */
  running: boolean;
}

/** A job kept for inspection after its last attempt. */
export interface GivenUpJob {
  attempts: number;
  error: string | null;
}

export interface QueueContractOptions {
  /** A new queue of the implementation under test (the caller's afterEach closes it). */
  queue(options?: ContractQueueOptions): JobQueue;
  /** The log lines of the queue made last. */
  lines(): LogLine[];
  /** No job of the named queue is left: waiting, delayed, retrying or running. */
  drained(name: string): Promise<boolean>;
  /** The named queue's jobs that are not given up, oldest first. */
  held(name: string): Promise<HeldJob[]>;
  /** The named queue's jobs that were given up. */
  givenUp(name: string): Promise<GivenUpJob[]>;
  /** The fields of the "job given up after its last attempt" log line, besides level, queue and job. */
  givenUpLog: (attempts: number) => Record<string, unknown>;
  /** The lease of the renewal test, and how long its job runs (several leases). */
  longJob: { leaseMs: number; runMs: number };
  /** add() throws once the queue is closed (the database queue's add still writes its row). */
  closeRejectsAdd: boolean;
  /** The environment of the crash test's worker processes (tests/scale/queue-crash-child.ts). */
  crashEnv(): Record<string, string>;
  /** Checks only one implementation makes, at these points of the shared tests. */
  also?: {
    /** After the jobs ran and nothing is left of them. */
    afterRun?(name: string): Promise<void>;
    /** Once the job is added that fails twice before it succeeds. */
    afterFailingAdd?(name: string): Promise<void>;
    /** Once the job is given up and checked. */
    afterGivenUp?(name: string): Promise<void>;
  };
}

/** Declares the shared tests (call it inside a describe block). */
export function queueContract(c: QueueContractOptions): void {
  it('runs each job once with its payload, and keeps nothing of a completed job', async () => {
    const q = c.queue();
    const seen: Array<{ payload: unknown; attempt: number; jobId?: string }> = [];
    q.work('mail', {
      async send(payload, context) {
        seen.push({ payload, attempt: context.attempt, jobId: context.jobId });
      },
    });
    await q.add('mail', 'send', { to: 'a@example.com', n: 1 });
    await q.add('mail', 'send', { to: 'b@example.com', n: 2 });
    await waitFor('both jobs', () => seen.length === 2);
    expect(seen.map((s) => s.payload)).toEqual([
      { to: 'a@example.com', n: 1 },
      { to: 'b@example.com', n: 2 },
    ]);
    expect(seen.every((s) => s.attempt === 1 && typeof s.jobId === 'string')).toBe(true);
    await waitFor('the queue drained', () => c.drained('mail'));
    expect(await c.held('mail')).toEqual([]);
    expect(await c.givenUp('mail')).toEqual([]);
    await c.also?.afterRun?.('mail');
  });

  it('retries a failing job with growing delays until it succeeds', async () => {
    const q = c.queue({ retryDelayMs: (retry) => 300 * 2 ** retry });
    const tries: Array<{ attempt: number; at: number }> = [];
    q.work('hooks', {
      async call(_payload, context) {
        tries.push({ attempt: context.attempt, at: Date.now() });
        if (context.attempt < 3) throw new Error(`receiver answered 503 (try ${context.attempt})`);
      },
    });
    await q.add('hooks', 'call', {});
    await c.also?.afterFailingAdd?.('hooks');
    await waitFor('the third try', () => tries.length === 3, 10_000);
    await waitFor('the queue drained', () => c.drained('hooks'));
    expect(tries.map((t) => t.attempt)).toEqual([1, 2, 3]);
    expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(280);
    expect(tries[2].at - tries[1].at).toBeGreaterThanOrEqual(580);
    expect(c.lines().filter((line) => line.msg === 'job failed: it will be retried')).toHaveLength(2);
  });

  it('gives a job up after its last attempt, keeps it for inspection and logs it', async () => {
    const q = c.queue({ retryDelayMs: () => 20 });
    let runs = 0;
    const last: boolean[] = [];
    q.work('hooks', {
      async call(_payload, context) {
        runs += 1;
        last.push(context.lastAttempt);
        throw new Error('certificate refused');
      },
    });
    await q.add('hooks', 'call', { id: 7 }, { maxAttempts: 3, dedupeKey: 'hook:7' });
    await waitFor('the job given up', async () => (await c.givenUp('hooks')).length === 1);
    await sleep(300);
    expect(runs).toBe(3);
    // The handler knows which try is its last (the delivery engine settles its batch there).
    expect(last).toEqual([false, false, true]);
    const given = await c.givenUp('hooks');
    expect(given).toHaveLength(1);
    expect(given[0].attempts).toBe(3);
    expect(given[0].error).toContain('certificate refused');
    expect(await c.held('hooks')).toEqual([]);
    const logged = await waitFor('the log line', () => c.lines().find((line) => line.msg === 'job given up after its last attempt'));
    expect(logged).toMatchObject({ level: 50, queue: 'hooks', job: 'call', ...c.givenUpLog(3) });
    await c.also?.afterGivenUp?.('hooks');

    // Its key is free again: the same work can be queued anew.
    await q.add('hooks', 'call', { id: 7 }, { maxAttempts: 1, dedupeKey: 'hook:7' });
    await waitFor('the new job tried', () => runs === 4);
  });

  it('adds one job per dedupe key while it waits or runs, and again once it is done', async () => {
    const q = c.queue();
    for (let i = 0; i < 3; i += 1) await q.add('fanout', 'fanout', { i }, { dedupeKey: 'fanout:1' });
    await q.add('fanout', 'fanout', { other: true }, { dedupeKey: 'fanout:2' });
    expect(await c.held('fanout')).toEqual([
      { name: 'fanout', payload: { i: 0 }, attempts: 0, running: false },
      { name: 'fanout', payload: { other: true }, attempts: 0, running: false },
    ]);

    const started = deferred();
    const release = deferred();
    const seen: unknown[] = [];
    q.work(
      'fanout',
      {
        async fanout(payload) {
          seen.push(payload);
          if (seen.length === 1) {
            started.resolve();
            await release.promise;
          }
        },
      },
      { concurrency: 1 },
    );
    await started.promise;
    await q.add('fanout', 'fanout', { i: 'while running' }, { dedupeKey: 'fanout:1' });
    release.resolve();
    await waitFor('both keys done', async () => seen.length === 2 && (await c.drained('fanout')));
    expect(seen).toEqual([{ i: 0 }, { other: true }]);

    await q.add('fanout', 'fanout', { i: 'after' }, { dedupeKey: 'fanout:1' });
    await waitFor('the key used again', () => seen.length === 3);
    expect(seen[2]).toEqual({ i: 'after' });
  });

  it('holds a delayed job until its time', async () => {
    const q = c.queue();
    const ran: Array<{ name: string; at: number }> = [];
    q.work('later', {
      async job(payload: { name: string }) {
        ran.push({ name: payload.name, at: Date.now() });
      },
    });
    const added = Date.now();
    await q.add('later', 'job', { name: 'delayed' }, { delayMs: 700 });
    await q.add('later', 'job', { name: 'now' });
    await waitFor('both jobs', () => ran.length === 2);
    expect(ran.map((r) => r.name)).toEqual(['now', 'delayed']);
    expect(ran[1].at - added).toBeGreaterThanOrEqual(690);
  });

  it('never runs one job twice at once with two instances (200 jobs, 2 × 4)', async () => {
    const a = c.queue();
    const b = c.queue();
    const runs = new Map<number, number>();
    const active = new Set<number>();
    const overlaps: number[] = [];
    const by = { a: 0, b: 0 };
    const handler = (who: 'a' | 'b') => async (payload: { i: number }) => {
      if (active.has(payload.i)) overlaps.push(payload.i);
      active.add(payload.i);
      runs.set(payload.i, (runs.get(payload.i) ?? 0) + 1);
      by[who] += 1;
      await sleep(2 + (payload.i % 7));
      active.delete(payload.i);
    };
    for (let i = 0; i < 200; i += 1) await a.add('bulk', 'job', { i });
    a.work('bulk', { job: handler('a') }, { concurrency: 4 });
    b.work('bulk', { job: handler('b') }, { concurrency: 4 });
    await waitFor('all 200 jobs', async () => runs.size === 200 && (await c.drained('bulk')), 60_000);
    expect(overlaps).toEqual([]);
    expect(runs.size).toBe(200);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(by.a).toBeGreaterThan(0);
    expect(by.b).toBeGreaterThan(0);
  }, 90_000);

  it('keeps renewing the lease of a job that runs longer than it', async () => {
    const { leaseMs, runMs } = c.longJob;
    const a = c.queue({ leaseMs });
    const b = c.queue({ leaseMs });
    let runs = 0;
    const job = async () => {
      runs += 1;
      await sleep(runMs);
    };
    await a.add('long', 'job', {});
    a.work('long', { job });
    await waitFor('the first run', () => runs === 1);
    b.work('long', { job });
    await waitFor('the job done', () => c.drained('long'), 5_000);
    expect(runs).toBe(1);
  }, 15_000);

  it('close() stops taking jobs and waits for the running ones', async () => {
    const q = c.queue();
    const started = deferred();
    let finished = false;
    q.work(
      'slow',
      {
        async job(payload: { n: number }) {
          if (payload.n === 1) started.resolve();
          await sleep(400);
          finished = true;
        },
      },
      { concurrency: 1 },
    );
    await q.add('slow', 'job', { n: 1 });
    await q.add('slow', 'job', { n: 2 });
    await started.promise;
    await q.close();
    expect(finished).toBe(true);
    expect(await c.held('slow')).toEqual([{ name: 'job', payload: { n: 2 }, attempts: 0, running: false }]);
    if (c.closeRejectsAdd) await expect(q.add('slow', 'job', { n: 3 })).rejects.toThrow('closed');
  });

  it('close() hands back, uncounted, a job still running after the grace period, and one that stopped on the signal', async () => {
    const q = c.queue({ graceMs: 300 });
    const stubborn = deferred();
    // The polite job listens for the signal: closing before its handler has begun would abort a signal nobody
    // listens to yet (the rows say "running" from the claim, a moment before the handler is called).
    const listening = deferred();
    let sawAbort = false;
    q.work(
      'stop',
      {
        async stubborn() {
          await stubborn.promise; // ignores the signal
        },
        async polite(_payload, context) {
          await new Promise((_resolve, reject) => {
            context.signal.addEventListener('abort', () => {
              sawAbort = true;
              reject(context.signal.reason);
            });
            listening.resolve();
          });
        },
      },
      { concurrency: 2 },
    );
    await q.add('stop', 'stubborn', {});
    await q.add('stop', 'polite', {});
    await waitFor('both running', async () => (await c.held('stop')).filter((job) => job.running).length === 2);
    await listening.promise;
    const closing = Date.now();
    await q.close();
    expect(Date.now() - closing).toBeLessThan(2_000);
    expect(sawAbort).toBe(true);
    const left = (await c.held('stop')).sort((x, y) => x.name.localeCompare(y.name));
    expect(left).toEqual([
      { name: 'polite', payload: {}, attempts: 0, running: false },
      { name: 'stubborn', payload: {}, attempts: 0, running: false },
    ]);

    // The next worker takes both at once, without waiting for a lease to expire.
    const next = c.queue({ leaseMs: 60_000 });
    const ran: string[] = [];
    next.work('stop', { stubborn: async () => void ran.push('stubborn'), polite: async () => void ran.push('polite') }, { concurrency: 2 });
    await waitFor('both handed over', () => ran.length === 2, 3_000);
    stubborn.resolve();
    await waitFor('the queue drained', () => c.drained('stop'));
  });

  it('survives a worker killed mid-way: every job completes, only those in flight ran twice', async () => {
    const total = 500;
    const seed = c.queue();
    for (let i = 0; i < total; i += 1) await seed.add('crash', 'slow', { index: i });
    const outcome = await crashAndRecover({
      env: { ...c.crashEnv(), CRASH_JOB_MS: '15', CRASH_LEASE_MS: '1000' },
      jobs: total,
      concurrency: 4,
      killAfter: Math.floor(total / 3),
      drained: () => c.drained('crash'),
    });
    expect(await c.drained('crash')).toBe(true);
    expect(await c.givenUp('crash')).toEqual([]);
    expect(outcome.finished.size).toBe(total);
    expect(outcome.starts.size).toBe(total);
    const twice = [...outcome.starts].filter(([, n]) => n > 1).map(([index]) => index);
    expect(twice.length).toBeGreaterThan(0);
    expect(twice.length).toBeLessThanOrEqual(4);
    expect(twice.every((index) => outcome.inFlight.has(index))).toBe(true);
    expect([...outcome.starts.values()].every((n) => n <= 2)).toBe(true);
    expect(outcome.secondExit).toBe(0);
  }, 120_000);
}
