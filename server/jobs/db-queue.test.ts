import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  captureLog,
  crashAndRecover,
  deferred,
  DIALECTS,
  openTestDb,
  sleep,
  waitFor,
  type LogLine,
  type TestDb,
} from '../../tests/scale/queue-harness';
import { DEAD_RUN_AT, DbJobQueue, LEASE_EXPIRED, type DbQueueOptions } from './db-queue';
import { DbLeaderLock, runAsLeader, releaseLeadership, type LeaderServices } from './leader';

describe.each(DIALECTS)('the database job queue on %s', (dialect) => {
  let db: TestDb;
  let lines: LogLine[];
  const queues: DbJobQueue[] = [];

  function queue(options: Partial<DbQueueOptions> = {}): DbJobQueue {
    const captured = captureLog();
    lines = captured.lines;
    const created = new DbJobQueue({ db: db.kysely, dialect: db.dialect, log: captured.log, pollMs: 50, graceMs: 2_000, ...options });
    queues.push(created);
    return created;
  }

  const rows = () => db.kysely.selectFrom('jobs').selectAll().where('queue', '<>', '_leader').orderBy('id').execute();
  const empty = async () => (await rows()).length === 0;

  beforeEach(async () => {
    db = await openTestDb(dialect);
  });

  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
    await db.drop();
  });

  it('runs each job once with its payload, then deletes it', async () => {
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
    expect(seen.map((s) => s.payload)).toEqual([
      { to: 'a@example.com', n: 1 },
      { to: 'b@example.com', n: 2 },
    ]);
    expect(seen.every((s) => s.attempt === 1 && typeof s.jobId === 'string')).toBe(true);
    await waitFor('the rows deleted', empty);
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
    await waitFor('the first failure recorded', async () => {
      const [row] = await rows();
      return row?.attempts === 1 && row.locked_by === null;
    });
    const [waiting] = await rows();
    expect(waiting.last_error).toContain('receiver answered 503 (try 1)');
    expect(Date.parse(waiting.run_at)).toBeGreaterThan(Date.now());

    await waitFor('the third try', () => tries.length === 3, 10_000);
    await waitFor('the row deleted', empty);
    expect(tries.map((t) => t.attempt)).toEqual([1, 2, 3]);
    expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(280);
    expect(tries[2].at - tries[1].at).toBeGreaterThanOrEqual(580);
  });

  it('gives a job up after its last attempt, keeps it for inspection and logs it', async () => {
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
    await waitFor('the job given up', async () => (await rows())[0]?.run_at === DEAD_RUN_AT);
    await sleep(300);
    expect(runs).toBe(3);
    // The handler knows which try is its last (the delivery engine settles its batch there).
    expect(last).toEqual([false, false, true]);
    const [dead] = await rows();
    expect(dead).toMatchObject({ attempts: 3, max_attempts: 3, dedupe_key: null, locked_by: null });
    expect(dead.last_error).toContain('certificate refused');
    const given = lines.find((line) => line.msg === 'job given up after its last attempt');
    expect(given).toMatchObject({ level: 50, queue: 'hooks', job: 'call', attempts: 3 });

    // Its key is free again: the same work can be queued anew.
    await q.add('hooks', 'call', { id: 7 }, { maxAttempts: 1, dedupeKey: 'hook:7' });
    await waitFor('the new job tried', () => runs === 4);
  });

  it('adds one job per dedupe key while it waits or runs, and again once it is done', async () => {
    const q = queue();
    for (let i = 0; i < 3; i += 1) await q.add('fanout', 'fanout', { i }, { dedupeKey: 'fanout:1' });
    await q.add('fanout', 'fanout', { other: true }, { dedupeKey: 'fanout:2' });
    expect((await rows()).map((row) => row.payload)).toEqual(['{"i":0}', '{"other":true}']);

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
    await waitFor('both keys done', empty);
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

  it('wakes at once for a job added in this process, without waiting for the next poll', async () => {
    const q = queue({ pollMs: 10_000 });
    let ranAt = 0;
    q.work('quick', {
      async job() {
        ranAt = Date.now();
      },
    });
    await sleep(300); // the loop found nothing and sleeps for 10 s
    const added = Date.now();
    await q.add('quick', 'job', {});
    await waitFor('the job', () => ranAt > 0, 3_000);
    expect(ranAt - added).toBeLessThan(1_000);
  });

  it('never runs one job twice at once with two instances on one database (200 jobs, 2 × 4)', async () => {
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
    await waitFor('all 200 jobs', empty, 60_000);
    expect(overlaps).toEqual([]);
    expect(runs.size).toBe(200);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(by.a).toBeGreaterThan(0);
    expect(by.b).toBeGreaterThan(0);
  }, 90_000);

  it('hands a stuck job to another worker once its lease has expired, counting the cut-short try', async () => {
    const q = queue();
    const untilMs = Date.now() + 800;
    // A worker that claimed the job and then died: its lease runs another 800 ms.
    await db.kysely
      .insertInto('jobs')
      .values({
        queue: 'stuck',
        name: 'job',
        payload: '{"n":1}',
        run_at: new Date(Date.now() - 5_000).toISOString(),
        max_attempts: 5,
        locked_by: 'dead-host:123:abcd',
        locked_until: new Date(untilMs).toISOString(),
        created_at: new Date().toISOString(),
      })
      .execute();
    const ran: Array<{ at: number; attempt: number }> = [];
    q.work('stuck', {
      async job(_payload, context) {
        ran.push({ at: Date.now(), attempt: context.attempt });
      },
    });
    await waitFor('the job taken over', () => ran.length === 1, 5_000);
    expect(ran[0].at).toBeGreaterThanOrEqual(untilMs - 5);
    expect(ran[0].attempt).toBe(2);
    await waitFor('the row deleted', empty);
  });

  it('gives up a job whose worker died on its last try twice', async () => {
    const q = queue();
    const past = new Date(Date.now() - 1_000).toISOString();
    await db.kysely
      .insertInto('jobs')
      .values({
        queue: 'poison',
        name: 'job',
        payload: 'null',
        run_at: past,
        attempts: 1,
        max_attempts: 1,
        locked_by: 'dead-host:1:0000',
        locked_until: past,
        created_at: past,
      })
      .execute();
    let runs = 0;
    q.work('poison', {
      async job() {
        runs += 1;
      },
    });
    await waitFor('the job given up', async () => (await rows())[0]?.run_at === DEAD_RUN_AT);
    expect(runs).toBe(0);
    expect((await rows())[0]).toMatchObject({ attempts: 2, last_error: LEASE_EXPIRED });
  });

  it('keeps renewing the lease of a job that runs longer than it', async () => {
    const a = queue({ leaseMs: 300 });
    const b = queue({ leaseMs: 300 });
    let runs = 0;
    const job = async () => {
      runs += 1;
      await sleep(1_200);
    };
    await a.add('long', 'job', {});
    a.work('long', { job });
    await waitFor('the first run', () => runs === 1);
    b.work('long', { job });
    await waitFor('the job done', empty, 5_000);
    expect(runs).toBe(1);
  }, 15_000);

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
    const left = await rows();
    expect(left.map((row) => row.payload)).toEqual(['{"n":2}']);
    expect(left[0]).toMatchObject({ locked_by: null, attempts: 0 });
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
    await waitFor('both running', async () => (await rows()).every((row) => row.locked_by !== null));
    const closing = Date.now();
    await q.close();
    expect(Date.now() - closing).toBeLessThan(2_000);
    expect(sawAbort).toBe(true);
    const left = await rows();
    expect(left).toHaveLength(2);
    expect(left.every((row) => row.locked_by === null && row.locked_until === null && row.attempts === 0)).toBe(true);

    // The next worker takes both at once, without waiting for a lease to expire.
    const next = queue({ leaseMs: 60_000 });
    const ran: string[] = [];
    next.work('stop', { stubborn: async () => void ran.push('stubborn'), polite: async () => void ran.push('polite') }, { concurrency: 2 });
    await waitFor('both handed over', () => ran.length === 2, 3_000);
    stubborn.resolve();
    await waitFor('the rows deleted', empty);
  });

  it('survives a worker killed mid-way: every job completes, only those in flight ran twice', async () => {
    const total = 500;
    const seed = queue();
    for (let i = 0; i < total; i += 1) await seed.add('crash', 'slow', { index: i });
    const outcome = await crashAndRecover({
      env:
        db.config.kind === 'postgres'
          ? { CRASH_QUEUE: 'db', CRASH_DATABASE_URL: db.config.url, CRASH_JOB_MS: '15', CRASH_LEASE_MS: '1000' }
          : { CRASH_QUEUE: 'db', CRASH_DB_FILE: db.config.file, CRASH_JOB_MS: '15', CRASH_LEASE_MS: '1000' },
      jobs: total,
      concurrency: 4,
      killAfter: Math.floor(total / 3),
      drained: empty,
    });
    expect(await empty()).toBe(true);
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

describe.each(DIALECTS)('the leader lock on %s', (dialect) => {
  let db: TestDb;
  const processes: LeaderServices[] = [];

  /** One "process": its own Services, and so its own lock holder. */
  function leaderProcess(): LeaderServices {
    const s = { config: { redisUrl: null }, db: db.kysely, clock: () => new Date(), log: captureLog().log } as unknown as LeaderServices;
    processes.push(s);
    return s;
  }

  beforeEach(async () => {
    db = await openTestDb(dialect);
  });

  afterEach(async () => {
    await Promise.all(processes.splice(0).map((s) => releaseLeadership(s)));
    await db.drop();
  });

  it('lets one process lead at a time, keeps it leading, and hands over on release', async () => {
    const a = leaderProcess();
    const b = leaderProcess();
    const ran: string[] = [];
    for (let tick = 0; tick < 3; tick += 1) {
      expect(await runAsLeader(a, 'dispatcher', () => void ran.push('a'))).toBe(true);
      expect(await runAsLeader(b, 'dispatcher', () => void ran.push('b'))).toBe(false);
    }
    // Another name is another lock.
    expect(await runAsLeader(b, 'cleanup', () => void ran.push('b-cleanup'))).toBe(true);
    await releaseLeadership(a);
    expect(await runAsLeader(b, 'dispatcher', () => void ran.push('b'))).toBe(true);
    expect(ran).toEqual(['a', 'a', 'a', 'b-cleanup', 'b']);
  });

  it('passes to another process when the leader stops renewing', async () => {
    const a = leaderProcess();
    const b = leaderProcess();
    expect(await runAsLeader(a, 'dispatcher', () => {}, { ttlMs: 400 })).toBe(true);
    expect(await runAsLeader(b, 'dispatcher', () => {}, { ttlMs: 400 })).toBe(false);
    await sleep(450); // a died
    expect(await runAsLeader(b, 'dispatcher', () => {}, { ttlMs: 400 })).toBe(true);
    expect(await runAsLeader(a, 'dispatcher', () => {}, { ttlMs: 400 })).toBe(false);
  });

  it('renews the lock while a long run goes on, and aborts the run when the lock is lost', async () => {
    const a = leaderProcess();
    const b = leaderProcess();
    let aborted = false;
    let otherRan = false;
    const done = runAsLeader(
      a,
      'dispatcher',
      async (signal) => {
        await sleep(700); // longer than the TTL: renewals keep it
        otherRan = await runAsLeader(b, 'dispatcher', () => {}, { ttlMs: 300 });
        // Someone takes the row from under us (an operator, a clock jump): the next renewal notices.
        await db.kysely
          .updateTable('jobs')
          .set({ locked_by: 'someone-else', locked_until: new Date(Date.now() + 60_000).toISOString() })
          .where('dedupe_key', '=', 'leader:dispatcher')
          .execute();
        await waitFor('the abort', () => signal.aborted, 2_000);
        aborted = signal.aborted;
      },
      { ttlMs: 300 },
    );
    expect(await done).toBe(true);
    expect(otherRan).toBe(false);
    expect(aborted).toBe(true);
  });

  it('uses one lease row per name in the jobs table, which no queue claims', async () => {
    const lock = new DbLeaderLock(db.kysely, () => new Date());
    expect(await lock.acquire('x', 1_000)).toBe(true);
    const row = await db.kysely.selectFrom('jobs').selectAll().where('dedupe_key', '=', 'leader:x').executeTakeFirstOrThrow();
    expect(row.queue).toBe('_leader');
    expect(row.run_at > '9999').toBe(true);
    await lock.release('x');
    const other = new DbLeaderLock(db.kysely, () => new Date());
    expect(await other.acquire('x', 1_000)).toBe(true);
  });
});
