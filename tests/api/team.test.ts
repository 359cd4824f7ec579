import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstLink, linkParam } from '../fakes/smtp';
import {
  PASSWORD,
  PUBLIC_URL,
  addMember,
  countRows,
  createApplication,
  createUser,
  hasAuthLink,
  newEmail,
  startServer,
  type TestServer,
  type TestUser,
} from './helpers';

let server: TestServer;
let boss: TestUser;
let manager: TestUser;
let colleague: TestUser;
const APP = 'team_app';

beforeAll(async () => {
  server = await startServer();
  boss = await createUser(server, { name: 'Boss' });
  manager = await createUser(server, { name: 'Manny' });
  colleague = await createUser(server, { name: 'Colleague' });
  await createApplication(server, boss, APP, 'Team App');
  await addMember(server, boss, APP, manager, 'manager');
});
afterAll(async () => server?.close());

const team = (user: TestUser) => server.call('GET', `/api/application/${APP}/user`, { token: user.token });
const memberOf = async (email: string) =>
  (await team(boss)).body.data.items.find((member: { email: string }) => member.email === email);

describe('when a Super User adds someone who has an account', () => {
  it('makes them a member at once and emails them a notice in their own language', async () => {
    const answer = await server.call('POST', `/api/application/${APP}/user`, {
      token: boss.token,
      lang: 'en',
      body: { email: `  ${colleague.email.toUpperCase()} `, role: 'user', organization: 'Agency X' },
    });
    expect(answer.body).toEqual({
      success: true,
      data: {
        user_id: colleague.id,
        email: colleague.email,
        name: 'Colleague',
        role: 'user',
        organization: 'Agency X',
        joined: expect.any(String),
        status: 'active',
      },
    });
    // Colleague registered without asking for a language, so the notice is Vietnamese.
    const mail = await server.smtp.waitFor(colleague.email, (m) => m.subject.includes('Team App'));
    expect(mail.subject).toBe('Boss đã thêm bạn vào Team App trên Nudge');
    expect(mail.text).toContain('Người dùng');
    expect(firstLink(mail)).toBe(`${PUBLIC_URL}/application`);
    const access = await server.call('GET', `/api/application/${APP}/access`, { token: colleague.token });
    expect(access.body.data.roles).toEqual(['user']);
  });

  it('refuses someone who is already a member with CONFLICT', async () => {
    const answer = await server.call('POST', `/api/application/${APP}/user`, {
      token: boss.token,
      lang: 'en',
      body: { email: colleague.email, role: 'viewer' },
    });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ success: false, error: 'CONFLICT', message: 'This person is already a member' });
    expect((await memberOf(colleague.email)).role).toBe('user');
  });
});

describe('when a Super User invites an address with no account', () => {
  const invitee = newEmail('invitee');

  it('lists them as invited and emails an invitation to register with that address', async () => {
    const answer = await server.call('POST', `/api/application/${APP}/user`, {
      token: boss.token,
      lang: 'en',
      body: { email: invitee, role: 'viewer' },
    });
    expect(answer.body.data).toMatchObject({ email: invitee, name: null, role: 'viewer', status: 'invited', organization: null });
    const mail = await server.smtp.waitFor(invitee);
    expect(mail.subject).toBe('You have been invited to Team App on Nudge');
    expect(mail.text).toContain('Boss invited you to the application Team App as Viewer.');
    expect(firstLink(mail)).toBe(`${PUBLIC_URL}/register?email=${encodeURIComponent(invitee)}`);
  });

  it('the invitee cannot sign in before registering', async () => {
    const answer = await server.call('POST', '/api/user/login', { body: { username: invitee, password: PASSWORD } });
    expect(answer.body.error).toBe('INVALID_PARAM');
  });

  it('registering with that address takes up the invitation: the membership becomes active', async () => {
    const registered = await server.call('POST', '/api/user/register', {
      body: { name: 'Newcomer', email: invitee, password: PASSWORD, mobile_number: '0912345678' },
    });
    expect(registered.status).toBe(200);
    expect(registered.body.data).toMatchObject({ name: 'Newcomer', email: invitee });
    const hash = linkParam(await server.smtp.waitFor(invitee, hasAuthLink), 'hash');
    const verified = await server.call('POST', '/api/user/verify', { body: { hash } });
    const token = verified.body.data.auth_token;

    expect(await memberOf(invitee)).toMatchObject({ name: 'Newcomer', role: 'viewer', status: 'active' });
    const list = await server.call('GET', '/api/application', { token });
    expect(list.body.data.items.map((item: { application_id: string; role: string }) => [item.application_id, item.role])).toEqual([[APP, 'viewer']]);
    expect((await server.call('GET', '/api/user/me', { token })).body.data.mobile_number).toBe('0912345678');
  });

  it('the address then counts as registered', async () => {
    const again = await server.call('POST', '/api/user/register', { body: { name: 'Twice', email: invitee, password: PASSWORD } });
    expect(again.body.error).toBe('CONFLICT');
  });

  it('removing an invitation that was never taken up forgets the address entirely', async () => {
    const ghost = newEmail('ghost');
    const invited = await server.call('POST', `/api/application/${APP}/user`, { token: boss.token, body: { email: ghost, role: 'user' } });
    await server.smtp.waitFor(ghost);
    const users = await countRows(server, 'users');
    const removed = await server.call('DELETE', `/api/application/${APP}/user/${invited.body.data.user_id}`, { token: boss.token });
    expect(removed.body).toEqual({ success: true, data: {} });
    expect(await countRows(server, 'users')).toBe(users - 1);
    expect(await memberOf(ghost)).toBeUndefined();
  });
});

describe('the team list', () => {
  it('shows email, role, organization and joined date, in the order people joined', async () => {
    const answer = await team(manager);
    expect(answer.body.data.page).toBe(1);
    const [first, second] = answer.body.data.items;
    expect(first).toMatchObject({ email: boss.email, role: 'super_user', status: 'active' });
    expect(second).toMatchObject({ email: manager.email, role: 'manager' });
    expect(answer.body.data.total).toBe(answer.body.data.items.length);
  });
});

describe('the roles a caller may hand out', () => {
  it('are every member role for a Super User, with their label keys', async () => {
    const answer = await server.call('GET', `/api/application/${APP}/user/role`, { token: boss.token });
    expect(answer.body.data.roles).toEqual([
      { role: 'super_user', label: 'roles.super_user' },
      { role: 'manager', label: 'roles.manager' },
      { role: 'user', label: 'roles.user' },
      { role: 'viewer', label: 'roles.viewer' },
      { role: 'ads_manager', label: 'roles.ads_manager' },
    ]);
  });

  it('leave out Super User for a Manager', async () => {
    const answer = await server.call('GET', `/api/application/${APP}/user/role`, { token: manager.token });
    expect(answer.body.data.roles.map((entry: { role: string }) => entry.role)).toEqual(['manager', 'user', 'viewer', 'ads_manager']);
  });
});

describe('role rules', () => {
  it('nobody changes their own role (errors.ownRole), not even a Super User', async () => {
    const answer = await server.call('PUT', `/api/application/${APP}/user/${boss.id}`, { token: boss.token, lang: 'en', body: { role: 'manager' } });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ success: false, error: 'NO_PERMISSION', message: 'You cannot change your own role' });
    const self = await server.call('PUT', `/api/application/${APP}/user/${manager.id}`, { token: manager.token, body: { role: 'super_user' } });
    expect(self.body.error).toBe('NO_PERMISSION');
    expect((await memberOf(manager.email)).role).toBe('manager');
  });

  it('a member may edit their own organization while keeping the role', async () => {
    const answer = await server.call('PUT', `/api/application/${APP}/user/${manager.id}`, {
      token: manager.token,
      body: { role: 'manager', organization: 'Own Agency' },
    });
    expect(answer.body.data).toMatchObject({ role: 'manager', organization: 'Own Agency' });
  });

  it('a Manager cannot hand out Super User', async () => {
    const answer = await server.call('POST', `/api/application/${APP}/user`, {
      token: manager.token,
      lang: 'en',
      body: { email: newEmail('promoted'), role: 'super_user' },
    });
    expect(answer.body).toEqual({ success: false, error: 'NO_PERMISSION', message: 'You cannot do this action!' });
    const raise = await server.call('PUT', `/api/application/${APP}/user/${colleague.id}`, { token: manager.token, body: { role: 'super_user' } });
    expect(raise.body.error).toBe('NO_PERMISSION');
    expect((await memberOf(colleague.email)).role).toBe('user');
  });

  it('a Manager cannot touch a Super User member', async () => {
    const demote = await server.call('PUT', `/api/application/${APP}/user/${boss.id}`, { token: manager.token, body: { role: 'viewer' } });
    expect(demote.body.error).toBe('NO_PERMISSION');
    const remove = await server.call('DELETE', `/api/application/${APP}/user/${boss.id}`, { token: manager.token });
    expect(remove.body.error).toBe('NO_PERMISSION');
    expect((await memberOf(boss.email)).role).toBe('super_user');
  });

  it('a Manager changes roles up to Manager', async () => {
    const answer = await server.call('PUT', `/api/application/${APP}/user/${colleague.id}`, { token: manager.token, body: { role: 'ads_manager' } });
    expect(answer.body.data).toMatchObject({ user_id: colleague.id, role: 'ads_manager', organization: 'Agency X' });
    const back = await server.call('PUT', `/api/application/${APP}/user/${colleague.id}`, { token: manager.token, body: { role: 'user', organization: '' } });
    expect(back.body.data).toMatchObject({ role: 'user', organization: null });
  });

  it('the application always keeps one Super User', async () => {
    const admin = await createUser(server, { name: 'Admin', admin: true });
    const demote = await server.call('PUT', `/api/application/${APP}/user/${boss.id}`, { token: admin.token, lang: 'en', body: { role: 'manager' } });
    expect(demote.status).toBe(409);
    expect(demote.body).toEqual({ success: false, error: 'CONFLICT', message: 'An application must keep at least one Super User' });
    const leave = await server.call('DELETE', `/api/application/${APP}/user/${boss.id}`, { token: boss.token });
    expect(leave.body.error).toBe('CONFLICT');
    expect((await memberOf(boss.email)).role).toBe('super_user');
  });

  it('with a second Super User, the first may be demoted by the second', async () => {
    const second = await createUser(server, { name: 'Second' });
    await addMember(server, boss, APP, second, 'super_user');
    const demote = await server.call('PUT', `/api/application/${APP}/user/${boss.id}`, { token: second.token, body: { role: 'manager' } });
    expect(demote.body.data.role).toBe('manager');
    const restore = await server.call('PUT', `/api/application/${APP}/user/${boss.id}`, { token: second.token, body: { role: 'super_user' } });
    expect(restore.body.data.role).toBe('super_user');
    const removed = await server.call('DELETE', `/api/application/${APP}/user/${second.id}`, { token: boss.token });
    expect(removed.body.success).toBe(true);
  });

  it('a user id that is not a member is NOT_FOUND', async () => {
    const outsider = await createUser(server);
    const answer = await server.call('PUT', `/api/application/${APP}/user/${outsider.id}`, { token: boss.token, body: { role: 'user' } });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toBe('NOT_FOUND');
    expect((await server.call('DELETE', `/api/application/${APP}/user/999999`, { token: boss.token })).body.error).toBe('NOT_FOUND');
  });

  it('a malformed user id or role is INVALID_PARAM', async () => {
    const badId = await server.call('PUT', `/api/application/${APP}/user/abc`, { token: boss.token, body: { role: 'user' } });
    expect(badId.body.error).toBe('INVALID_PARAM');
    const badRole = await server.call('PUT', `/api/application/${APP}/user/${colleague.id}`, { token: boss.token, body: { role: 'admin' } });
    expect(badRole.body.error).toBe('INVALID_PARAM');
    expect(badRole.body.fields[0].path).toBe('role');
  });
});
