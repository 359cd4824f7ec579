import { writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createLogger } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openDatabase } from '../../server/db';
import { BullmqJobQueue } from '../../server/jobs/bullmq-queue';
import { DbJobQueue } from '../../server/jobs/db-queue';
import type { JobQueue } from '../../server/jobs/types';

/**
 * The worker of the queue crash test (tests/scale/queue-harness.ts): handles the `crash` queue's jobs slowly and
 * prints `start <index> <jobId>` as each begins and `end <index>` as it ends; the queue's own debug log says when each is acknowledged.
 * Every line is written synchronously, so what a SIGKILL interrupts is exactly what was printed.
 * Env: CRASH_QUEUE (db | bullmq), CRASH_DB_FILE or CRASH_DATABASE_URL, CRASH_REDIS_URL, CRASH_CONCURRENCY,
 * CRASH_JOB_MS, CRASH_LEASE_MS, CRASH_STALL_AFTER (jobs started after that many never finish: the worker waits
 * for its SIGKILL with jobs in flight).
 */
const env = process.env;
const print = (line: string) => writeSync(1, `${line}\n`);
const stdout = new Writable({
  write(chunk, _encoding, done) {
    writeSync(1, chunk);
    done();
  },
});
const log = createLogger(loadConfig({ LOG_LEVEL: 'debug', DATA_DIR: '/tmp/nudge-crash-child', SECRET_KEY: 'crash-test' }), { logStream: stdout });
const leaseMs = Number(env.CRASH_LEASE_MS ?? 1000);
const jobMs = Number(env.CRASH_JOB_MS ?? 20);
const stallAfter = env.CRASH_STALL_AFTER ? Number(env.CRASH_STALL_AFTER) : Infinity;
let started = 0;

let queue: JobQueue;
let closeDb = async () => {};
if (env.CRASH_QUEUE === 'bullmq') {
  queue = new BullmqJobQueue({ url: env.CRASH_REDIS_URL!, log, lockDurationMs: leaseMs, stalledIntervalMs: Math.floor(leaseMs / 2), graceMs: 2_000 });
} else {
  const db = openDatabase(env.CRASH_DATABASE_URL ? { kind: 'postgres', url: env.CRASH_DATABASE_URL, ingestSynchronousCommit: false } : { kind: 'sqlite', file: env.CRASH_DB_FILE! });
  queue = new DbJobQueue({ db: db.kysely, dialect: db.dialect, log, leaseMs, pollMs: 50, graceMs: 2_000 });
  closeDb = () => db.kysely.destroy();
}

queue.work(
  'crash',
  {
    async slow(payload: { index: number }, context) {
      print(`start ${payload.index} ${context.jobId}`);
      started += 1;
      if (started > stallAfter) await new Promise(() => {});
      await new Promise((done) => setTimeout(done, jobMs));
      print(`end ${payload.index}`);
    },
  },
  { concurrency: Number(env.CRASH_CONCURRENCY ?? 4) },
);

process.once('SIGTERM', () => {
  queue
    .close()
    .then(closeDb)
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
});
