import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';

let server: TestServer;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  server = await startServer();
  [owner, stranger] = [await createUser(server, { name: 'Owner' }), await createUser(server, { name: 'Stranger' })];
});
afterAll(async () => server?.close());

const create = (user: TestUser, body: unknown, lang = 'en') => server.call('POST', '/api/application', { token: user.token, lang, body });

describe('when a user creates an application', () => {
  it('answers it with a client key, no users or platforms yet, and the creator as its Super User', async () => {
    const answer = await create(owner, { application_id: 'shop_one', name: '  Shop One  ' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      data: {
        application_id: 'shop_one',
        name: 'Shop One',
        client_key: expect.stringMatching(/^[0-9a-f]{32}$/),
        total_users: 0,
        platforms: [],
        created: expect.stringMatching(/^\d{4}-/),
        deleting_at: null,
        role: 'super_user',
        plan: 'free',
        // Vietnam's timezone and phone numbers unless others are chosen.
        utc_offset: 420,
        phone_country: 'VN',
      },
    });
    const access = await server.call('GET', '/api/application/shop_one/access', { token: owner.token });
    expect(access.body).toEqual({ success: true, data: { roles: ['super_user'], agency: null, permissions: [] } });
  });

  it('gives every application its own client key', async () => {
    const a = await createApplication(server, owner, 'keys_a');
    const b = await createApplication(server, owner, 'keys_b');
    expect(a.client_key).not.toBe(b.client_key);
  });

  it('refuses an id that is taken, whatever its case, with CONFLICT', async () => {
    await createApplication(server, owner, 'Taken_Id');
    const answer = await create(stranger, { application_id: 'taken_id', name: 'Mine' });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      success: false,
      error: 'CONFLICT',
      message: 'This application ID is already taken',
      fields: [{ path: 'application_id', message: 'This application ID is already taken' }],
    });
    const list = await server.call('GET', '/api/application', { token: stranger.token });
    expect(list.body.data.items).toEqual([]);
  });

  it.each([
    ['ab', false],
    ['abc', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['with-dash', false],
    ['with space', false],
    ['dấu', false],
    ['Under_Score_9', true],
  ])('id %j is %s', async (applicationId, accepted) => {
    const answer = await create(owner, { application_id: applicationId, name: 'Bounds' });
    if (accepted) {
      expect(answer.status).toBe(200);
    } else {
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        success: false,
        error: 'INVALID_PARAM',
        message: 'Application ID must be 3 to 64 letters, digits or underscores',
        fields: [{ path: 'application_id', message: 'Application ID must be 3 to 64 letters, digits or underscores' }],
      });
    }
  });

  it('refuses a blank name, in the language asked for', async () => {
    const en = await create(owner, { application_id: 'blank_name', name: '   ' });
    expect(en.body.fields).toEqual([{ path: 'name', message: 'Application name must not be blank' }]);
    const vi = await create(owner, { application_id: 'blank_name', name: '' }, 'vi');
    expect(vi.body.message).toBe('Tên ứng dụng không được để trống');
    expect((await server.call('GET', '/api/application?q=blank_name', { token: owner.token })).body.data.total).toBe(0);
  });

  it('refuses a name over 100 characters', async () => {
    const answer = await create(owner, { application_id: 'long_name', name: 'n'.repeat(101) });
    expect(answer.body.fields).toEqual([{ path: 'name', message: 'This value is too long' }]);
  });

  it('takes the timezone chosen, and refuses one that is not a UTC offset in use, in the language asked for', async () => {
    expect((await create(owner, { application_id: 'in_nepal', name: 'Nepal', utc_offset: 345 })).body.data.utc_offset).toBe(345);
    for (const utc_offset of [7, 61, 840, -780, '420', null]) {
      const answer = await create(owner, { application_id: 'bad_zone', name: 'Zone', utc_offset });
      expect(answer.status, String(utc_offset)).toBe(400);
      expect(answer.body.fields).toEqual([{ path: 'utc_offset', message: 'Choose a timezone from UTC-12:00 to UTC+13:00' }]);
    }
    expect((await create(owner, { application_id: 'bad_zone', name: 'Zone', utc_offset: 30 }, 'vi')).body.message).toBe('Hãy chọn múi giờ từ UTC-12:00 đến UTC+13:00');
    expect((await server.call('GET', '/api/application?q=bad_zone', { token: owner.token })).body.data.total).toBe(0);
  });

  it('takes the country for phone numbers chosen, in either case, and refuses one whose numbers it cannot read, in the language asked for', async () => {
    expect((await create(owner, { application_id: 'in_thailand', name: 'Thai shop', phone_country: ' th ' })).body.data.phone_country).toBe('TH');
    for (const phone_country of ['XX', 'VNM', '84', '', 84, null]) {
      const answer = await create(owner, { application_id: 'bad_country', name: 'Country', phone_country });
      expect(answer.status, String(phone_country)).toBe(400);
      expect(answer.body.fields).toEqual([{ path: 'phone_country', message: 'Choose a country by its 2-letter code, such as VN for Vietnam' }]);
    }
    expect((await create(owner, { application_id: 'bad_country', name: 'Country', phone_country: 'ZZ' }, 'vi')).body.message).toBe('Hãy chọn quốc gia theo mã 2 chữ cái, ví dụ VN cho Việt Nam');
    expect((await server.call('GET', '/api/application?q=bad_country', { token: owner.token })).body.data.total).toBe(0);
  });
});

describe('the application list', () => {
  let lister: TestUser;
  beforeAll(async () => {
    lister = await createUser(server, { name: 'Lister' });
    for (const id of ['list_alpha', 'list_beta', 'list_gamma']) {
      await createApplication(server, lister, id, `Name of ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  it('shows the caller’s applications, newest first, with the caller’s role', async () => {
    const answer = await server.call('GET', '/api/application', { token: lister.token });
    expect(answer.body.data).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect(answer.body.data.items.map((item: { application_id: string }) => item.application_id)).toEqual(['list_gamma', 'list_beta', 'list_alpha']);
    expect(answer.body.data.items.every((item: { role: string }) => item.role === 'super_user')).toBe(true);
  });

  it('pages', async () => {
    const second = await server.call('GET', '/api/application?page=2&limit=2', { token: lister.token });
    expect(second.body.data).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(second.body.data.items.map((item: { application_id: string }) => item.application_id)).toEqual(['list_alpha']);
  });

  it('searches names and ids, case-insensitively, taking % and _ literally', async () => {
    const byName = await server.call('GET', '/api/application?q=OF%20LIST_B', { token: lister.token });
    expect(byName.body.data.items.map((item: { application_id: string }) => item.application_id)).toEqual(['list_beta']);
    const wildcard = await server.call('GET', '/api/application?q=%25', { token: lister.token });
    expect(wildcard.body.data.total).toBe(0);
  });

  it('refuses a page size over 100', async () => {
    const answer = await server.call('GET', '/api/application?limit=101', { token: lister.token });
    expect(answer.body.error).toBe('INVALID_PARAM');
    expect(answer.body.fields[0].path).toBe('limit');
  });

  it('counts the players and lists the active platform kinds of each application from their tables', async () => {
    const now = new Date().toISOString();
    await db(server)
      .insertInto('players')
      .values(
        [1, 2, 3].map((n) => ({ application_id: 'list_beta', device_id: `device-${n}`, platform: 'web', device_type: 'mobile', created_at: now, updated_at: now })),
      )
      .execute();
    await db(server)
      .insertInto('platforms')
      .values(
        [
          ['web', 'active'],
          ['android', 'active'],
          ['ios', 'inactive'],
        ].map(([kind, status]) => ({ application_id: 'list_beta', kind, status, created_at: now, updated_at: now })),
      )
      .execute();
    const answer = await server.call('GET', '/api/application', { token: lister.token });
    const beta = answer.body.data.items.find((item: { application_id: string }) => item.application_id === 'list_beta');
    expect(beta).toMatchObject({ total_users: 3, platforms: ['android', 'web'] });
    const one = await server.call('GET', '/api/application/list_beta', { token: lister.token });
    expect(one.body.data).toMatchObject({ total_users: 3, platforms: ['android', 'web'] });
  });

  it('shows a member of one application nothing of another', async () => {
    const answer = await server.call('GET', '/api/application', { token: stranger.token });
    expect(answer.body.data.items.some((item: { application_id: string }) => item.application_id.startsWith('list_'))).toBe(false);
    const one = await server.call('GET', '/api/application/list_beta', { token: stranger.token, lang: 'en' });
    expect(one.status).toBe(403);
    expect(one.body).toEqual({ success: false, error: 'NO_PERMISSION', message: 'NO PERMISSION' });
  });
});

describe('for a platform admin', () => {
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createUser(server, { name: 'Admin', admin: true });
  });

  it('the list holds every application, with no role where the admin is not a member', async () => {
    const answer = await server.call('GET', '/api/application?limit=100', { token: admin.token });
    const ids = answer.body.data.items.map((item: { application_id: string }) => item.application_id);
    expect(ids).toEqual(expect.arrayContaining(['shop_one', 'list_alpha', 'Taken_Id']));
    expect(answer.body.data.items.every((item: { role: string | null }) => item.role === null)).toBe(true);
  });

  it('access answers the admin role', async () => {
    const answer = await server.call('GET', '/api/application/shop_one/access', { token: admin.token });
    expect(answer.body.data).toEqual({ roles: ['admin'], agency: null, permissions: [] });
  });

  it('the login answer carries the admin role', async () => {
    const answer = await server.call('POST', '/api/user/login', { body: { username: admin.email, password: admin.password } });
    expect(answer.body.data.roles).toEqual(['admin']);
  });

  it('an application that does not exist is NOT_FOUND for an admin, and NO_PERMISSION for anyone else', async () => {
    expect((await server.call('GET', '/api/application/no_such_app', { token: admin.token })).body.error).toBe('NOT_FOUND');
    expect((await server.call('GET', '/api/application/no_such_app', { token: owner.token })).body.error).toBe('NO_PERMISSION');
  });
});

describe('access of a member', () => {
  it('carries the agency of the user and the restricted features of the membership', async () => {
    const agent = await createUser(server, { name: 'Agent' });
    await createApplication(server, agent, 'agency_app');
    await db(server).updateTable('users').set({ agency: 'ipush' }).where('id', '=', agent.id).execute();
    await db(server)
      .updateTable('memberships')
      .set({ permissions: JSON.stringify(['banner', 'maxlead']) })
      .where('user_id', '=', agent.id)
      .execute();
    const answer = await server.call('GET', '/api/application/agency_app/access', { token: agent.token });
    expect(answer.body.data).toEqual({ roles: ['super_user'], agency: 'ipush', permissions: ['banner', 'maxlead'] });
  });
});

describe("the application's plan", () => {
  it('is answered as billing set it, in the application and in the list, and cannot be changed through the API', async () => {
    await createApplication(server, owner, 'paying_app');
    await db(server).updateTable('applications').set({ plan: 'pay_as_you_go' }).where('application_id', '=', 'paying_app').execute();
    expect((await server.call('GET', '/api/application/paying_app', { token: owner.token })).body.data.plan).toBe('pay_as_you_go');
    const list = await server.call('GET', '/api/application?q=paying_app', { token: owner.token });
    expect(list.body.data.items.map((item: { plan: string }) => item.plan)).toEqual(['pay_as_you_go']);
    const renamed = await server.call('PUT', '/api/application/paying_app', { token: owner.token, body: { name: 'Paying', plan: 'free' } });
    expect(renamed.body.data).toMatchObject({ name: 'Paying', plan: 'pay_as_you_go' });
  });

  it('is the default plan when the stored one is not a plan the console knows', async () => {
    await createApplication(server, owner, 'odd_plan_app');
    await db(server).updateTable('applications').set({ plan: 'legacy_gold' }).where('application_id', '=', 'odd_plan_app').execute();
    const answer = await server.call('GET', '/api/application/odd_plan_app', { token: owner.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data.plan).toBe('free');
  });
});

describe('when the Super User renames the application', () => {
  it('stores the trimmed name', async () => {
    await createApplication(server, owner, 'rename_me');
    const answer = await server.call('PUT', '/api/application/rename_me', { token: owner.token, body: { name: '  Renamed  ' } });
    expect(answer.body.data).toMatchObject({ application_id: 'rename_me', name: 'Renamed', role: 'super_user' });
    expect((await server.call('GET', '/api/application/rename_me', { token: owner.token })).body.data.name).toBe('Renamed');
  });

  it('changes the timezone with the name, keeps it when left out, and keeps everything when either is refused', async () => {
    await createApplication(server, owner, 'move_me', 'Move me', 0);
    const put = (body: unknown) => server.call('PUT', '/api/application/move_me', { token: owner.token, lang: 'en', body });
    expect((await put({ name: 'Moved', utc_offset: -210 })).body.data).toMatchObject({ name: 'Moved', utc_offset: -210 });
    expect((await put({ name: 'Moved again' })).body.data).toMatchObject({ name: 'Moved again', utc_offset: -210 });
    const refused = await put({ name: 'Not this', utc_offset: 999 });
    expect(refused.body.fields).toEqual([{ path: 'utc_offset', message: 'Choose a timezone from UTC-12:00 to UTC+13:00' }]);
    expect((await put({ name: ' ', utc_offset: 420 })).status).toBe(400);
    expect((await server.call('GET', '/api/application/move_me', { token: owner.token })).body.data).toMatchObject({ name: 'Moved again', utc_offset: -210 });
  });

  it('changes the country for phone numbers, keeps it when left out, and keeps it when refused', async () => {
    await createApplication(server, owner, 'abroad', 'Abroad');
    const put = (body: unknown) => server.call('PUT', '/api/application/abroad', { token: owner.token, lang: 'en', body });
    expect((await put({ name: 'Abroad', phone_country: 'GB' })).body.data).toMatchObject({ phone_country: 'GB' });
    expect((await put({ name: 'Abroad still' })).body.data).toMatchObject({ name: 'Abroad still', phone_country: 'GB' });
    const refused = await put({ name: 'Not this', phone_country: 'UK' });
    expect(refused.body.fields).toEqual([{ path: 'phone_country', message: 'Choose a country by its 2-letter code, such as VN for Vietnam' }]);
    expect((await server.call('GET', '/api/application/abroad', { token: owner.token })).body.data).toMatchObject({ name: 'Abroad still', phone_country: 'GB' });
  });
});

describe('when an application is being deleted', () => {
  it('refuses writes with APPLICATION_DELETING and still answers reads', async () => {
    await createApplication(server, owner, 'doomed_app', 'Doomed');
    await db(server).updateTable('applications').set({ deleting_at: new Date().toISOString() }).where('application_id', '=', 'doomed_app').execute();
    const write = await server.call('PUT', '/api/application/doomed_app', { token: owner.token, lang: 'en', body: { name: 'Saved?' } });
    expect(write.status).toBe(409);
    expect(write.body).toEqual({ success: false, error: 'APPLICATION_DELETING', message: 'The application is in the process of deleting!' });
    const invite = await server.call('POST', '/api/application/doomed_app/user', { token: owner.token, body: { email: 'x@example.com', role: 'viewer' } });
    expect(invite.body.error).toBe('APPLICATION_DELETING');
    const read = await server.call('GET', '/api/application/doomed_app', { token: owner.token });
    expect(read.body.data).toMatchObject({ name: 'Doomed', deleting_at: expect.any(String) });
  });
});
