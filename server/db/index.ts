import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type MigrationResultSet } from 'kysely';
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

/** Opens the database the configuration names: a SQLite file by default, PostgreSQL when DATABASE_URL says so. */
export function openDatabase(config: DatabaseConfig): Db {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: config.url, max: 10 });
    return { kysely: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), dialect: 'postgres' };
  }
  const sqlite = new SQLite(config.file);
  // WAL lets readers run during a write; busy_timeout makes a second process wait instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Reads through a memory map and a 64 MB page cache instead of a read() per page: counts over a million
  // players' index entries measured about a quarter faster (tests/bench/player-list.ts, segment-count.ts).
  sqlite.pragma('mmap_size = 1073741824');
  sqlite.pragma('cache_size = -65536');
  return { kysely: new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) }), dialect: 'sqlite' };
}

/** Prepared statements kept per connection; the oldest goes when the cache is full. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; parsing and planning the same SQL again cost a tenth of an ingestion
 * request's CPU (tests/bench/ingest.ts profile). better-sqlite3 statements are reusable, and Kysely runs one
 * query at a time on its single SQLite connection, so one statement per SQL text is safe to share.
 */
function withStatementCache(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    prepare(text: string): SQLite.Statement {
      let statement = cache.get(text);
      if (statement) return statement;
      statement = sqlite.prepare(text);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(text, statement);
      return statement;
    },
    close(): void {
      cache.clear();
      sqlite.close();
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

/** True for a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
