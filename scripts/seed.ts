import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config';
import { migrateToLatest, openDatabase } from '../server/db';
import { ensureSeedApplication, seedAudience } from './seed-lib';

/**
 * `npm run seed -- --players 1000000 [--application bench_app] [--events-per-player 3] [--without-scroll-depth] [--database-url …]`
 * Fills an application (created with its owner when missing) with generated players for benchmarks and for
 * trying the console. Uses DATA_DIR's SQLite file, or DATABASE_URL / --database-url for PostgreSQL; runs the
 * migrations first. `--events-per-player`: the custom events (view_product, add_to_cart, purchase…) a player has on
 * average, beside a session_start event for each of its sessions and a page_view event for each page view, and the
 * storefront's scroll_depth events of web players' page views (about 1.5 a page view; `--without-scroll-depth` leaves
 * them out, as the benchmark seeds do).
 */
const { values } = parseArgs({
  options: {
    players: { type: 'string', default: '10000' },
    application: { type: 'string', default: 'bench_app' },
    'events-per-player': { type: 'string', default: '3' },
    'without-scroll-depth': { type: 'boolean', default: false },
    'database-url': { type: 'string' },
    email: { type: 'string', default: 'seed@example.com' },
    password: { type: 'string', default: 'seed-password' },
    seed: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log('npm run seed -- --players N [--application ID] [--events-per-player N] [--without-scroll-depth] [--database-url URL] [--email E --password P] [--seed N]');
  process.exit(0);
}

const players = Number(values.players);
const eventsPerPlayer = Number(values['events-per-player']);
if (!Number.isInteger(players) || players < 0) throw new Error(`--players must be a whole number, got ${values.players}`);
if (!Number.isFinite(eventsPerPlayer) || eventsPerPlayer < 0) throw new Error(`--events-per-player must be a number ≥ 0`);

const env = { ...process.env, ...(values['database-url'] ? { DATABASE_URL: values['database-url'] } : {}), LOG_LEVEL: 'warn' };
const config = loadConfig(env);
const db = openDatabase(config.database);
try {
  await migrateToLatest(db);
  const where = config.database.kind === 'postgres' ? 'PostgreSQL' : config.database.file;
  const application = await ensureSeedApplication(db.kysely, { applicationId: values.application, email: values.email, password: values.password });
  console.log(
    application.created
      ? `Created application ${values.application} (owner ${values.email} / ${values.password}) in ${where}; client key ${application.clientKey}`
      : `Seeding existing application ${values.application} in ${where}; client key ${application.clientKey}`,
  );
  let lastPrint = 0;
  const result = await seedAudience(db.kysely, db.dialect, {
    applicationId: values.application,
    players,
    eventsPerPlayer,
    scrollDepth: !values['without-scroll-depth'],
    ...(values.seed ? { seed: Number(values.seed) } : {}),
    onProgress: (done, total) => {
      if (Date.now() - lastPrint > 2_000 || done === total) {
        lastPrint = Date.now();
        console.log(`  ${done.toLocaleString('en')} / ${total.toLocaleString('en')} players`);
      }
    },
  });
  console.log(
    `Seeded ${result.players.toLocaleString('en')} players (ids ${result.firstPlayerId}…${result.lastPlayerId}), ${result.events.toLocaleString('en')} events, ${result.playerDays.toLocaleString('en')} player-days in ${(result.ms / 1000).toFixed(1)} s`,
  );
} finally {
  await db.kysely.destroy();
}
