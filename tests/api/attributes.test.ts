import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';
import { insertAttribute, insertPlayer } from './players-fixtures';

/** The console's /attribute screen: definitions with holders, unique names, renames carrying values, deletion with values, roles. */
const APP = 'attribute_app';
const base = `/api/application/${APP}/attribute`;

let server: TestServer;
let owner: TestUser;
const members = {} as Record<'manager' | 'user' | 'viewer' | 'ads_manager', TestUser>;
const players: number[] = [];

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server, { name: 'owner' });
  await createApplication(server, owner, APP, 'Attributes');
  for (const role of ['manager', 'user', 'viewer', 'ads_manager'] as const) {
    members[role] = await createUser(server, { name: role });
    await addMember(server, owner, APP, members[role], role);
  }
  for (let i = 0; i < 3; i += 1) players.push(await insertPlayer(server, APP, `attr-player-${i}000`));
  await insertAttribute(server, APP, players[0], 'plan', 'gold');
  await insertAttribute(server, APP, players[1], 'plan', 'silver');
}, 60_000);
afterAll(async () => server?.close());

async function create(body: Record<string, unknown>, token = owner.token) {
  return server.call('POST', base, { token, lang: 'en', body });
}

describe('defining attributes', () => {
  it('creates an attribute from the console and lists it with the players holding a value', async () => {
    const created = await create({ name: 'plan', type: 'text', description: 'Subscription plan' });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ name: 'plan', type: 'text', description: 'Subscription plan', source: 'console', players: 2 });
    await create({ name: 'signup.date', type: 'date' });
    const listed = await server.call('GET', base, { token: owner.token });
    expect(listed.body.data.items.map((item: { name: string; players: number }) => [item.name, item.players])).toEqual([
      ['plan', 2],
      ['signup.date', 0],
    ]);
    expect(listed.body.data.total).toBe(2);
  });

  it("counts the players holding a value of the attribute's type, as a segment's \"exists\" on it does", async () => {
    const created = await create({ name: 'visits', type: 'number' });
    await insertAttribute(server, APP, players[0], 'visits', 3);
    // Sent as text by a device after the attribute was a number: kept, but not a number.
    await insertAttribute(server, APP, players[1], 'visits', 'many');
    const listed = await server.call('GET', base, { token: owner.token });
    expect(listed.body.data.items.find((item: { name: string }) => item.name === 'visits')).toMatchObject({ type: 'number', players: 1 });
    const segment = await server.call('POST', `/api/application/${APP}/segment/count`, {
      token: owner.token,
      body: { rule: { any: [{ all: [{ kind: 'attribute', name: 'visits', type: 'number', op: 'exists' }] }] } },
    });
    expect(segment.body.data.count).toBe(1);
    await server.call('DELETE', `${base}/${created.body.data.id}`, { token: owner.token });
  });

  it('refuses a name already defined with CONFLICT', async () => {
    const again = await create({ name: 'plan', type: 'number' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('CONFLICT');
    expect(again.body.fields[0].path).toBe('name');
  });

  it('refuses a date whose name does not end with .date, and a .date name that is not a date (spec §5)', async () => {
    const date = await create({ name: 'birthday', type: 'date' });
    expect(date.status).toBe(400);
    expect(date.body.fields[0].path).toBe('name');
    const notDate = await create({ name: 'visit.date', type: 'text' });
    expect(notDate.status).toBe(400);
    expect(notDate.body.fields).toEqual([expect.objectContaining({ path: 'name', message: expect.stringContaining('Only date attributes may end with .date') })]);
  });

  it('refuses a name with accented letters, saying which letters it may use, in both languages', async () => {
    for (const [lang, words] of [['vi', 'chữ không dấu (a–z)'], ['en', 'letters a–z without accents']]) {
      const answer = await server.call('POST', base, { token: owner.token, lang, body: { name: 'ngày sinh', type: 'text' } });
      expect(answer.status).toBe(400);
      expect(answer.body.fields).toEqual([expect.objectContaining({ path: 'name', message: expect.stringContaining(words) })]);
    }
  });
});

describe('changing attributes', () => {
  it("renames an attribute and carries the players' values with it", async () => {
    const created = await create({ name: 'tier', type: 'text' });
    await insertAttribute(server, APP, players[2], 'tier', 'bronze');
    const renamed = await server.call('PUT', `${base}/${created.body.data.id}`, { token: owner.token, body: { name: 'level', type: 'text', description: 'Loyalty level' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'level', description: 'Loyalty level', players: 1 });
    const values = await db(server).selectFrom('player_attributes').select(['name', 'value']).where('player_id', '=', players[2]).execute();
    expect(values).toEqual([{ name: 'level', value: 'bronze' }]);
  });

  it('refuses a new type while players hold values, and allows it when none do', async () => {
    const listed = await server.call('GET', base, { token: owner.token });
    const plan = listed.body.data.items.find((item: { name: string }) => item.name === 'plan');
    const retyped = await server.call('PUT', `${base}/${plan.id}`, { token: owner.token, body: { name: 'plan', type: 'number' } });
    expect(retyped.status).toBe(409);
    expect(retyped.body.fields[0].path).toBe('type');
    const unused = await create({ name: 'score', type: 'text' });
    const ok = await server.call('PUT', `${base}/${unused.body.data.id}`, { token: owner.token, body: { name: 'score', type: 'number' } });
    expect(ok.body.data.type).toBe('number');
  });

  it('refuses a rename onto a name in use with CONFLICT, changing nothing', async () => {
    const created = await create({ name: 'nickname', type: 'text' });
    const answer = await server.call('PUT', `${base}/${created.body.data.id}`, { token: owner.token, body: { name: 'plan', type: 'text' } });
    expect(answer.body.error).toBe('CONFLICT');
    const row = await db(server).selectFrom('attribute_definitions').select('name').where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
    expect(row.name).toBe('nickname');
  });

  it("deletes an attribute with every player's value", async () => {
    const listed = await server.call('GET', base, { token: owner.token });
    const plan = listed.body.data.items.find((item: { name: string }) => item.name === 'plan');
    expect((await server.call('DELETE', `${base}/${plan.id}`, { token: owner.token })).status).toBe(200);
    const values = await db(server).selectFrom('player_attributes').select('player_id').where('application_id', '=', APP).where('name', '=', 'plan').execute();
    expect(values).toEqual([]);
    expect((await server.call('DELETE', `${base}/${plan.id}`, { token: owner.token })).body.error).toBe('NOT_FOUND');
  });
});

describe('who may manage attributes (spec §6: super users and managers)', () => {
  it('lets a manager create and list', async () => {
    expect((await create({ name: 'manager_made', type: 'boolean' }, members.manager.token)).status).toBe(200);
    expect((await server.call('GET', base, { token: members.manager.token })).status).toBe(200);
  });

  it('refuses users, viewers and ads managers, creating nothing', async () => {
    for (const role of ['user', 'viewer', 'ads_manager'] as const) {
      expect((await server.call('GET', base, { token: members[role].token })).body.error).toBe('NO_PERMISSION');
      expect((await create({ name: `${role}_made`, type: 'text' }, members[role].token)).body.error).toBe('NO_PERMISSION');
    }
    const made = await db(server).selectFrom('attribute_definitions').select('name').where('name', 'like', '%_made').execute();
    expect(made.map((row) => row.name)).toEqual(['manager_made']);
  });
});
