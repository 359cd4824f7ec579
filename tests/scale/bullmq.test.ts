import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BullmqJobQueue, type BullmqQueueOptions } from '../../server/jobs/bullmq-queue';
import { createJobQueue } from '../../server/jobs';
import { releaseLeadership, runAsLeader, type LeaderServices } from '../../server/jobs/leader';
import { captureLog, crashAndRecover, deferred, sleep, waitFor, type LogLine } from './queue-harness';

/**
 * The scale mode on Redis: the JobQueue behaviours of the database queue, on BullMQ, in Redis database 12
 * (flushed before and after). Runs when TEST_REDIS_URL or REDIS_URL is set (vitest project `scale`).
 */
const base = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const url = (() => {
  const parsed = new URL(base);
  parsed.pathname = '/12';
  return parsed.toString();
})();

let redis: Redis;
const inspectors = new Map<string, Queue>();

/** BullMQ's own view of a queue, to check what the test can't see through JobQueue. */
function inspect(name: string): Queue {
  let queue = inspectors.get(name);
  if (!queue) {
    queue = new Queue(name, { connection: redis, prefix: 'nudge' });
    inspectors.set(name, queue);
  }
  return queue;
}

async function counts(name: string) {
  return inspect(name).getJobCounts('wait', 'active', 'delayed', 'prioritized', 'failed', 'completed');
}

async function drained(name: string): Promise<boolean> {
  const c = await counts(name);
  return c.wait + c.active + c.delayed + c.prioritized === 0;
}

beforeAll(async () => {
  redis = new Redis(url, { maxRetriesPerRequest: null });
  await redis.flushdb();
});

afterAll(async () => {
  await Promise.all([...inspectors.values()].map((queue) => queue.close()));
  await redis.flushdb();
  await redis.quit();
});

describe('the BullMQ job queue', () => {
  let lines: LogLine[];
  const queues: BullmqJobQueue[] = [];

  function queue(options: Partial<BullmqQueueOptions> = {}): BullmqJobQueue {
    const captured = captureLog();
    lines = captured.lines;
    const created = new BullmqJobQueue({ url, log: captured.log, graceMs: 2_000, ...options });
    queues.push(created);
    return created;
  }

  beforeEach(async () => {
    await redis.flushdb();
  });

  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
  });

  it('is what createJobQueue picks when REDIS_URL is set', async () => {
    const { log } = captureLog();
    const picked = createJobQueue({ config: { redisUrl: url }, log } as never);
    expect(picked).toBeInstanceOf(BullmqJobQueue);
    await picked.close();
  });

  it('runs each job once with its payload, and keeps nothing of a completed job', async () => {
    const q = queue();
    const seen: Array<{ payload: unknown; attempt: number; jobId?: string }> = [];
    q.work('mail', {
      async send(payload, context) {
        seen.push({ payload, attempt: context.attempt, jobId: context.jobId });
      },
    });
    await q.add('mail', 'send', { to: 'a@example.com', n: 1 });
    await q.add('mail', 'send', { to: 'b@example.com', n: 2 });
    await waitFor('both jobs', () => seen.length === 2);
    expect(seen.map((s) => s.payload).sort((a: any, b: any) => a.n - b.n)).toEqual([
      { to: 'a@example.com', n: 1 },
      { to: 'b@example.com', n: 2 },
    ]);
    expect(seen.every((s) => s.attempt === 1 && typeof s.jobId === 'string')).toBe(true);
    await waitFor('the queue empty', async () => (await drained('mail')) && (await counts('mail')).completed === 0);
    // The keys carry the `nudge` prefix, in database 12.
    expect((await redis.keys('nudge:mail:*')).length).toBeGreaterThan(0);
  });

  it('retries a failing job with growing delays until it succeeds', async () => {
    const q = queue({ retryDelayMs: (retry) => 300 * 2 ** retry });
    const tries: Array<{ attempt: number; at: number }> = [];
    q.work('hooks', {
      async call(_payload, context) {
        tries.push({ attempt: context.attempt, at: Date.now() });
        if (context.attempt < 3) throw new Error(`receiver answered 503 (try ${context.attempt})`);
      },
    });
    await q.add('hooks', 'call', {});
    await waitFor('the third try', () => tries.length === 3, 10_000);
    await waitFor('the queue empty', () => drained('hooks'));
    expect(tries.map((t) => t.attempt)).toEqual([1, 2, 3]);
    expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(280);
    expect(tries[2].at - tries[1].at).toBeGreaterThanOrEqual(580);
    expect(lines.filter((line) => line.msg === 'job failed: it will be retried')).toHaveLength(2);
  });

  it('gives a job up after its last attempt, keeps it in the failed set and logs it', async () => {
    const q = queue({ retryDelayMs: () => 20 });
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
    await waitFor('the job given up', async () => (await counts('hooks')).failed === 1);
    await sleep(300);
    expect(runs).toBe(3);
    // The handler knows which try is its last (the delivery engine settles its batch there).
    expect(last).toEqual([false, false, true]);
    const [dead] = await inspect('hooks').getFailed();
    expect(dead.failedReason).toContain('certificate refused');
    expect(dead.attemptsMade).toBe(3);
    await waitFor('the log line', () => lines.some((line) => line.msg === 'job given up after its last attempt'));
    expect(lines.find((line) => line.msg === 'job given up after its last attempt')).toMatchObject({ level: 50, queue: 'hooks', job: 'call' });

    await q.add('hooks', 'call', { id: 7 }, { maxAttempts: 1, dedupeKey: 'hook:7' });
    await waitFor('the new job tried', () => runs === 4);
  });

  it('adds one job per dedupe key while it waits or runs, and again once it is done', async () => {
    const q = queue();
    for (let i = 0; i < 3; i += 1) await q.add('fanout', 'fanout', { i }, { dedupeKey: 'fanout:1' });
    await q.add('fanout', 'fanout', { other: true }, { dedupeKey: 'fanout:2' });
    expect((await counts('fanout')).wait).toBe(2);

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
    await waitFor('both keys done', async () => seen.length === 2 && (await drained('fanout')));
    expect(seen).toEqual([{ i: 0 }, { other: true }]);

    await q.add('fanout', 'fanout', { i: 'after' }, { dedupeKey: 'fanout:1' });
    await waitFor('the key used again', () => seen.length === 3);
    expect(seen[2]).toEqual({ i: 'after' });
  });

  it('holds a delayed job until its time', async () => {
    const q = queue();
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
    const a = queue();
    const b = queue();
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
    await waitFor('all 200 jobs', async () => runs.size === 200 && (await drained('bulk')), 60_000);
    expect(overlaps).toEqual([]);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(by.a).toBeGreaterThan(0);
    expect(by.b).toBeGreaterThan(0);
  }, 90_000);

  it('hands a stuck job to another worker once its lock has expired', async () => {
    // A worker that took the job and then hung: its lock is never renewed.
    const hung = new Worker('stuck', () => new Promise<void>(() => {}), {
      connection: new Redis(url, { maxRetriesPerRequest: null }),
      prefix: 'nudge',
      lockDuration: 800,
      skipLockRenewal: true,
      skipStalledCheck: true,
    });
    const q = queue({ lockDurationMs: 1_000, stalledIntervalMs: 300 });
    await q.add('stuck', 'job', { n: 1 });
    await waitFor('the hung worker to take it', async () => (await counts('stuck')).active === 1);
    const takenAt = Date.now();
    const ran: Array<{ at: number; attempt: number }> = [];
    q.work('stuck', {
      async job(_payload, context) {
        ran.push({ at: Date.now(), attempt: context.attempt });
      },
    });
    await waitFor('the job taken over', () => ran.length === 1, 5_000);
    expect(ran[0].at - takenAt).toBeGreaterThanOrEqual(700);
    expect(ran[0].attempt).toBe(1);
    await waitFor('the queue empty', () => drained('stuck'));
    await hung.close(true);
    await hung.disconnect();
  });

  it('keeps renewing the lock of a job that runs longer than it', async () => {
    const a = queue({ lockDurationMs: 600, stalledIntervalMs: 200 });
    const b = queue({ lockDurationMs: 600, stalledIntervalMs: 200 });
    let runs = 0;
    const job = async () => {
      runs += 1;
      await sleep(1_500);
    };
    await a.add('long', 'job', {});
    a.work('long', { job });
    await waitFor('the first run', () => runs === 1);
    b.work('long', { job });
    await waitFor('the job done', () => drained('long'), 5_000);
    expect(runs).toBe(1);
  });

  it('close() stops taking jobs and waits for the running ones', async () => {
    const q = queue();
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
    const waiting = await inspect('slow').getWaiting();
    expect(waiting.map((job) => job.data)).toEqual([{ n: 2 }]);
    await expect(q.add('slow', 'job', { n: 3 })).rejects.toThrow('closed');
  });

  it('close() hands back, uncounted, a job still running after the grace period, and one that stopped on the signal', async () => {
    const q = queue({ graceMs: 300 });
    const stubborn = deferred();
    let sawAbort = false;
    q.work(
      'stop',
      {
        async stubborn() {
          await stubborn.promise; // ignores the signal
        },
        async polite(_payload, context) {
          await new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => {
              sawAbort = true;
              reject(context.signal.reason);
            }),
          );
        },
      },
      { concurrency: 2 },
    );
    await q.add('stop', 'stubborn', {});
    await q.add('stop', 'polite', {});
    await waitFor('both running', async () => (await counts('stop')).active === 2);
    const closing = Date.now();
    await q.close();
    expect(Date.now() - closing).toBeLessThan(3_000);
    expect(sawAbort).toBe(true);
    const waiting = await inspect('stop').getWaiting();
    expect(waiting.map((job) => job.name).sort()).toEqual(['polite', 'stubborn']);
    expect(waiting.every((job) => job.attemptsMade === 0)).toBe(true);

    // The next worker takes both at once, without waiting for a lock to expire.
    const next = queue();
    const ran: string[] = [];
    next.work('stop', { stubborn: async () => void ran.push('stubborn'), polite: async () => void ran.push('polite') }, { concurrency: 2 });
    await waitFor('both handed over', () => ran.length === 2, 3_000);
    stubborn.resolve();
    await waitFor('the queue empty', () => drained('stop'));
  });

  it('survives a worker killed mid-way: every job completes, only those in flight ran twice', async () => {
    const total = 500;
    const seed = queue();
    for (let i = 0; i < total; i += 1) await seed.add('crash', 'slow', { index: i });
    const outcome = await crashAndRecover({
      env: { CRASH_QUEUE: 'bullmq', CRASH_REDIS_URL: url, CRASH_JOB_MS: '15', CRASH_LEASE_MS: '1000' },
      jobs: total,
      concurrency: 4,
      killAfter: Math.floor(total / 3),
      drained: () => drained('crash'),
    });
    expect((await counts('crash')).failed).toBe(0);
    expect(outcome.finished.size).toBe(total);
    expect(outcome.starts.size).toBe(total);
    const twice = [...outcome.starts].filter(([, n]) => n > 1).map(([index]) => index);
    expect(twice.length).toBeGreaterThan(0);
    expect(twice.length).toBeLessThanOrEqual(4);
    expect(twice.every((index) => outcome.inFlight.has(index))).toBe(true);
    expect([...outcome.starts.values()].every((n) => n <= 2)).toBe(true);
    expect(outcome.secondExit).toBe(0);
  }, 120_000);
});

describe('the leader lock on Redis', () => {
  const processes: LeaderServices[] = [];

  function leaderProcess(): LeaderServices {
    const s = { config: { redisUrl: url }, clock: () => new Date(), log: captureLog().log } as unknown as LeaderServices;
    processes.push(s);
    return s;
  }

  beforeEach(async () => {
    await redis.flushdb();
  });

  afterEach(async () => {
    await Promise.all(processes.splice(0).map((s) => releaseLeadership(s)));
  });

  it('lets one process lead at a time, keeps it leading, and hands over on release', async () => {
    const a = leaderProcess();
    const b = leaderProcess();
    const ran: string[] = [];
    for (let tick = 0; tick < 3; tick += 1) {
      expect(await runAsLeader(a, 'dispatcher', () => void ran.push('a'))).toBe(true);
      expect(await runAsLeader(b, 'dispatcher', () => void ran.push('b'))).toBe(false);
    }
    expect(await redis.pttl('nudge:leader:dispatcher')).toBeGreaterThan(0);
    await releaseLeadership(a);
    expect(await redis.exists('nudge:leader:dispatcher')).toBe(0);
    expect(await runAsLeader(b, 'dispatcher', () => void ran.push('b'))).toBe(true);
    expect(ran).toEqual(['a', 'a', 'a', 'b']);
  });

  it('passes to another process when the leader stops renewing', async () => {
    const a = leaderProcess();
    const b = leaderProcess();
    expect(await runAsLeader(a, 'dispatcher', () => {}, { ttlMs: 400 })).toBe(true);
    expect(await runAsLeader(b, 'dispatcher', () => {}, { ttlMs: 400 })).toBe(false);
    await sleep(450);
    expect(await runAsLeader(b, 'dispatcher', () => {}, { ttlMs: 400 })).toBe(true);
    expect(await runAsLeader(a, 'dispatcher', () => {}, { ttlMs: 400 })).toBe(false);
  });

  it('renews the lock while a long run goes on, and aborts the run when the lock is lost', async () => {
    const a = leaderProcess();
    const b = leaderProcess();
    let otherRan = true;
    let aborted = false;
    const ran = await runAsLeader(
      a,
      'dispatcher',
      async (signal) => {
        await sleep(700);
        otherRan = await runAsLeader(b, 'dispatcher', () => {}, { ttlMs: 300 });
        await redis.set('nudge:leader:dispatcher', 'someone-else', 'PX', 60_000);
        await waitFor('the abort', () => signal.aborted, 2_000);
        aborted = signal.aborted;
      },
      { ttlMs: 300 },
    );
    expect(ran).toBe(true);
    expect(otherRan).toBe(false);
    expect(aborted).toBe(true);
  });
});
