import { buildApp } from './app';
import { loadConfig } from './config';
import { migrateToLatest } from './db';

/** Starts the API (and the built console) on PORT: migrations first, then listen; stops cleanly on a signal. */
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

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // A stuck connection must not keep the process from ever exiting.
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
