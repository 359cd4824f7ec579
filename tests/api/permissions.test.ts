import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMember,
  createApplication,
  createUser,
  db,
  newEmail,
  startServer,
  type Answer,
  type TestServer,
  type TestUser,
} from './helpers';

/**
 * Every route of this slice × every standing of spec §6: the five member roles, a member of another
 * application, a platform admin, and nobody signed in. Refused writes must change nothing.
 */
const APP = 'matrix_app';
const OTHER = 'other_app';
const STANDINGS = ['super_user', 'manager', 'user', 'viewer', 'ads_manager', 'outsider', 'admin', 'anonymous'] as const;
type Standing = (typeof STANDINGS)[number];

type Rule = 'member' | 'platform' | 'team' | 'signedIn';
const ALLOWED: Record<Rule, readonly Standing[]> = {
  member: ['super_user', 'manager', 'user', 'viewer', 'ads_manager', 'admin'],
  platform: ['super_user', 'ads_manager', 'admin'],
  team: ['super_user', 'manager', 'admin'],
  signedIn: ['super_user', 'manager', 'user', 'viewer', 'ads_manager', 'outsider', 'admin'],
};

let server: TestServer;
const users = {} as Record<Exclude<Standing, 'anonymous'>, TestUser>;
let target: TestUser;

beforeAll(async () => {
  server = await startServer();
  for (const standing of STANDINGS) {
    if (standing !== 'anonymous') users[standing] = await createUser(server, { name: standing, admin: standing === 'admin' });
  }
  target = await createUser(server, { name: 'target' });
  await createApplication(server, users.super_user, APP, 'Matrix');
  await createApplication(server, users.outsider, OTHER, 'Other');
  for (const role of ['manager', 'user', 'viewer', 'ads_manager'] as const) await addMember(server, users.super_user, APP, users[role], role);
  await addMember(server, users.super_user, APP, target, 'user');
}, 120_000);
afterAll(async () => server?.close());

const tokenOf = (standing: Standing) => (standing === 'anonymous' ? undefined : users[standing].token);

async function membershipOf(userId: number) {
  return db(server)
    .selectFrom('memberships')
    .select(['role', 'organization'])
    .where('application_id', '=', APP)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

interface RouteCase {
  name: string;
  rule: Rule;
  /** Calls the route as `standing`; returns the answer and a check of the state afterwards. */
  run(standing: Standing): Promise<{ answer: Answer; changed: () => Promise<boolean> }>;
}

const noChangeCheck = async () => false;

const ROUTES: RouteCase[] = [
  {
    name: 'GET /application/{id}',
    rule: 'member',
    run: async (s) => ({ answer: await server.call('GET', `/api/application/${APP}`, { token: tokenOf(s) }), changed: noChangeCheck }),
  },
  {
    name: 'GET /application/{id}/access',
    rule: 'member',
    run: async (s) => ({ answer: await server.call('GET', `/api/application/${APP}/access`, { token: tokenOf(s) }), changed: noChangeCheck }),
  },
  {
    name: 'PUT /application/{id}',
    rule: 'platform',
    run: async (s) => {
      const name = `Renamed by ${s}`;
      const answer = await server.call('PUT', `/api/application/${APP}`, { token: tokenOf(s), body: { name } });
      const changed = async () => {
        const row = await db(server).selectFrom('applications').select('name').where('application_id', '=', APP).executeTakeFirstOrThrow();
        return row.name === name;
      };
      return { answer, changed };
    },
  },
  {
    name: 'GET /application/{id}/user',
    rule: 'team',
    run: async (s) => ({ answer: await server.call('GET', `/api/application/${APP}/user`, { token: tokenOf(s) }), changed: noChangeCheck }),
  },
  {
    name: 'GET /application/{id}/user/role',
    rule: 'team',
    run: async (s) => ({ answer: await server.call('GET', `/api/application/${APP}/user/role`, { token: tokenOf(s) }), changed: noChangeCheck }),
  },
  {
    name: 'POST /application/{id}/user',
    rule: 'team',
    run: async (s) => {
      const email = newEmail(`invited-by-${s}`);
      const answer = await server.call('POST', `/api/application/${APP}/user`, { token: tokenOf(s), body: { email, role: 'viewer' } });
      const changed = async () => !!(await db(server).selectFrom('users').select('id').where('email', '=', email).executeTakeFirst());
      return { answer, changed };
    },
  },
  {
    name: 'PUT /application/{id}/user/{user_id}',
    rule: 'team',
    run: async (s) => {
      const answer = await server.call('PUT', `/api/application/${APP}/user/${target.id}`, {
        token: tokenOf(s),
        body: { role: 'viewer', organization: `set by ${s}` },
      });
      const after = await membershipOf(target.id);
      const changed = async () => after?.role !== 'user' || after?.organization !== null;
      // Put the target back for the next standing.
      await db(server).updateTable('memberships').set({ role: 'user', organization: null }).where('user_id', '=', target.id).execute();
      return { answer, changed };
    },
  },
  {
    name: 'DELETE /application/{id}/user/{user_id}',
    rule: 'team',
    run: async (s) => {
      const answer = await server.call('DELETE', `/api/application/${APP}/user/${target.id}`, { token: tokenOf(s) });
      const gone = !(await membershipOf(target.id));
      if (gone) await addMember(server, users.super_user, APP, target, 'user');
      return { answer, changed: async () => gone };
    },
  },
  {
    name: 'GET /application',
    rule: 'signedIn',
    run: async (s) => ({ answer: await server.call('GET', '/api/application', { token: tokenOf(s) }), changed: noChangeCheck }),
  },
  {
    name: 'POST /application',
    rule: 'signedIn',
    run: async (s) => {
      const id = `made_by_${s}`;
      const answer = await server.call('POST', '/api/application', { token: tokenOf(s), body: { application_id: id, name: id } });
      const changed = async () =>
        !!(await db(server).selectFrom('applications').select('application_id').where('application_id', '=', id).executeTakeFirst());
      return { answer, changed };
    },
  },
  {
    name: 'GET /user/me',
    rule: 'signedIn',
    run: async (s) => ({ answer: await server.call('GET', '/api/user/me', { token: tokenOf(s) }), changed: noChangeCheck }),
  },
  {
    name: 'GET /user/security',
    rule: 'signedIn',
    run: async (s) => ({ answer: await server.call('GET', '/api/user/security', { token: tokenOf(s) }), changed: noChangeCheck }),
  },
  {
    // The user's own account calls stay open to a viewer: blocking them would lock a viewer out of security.
    name: 'POST /user/password/change {otp_enabled}',
    rule: 'signedIn',
    run: async (s) => ({
      answer: await server.call('POST', '/api/user/password/change', { token: tokenOf(s), body: { otp_enabled: false } }),
      changed: noChangeCheck,
    }),
  },
];

const CELLS = ROUTES.flatMap((route) => STANDINGS.map((standing) => ({ route, standing, allowed: ALLOWED[route.rule].includes(standing) })));

describe.each(ROUTES.map((route) => [route.name, route] as const))('%s', (_name, route) => {
  const cells = CELLS.filter((cell) => cell.route === route);
  it.each(cells.map((cell) => [cell.standing, cell.allowed ? 'is allowed' : cell.standing === 'anonymous' ? 'answers NOT_AUTHORIZED' : 'answers NO_PERMISSION and changes nothing', cell] as const))(
    'for %s %s',
    async (standing, _outcome, cell) => {
      const { answer, changed } = await route.run(standing);
      if (cell.allowed) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body.success).toBe(true);
        return;
      }
      const code = standing === 'anonymous' ? 'NOT_AUTHORIZED' : 'NO_PERMISSION';
      expect(answer.status).toBe(code === 'NOT_AUTHORIZED' ? 401 : 403);
      expect(answer.body).toEqual({
        success: false,
        error: code,
        message: code === 'NOT_AUTHORIZED' ? 'Phiên đăng nhập đã hết hạn, vui lòng đăng nhập lại.' : 'KHÔNG CÓ QUYỀN',
      });
      expect(await changed()).toBe(false);
    },
  );
});

describe('what the roles see', () => {
  it('access answers each member exactly their role', async () => {
    for (const role of ['super_user', 'manager', 'user', 'viewer', 'ads_manager'] as const) {
      const answer = await server.call('GET', `/api/application/${APP}/access`, { token: users[role].token });
      expect(answer.body.data.roles).toEqual([role]);
    }
  });

  it('a member of another application cannot read its access, its team or its settings', async () => {
    for (const path of ['', '/access', '/user', '/user/role']) {
      const answer = await server.call('GET', `/api/application/${OTHER}${path}`, { token: users.viewer.token });
      expect(answer.body.error).toBe('NO_PERMISSION');
    }
  });

  it('a viewer’s write is refused before its body is even looked at', async () => {
    const answer = await server.call('PUT', `/api/application/${APP}`, { token: users.viewer.token, body: { name: '' } });
    expect(answer.body.error).toBe('NO_PERMISSION');
  });
});
