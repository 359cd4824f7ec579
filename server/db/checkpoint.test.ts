import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './index';

/**
 * The SQLite WAL is copied back into the database file by a background thread, not by the commit that fills
 * it (server/db/index.ts startCheckpointer): data written well under SQLite's own checkpoint threshold still
 * reaches the database file within moments, while the writer never checkpoints itself.
 */
describe('the SQLite checkpointer thread', () => {
  let dir: string;
  let db: Db | undefined;

  afterEach(async () => {
    await db?.kysely.destroy();
    db = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves committed pages from the WAL into the database file in the background', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-checkpoint-'));
    const file = join(dir, 'nudge.db');
    db = openDatabase({ kind: 'sqlite', file });
    await sql`create table blobs (id integer primary key, body text not null)`.execute(db.kysely);
    const sizeBefore = statSync(file).size;
    // About 2 MB in 20 commits: ~500 pages, half of SQLite's default auto-checkpoint threshold.
    for (let round = 0; round < 20; round += 1) {
      await db.kysely.transaction().execute(async (trx) => {
        for (let row = 0; row < 10; row += 1) await sql`insert into blobs (body) values (${'x'.repeat(10_000)})`.execute(trx);
      });
    }
    const until = Date.now() + 10_000;
    while (statSync(file).size < sizeBefore + 2_000_000 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(statSync(file).size).toBeGreaterThan(sizeBefore + 2_000_000);
  });

  it('leaves an in-memory database alone', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-checkpoint-'));
    db = openDatabase({ kind: 'sqlite', file: ':memory:' });
    const row = await sql<{ n: number }>`select 1 as n`.execute(db.kysely);
    expect(row.rows[0].n).toBe(1);
  });
});
