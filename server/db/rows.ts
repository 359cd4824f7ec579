import { CompiledQuery, type Kysely } from 'kysely';
import { PREPARED, type Dialect } from './index';
import type { Database } from './schema';

/*
 * Bulk statements for the hot write paths (ingestion, the seed generator) and for migrations that rewrite many
 * rows: many rows in one statement, built as plain SQL once per chunk instead of through the query builder row by
 * row. PostgreSQL gets one array per column through unnest (one parameter per column whatever the row count);
 * SQLite a VALUES list within its bound-parameter ceiling.
 */

export type SqlType = 'text' | 'bigint' | 'integer' | 'double precision';
export interface Column {
  name: string;
  type: SqlType;
}
/** One row's values, in the order of the columns it is written with; values past the last column are left out. */
export type Row = readonly unknown[];

/** SQLite's default SQLITE_MAX_VARIABLE_NUMBER. */
const SQLITE_MAX_PARAMS = 32_766;
/** Rows per PostgreSQL statement: arrays have no parameter ceiling, this only bounds one statement's size. */
const POSTGRES_CHUNK = 5_000;

/** How many rows of this width one statement takes. */
export function chunkSize(dialect: Dialect, width: number): number {
  return dialect === 'postgres' ? POSTGRES_CHUNK : Math.max(1, Math.min(2_000, Math.floor(SQLITE_MAX_PARAMS / width)));
}

export function* chunks<T>(rows: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
}

/**
 * SQLite: a chunk split again into power-of-two runs (37 rows: 32 + 4 + 1), so the statement texts repeat and
 * the connection's prepared-statement cache (db/index.ts) serves them instead of parsing a new VALUES list for
 * every row count.
 */
function* statementRuns<T>(dialect: Dialect, rows: readonly T[], size: number): Generator<T[]> {
  for (const chunk of chunks(rows, size)) {
    if (dialect === 'postgres') {
      yield chunk;
      continue;
    }
    let start = 0;
    while (start < chunk.length) {
      const run = 2 ** Math.floor(Math.log2(chunk.length - start));
      yield chunk.slice(start, start + run);
      start += run;
    }
  }
}

/** A table expression over `rows`: `unnest(...)` on PostgreSQL (alias and column names are the caller's), `VALUES (...)` on SQLite. */
export function rowSource(dialect: Dialect, columns: readonly Column[], rows: readonly Row[]): { sql: string; params: unknown[] } {
  if (dialect === 'postgres') {
    const params = columns.map((_, index) => rows.map((row) => row[index] ?? null));
    const arrays = columns.map((column, index) => `$${index + 1}::${column.type}[]`).join(', ');
    return { sql: `unnest(${arrays})`, params };
  }
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const params: unknown[] = [];
  for (const row of rows) for (let index = 0; index < columns.length; index += 1) params.push(sqliteValue(row[index]));
  return { sql: `VALUES ${rows.map(() => tuple).join(',')}`, params };
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null; booleans become 0/1. */
function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** The columns' names, comma-separated. */
export const columnList = (columns: readonly { name: string }[]) => columns.map((column) => column.name).join(', ');

/** One statement and its parameters ($1, $2… on PostgreSQL, ? on SQLite), built here to run alone or with others. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** The INSERT statements of many rows, one per chunk; `tail` is what follows the rows (ON CONFLICT …, RETURNING …). */
export function insertStatements(dialect: Dialect, table: string, columns: readonly Column[], rows: readonly Row[], tail = ''): Statement[] {
  const out: Statement[] = [];
  for (const chunk of statementRuns(dialect, rows, chunkSize(dialect, columns.length))) {
    const source = rowSource(dialect, columns, chunk);
    const sql = dialect === 'postgres' ? `${PREPARED}INSERT INTO ${table} (${columnList(columns)}) SELECT * FROM ${source.sql} ${tail}` : `INSERT INTO ${table} (${columnList(columns)}) ${source.sql} ${tail}`;
    out.push({ sql, params: source.params });
  }
  return out;
}

/**
 * PostgreSQL: columns `v` takes from another relation of the statement around (a CTE), beside the rows' own `u.*`:
 * `select` lists them, `join` joins that relation to `u`.
 */
export interface Joined {
  select: string;
  join: string;
}

/**
 * Statements that read `rows` as the table `v(columns)`, one per chunk (with `joined`, also columns of another
 * relation): `statement` is the rest after the WITH
 * clause (an UPDATE … FROM v, a SELECT … JOIN v; on PostgreSQL also further CTEs: `, name AS (…) SELECT …`).
 */
export function withRowsStatements(dialect: Dialect, columns: readonly Column[], rows: readonly Row[], statement: string, joined?: Joined): Statement[] {
  if (joined && dialect !== 'postgres') throw new Error('joined rows: PostgreSQL only');
  const out: Statement[] = [];
  for (const chunk of statementRuns(dialect, rows, chunkSize(dialect, columns.length))) {
    const source = rowSource(dialect, columns, chunk);
    const cte =
      dialect === 'postgres'
        ? `${PREPARED}WITH v AS (SELECT ${joined ? `u.*, ${joined.select}` : '*'} FROM ${source.sql} AS u(${columnList(columns)})${joined ? ` ${joined.join}` : ''})`
        : `WITH v(${columnList(columns)}) AS (${source.sql})`;
    out.push({ sql: `${cte} ${statement}`, params: source.params });
  }
  return out;
}

/*
 * Plans on PostgreSQL. Ingestion's statements are prepared (server/db/index.ts), and PostgreSQL keeps one generic
 * plan per statement, made for the tables as they were, until autovacuum or ANALYZE next updates their statistics.
 * Made while a shop has a thousand players, the plan for "the rows of players matching v" joined v to a
 * sequential scan of the table, and kept doing so as the table grew: in the benchmark, whose players table grows
 * from 1,000 to 6,000 rows within seconds, those scans took 1 ms of each group's 2.5 ms in PostgreSQL, and single
 * events ran at 3,600 requests/s instead of 4,900. So a statement reaching existing rows from v's keys gives the
 * planner an index path it prefers on any table of more than a few pages: a lookup per row of v
 * (`LATERAL (… OFFSET 0)`, which the planner may not flatten into a join), or, for an UPDATE or DELETE, the
 * target's key also compared with the parameter array itself (`keyInParameter`). tests/api/track.test.ts
 * checks the generic plans on a table of a thousand players. Below that the UPDATE's plan still reads the
 * whole table (seen with 500 players, 12 pages): harmless at that size, and remade at autovacuum's next ANALYZE,
 * which a table growing past it gets within a minute.
 */

/**
 * PostgreSQL: ` AND target = ANY($n)`, $n being the array of v's column `name` in the statements built here
 * (`withRowsStatements`: one array parameter per column, in order), so the generic plan reaches the rows through
 * the target's index whatever the table's size was when the plan was made; `also`, an array expression of further
 * keys the statement computes (` || also`). SQLite: nothing (its planner reads v first and looks each row up).
 */
export function keyInParameter(dialect: Dialect, columns: readonly Column[], name: string, target: string, also?: string): string {
  if (dialect !== 'postgres') return '';
  const index = columns.findIndex((column) => column.name === name);
  if (index < 0) throw new Error(`no column ${name} among the rows`);
  return ` AND ${target} = ANY($${index + 1}::${columns[index].type}[]${also ? ` || ${also}` : ''})`;
}

/** Runs statements one after the other; returns the rows they gave (RETURNING, SELECT), all together. */
export async function runStatements<R = Record<string, unknown>>(db: Kysely<Database>, statements: readonly Statement[]): Promise<R[]> {
  const out: R[] = [];
  for (const statement of statements) out.push(...(await db.executeQuery<R>(CompiledQuery.raw(statement.sql, statement.params))).rows);
  return out;
}

/**
 * Runs writes that do not depend on one another's effects (different tables, or different rows of one).
 * SQLite, in process, runs them one after the other. PostgreSQL gets them as ONE statement, each a data-modifying
 * CTE (`WITH w0 AS (…), w1 AS (…) SELECT 1`), so a group of writes costs one round trip instead of one each:
 * under ingestion load every round trip waits for the event loop and for the server process to be scheduled,
 * and those waits, not the writes, set the pace (tests/bench/ingest.ts). PostgreSQL runs every data-modifying
 * CTE to completion whether or not the final SELECT reads it, all on the same snapshot. Parameters are
 * renumbered: statement texts built here never hold a literal `$n`, values always travel as parameters.
 */
export async function runWrites(db: Kysely<Database>, dialect: Dialect, statements: readonly Statement[]): Promise<void> {
  if (statements.length === 0) return;
  if (dialect === 'sqlite' || statements.length === 1) {
    await runStatements(db, statements);
    return;
  }
  await runStatements(db, [combinedWrites(statements)]);
}

/**
 * PostgreSQL: `statements` as the data-modifying CTEs w0, w1… of one statement (see `runWrites`). `before` is
 * CTE definitions they may read (`name AS (…), …`, its parameters numbered from $1), `select` the statement's
 * answer.
 */
export function combinedWrites(statements: readonly Statement[], before?: Statement, select = 'SELECT 1'): Statement {
  const ctes = statements.map((statement, index) => ({ sql: `w${index} AS (${statement.sql.replace(PREPARED, '')})`, params: statement.params }));
  const all = joinedStatements([...(before ? [before] : []), ...ctes]);
  return { sql: `${PREPARED}WITH ${all.sql} ${select}`, params: all.params };
}

/**
 * PostgreSQL: pieces of one statement (CTE definitions), comma-separated, each piece's parameters ($1, $2… of its
 * own) renumbered after the pieces before it.
 */
export function joinedStatements(parts: readonly Statement[]): Statement {
  const params: unknown[] = [];
  const sql = parts.map((part) => {
    const offset = params.length;
    params.push(...part.params);
    return part.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  return { sql: sql.join(', '), params };
}

/**
 * INSERT of many rows, chunked; `tail` is what follows the rows (ON CONFLICT …, RETURNING …). Returns the
 * rows RETURNING gave, all chunks together.
 */
export function insertRows<R = Record<string, unknown>>(
  db: Kysely<Database>,
  dialect: Dialect,
  table: string,
  columns: readonly Column[],
  rows: readonly Row[],
  tail = '',
): Promise<R[]> {
  return runStatements<R>(db, insertStatements(dialect, table, columns, rows, tail));
}

/** `withRowsStatements`, run: the rows they gave, all chunks together. */
export function withRows<R = Record<string, unknown>>(
  db: Kysely<Database>,
  dialect: Dialect,
  columns: readonly Column[],
  rows: readonly Row[],
  statement: string,
): Promise<R[]> {
  return runStatements<R>(db, withRowsStatements(dialect, columns, rows, statement));
}

/** The later of two ISO timestamps column expressions, null-safe, in both dialects. */
export function later(a: string, b: string): string {
  return `CASE WHEN ${a} IS NULL OR (${b} IS NOT NULL AND ${b} > ${a}) THEN ${b} ELSE ${a} END`;
}

/** The earlier of two ISO timestamps column expressions, null-safe, in both dialects. */
export function earlier(a: string, b: string): string {
  return `CASE WHEN ${a} IS NULL OR (${b} IS NOT NULL AND ${b} < ${a}) THEN ${b} ELSE ${a} END`;
}
