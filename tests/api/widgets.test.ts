import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMember,
  createApplication,
  createUser,
  db,
  startServer,
  type Answer,
  type TestServer,
  type TestUser,
} from './helpers';

/**
 * The console's widget screens (/banner, /suggestion, /fake_noti, /maxlead, /feature, /maxlead_report) through
 * the real server: spec §6 roles for each call, the contract's validation, the plan's caps.
 */
const APP = 'widget_app';
const OTHER = 'widget_other';
const STANDINGS = ['super_user', 'manager', 'user', 'viewer', 'ads_manager', 'outsider', 'admin', 'anonymous'] as const;
type Standing = (typeof STANDINGS)[number];
const WRITERS: readonly Standing[] = ['super_user', 'manager', 'user', 'admin'];
const READERS: readonly Standing[] = [...WRITERS, 'viewer'];

let server: TestServer;
const users = {} as Record<Exclude<Standing, 'anonymous'>, TestUser>;

beforeAll(async () => {
  server = await startServer();
  for (const standing of STANDINGS) {
    if (standing !== 'anonymous') users[standing] = await createUser(server, { name: standing, admin: standing === 'admin' });
  }
  await createApplication(server, users.super_user, APP, 'Widgets');
  await createApplication(server, users.outsider, OTHER, 'Other');
  for (const role of ['manager', 'user', 'viewer', 'ads_manager'] as const) await addMember(server, users.super_user, APP, users[role], role);
}, 120_000);
afterAll(async () => server?.close());

const tokenOf = (standing: Standing) => (standing === 'anonymous' ? undefined : users[standing].token);
const base = `/api/application/${APP}/widget`;

function bannerBody(name = 'Summer banner') {
  return {
    type: 'banner',
    name,
    status: 'active',
    settings: { title: 'Sale', text: 'Everything -20%', link: 'https://shop.example.com/sale', background: '#ffffff', color: '#111' },
  };
}

function maxleadBody(buttons: number, phones = 0) {
  const types = ['zalo', 'facebook', 'mail', 'telegram', 'viber'];
  return {
    type: 'maxlead',
    name: 'Contact us',
    settings: {
      buttons: types.slice(0, buttons).map((type) => ({ type, value: type === 'mail' ? 'shop@example.com' : '0912345678' })),
      phones: Array.from({ length: phones }, (_, i) => ({ number: `091234567${i}` })),
    },
  };
}

function spinBody(slices: unknown[]) {
  return { type: 'spin', name: 'Lucky wheel', settings: { title: 'Spin to win', slices } };
}

async function createWidget(body: unknown = bannerBody()) {
  const answer = await server.call('POST', base, { token: users.super_user.token, body });
  if (answer.status !== 200) throw new Error(`create widget failed: ${JSON.stringify(answer.body)}`);
  return answer.body.data as { id: number; name: string; status: string };
}

async function widgetRow(id: number) {
  return db(server).selectFrom('widgets').selectAll().where('id', '=', id).executeTakeFirst();
}

interface RouteCase {
  name: string;
  write: boolean;
  run(standing: Standing): Promise<{ answer: Answer; changed: () => Promise<boolean> }>;
}

const unchanged = async () => false;

const ROUTES: RouteCase[] = [
  {
    name: 'GET /application/{id}/widget',
    write: false,
    run: async (s) => ({ answer: await server.call('GET', base, { token: tokenOf(s) }), changed: unchanged }),
  },
  {
    name: 'GET /application/{id}/widget/{widget_id}',
    write: false,
    run: async (s) => {
      const widget = await createWidget();
      return { answer: await server.call('GET', `${base}/${widget.id}`, { token: tokenOf(s) }), changed: unchanged };
    },
  },
  {
    name: 'POST /application/{id}/widget',
    write: true,
    run: async (s) => {
      const name = `Made by ${s}`;
      const answer = await server.call('POST', base, { token: tokenOf(s), body: bannerBody(name) });
      const changed = async () => !!(await db(server).selectFrom('widgets').select('id').where('name', '=', name).executeTakeFirst());
      return { answer, changed };
    },
  },
  {
    name: 'PUT /application/{id}/widget/{widget_id}',
    write: true,
    run: async (s) => {
      const widget = await createWidget();
      const answer = await server.call('PUT', `${base}/${widget.id}`, { token: tokenOf(s), body: bannerBody(`Renamed by ${s}`) });
      return { answer, changed: async () => (await widgetRow(widget.id))?.name !== widget.name };
    },
  },
  {
    name: 'POST /application/{id}/widget/{widget_id}/status',
    write: true,
    run: async (s) => {
      const widget = await createWidget();
      const answer = await server.call('POST', `${base}/${widget.id}/status`, { token: tokenOf(s), body: { status: 'inactive' } });
      return { answer, changed: async () => (await widgetRow(widget.id))?.status !== 'active' };
    },
  },
  {
    name: 'DELETE /application/{id}/widget/{widget_id}',
    write: true,
    run: async (s) => {
      const widget = await createWidget();
      const answer = await server.call('DELETE', `${base}/${widget.id}`, { token: tokenOf(s) });
      return { answer, changed: async () => !(await widgetRow(widget.id)) };
    },
  },
  {
    name: 'GET /application/{id}/lead',
    write: false,
    run: async (s) => ({ answer: await server.call('GET', `/api/application/${APP}/lead`, { token: tokenOf(s) }), changed: unchanged }),
  },
  {
    name: 'GET /application/{id}/lead/export.csv',
    write: false,
    run: async (s) => ({ answer: await server.call('GET', `/api/application/${APP}/lead/export.csv`, { token: tokenOf(s) }), changed: unchanged }),
  },
  {
    name: 'GET /application/{id}/lead/clicks',
    write: false,
    run: async (s) => ({ answer: await server.call('GET', `/api/application/${APP}/lead/clicks`, { token: tokenOf(s) }), changed: unchanged }),
  },
];

describe.each(ROUTES.map((route) => [route.name, route] as const))('%s', (_name, route) => {
  const allowed = route.write ? WRITERS : READERS;
  it.each(
    STANDINGS.map((standing) => {
      const outcome = allowed.includes(standing)
        ? 'is allowed'
        : standing === 'anonymous'
          ? 'answers NOT_AUTHORIZED'
          : 'answers NO_PERMISSION and changes nothing';
      return [standing, outcome] as const;
    }),
  )('for %s %s', async (standing) => {
    const { answer, changed } = await route.run(standing);
    if (allowed.includes(standing)) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      if (typeof answer.body === 'object') expect(answer.body.success).toBe(true);
      return;
    }
    const code = standing === 'anonymous' ? 'NOT_AUTHORIZED' : 'NO_PERMISSION';
    expect(answer.status).toBe(code === 'NOT_AUTHORIZED' ? 401 : 403);
    expect(answer.body).toMatchObject({ success: false, error: code });
    expect(await changed()).toBe(false);
  });
});

describe('when a member creates a widget', () => {
  it('answers it with the contract’s defaults filled in and zero counters', async () => {
    const answer = await server.call('POST', base, { token: users.user.token, body: { type: 'contact', name: '  Newsletter  ', settings: { title: 'Join us' } } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      id: expect.any(Number),
      type: 'contact',
      name: 'Newsletter',
      status: 'inactive',
      settings: expect.objectContaining({ title: 'Join us', fields: ['name', 'email'], required: ['email'], position: 'center' }),
      rules: {
        pages: [],
        devices: ['desktop', 'mobile'],
        delay_seconds: 0,
        scroll: 'none',
        exit_intent: false,
        frequency: 'every_page',
        start_at: null,
        end_at: null,
      },
      views: 0,
      clicks: 0,
      leads: 0,
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      updated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const read = await server.call('GET', `${base}/${answer.body.data.id}`, { token: users.viewer.token });
    expect(read.body.data).toEqual(answer.body.data);
  });

  it('refuses a javascript: link with the link message, in the language asked for', async () => {
    const body = { ...bannerBody(), settings: { ...bannerBody().settings, link: 'javascript:alert(1)' } };
    const en = await server.call('POST', base, { token: users.manager.token, body, lang: 'en' });
    expect(en.status).toBe(400);
    expect(en.body).toEqual({
      success: false,
      error: 'INVALID_PARAM',
      message: 'A link must start with http:, https:, mailto: or tel:',
      fields: [{ path: 'settings.link', message: 'A link must start with http:, https:, mailto: or tel:' }],
    });
    const vi = await server.call('POST', base, { token: users.manager.token, body });
    expect(vi.body.fields[0].path).toBe('settings.link');
    expect(vi.body.message).not.toBe(en.body.message);
  });

  it('refuses a colour that is not #rgb or #rrggbb', async () => {
    const body = { ...bannerBody(), settings: { ...bannerBody().settings, background: 'red;position:fixed' } };
    const answer = await server.call('POST', base, { token: users.manager.token, body, lang: 'en' });
    expect(answer.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'settings.background', message: 'Please enter a colour as #rrggbb' }] });
  });

  it('refuses a spin wheel where no slice has odds above 0', async () => {
    const slices = [
      { id: 'a', label: 'A', color: '#ff0000', weight: 0 },
      { id: 'b', label: 'B', color: '#00ff00', weight: 0, lose: true },
    ];
    const answer = await server.call('POST', base, { token: users.manager.token, body: spinBody(slices), lang: 'en' });
    expect(answer.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'settings.slices', message: 'At least one slice needs odds above 0' }] });
  });

  it('refuses an unknown widget type', async () => {
    const answer = await server.call('POST', base, { token: users.manager.token, body: { ...bannerBody(), type: 'popup' }, lang: 'en' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INVALID_PARAM');
  });

  it('refuses a 4th contact button on the free plan with the plan’s message, and creates nothing', async () => {
    const before = await db(server).selectFrom('widgets').select('id').where('type', '=', 'maxlead').execute();
    const answer = await server.call('POST', base, { token: users.user.token, body: maxleadBody(4), lang: 'en' });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ success: false, error: 'PLAN_LIMIT', message: 'Your account only support maximum 3 buttons' });
    const vi = await server.call('POST', base, { token: users.user.token, body: maxleadBody(4) });
    expect(vi.body.message).toBe('Tài khoản của bạn chỉ hỗ trợ tối đa 3 nút');
    const after = await db(server).selectFrom('widgets').select('id').where('type', '=', 'maxlead').execute();
    expect(after.length).toBe(before.length);
  });

  it('refuses a 2nd phone number on the free plan', async () => {
    const answer = await server.call('POST', base, { token: users.user.token, body: maxleadBody(2, 2), lang: 'en' });
    expect(answer.body).toEqual({ success: false, error: 'PLAN_LIMIT', message: 'Your account only support maximum 1 phone numbers' });
  });

  it('takes 3 buttons on the free plan, and 5 once the application is on pay as you go', async () => {
    expect((await server.call('POST', base, { token: users.user.token, body: maxleadBody(3, 1) })).status).toBe(200);
    await db(server).updateTable('applications').set({ plan: 'pay_as_you_go' }).where('application_id', '=', APP).execute();
    try {
      expect((await server.call('POST', base, { token: users.user.token, body: maxleadBody(5, 3) })).status).toBe(200);
    } finally {
      await db(server).updateTable('applications').set({ plan: 'free' }).where('application_id', '=', APP).execute();
    }
  });
});

describe('when a member edits a widget', () => {
  it('replaces its settings and keeps its id and creation time', async () => {
    const widget = await createWidget(bannerBody('Before'));
    const body = { ...bannerBody('After'), status: 'inactive', settings: { ...bannerBody().settings, title: 'New title' } };
    const answer = await server.call('PUT', `${base}/${widget.id}`, { token: users.manager.token, body });
    expect(answer.body.data).toMatchObject({ id: widget.id, name: 'After', status: 'inactive', settings: { title: 'New title' } });
  });

  it('refuses to change its type', async () => {
    const widget = await createWidget();
    const answer = await server.call('PUT', `${base}/${widget.id}`, {
      token: users.manager.token,
      body: { type: 'contact', name: 'Form now', settings: { title: 'Form' } },
      lang: 'en',
    });
    expect(answer.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'type', message: "A widget's type cannot be changed; create a new widget instead" }] });
    expect((await widgetRow(widget.id))?.type).toBe('banner');
  });

  it('checks contact buttons against the plan on edit and when switching them on', async () => {
    const widget = await createWidget({ ...maxleadBody(3), status: 'inactive' });
    const put = await server.call('PUT', `${base}/${widget.id}`, { token: users.manager.token, body: maxleadBody(4), lang: 'en' });
    expect(put.body.error).toBe('PLAN_LIMIT');
    // A widget saved while the application was on a bigger plan cannot be switched on after a downgrade.
    await db(server).updateTable('widgets').set({ settings: JSON.stringify(maxleadBody(5).settings) }).where('id', '=', widget.id).execute();
    const on = await server.call('POST', `${base}/${widget.id}/status`, { token: users.manager.token, body: { status: 'active' }, lang: 'en' });
    expect(on.body).toEqual({ success: false, error: 'PLAN_LIMIT', message: 'Your account only support maximum 3 buttons' });
    expect((await widgetRow(widget.id))?.status).toBe('inactive');
  });

  it('answers NOT_FOUND for a widget of another application, and leaves it alone', async () => {
    const theirs = await server.call('POST', `/api/application/${OTHER}/widget`, { token: users.outsider.token, body: bannerBody('Theirs') });
    const id = theirs.body.data.id;
    for (const [method, url, body] of [
      ['GET', `${base}/${id}`, undefined],
      ['PUT', `${base}/${id}`, bannerBody('Stolen')],
      ['POST', `${base}/${id}/status`, { status: 'inactive' }],
      ['DELETE', `${base}/${id}`, undefined],
    ] as const) {
      const answer = await server.call(method, url, { token: users.super_user.token, body });
      expect(answer.body.error).toBe('NOT_FOUND');
    }
    expect(await widgetRow(id)).toMatchObject({ name: 'Theirs', status: 'active' });
  });

  it('deletes it with its counters, but keeps the leads it collected', async () => {
    const widget = await createWidget({ type: 'contact', name: 'Doomed form', status: 'active', settings: { title: 'Hi' } });
    const key = (await server.call('GET', `/api/application/${APP}`, { token: users.super_user.token })).body.data.client_key;
    const lead = await server.call('POST', '/api/sdk/lead', { body: { key, widget_id: widget.id, visitor_id: 'visitor-doomed', email: 'kept@example.com' } });
    expect(lead.status).toBe(200);
    expect((await server.call('DELETE', `${base}/${widget.id}`, { token: users.super_user.token })).status).toBe(200);
    expect(await widgetRow(widget.id)).toBeUndefined();
    expect(await db(server).selectFrom('widget_stats').selectAll().where('widget_id', '=', widget.id).execute()).toEqual([]);
    const leads = await server.call('GET', `/api/application/${APP}/lead`, { token: users.super_user.token });
    expect(leads.body.data.items.find((item: { email: string }) => item.email === 'kept@example.com')).toMatchObject({ widget_id: null, widget_name: null, source: 'contact' });
  });
});

describe('the widget list', () => {
  const LIST_APP = 'widget_list_app';
  let owner: TestUser;
  beforeAll(async () => {
    owner = await createUser(server, { name: 'Lister' });
    await createApplication(server, owner, LIST_APP);
    const url = `/api/application/${LIST_APP}/widget`;
    for (const body of [
      bannerBody('First banner'),
      { type: 'schedule', name: 'Flash', settings: { title: 'Ends soon' } },
      { type: 'fake_noti', name: 'Buyers', settings: { items: [{ product: 'Red shoes' }] } },
      { type: 'suggestion', name: 'Picks', settings: { title: 'For you', items: [{ title: 'Hat', url: 'https://shop.example.com/hat' }] } },
    ]) {
      const answer = await server.call('POST', url, { token: owner.token, body });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      server.clock.advance(1000);
    }
  });

  const list = (query: string) => server.call('GET', `/api/application/${LIST_APP}/widget${query}`, { token: owner.token, lang: 'en' });

  it('shows the newest first, and pages', async () => {
    const all = await list('');
    expect(all.body.data.items.map((w: { name: string }) => w.name)).toEqual(['Picks', 'Buyers', 'Flash', 'First banner']);
    const second = await list('?page=2&limit=3');
    expect(second.body.data).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(second.body.data.items.map((w: { name: string }) => w.name)).toEqual(['First banner']);
  });

  it('filters by types, as the banner screen asks', async () => {
    const banners = await list('?types=schedule,banner,contact,spin');
    expect(banners.body.data.items.map((w: { type: string }) => w.type)).toEqual(['schedule', 'banner']);
    expect(banners.body.data.total).toBe(2);
  });

  it('refuses an unknown type in the filter', async () => {
    const answer = await list('?types=banner,popup');
    expect(answer.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'types', message: 'This value is not valid' }] });
  });

  it('adds up each widget’s views, clicks and leads over the days', async () => {
    const key = (await server.call('GET', `/api/application/${LIST_APP}`, { token: owner.token })).body.data.client_key;
    const banner = (await list('?types=banner')).body.data.items[0];
    const event = (kind: string) => server.call('POST', '/api/sdk/event', { body: { key, widget_id: banner.id, visitor_id: 'visitor-counter', kind } });
    await event('view');
    await event('view');
    server.clock.advance(24 * 3600_000);
    await event('view');
    await event('click');
    const after = (await list('?types=banner')).body.data.items[0];
    expect(after).toMatchObject({ views: 3, clicks: 1, leads: 0 });
    const rows = await db(server).selectFrom('widget_stats').select(['day', 'views']).where('widget_id', '=', banner.id).orderBy('day').execute();
    expect(rows.map((row) => row.views)).toEqual([2, 1]);
  });
});

describe('the OpenAPI document', () => {
  it('documents every widget, lead and storefront call', async () => {
    const answer = await server.call('GET', '/api/docs/json');
    const paths = answer.body.paths;
    for (const [path, methods] of [
      ['/api/application/{application_id}/widget', ['get', 'post']],
      ['/api/application/{application_id}/widget/{widget_id}', ['get', 'put', 'delete']],
      ['/api/application/{application_id}/widget/{widget_id}/status', ['post']],
      ['/api/application/{application_id}/lead', ['get']],
      ['/api/application/{application_id}/lead/export.csv', ['get']],
      ['/api/application/{application_id}/lead/clicks', ['get']],
      ['/api/sdk/config', ['get']],
      ['/api/sdk/lead', ['post']],
      ['/api/sdk/spin', ['post']],
      ['/api/sdk/event', ['post']],
    ] as const) {
      for (const method of methods) {
        expect(paths[path]?.[method]?.description, `${method} ${path}`).toEqual(expect.any(String));
      }
    }
    expect(paths['/api/sdk/spin'].post.tags).toEqual(['storefront']);
    expect(paths['/api/sdk/spin'].post.security).toBeUndefined();
    expect(paths['/api/application/{application_id}/widget'].post.security).toEqual([{ token: [] }, { accessToken: [] }]);
  });
});
