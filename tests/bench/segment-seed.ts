import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp, type App } from '../../server/app';
import { loadConfig } from '../../server/config';
import { migrateToLatest, openDatabase, type Db, type Dialect } from '../../server/db';
import { hashToken, randomToken } from '../../server/security/tokens';
import { ensureSeedApplication, seedAudience } from '../../scripts/seed-lib';

/**
 * The million-player audience the query benchmarks read, seeded once with scripts/seed-lib.ts and kept between
 * runs: a SQLite file under data/bench/, and a PostgreSQL database `nudge_bench` on 127.0.0.1. The
 * application's name records what was seeded; a different recipe (or a half-finished seed) seeds again.
 */

export const BENCH_APPLICATION = 'bench_audience';
export const BENCH_PLAYERS = Number(process.env.BENCH_PLAYERS ?? 1_000_000);
/** The seed's "now": fixed, so conditions relative to today select the same players on every run. */
export const BENCH_NOW = new Date('2025-06-01T12:00:00.000Z');
/**
 * What was seeded. v3 (2026-11-29): sessions and page views are events too, as ingestion stores them (about 1.6
 * session_start and 3 page_view events a player), beside 2 custom events a player; v2 had 5 events a player and
 * counters that did not match them.
 */
const MARKER = `bench v3: ${BENCH_PLAYERS} players, sessions and page views as events, 2 custom events each, seed 7, now ${BENCH_NOW.toISOString()}`;

/** PostgreSQL server of the benchmarks (loopback only); its `nudge_bench` database holds the seed. */
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchServer {
  app: App;
  dialect: Dialect;
  token: string;
  close(): Promise<void>;
}

async function seeded(db: Db): Promise<boolean> {
  const row = await db.kysely.selectFrom('applications').select('name').where('application_id', '=', BENCH_APPLICATION).executeTakeFirst();
  return row?.name === MARKER;
}

async function seed(db: Db): Promise<void> {
  await ensureSeedApplication(db.kysely, { applicationId: BENCH_APPLICATION, email: 'bench@example.com', password: 'bench-password' });
  let last = 0;
  const result = await seedAudience(db.kysely, db.dialect, {
    applicationId: BENCH_APPLICATION,
    players: BENCH_PLAYERS,
    eventsPerPlayer: 2,
    seed: 7,
    now: BENCH_NOW,
    onProgress: (done, total) => {
      if (Date.now() - last > 10_000 || done === total) {
        last = Date.now();
        console.log(`  seeding ${db.dialect}: ${done.toLocaleString('en')} / ${total.toLocaleString('en')} players`);
      }
    },
  });
  console.log(`  seeded ${result.players.toLocaleString('en')} players, ${result.events.toLocaleString('en')} events in ${Math.round(result.ms / 1000)} s`);
  await db.kysely.updateTable('applications').set({ name: MARKER }).where('application_id', '=', BENCH_APPLICATION).execute();
}

/**
 * Fresh planner statistics after seeding and after migrations that change indexes. On PostgreSQL a VACUUM too,
 * as autovacuum would do after a bulk load: it marks pages all-visible, which index-only scans need.
 */
async function analyze(db: Db): Promise<void> {
  await sql.raw(db.dialect === 'postgres' ? 'vacuum analyze' : 'analyze').execute(db.kysely);
}

/**
 * The seed written out to the disk before anything is measured: PostgreSQL's dirty buffers by a CHECKPOINT, SQLite's
 * WAL into its file, then the kernel's dirty pages by sync(1). Without it the kernel wrote the seed back during the
 * benchmarks that followed: after a fresh PostgreSQL seed (two cores, 2026-12-07) 2 GB were dirty, written back at up
 * to 400 MB/s over the next minute, and the web push benchmark run then made 3,659 messages/s (this process 230 µs a
 * message, the fake 239 µs), against 4,432 and 4,440 in the two runs right after (188 and 204 µs), and PostgreSQL's
 * segment count had p95 46.7 ms against 28.7 ms on the cached seed. The first full `npm run bench` on a new machine
 * missed web push (3,756) and APNs (8,432), the second, with the seeds cached, met both (4,792 and 10,925). With the
 * seed written out (2.3 s): 264 kB dirty after the same fresh seed, the count's p95 27.7 ms, web push right after
 * 4,794 messages/s (174 µs a message).
 */
async function writeOut(db: Db): Promise<void> {
  const began = performance.now();
  try {
    await sql.raw(db.dialect === 'postgres' ? 'checkpoint' : 'pragma wal_checkpoint(truncate)').execute(db.kysely);
  } catch (error) {
    // CHECKPOINT needs a superuser or pg_checkpoint: sync below still writes what PostgreSQL has handed the kernel.
    console.log(`  ${db.dialect}: ${(error as Error).message}; going on without it`);
  }
  spawnSync('sync');
  console.log(`  ${db.dialect}: seed written out to disk in ${((performance.now() - began) / 1000).toFixed(1)} s`);
}

/** The SQLite seed's folder (DATA_DIR: the server keeps its database there as nudge.db). */
function sqliteDir(): string {
  const dir = resolve(`data/bench/sqlite-${BENCH_PLAYERS}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** True when the loopback PostgreSQL answers; its `nudge_bench` database is created when missing. */
async function postgresUrl(): Promise<string | null> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2_000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  try {
    const exists = await admin.query(`select 1 from pg_database where datname = 'nudge_bench'`);
    if (exists.rowCount === 0) await admin.query('create database nudge_bench');
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = '/nudge_bench';
  return url.toString();
}

async function openSeeded(dialect: Dialect, env: Record<string, string>): Promise<Db> {
  const config = loadConfig(env);
  let db = openDatabase(config.database);
  let stale = false;
  try {
    stale = ((await migrateToLatest(db)).results ?? []).length > 0;
  } catch (error) {
    // A cached seed from an older migration set that cannot move forward: start over.
    console.log(`  cached ${dialect} seed does not migrate (${(error as Error).message}); seeding again`);
    await db.kysely.destroy();
    if (dialect === 'sqlite') {
      for (const suffix of ['', '-wal', '-shm']) rmSync(join(env.DATA_DIR, `nudge.db${suffix}`), { force: true });
    } else {
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query('drop database if exists nudge_bench with (force)');
      await admin.query('create database nudge_bench');
      await admin.end();
    }
    db = openDatabase(config.database);
    await migrateToLatest(db);
  }
  if (!(await seeded(db))) {
    if ((await db.kysely.selectFrom('players').select('id').limit(1).execute()).length > 0) {
      console.log(`  the ${dialect} seed is not this recipe's: clearing it`);
      await db.kysely.deleteFrom('applications').where('application_id', '=', BENCH_APPLICATION).execute();
    }
    await seed(db);
    stale = true;
  }
  // Statistics gathered and the seed written out to disk once per seed, and again when a migration changed the schema.
  if (stale) {
    await analyze(db);
    await writeOut(db);
  }
  return db;
}

/**
 * The real server over the seeded database of one dialect, its clock at the seed's now, with a session of the
 * application's owner. null when PostgreSQL is asked for and none answers on 127.0.0.1.
 */
export async function startBenchServer(dialect: Dialect): Promise<BenchServer | null> {
  let env: Record<string, string>;
  if (dialect === 'sqlite') {
    const dir = sqliteDir();
    env = { DATA_DIR: dir, LOG_LEVEL: 'warn', SECRET_KEY: 'bench-secret-key' };
    if (!existsSync(join(dir, 'nudge.db'))) console.log(`  no cached SQLite seed in ${dir}: seeding ${BENCH_PLAYERS.toLocaleString('en')} players (minutes, once)`);
  } else {
    const url = await postgresUrl();
    if (!url) return null;
    env = { DATA_DIR: resolve('data/bench'), DATABASE_URL: url, LOG_LEVEL: 'warn', SECRET_KEY: 'bench-secret-key' };
  }
  const db = await openSeeded(dialect, env);
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '1000000' });
  const app = buildApp(config, { db, clock: () => BENCH_NOW });
  await app.ready();

  const owner = await db.kysely.selectFrom('users').select('id').where('email', '=', 'bench@example.com').executeTakeFirstOrThrow();
  const token = randomToken();
  const now = BENCH_NOW.toISOString();
  await db.kysely
    .insertInto('sessions')
    .values({ user_id: owner.id, token_hash: hashToken(token), created_at: now, last_used_at: now, expires_at: '9999-12-31T00:00:00.000Z', revoked_at: null, ip: '127.0.0.1', user_agent: 'bench' })
    .execute();
  return {
    app,
    dialect,
    token,
    async close() {
      await db.kysely.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).execute();
      await app.close();
    },
  };
}

/** Times `run` (server time: from the request into Fastify to the answer out) and prints p50/p95 beside the target. */
export async function measure(label: string, targetMs: number | null, run: () => Promise<void>, options: { warmup?: number; runs?: number; maxMs?: number } = {}): Promise<boolean> {
  const { warmup = 3, runs = 40, maxMs = 60_000 } = options;
  for (let i = 0; i < warmup; i += 1) await run();
  const times: number[] = [];
  const started = performance.now();
  while (times.length < runs && performance.now() - started < maxMs) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)];
  const p95 = at(0.95);
  const met = targetMs === null || p95 <= targetMs;
  const target = targetMs === null ? 'no target' : `target p95 ≤ ${targetMs} ms: ${met ? 'met' : 'NOT MET'}`;
  const figures = times.length === 1 ? `${p95.toFixed(1)} ms, one call` : `p50 ${at(0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms over ${times.length} runs`;
  console.log(`  ${label}: ${figures}; ${target}`);
  return met;
}
