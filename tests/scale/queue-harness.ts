import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { createLogger } from '../../server/app';
import { loadConfig, type DatabaseConfig } from '../../server/config';
import { migrateToLatest, openDatabase, type Db } from '../../server/db';

/** What the queue tests share: real databases, a log they can read, waiting for a condition. */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A real (pino) logger at debug level whose lines the test reads. */
export function captureLog(): { log: FastifyBaseLogger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const config = loadConfig({ LOG_LEVEL: 'debug', DATA_DIR: join(tmpdir(), 'nudge-queue-log'), SECRET_KEY: 'queue-tests' });
  return { log: createLogger(config, { logStream }), lines };
}

export interface TestDb extends Db {
  config: DatabaseConfig;
  drop(): Promise<void>;
}

/** A migrated database of its own: a SQLite file in a temporary folder, or a new PostgreSQL schema. */
export async function openTestDb(kind: 'sqlite' | 'postgres'): Promise<TestDb> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'nudge-jobs-'));
    const config: DatabaseConfig = { kind: 'sqlite', file: join(dir, 'nudge.db') };
    const db = openDatabase(config);
    await migrateToLatest(db);
    return {
      ...db,
      config,
      async drop() {
        await db.kysely.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('PostgreSQL tests need TEST_DATABASE_URL');
  const schema = `nudge_jobs_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const config: DatabaseConfig = { kind: 'postgres', url: url.toString(), ingestSynchronousCommit: false };
  const db = openDatabase(config);
  await migrateToLatest(db);
  return {
    ...db,
    config,
    async drop() {
      await db.kysely.destroy();
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    },
  };
}

/** The dialects to run: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const DIALECTS: Array<'sqlite' | 'postgres'> = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Polls `check` until it returns true (or a value), failing with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 15_000): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A promise with its resolve function, for handlers the test releases. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

// ---- the crash test: a worker process killed with SIGKILL mid-way, then another ----

export interface CrashOptions {
  /** Environment of the child (tests/scale/queue-crash-child.ts): which queue, where, how slowly. */
  env: Record<string, string>;
  jobs: number;
  concurrency: number;
  /** Jobs acknowledged before the first worker is killed. */
  killAfter: number;
  /** Resolves once no job is left (waiting, delayed, retrying or running). */
  drained: () => Promise<boolean>;
}

export interface CrashOutcome {
  /** Every start of every job, by payload index. */
  starts: Map<number, number>;
  /** Jobs started by the killed worker and not acknowledged before the kill. */
  inFlight: Set<number>;
  /** Jobs whose handler ran to its end at least once. */
  finished: Set<number>;
  /** Exit code of the second worker, stopped with SIGTERM once the queue was empty. */
  secondExit: number | null;
}

interface ChildRun {
  child: ChildProcess;
  starts: Array<{ index: number; jobId: string }>;
  ends: Set<number>;
  /** Jobs the queue acknowledged (its "job done" debug line, written after the row or Redis says so). */
  doneJobIds: Set<string>;
  exited: Promise<number | null>;
  stderr: string[];
}

function startChild(env: Record<string, string>): ChildRun {
  // `node --import tsx`: one process, so SIGKILL kills the worker itself (the tsx CLI would leave it orphaned).
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tests/scale/queue-crash-child.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: ChildRun = {
    child,
    starts: [],
    ends: new Set(),
    doneJobIds: new Set(),
    stderr: [],
    exited: new Promise((done) => child.once('exit', (code) => done(code))),
  };
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.startsWith('start ')) {
        const [, index, jobId] = line.split(' ');
        run.starts.push({ index: Number(index), jobId });
      } else if (line.startsWith('end ')) {
        run.ends.add(Number(line.split(' ')[1]));
      } else if (line.startsWith('{')) {
        const entry = JSON.parse(line) as LogLine;
        if (entry.msg === 'job done') run.doneJobIds.add(String(entry.jobId));
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => run.stderr.push(chunk.toString()));
  return run;
}

/**
 * Runs the crash scenario and reports what ran where; the caller asserts. `drained` (the queue holds no job
 * any more) is what proves each job was acknowledged: a row or Redis job goes only on success.
 */
export async function crashAndRecover(options: CrashOptions): Promise<CrashOutcome> {
  const env = { ...options.env, CRASH_CONCURRENCY: String(options.concurrency) };
  // A little past the kill point the first worker's handlers stop finishing, and the kill waits until one of
  // those has started: the kill then always finds a job in flight that said it started. (Waiting only for the
  // finished count could kill, on a busy machine, while the worker held just jobs it had taken from the queue
  // but not yet started: re-run once, they looked like jobs that never ran twice.)
  const stallAfter = options.killAfter + 20;
  const first = startChild({ ...env, CRASH_STALL_AFTER: String(stallAfter) });
  try {
    await waitFor('the first worker to finish some jobs and hold one in flight', () => first.doneJobIds.size >= options.killAfter && first.starts.length > stallAfter, 60_000);
  } catch (error) {
    first.child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${first.stderr.join('')}`);
  }
  first.child.kill('SIGKILL');
  await first.exited;

  const second = startChild(env);
  try {
    await waitFor('the second worker to empty the queue', options.drained, 60_000);
  } finally {
    second.child.kill('SIGTERM');
  }
  const secondExit = await second.exited;

  const starts = new Map<number, number>();
  for (const { index } of [...first.starts, ...second.starts]) starts.set(index, (starts.get(index) ?? 0) + 1);
  // Not acknowledged as far as the log shows: a kill between the acknowledgement and its log line makes this a
  // slight superset of the truly unacknowledged jobs, never a subset.
  const inFlight = new Set(first.starts.filter(({ jobId }) => !first.doneJobIds.has(jobId)).map(({ index }) => index));
  const finished = new Set([...first.ends, ...second.ends]);
  return { starts, inFlight, finished, secondExit };
}
