import { CompiledQuery, type Kysely } from 'kysely';
import type { Dialect } from '../db';
import type { Database } from '../db/schema';

/*
 * Bulk statements for the hot write paths (ingestion, the seed generator): many rows in one statement, built
 * as plain SQL once per chunk instead of through the query builder row by row. PostgreSQL gets one array per
 * column through unnest (one parameter per column whatever the row count); SQLite a VALUES list within its
 * bound-parameter ceiling.
 */

export type SqlType = 'text' | 'bigint' | 'integer' | 'double precision';
export interface Column {
  name: string;
  type: SqlType;
}
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

/** A table expression over `rows`: `unnest(...) AS alias(cols)` on PostgreSQL, `VALUES (...)` on SQLite. */
function rowSource(dialect: Dialect, columns: readonly Column[], rows: readonly Row[]): { sql: string; params: unknown[] } {
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

const list = (columns: readonly Column[]) => columns.map((column) => column.name).join(', ');

/**
 * INSERT of many rows, chunked; `tail` is what follows the rows (ON CONFLICT …, RETURNING …). Returns the
 * rows RETURNING gave, all chunks together.
 */
export async function insertRows<R = Record<string, unknown>>(
  db: Kysely<Database>,
  dialect: Dialect,
  table: string,
  columns: readonly Column[],
  rows: readonly Row[],
  tail = '',
): Promise<R[]> {
  const out: R[] = [];
  for (const chunk of statementRuns(dialect, rows, chunkSize(dialect, columns.length))) {
    const source = rowSource(dialect, columns, chunk);
    const body = dialect === 'postgres' ? `SELECT * FROM ${source.sql}` : source.sql;
    const result = await db.executeQuery<R>(CompiledQuery.raw(`INSERT INTO ${table} (${list(columns)}) ${body} ${tail}`, source.params));
    out.push(...result.rows);
  }
  return out;
}

/**
 * A statement that reads `rows` as the table `v(columns)`: `statement` is the rest after the WITH clause
 * (an UPDATE … FROM v, a SELECT … JOIN v), run once per chunk.
 */
export async function withRows<R = Record<string, unknown>>(
  db: Kysely<Database>,
  dialect: Dialect,
  columns: readonly Column[],
  rows: readonly Row[],
  statement: string,
): Promise<R[]> {
  const out: R[] = [];
  for (const chunk of statementRuns(dialect, rows, chunkSize(dialect, columns.length))) {
    const source = rowSource(dialect, columns, chunk);
    const cte =
      dialect === 'postgres'
        ? `WITH v AS (SELECT * FROM ${source.sql} AS u(${list(columns)}))`
        : `WITH v(${list(columns)}) AS (${source.sql})`;
    const result = await db.executeQuery<R>(CompiledQuery.raw(`${cte} ${statement}`, source.params));
    out.push(...result.rows);
  }
  return out;
}

/** The later of two ISO timestamps column expressions, null-safe, in both dialects. */
export function later(a: string, b: string): string {
  return `CASE WHEN ${a} IS NULL OR (${b} IS NOT NULL AND ${b} > ${a}) THEN ${b} ELSE ${a} END`;
}

/** The earlier of two ISO timestamps column expressions, null-safe, in both dialects. */
export function earlier(a: string, b: string): string {
  return `CASE WHEN ${a} IS NULL OR (${b} IS NOT NULL AND ${b} < ${a}) THEN ${b} ELSE ${a} END`;
}
