import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BullmqJobQueue, type BullmqQueueOptions } from '../../server/jobs/bullmq-queue';
import { createJobQueue } from '../../server/jobs';
import { releaseLeadership, runAsLeader, type LeaderServices } from '../../server/jobs/leader';
import { queueContract } from './queue-contract';
import { captureLog, sleep, waitFor, type LogLine } from './queue-harness';

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

  queueContract({
    queue: ({ leaseMs, ...options } = {}) =>
      queue({ ...options, ...(leaseMs ? { lockDurationMs: leaseMs, stalledIntervalMs: leaseMs / 3 } : {}) }),
    lines: () => lines,
    drained,
    held: async (name) => {
      const active = await inspect(name).getActive();
      const waiting = await inspect(name).getJobs(['waiting', 'delayed', 'prioritized'], 0, -1, true);
      return [...active.map((job) => ({ job, running: true })), ...waiting.map((job) => ({ job, running: false }))]
        .sort((x, y) => Number(x.job.id) - Number(y.job.id))
        .map(({ job, running }) => ({ name: job.name, payload: job.data, attempts: job.attemptsMade, running }));
    },
    givenUp: async (name) => (await inspect(name).getFailed()).map((job) => ({ attempts: job.attemptsMade, error: job.failedReason })),
    givenUpLog: (attempt) => ({ attempt }),
    longJob: { leaseMs: 600, runMs: 1_500 },
    closeRejectsAdd: true,
    crashEnv: () => ({ CRASH_QUEUE: 'bullmq', CRASH_REDIS_URL: url }),
    also: {
      async afterRun(name) {
        expect((await counts(name)).completed).toBe(0);
        // The keys carry the `nudge` prefix, in database 12.
        expect((await redis.keys(`nudge:${name}:*`)).length).toBeGreaterThan(0);
      },
    },
  });

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
