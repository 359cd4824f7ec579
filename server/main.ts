import { buildApp } from './app';
import { loadConfig } from './config';
import { migrateToLatest } from './db';
import { startDelivery } from './delivery';
import { startSegmentSizes } from './jobs/segment-sizes';
import { warmIngest } from './domain/ingest';
import { createJobQueue, releaseLeadership } from './jobs';

/**
 * Starts the API (and the built console) on PORT: migrations first, then listen; stops cleanly on a signal.
 * Embedded mode (no REDIS_URL): this process also works the job queue (the `jobs` table) and runs the delivery
 * engine. Scale mode (REDIS_URL): it doesn't; `npm run worker` processes do, through BullMQ.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = buildApp(config);
  const migrations = await migrateToLatest({ kysely: app.services.db, dialect: app.services.dialect });
  for (const result of migrations.results ?? []) {
    app.log.info({ migration: result.migrationName, status: result.status }, 'migration');
  }
  app.log.info(
    { database: app.services.dialect, mail: app.services.mailer.mode, publicUrl: config.publicUrl },
    'starting Nudge',
  );

  let background: { stop(): Promise<void> } | null = null;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // A stuck connection must not keep the process from ever exiting (running jobs get the queue's grace first).
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    (background?.stop() ?? Promise.resolve())
      .catch((error: unknown) => app.log.error({ err: error }, 'stopping the job queue failed'))
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  // A server restarted under load takes its first ingestion requests as fast as the next ones.
  await warmIngest(app.services).catch((error: unknown) =>
    app.log.warn({ err: error }, 'ingestion could not be readied: it starts with the first write instead'),
  );
  await app.listen({ port: config.port, host: config.host });
  if (stopping) return;

  if (config.redisUrl) {
    app.log.info('scale mode: messages are delivered by `npm run worker` processes (BullMQ on REDIS_URL)');
  } else {
    const s = app.services;
    const queue = createJobQueue(s);
    const delivery = startDelivery(s, queue);
    const sizes = startSegmentSizes(s);
    background = {
      async stop() {
        await Promise.all([delivery.stop(), sizes.stop(), queue.close()]);
        await releaseLeadership(s);
      },
    };
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
