import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { selectArrays, type Database } from '../../server/db';
import { createApplication, createUser, db, startServer, type TestServer } from './helpers';

/**
 * selectArrays (server/db/index.ts), the bulk read under the in-memory audience copy: the same rows as the query
 * through Kysely, as arrays in the order of its columns, and never a row another caller has not committed.
 */
describe('rows as arrays', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    const owner = await createUser(server);
    await createApplication(server, owner, 'arrays_one', 'First shop');
    await createApplication(server, owner, 'arrays_two', 'Second shop');
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The two applications' rows, read through `kysely` (the server's database, or a transaction of it). */
  const query = (kysely: Kysely<Database> = db(server)) =>
    kysely.selectFrom('applications').select(['application_id', 'name', 'audience_epoch', 'deleting_at']).where('application_id', 'like', 'arrays_%').orderBy('application_id');

  it('gives the rows of the query as arrays of their columns in order, nulls and numbers included', async () => {
    const objects = await query().execute();
    const arrays = await selectArrays(db(server), query());
    expect(arrays).toEqual(objects.map((row) => [row.application_id, row.name, row.audience_epoch, row.deleting_at]));
    expect(arrays.map((row) => row[1])).toEqual(['First shop', 'Second shop']);
    expect(arrays[0][3]).toBeNull();
  });

  it('inside a transaction reads through it, the same arrays', async () => {
    const arrays = await db(server)
      .transaction()
      .execute((trx) => selectArrays(trx, query(trx)));
    expect(arrays).toEqual(await selectArrays(db(server), query()));
  });

  it('never reads what another caller wrote in a transaction that was rolled back', async () => {
    let pending: Promise<unknown[][]> | undefined;
    await expect(
      db(server)
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('applications').set({ name: 'Not committed' }).where('application_id', '=', 'arrays_one').execute();
          // Asked while the transaction holds its connection, answered after it ended.
          pending = selectArrays(db(server), query());
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('roll back');
        }),
    ).rejects.toThrow('roll back');
    const names = (await pending!).map((row) => row[1]);
    expect(names).toEqual(['First shop', 'Second shop']);
  });
});
