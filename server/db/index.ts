import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Compilable, type MigrationResultSet, type SelectQueryBuilder } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config';
import { buildMigrations, type Dialect } from './migrations';
import type { Database } from './schema';

export type { Database } from './schema';
export type { Dialect } from './migrations';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
}

/** The driver behind each Kysely that openDatabase made, for `selectArrays` and `ingestionDb`. */
const drivers = new WeakMap<
  Kysely<Database>,
  { pool: pg.Pool; ingestion: Kysely<Database> | null } | { statements: ReturnType<typeof withStatementCache> }
>();

/**
 * Connections of ingestion's own pool (PostgreSQL, asynchronous commits), at most: ingestion writes one group at a
 * time (server/domain/ingest.ts ingestQueue), so one is busy under load, and a few more serve calls made beside it.
 */
const INGESTION_POOL_MAX = 4;
/**
 * Ingestion's sessions: asynchronous commits (see `ingestionDb`), and the generic plan of each prepared statement
 * from its first run (see `withPreparedStatements`). Left to choose (plan_cache_mode auto), PostgreSQL went on
 * making custom plans for some of ingestion's statements, whose arrays change length with every group: measured at
 * 8,000 single-event requests/s (two cores, three rounds each way, 2026-12-03), a group's write took 2.5–2.7 ms at
 * the median with the generic plans against 2.9–3.0 ms, and PostgreSQL 52–67 µs of CPU per request against 59–75.
 * The statements' plans do not depend on the arrays' lengths (every player is found by its index, see
 * ./rows.ts "Plans on PostgreSQL").
 */
const INGESTION_SESSION = 'SET synchronous_commit TO off; SET plan_cache_mode TO force_generic_plan';
/** How ingestion's connections name themselves to PostgreSQL (pg_stat_activity.application_name). */
export const INGESTION_APPLICATION_NAME = 'nudge ingestion';

/** Opens the database the configuration names: a SQLite file by default, PostgreSQL when DATABASE_URL says so. */
export function openDatabase(config: DatabaseConfig): Db {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: config.url, max: 10 });
    const ingestion = config.ingestSynchronousCommit
      ? null
      : new Kysely<Database>({
          dialect: new PostgresDialect({
            pool: withPreparedStatements(new pg.Pool({ connectionString: config.url, max: INGESTION_POOL_MAX, application_name: INGESTION_APPLICATION_NAME }), INGESTION_SESSION),
          }),
        });
    // Destroying the database closes ingestion's pool with the main one.
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool, null, () => ingestion?.destroy()) }) });
    drivers.set(kysely, { pool, ingestion });
    return { kysely, dialect: 'postgres' };
  }
  const sqlite = new SQLite(config.file);
  // WAL lets readers run during a write; busy_timeout makes a second process wait instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Reads through a memory map instead of a read() per page: counts over a million players' index entries
  // measured about a quarter faster (tests/bench/player-list.ts, segment-count.ts). Mapped pages are the
  // database file's, shared with the OS page cache and given back under memory pressure; SQLite's own page
  // cache then mostly holds pages being written, and 16 MB bounds what the process itself keeps.
  sqlite.pragma('mmap_size = 1073741824');
  sqlite.pragma('cache_size = -16384');
  // Temporary files in memory. Inside a transaction, a statement that may fail halfway (a multi-row INSERT … ON
  // CONFLICT, an UPDATE of many rows) first copies every page it is about to change into a statement journal, and
  // past 64 KB SQLite writes that journal to a temporary file on disk. Every ingestion group is such a
  // transaction: with the journals on disk, a request wrote nearly twice the bytes, in nearly twice the write
  // calls (tests/bench/ingest.ts, "written"). A journal holds one statement's pages (an ingestion group's are a
  // few MB at most); sorts that find no index are kept in memory too.
  sqlite.pragma('temp_store = MEMORY');
  const checkpointer = sqlite.memory ? null : startCheckpointer(sqlite);
  const statements = withStatementCache(sqlite, checkpointer);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  drivers.set(kysely, { statements });
  return { kysely, dialect: 'sqlite' };
}

/**
 * The Kysely ingestion writes with (server/domain/ingest.ts: the storefront SDK's batches, the device API; on
 * PostgreSQL in the writer thread's own openDatabase, see WriterThread there): on
 * SQLite, and with PG_INGEST_SYNCHRONOUS_COMMIT=on, `kysely` itself. On PostgreSQL by default, a pool of its own
 * whose sessions commit asynchronously (`synchronous_commit = off`): a commit is answered once it is in
 * PostgreSQL's memory, without waiting for the WAL to be flushed to disk, which the WAL writer does within
 * 3 × wal_writer_delay (600 ms by default).
 *
 * Why: every commit otherwise waits for an fdatasync of the WAL, and ingestion's groups are many small commits
 * (hundreds a second). On a 2-core machine (tests/bench/ingest.ts, 2026-11-27) the flush usually took 0.13 ms,
 * but about once a second 50–100 ms, and ingestion's writes of that moment (two lanes then) waited for it (timed
 * around each group's write: 50–65 ms at once, every 1.04 s; none over 37 ms without the wait). In alternating runs
 * there, at the target rates, the batches' 99th percentile was 27–31 ms against 40–41 ms (single events' 36–38 ms either
 * way), and PostgreSQL's own CPU per single-event request 37–61 µs against 63–79 µs.
 *
 * What it costs: if PostgreSQL itself or its machine crashes, the last fraction of a second of devices' events,
 * sessions and attributes may be lost although their requests were answered 200 (the SDK does not send them
 * again). Whole transactions are lost, never parts: the database stays consistent. A crash of Nudge's own
 * processes loses nothing. SQLite mode makes the same bargain (synchronous=NORMAL in WAL mode: safe from the
 * application crashing, not from the machine losing power). Everything else keeps synchronous commits: the
 * console's writes, messages and deliveries, where a delivery's "sent" lost in a crash would be sent again.
 */
export function ingestionDb(kysely: Kysely<Database>): Kysely<Database> {
  const driver = drivers.get(kysely);
  return (driver && 'pool' in driver && driver.ingestion) || kysely;
}

/**
 * A query's rows as arrays of values in the order of its columns, for reads of very many rows (the audience
 * copy's build reads every player and event of an application). Both drivers otherwise make an object per row,
 * setting each column as a property from native code: reading a million players' 25 columns took 21.5 s as
 * objects and 7.4 s as arrays (better-sqlite3, 2-core machine, 2026-11-27), five million events' 4 columns 11–12 s
 * and 8–9 s. SQLite reads on the one connection while holding it, as Kysely's own queries do, so never in the
 * middle of another caller's transaction; PostgreSQL takes a connection of the pool. A Kysely not made by
 * openDatabase (a transaction's) runs the query as usual and gives the same arrays.
 */
export async function selectArrays(kysely: Kysely<Database>, query: Compilable): Promise<unknown[][]> {
  const compiled = query.compile();
  const { sql: text, parameters } = compiled;
  const driver = drivers.get(kysely);
  if (driver && 'pool' in driver) return (await driver.pool.query<unknown[]>({ text, values: [...parameters], rowMode: 'array' })).rows;
  if (driver) {
    return kysely.connection().execute(async () => driver.statements.prepareRaw(text).all(...parameters) as unknown[][]);
  }
  return (await kysely.executeQuery<Record<string, unknown>>(compiled)).rows.map((row) => Object.values(row));
}

/**
 * How often the background thread copies the WAL back into the database file. Every 500 ms, the WAL gathered up
 * to ~30 MB between checkpoints under ingestion load, and now and then a commit on the event loop took 15–50 ms
 * instead of under one (timed around COMMIT: not while a checkpoint ran; on a tmpfs folder it did not happen, so
 * the file system's writeback is the likely cause, not pinned down further). Every 100 ms the checkpoints are
 * smaller and so were those stalls: the ingestion benchmark's p99 for batches at the target rate went from
 * 32.7–43.1 ms to 14.1–20.7 ms (tests/bench/ingest.ts, (c), alternating runs), for ~30% more bytes written, as
 * a page changed often is copied more often. A round with nothing to copy is a few microseconds.
 */
const CHECKPOINT_EVERY_MS = 100;
/**
 * The connection's own checkpoint, as a safety net only: when the WAL passes this many pages (~160 MB) without
 * the background thread having caught up (it died, or the disk is that slow), the writer checkpoints itself.
 */
const FALLBACK_AUTOCHECKPOINT_PAGES = 40_000;

/**
 * SQLite checkpoints the WAL inside the COMMIT that takes it past 1,000 pages: it copies the pages into the
 * database file and fsyncs both files, and better-sqlite3 runs that on the event loop. Under ingestion load
 * that was an eighth of the server's time and every 99th answer's wait (tests/bench/ingest.ts profile:
 * commitTransaction). Here a worker thread with its own connection runs PASSIVE checkpoints, which never block
 * the writer (it keeps appending to the WAL meanwhile), so the commit on the main thread only appends.
 * Durability is unchanged: a committed transaction is in the WAL either way.
 */
function startCheckpointer(sqlite: SQLite.Database): { stop(): void } {
  sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    const Database = require(workerData.driver);
    const db = new Database(workerData.file, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const timer = setInterval(() => {
      try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next round tries again */ }
    }, workerData.everyMs);
    parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });`,
    { eval: true, workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file: sqlite.name, everyMs: CHECKPOINT_EVERY_MS } },
  );
  worker.unref();
  // Without the thread the writer's own (fallback) checkpoints keep the WAL bounded; nothing else depends on it.
  // (It also fails when the database was closed and its folder removed before the thread got going: then
  // there is nothing left to do.)
  worker.on('error', () => {
    if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000');
  });
  // Kysely closes the database synchronously: the thread closes its own connection after its current round.
  return { stop: () => worker.postMessage('stop') };
}

/** Prepared statements kept per connection; the oldest goes when the cache is full. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; parsing and planning the same SQL again cost a tenth of an ingestion
 * request's CPU (tests/bench/ingest.ts profile). better-sqlite3 statements are reusable, and Kysely runs one
 * query at a time on its single SQLite connection, so one statement per SQL text is safe to share. `prepareRaw`
 * keeps statements in raw mode (rows as arrays, for selectArrays) apart: the mode is the statement's own.
 */
function withStatementCache(sqlite: SQLite.Database, checkpointer: { stop(): void } | null) {
  const cache = new Map<string, SQLite.Statement>();
  const rawCache = new Map<string, SQLite.Statement>();
  const cached = (statements: Map<string, SQLite.Statement>, text: string, raw: boolean) => {
    let statement = statements.get(text);
    if (statement) return statement;
    statement = raw ? sqlite.prepare(text).raw(true) : sqlite.prepare(text);
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
    statements.set(text, statement);
    return statement;
  };
  return {
    prepare: (text: string): SQLite.Statement => cached(cache, text, false),
    prepareRaw: (text: string): SQLite.Statement => cached(rawCache, text, true),
    close(): void {
      cache.clear();
      rawCache.clear();
      checkpointer?.stop();
      sqlite.close();
    },
  };
}

/** Marks a PostgreSQL statement text to be prepared once per connection and then reused (see `withPreparedStatements`). */
export const PREPARED = '/* prepared */ ';
/** Distinct prepared texts per process: past this, marked texts run unprepared (each connection keeps every one it prepared). */
const PREPARED_MAX = 200;

/**
 * PostgreSQL parses and plans every statement Kysely sends. Ingestion's few statement texts (./rows.ts) come
 * back for every group, and planning them (a wide UPDATE … FROM unnest, data-modifying
 * CTEs) took more than a fifth of PostgreSQL's time per group under load (pg_stat_statements). Texts that start
 * with PREPARED go out as named statements instead: pg parses each once per connection, and PostgreSQL keeps one
 * generic plan (after five runs, or from the first in ingestion's sessions: INGESTION_SESSION). Measured on groups
 * of 12 single-event batches, PostgreSQL's CPU per group fell by about half. Other texts are untouched.
 *
 * The generic plan is remade whenever the tables' statistics change (ANALYZE, which autovacuum runs as they
 * grow), so a plan made while a new database was nearly empty lasts only until then. Behind a pooler in
 * transaction mode (PgBouncer), named statements need its prepared-statement support (max_prepared_statements).
 * `sessionSetup`: a statement each connection runs once, before its first query (see `ingestionDb`); `onEnd`:
 * what else to close when the pool is ended.
 */
function withPreparedStatements(pool: pg.Pool, sessionSetup: string | null = null, onEnd: () => unknown = () => undefined) {
  const names = new Map<string, string>();
  type Query = (...args: unknown[]) => unknown;
  const prepared = new WeakSet<pg.PoolClient>();
  return {
    async connect(): Promise<pg.PoolClient> {
      const client = await pool.connect();
      if (!prepared.has(client)) {
        // Settings of the pool's sessions, once per connection, before its first query; a connection that
        // could not take them is closed, not used without them.
        if (sessionSetup) {
          try {
            await client.query(sessionSetup);
          } catch (error) {
            client.release(error instanceof Error ? error : true);
            throw error;
          }
        }
        prepared.add(client);
        const query = client.query.bind(client) as Query;
        (client as unknown as { query: Query }).query = (text: unknown, ...rest: unknown[]) => {
          if (typeof text !== 'string' || !text.startsWith(PREPARED)) return query(text, ...rest);
          let name = names.get(text);
          if (!name && names.size < PREPARED_MAX) names.set(text, (name = `nudge_${names.size}`));
          return name ? query({ name, text, values: rest[0] }) : query(text, ...rest);
        };
      }
      return client;
    },
    end: async () => {
      await Promise.all([pool.end(), onEnd()]);
    },
  };
}

/** Brings the schema up to date. Safe to run from several processes at once on PostgreSQL (Kysely locks). */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  // Kysely looks for its bookkeeping tables in every schema of the database: pinned to the schema of our
  // search_path, a second Nudge (or any Kysely app) in another schema of the same database is not taken
  // for this one.
  const migrationTableSchema =
    db.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => buildMigrations(db.dialect) },
    // Migrations are append-only and independent of one another's order, so a database that took a later-numbered
    // one first (work landing in parallel) still takes the earlier one when it arrives.
    allowUnorderedMigrations: true,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

/** Turns a COUNT(*) value into a number: PostgreSQL sends bigint counts as strings. */
export function toCount(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return Number.parseInt(value, 10);
  return 0;
}

/**
 * The rows of `query` counted up to `cap` and no further: one more is read to tell that there are more
 * (`capped`), so the count costs the same however many match. The recipients' log and the player list's search.
 */
export async function countUpTo(db: Kysely<Database>, query: SelectQueryBuilder<any, any, any>, cap: number): Promise<{ total: number; capped: boolean }> {
  const row = await db
    .selectFrom(query.limit(cap + 1).as('counted'))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  const count = toCount(row?.n);
  return { total: Math.min(count, cap), capped: count > cap };
}

/** True for a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Runs `write` with the database's unique index as the rule: a unique-constraint violation is answered with
 * `taken()` (a CONFLICT naming what is taken), so two writes racing for one name cannot both pass, and the loser
 * hears what a check before the write would have said. Any other error passes through.
 */
export async function unlessTaken<T>(write: () => Promise<T>, taken: () => Error): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}
