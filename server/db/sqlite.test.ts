import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './index';

/** Files this process has open whose name is one of SQLite's temporary files (unlinked as soon as opened). */
const openTemporaryFiles = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return /etilqs_/.test(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      return false;
    }
  });

/** How the SQLite connection handles its files (server/db/index.ts openDatabase). */
describe('the SQLite connection', () => {
  let dir: string;
  let db: Db | undefined;

  afterEach(async () => {
    await db?.kysely.destroy();
    db = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  // The WAL is copied back into the database file by a background thread, not by the commit that fills it
  // (startCheckpointer): data written well under SQLite's own checkpoint threshold still reaches the database
  // file within moments, while the writer never checkpoints itself.
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

  // An ingestion group is a transaction of several statements, each changing many pages. SQLite journals the
  // pages a statement changes so that it can undo that statement alone; on disk by default past 64 KB, which wrote
  // more bytes than the WAL itself (temp_store).
  it.runIf(process.platform === 'linux')('keeps a large statement journal in memory, not in a temporary file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-temp-store-'));
    db = openDatabase({ kind: 'sqlite', file: join(dir, 'nudge.db') });
    await sql`create table rows (id integer primary key, key text not null unique, body text not null)`.execute(db.kysely);
    const body = 'x'.repeat(1_000);
    await sql`with recursive n(value) as (select 1 union all select value + 1 from n where value < 2000) insert into rows (key, body) select 'old-' || value, ${body} from n`.execute(db.kysely);
    let during: string[] = [];
    await db.kysely.transaction().execute(async (trx) => {
      await sql`update rows set body = ${body} where id = 1`.execute(trx);
      // Rewrites ~500 pages in one statement that could fail halfway (the unique key): a statement journal of ~2 MB.
      await sql`update rows set body = ${'y'.repeat(1_000)}, key = 'new-' || id where id > 1`.execute(trx);
      during = openTemporaryFiles();
    });
    expect(during).toEqual([]);
    const changed = await sql<{ n: number }>`select count(*) as n from rows where key like 'new-%'`.execute(db.kysely);
    expect(changed.rows[0].n).toBe(1999);
  });
});
