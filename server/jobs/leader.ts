import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Services } from '../context';
import type { Database } from '../db/schema';
import { workerId } from './common';

/** The `jobs` rows that hold leader leases: a queue no worker claims, run_at past every claim. */
export const LEADER_QUEUE = '_leader';
const LEADER_RUN_AT = '9999-12-31T23:59:59.998Z';
/** How long a leader keeps the lock without renewing it: its successor waits at most this after a crash. */
export const LEADER_TTL_MS = 15_000;

/** One process's hold on named leader locks. */
export interface LeaderLock {
  /** Takes the lock, or extends it when this process already holds it; false while another holds it. */
  acquire(name: string, ttlMs: number): Promise<boolean>;
  release(name: string): Promise<void>;
  close(): Promise<void>;
}

export type LeaderServices = Pick<Services, 'config' | 'db' | 'clock' | 'log'>;

/** Redis (scale mode): SET NX PX, extended and released only by the holder (compare in Lua). */
export class RedisLeaderLock implements LeaderLock {
  private readonly id = workerId();

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'nudge',
  ) {}

  private key(name: string): string {
    return `${this.prefix}:leader:${name}`;
  }

  async acquire(name: string, ttlMs: number): Promise<boolean> {
    const result = await this.redis.eval(
      `local holder = redis.call('GET', KEYS[1])
       if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
       if holder then return 0 end
       redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`,
      1,
      this.key(name),
      this.id,
      String(ttlMs),
    );
    return result === 1;
  }

  async release(name: string): Promise<void> {
    await this.redis.eval(
      `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
      1,
      this.key(name),
      this.id,
    );
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * The database (embedded mode, and PostgreSQL without Redis): a lease row in `jobs` per name, taken with one
 * conditional UPDATE (held by us, or expired), so it works across processes on SQLite and PostgreSQL alike.
 */
export class DbLeaderLock implements LeaderLock {
  private readonly id = workerId();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date,
  ) {}

  private key(name: string): string {
    return `leader:${name}`;
  }

  async acquire(name: string, ttlMs: number): Promise<boolean> {
    const now = this.clock();
    const key = this.key(name);
    const until = new Date(now.getTime() + ttlMs).toISOString();
    const take = () =>
      this.db
        .updateTable('jobs')
        .set({ locked_by: this.id, locked_until: until })
        .where('dedupe_key', '=', key)
        .where((eb) =>
          eb.or([eb('locked_by', '=', this.id), eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())]),
        )
        .executeTakeFirst();
    let result = await take();
    if (Number(result.numUpdatedRows) === 1) return true;
    // First use of this name: create the row (taken by us at once), or find that another process just did.
    const inserted = await this.db
      .insertInto('jobs')
      .values({
        queue: LEADER_QUEUE,
        name,
        payload: 'null',
        dedupe_key: key,
        run_at: LEADER_RUN_AT,
        locked_by: this.id,
        locked_until: until,
        created_at: now.toISOString(),
      })
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return true;
    result = await take();
    return Number(result.numUpdatedRows) === 1;
  }

  async release(name: string): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ locked_by: null, locked_until: null })
      .where('dedupe_key', '=', this.key(name))
      .where('locked_by', '=', this.id)
      .execute();
  }

  async close(): Promise<void> {}
}

interface Leadership {
  lock: LeaderLock;
  /** Names held, with when (this process's time) the hold runs out. */
  held: Map<string, number>;
}

const leaderships = new WeakMap<object, Leadership>();

/** The leader lock a process uses; one per Services (tests pass two to play two processes). */
function leadership(s: LeaderServices): Leadership {
  let found = leaderships.get(s);
  if (!found) {
    found = { lock: createLeaderLock(s), held: new Map() };
    leaderships.set(s, found);
  }
  return found;
}

function createLeaderLock(s: LeaderServices): LeaderLock {
  if (!s.config.redisUrl) return new DbLeaderLock(s.db, s.clock);
  const redis = new Redis(s.config.redisUrl, { maxRetriesPerRequest: 2 });
  redis.on('error', (error) => s.log.warn({ err: error }, 'leader lock: Redis connection error'));
  return new RedisLeaderLock(redis);
}

/**
 * Runs `fn` only in the one process that leads `name` cluster-wide (a Redis lock in scale mode, a lease row in
 * the database otherwise), and answers whether it ran. Call it on every tick of periodic work: the leader keeps
 * the lock from call to call (renewing it while `fn` runs), and when it stops calling or dies, another process
 * takes over within the lock's TTL (LEADER_TTL_MS). `signal` aborts if the lock is lost while `fn` runs (e.g.
 * Redis unreachable); fn's writes should stay safe to repeat anyway, since a lost lock is noticed late.
 * Rejects when the lock's store can't be reached.
 */
export async function runAsLeader(
  s: LeaderServices,
  name: string,
  fn: (signal: AbortSignal) => Promise<void> | void,
  options: { ttlMs?: number } = {},
): Promise<boolean> {
  const state = leadership(s);
  const ttlMs = options.ttlMs ?? LEADER_TTL_MS;
  if (!(await hold(state, name, ttlMs))) return false;
  const lost = new AbortController();
  const renew = setInterval(() => {
    hold(state, name, ttlMs, true).then(
      (held) => {
        if (!held) lost.abort(new Error(`leadership of "${name}" lost`));
      },
      (error: unknown) => {
        s.log.warn({ err: error, name }, 'could not renew a leader lock');
        if ((state.held.get(name) ?? 0) <= Date.now()) lost.abort(error);
      },
    );
  }, Math.floor(ttlMs / 3));
  try {
    await fn(lost.signal);
  } finally {
    clearInterval(renew);
  }
  return true;
}

/** Takes or extends the lock; skips the round trip while two thirds of the hold are left, unless forced. */
async function hold(state: Leadership, name: string, ttlMs: number, force = false): Promise<boolean> {
  const until = state.held.get(name);
  const now = Date.now();
  if (!force && until !== undefined && until - now > (ttlMs * 2) / 3) return true;
  const held = await state.lock.acquire(name, ttlMs);
  if (held) state.held.set(name, now + ttlMs);
  else state.held.delete(name);
  return held;
}

/** Hands every lock this process holds to the next candidate at once, and closes the lock's connection. */
export async function releaseLeadership(s: LeaderServices): Promise<void> {
  const state = leaderships.get(s);
  if (!state) return;
  leaderships.delete(s);
  for (const name of state.held.keys()) {
    await state.lock.release(name).catch((error: unknown) => s.log.warn({ err: error, name }, 'could not release a leader lock'));
  }
  await state.lock.close();
}

/** Periodic work led cluster-wide: see `repeatAsLeader`. */
export interface LeaderRounds {
  /** Ends the rounds: the running one sees its signal aborted and is waited for; no other starts. */
  stop(): Promise<void>;
}

/**
 * Runs `round` again and again in the one process leading `name` (runAsLeader): the first `firstAfterMs` after the
 * call, each next one a delay after the previous ended, `everyMs` unless the round answers another (a round that
 * left work undone can ask to be followed sooner). A process that does not lead skips the round and asks again
 * `everyMs` later, so it takes over within about the lock's TTL when the leader dies. A failed round is logged with
 * `failure` and followed as usual. The signal `round` gets aborts on `stop()` and when leadership is lost.
 */
export function repeatAsLeader(
  s: LeaderServices,
  name: string,
  options: { firstAfterMs: number; everyMs: number; failure: string },
  round: (signal: AbortSignal) => Promise<number | void>,
): LeaderRounds {
  const stopping = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;

  function schedule(delayMs: number): void {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => {
      let next = options.everyMs;
      running = runAsLeader(s, name, async (lost) => {
        next = (await round(AbortSignal.any([stopping.signal, lost]))) ?? options.everyMs;
      })
        .then(() => undefined)
        .catch((error: unknown) => s.log.error({ err: error }, options.failure))
        .finally(() => schedule(next));
    }, delayMs);
    timer.unref();
  }
  schedule(options.firstAfterMs);

  return {
    async stop() {
      stopping.abort();
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
