import { buildServices, closeServices, createLogger } from './app';
import { loadConfig } from './config';
import { migrateToLatest, openDatabase } from './db';
import { startDelivery } from './delivery';
import { startSegmentSizes } from './jobs/segment-sizes';
import { createJobQueue, releaseLeadership } from './jobs';

/** How long a stopping worker may take before it exits anyway: the queue's grace period plus closing time. */
const FORCE_EXIT_MS = 25_000;

/**
 * `npm run worker`: a process that only works the job queue (delivery fan-outs and batches, and the
 * dispatcher that starts due messages under the cluster-wide leader lock) and measures saved segments daily (under
 * a leader lock of its own: server/jobs/segment-sizes.ts). Same configuration as the API:
 * DATABASE_URL or DATA_DIR, REDIS_URL for BullMQ (scale mode; without it, the `jobs` table, which any number
 * of processes on one database may share). Stops cleanly on SIGTERM/SIGINT: running jobs finish or are handed
 * back, then the connections close.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config);
  const db = openDatabase(config.database);
  const migrations = await migrateToLatest(db);
  for (const result of migrations.results ?? []) {
    log.info({ migration: result.migrationName, status: result.status }, 'migration');
  }
  const s = buildServices(config, { db, log });
  const queue = createJobQueue(s);
  const delivery = startDelivery(s, queue);
  const sizes = startSegmentSizes(s);
  log.info({ database: s.dialect, queue: config.redisUrl ? 'bullmq' : 'database' }, 'worker started');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker shutting down');
    const force = setTimeout(() => {
      log.error('worker shutdown timed out');
      process.exit(1);
    }, FORCE_EXIT_MS);
    force.unref();
    // The queue stops taking jobs and signals the running ones while the engine stops its dispatcher and
    // waits for them to write their results; then the leader lock goes to the next worker, and the database.
    Promise.all([delivery.stop(), sizes.stop(), queue.close()])
      .then(() => releaseLeadership(s))
      .then(() => closeServices(s))
      .then(
        () => {
          log.info('worker stopped');
          process.exit(0);
        },
        (error: unknown) => {
          log.error({ err: error }, 'worker shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
