import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queueContract } from '../../tests/scale/queue-contract';
import { captureLog, DIALECTS, openTestDb, sleep, waitFor, type LogLine, type TestDb } from '../../tests/scale/queue-harness';
import { DEAD_RUN_AT, DbJobQueue, LEASE_EXPIRED, type DbQueueOptions } from './db-queue';
import { DbLeaderLock, repeatAsLeader, runAsLeader, releaseLeadership, type LeaderRounds, type LeaderServices } from './leader';

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

  const ofQueue = async (name: string) => (await rows()).filter((row) => row.queue === name);

  queueContract({
    queue,
    lines: () => lines,
    // No row left at all, not even a given-up one.
    drained: () => empty(),
    held: async (name) =>
      (await ofQueue(name))
        .filter((row) => row.run_at !== DEAD_RUN_AT)
        .map((row) => ({
          name: row.name,
          payload: JSON.parse(row.payload),
          attempts: row.attempts,
          running: row.locked_by !== null || row.locked_until !== null,
        })),
    givenUp: async (name) =>
      (await ofQueue(name)).filter((row) => row.run_at === DEAD_RUN_AT).map((row) => ({ attempts: row.attempts, error: row.last_error })),
    givenUpLog: (attempts) => ({ attempts }),
    longJob: { leaseMs: 300, runMs: 1_200 },
    closeRejectsAdd: false,
    crashEnv: () => ({
      CRASH_QUEUE: 'db',
      ...(db.config.kind === 'postgres' ? { CRASH_DATABASE_URL: db.config.url } : { CRASH_DB_FILE: db.config.file }),
    }),
    also: {
      // A failed try leaves the row waiting for its retry, with the error.
      async afterFailingAdd(name) {
        await waitFor('the first failure recorded', async () => {
          const [row] = await ofQueue(name);
          return row?.attempts === 1 && row.locked_by === null;
        });
        const [waiting] = await ofQueue(name);
        expect(waiting.last_error).toContain('receiver answered 503 (try 1)');
        expect(Date.parse(waiting.run_at)).toBeGreaterThan(Date.now());
      },
      async afterGivenUp(name) {
        const [dead] = await ofQueue(name);
        expect(dead).toMatchObject({ attempts: 3, max_attempts: 3, dedupe_key: null, locked_by: null });
      },
    },
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
});

describe.each(DIALECTS)('the leader lock on %s', (dialect) => {
  let db: TestDb;
  const processes: LeaderServices[] = [];

  const rounds: LeaderRounds[] = [];
  let logged: LogLine[] = [];

  /** One "process": its own Services, and so its own lock holder. */
  function leaderProcess(): LeaderServices {
    const captured = captureLog();
    logged = captured.lines;
    const s = { config: { redisUrl: null }, db: db.kysely, clock: () => new Date(), log: captured.log } as unknown as LeaderServices;
    processes.push(s);
    return s;
  }

  beforeEach(async () => {
    db = await openTestDb(dialect);
  });

  afterEach(async () => {
    await Promise.all(rounds.splice(0).map((r) => r.stop()));
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

  it('repeats periodic work in the leading process only, and another takes it over when the leader stops', async () => {
    const a = leaderProcess();
    const b = leaderProcess();
    const ran: string[] = [];
    const repeat = (name: string, s: LeaderServices) =>
      repeatAsLeader(s, 'sizes', { firstAfterMs: 0, everyMs: 20, failure: 'sizes failed' }, async () => void ran.push(name));
    const ofA = repeat('a', a);
    rounds.push(ofA);
    await waitFor('a few rounds of a', () => ran.length >= 3, 2_000);
    rounds.push(repeat('b', b));
    await sleep(150);
    expect(ran.every((name) => name === 'a')).toBe(true);
    await ofA.stop();
    const stoppedAt = ran.length;
    await releaseLeadership(a);
    await waitFor('b leading', () => ran.includes('b'), 2_000);
    expect(ran.slice(stoppedAt).every((name) => name === 'b')).toBe(true);
  });

  it('follows a round sooner when it asks, goes on after a failed one, and stop() waits for the running round', async () => {
    const a = leaderProcess();
    const started: number[] = [];
    let calls = 0;
    const repeating = repeatAsLeader(a, 'sizes', { firstAfterMs: 0, everyMs: 60_000, failure: 'sizes failed' }, async () => {
      calls += 1;
      started.push(Date.now());
      if (calls === 1) return 10; // left work undone: again shortly, not in a minute
      throw new Error('database away');
    });
    rounds.push(repeating);
    await waitFor('two rounds', () => calls >= 2, 2_000);
    expect(started[1] - started[0]).toBeLessThan(1_000);
    await waitFor('the failure logged', () => logged.some((line) => line.msg === 'sizes failed'), 2_000);
    // A failed round is followed `everyMs` later: far off here, so no third round yet.
    await sleep(100);
    expect(calls).toBe(2);
    await repeating.stop();

    let stoppedSignal: AbortSignal | null = null;
    let finished = false;
    const again = repeatAsLeader(a, 'sizes', { firstAfterMs: 0, everyMs: 60_000, failure: 'sizes failed' }, async (signal) => {
      stoppedSignal = signal;
      await waitFor('the stop', () => signal.aborted, 2_000);
      finished = true;
    });
    rounds.push(again);
    await waitFor('the round running', () => stoppedSignal !== null, 2_000);
    await again.stop();
    expect(finished).toBe(true);
  });
});
