import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_LOG_COUNT_CAP, type PlatformKind, segmentNameKey } from '../../shared/contract';
import { transitionNotification } from '../../server/domain/notifications';
import { recordDeliveryReport } from '../../server/delivery/reports';
import { addMember, createApplication, createUser, db, startServer, type Answer, type TestServer, type TestUser } from './helpers';
import { insertPlayer } from './players-fixtures';

/**
 * The console's messaging API through the real server: messages of each type and spec §5's rules (a platform
 * first, the content per type, the plan's buttons, ids of the application, schedules), the status transitions
 * and their races, the list's filters, templates, campaigns (totals, delete by name), a message's report and
 * the recipients' log over delivery rows written as the engine writes them, and spec §6's roles.
 */
const APP = 'messaging_app';
const BARE = 'messaging_bare';
const OTHER = 'messaging_other';
const STANDINGS = ['super_user', 'manager', 'user', 'viewer', 'ads_manager', 'outsider', 'anonymous'] as const;
type Standing = (typeof STANDINGS)[number];

let server: TestServer;
const users = {} as Record<Exclude<Standing, 'anonymous'>, TestUser>;
const tokenOf = (standing: Standing) => (standing === 'anonymous' ? undefined : users[standing].token);
const owner = () => users.super_user;

const base = `/api/application/${APP}`;

const WEB_SETTINGS = {
  enabled: true,
  site_url: 'https://shop.example.vn',
  sw_path: '/nudge-sw.js',
  box: { text: 'Nhận tin khuyến mãi?', allow_text: 'Cho phép', deny_text: 'Để sau', delay_seconds: 3, position: 'top' },
};

/** A platform row as the platform settings save it: active (or not) for its kind. */
async function setPlatform(applicationId: string, kind: PlatformKind, status: 'active' | 'inactive') {
  await db(server)
    .insertInto('platforms')
    .values({ application_id: applicationId, kind, status, settings: '{}', created_at: server.clock.now().toISOString() })
    .onConflict((oc) => oc.columns(['application_id', 'kind']).doUpdateSet({ status }))
    .execute();
}

const CONTENT = {
  mobile_push: { heading: 'Flash sale', content: 'Everything -20% until midnight', target_url: 'https://shop.example.vn/sale' },
  web_push: { heading: 'Flash sale', content: 'Everything -20% until midnight', target_url: 'https://shop.example.vn/sale' },
  sms: { content: 'Flash sale: everything -20% until midnight' },
  facebook: { heading: 'Flash sale', content: 'Everything -20% until midnight' },
} as const;
type Type = keyof typeof CONTENT;

function message(type: Type = 'web_push', over: Record<string, unknown> = {}) {
  return { type, content: { ...CONTENT[type] }, ...over };
}

async function create(body: unknown, standing: Standing = 'super_user', applicationId = APP): Promise<Answer> {
  return server.call('POST', `/api/application/${applicationId}/notification`, { token: tokenOf(standing), body, lang: 'en' });
}

async function created(body: unknown = message()) {
  const answer = await create(body);
  if (answer.status !== 200) throw new Error(`create failed: ${JSON.stringify(answer.body)}`);
  return answer.body.data as { id: number; status: string; send_at: string | null; name: string };
}

async function row(id: number) {
  return db(server).selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
}

async function countNotifications(applicationId = APP) {
  const found = await db(server).selectFrom('notifications').select((eb) => eb.fn.countAll().as('n')).where('application_id', '=', applicationId).executeTakeFirst();
  return Number(found?.n ?? 0);
}

const act = (id: number, action: 'send' | 'cancel' | 'draft', standing: Standing = 'super_user') =>
  server.call('POST', `${base}/notification/${id}/${action}`, { token: tokenOf(standing), lang: 'en' });

const isoIn = (ms: number) => new Date(server.clock.now().getTime() + ms).toISOString();
const HOUR = 3_600_000;

beforeAll(async () => {
  server = await startServer();
  for (const standing of STANDINGS) {
    if (standing !== 'anonymous') users[standing] = await createUser(server, { name: `${standing} person` });
  }
  await createApplication(server, owner(), APP, 'Messaging');
  await createApplication(server, owner(), BARE, 'No platforms');
  await createApplication(server, users.outsider, OTHER, 'Other');
  for (const role of ['manager', 'user', 'viewer', 'ads_manager'] as const) await addMember(server, owner(), APP, users[role], role);
  // Web push through its own settings call (status follows `enabled`); the others as their rows.
  const web = await server.call('PUT', `${base}/platform/web_push`, { token: owner().token, body: WEB_SETTINGS });
  if (web.status !== 200) throw new Error(`web push settings failed: ${JSON.stringify(web.body)}`);
  for (const kind of ['android', 'sms', 'facebook'] as const) await setPlatform(APP, kind, 'active');
  await setPlatform(OTHER, 'sms', 'active');
}, 120_000);
afterAll(async () => server?.close());

describe('creating a message', () => {
  it.each(['mobile_push', 'web_push', 'sms', 'facebook'] as const)('creates a %s message due now, from the dashboard, by its creator', async (type) => {
    const answer = await create(message(type));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const data = answer.body.data;
    expect(data).toMatchObject({
      type,
      status: 'waiting',
      source: 'dashboard',
      application_id: APP,
      created_by: 'super_user person',
      stats: { targeted: 0, sent: 0, delivered: 0, failed: 0, clicked: 0 },
      schedule: { mode: 'now' },
      started_at: null,
      finished_at: null,
    });
    expect(Math.abs(Date.parse(data.send_at) - server.clock.now().getTime())).toBeLessThan(5_000);
    // The list's name falls back to the heading, else the text.
    expect(data.name).toBe(type === 'sms' ? CONTENT.sms.content : 'Flash sale');
    expect((await row(data.id))?.status).toBe('waiting');
  });

  it('keeps only the fields its type uses: an SMS drops a heading, buttons and images', async () => {
    const data = await created(
      message('sms', {
        content: {
          heading: 'Ignored',
          content: 'Sale today',
          image_url: 'https://shop.example.vn/a.png',
          buttons: [{ action_id: 'buy', button_text: 'Buy' }],
          utm: { source: 'nudge' },
        },
      }),
    );
    const stored = JSON.parse((await row(data.id))!.content);
    expect(stored).toEqual({ heading: '', content: 'Sale today', buttons: [], utm: { source: 'nudge' } });
  });

  it('saves a draft as new with no send time', async () => {
    const data = await created(message('web_push', { draft: true }));
    expect(data.status).toBe('new');
    expect(data.send_at).toBeNull();
  });

  it('refuses every type while its platform is not configured, naming it, and creates nothing', async () => {
    const expected = {
      mobile_push: 'Configure iOS or Android in Settings before creating a mobile push notification.',
      web_push: 'Configure web push in Settings before creating a web push notification.',
      sms: 'Configure an SMS provider in Settings before creating an SMS.',
      facebook: 'Connect a Facebook page in Settings before creating a Facebook message.',
    };
    for (const type of ['mobile_push', 'web_push', 'sms', 'facebook'] as const) {
      const answer = await create(message(type), 'super_user', BARE);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ success: false, error: 'INVALID_PARAM', message: expected[type], fields: [{ path: 'type', message: expected[type] }] });
    }
    const vi = await server.call('POST', `/api/application/${BARE}/notification`, { token: owner().token, body: message('sms') });
    expect(vi.body.message).toBe('Hãy cấu hình nhà cung cấp SMS trong Cài đặt trước khi tạo tin nhắn SMS.');
    expect(await countNotifications(BARE)).toBe(0);
  });

  it('takes a type once its platform is active, and refuses it again when switched off', async () => {
    await setPlatform(BARE, 'ios', 'inactive');
    expect((await create(message('mobile_push'), 'super_user', BARE)).status).toBe(400);
    await setPlatform(BARE, 'ios', 'active');
    expect((await create(message('mobile_push'), 'super_user', BARE)).status).toBe(200);
    // Web push needs its settings switched on, not just a row (the VAPID keys exist from the first read).
    await server.call('GET', `/api/application/${BARE}/platform/web_push`, { token: owner().token });
    expect((await create(message('web_push'), 'super_user', BARE)).status).toBe(400);
    await setPlatform(BARE, 'ios', 'inactive');
    expect((await create(message('mobile_push'), 'super_user', BARE)).status).toBe(400);
    expect(await countNotifications(BARE)).toBe(1);
  });

  describe('field errors', () => {
    const cases: [string, unknown, { path: string; message: string }[]][] = [
      ['a web push without a heading', message('web_push', { content: { content: 'Body only' } }), [{ path: 'content.heading', message: 'This field is required' }]],
      ['a mobile push without a heading', message('mobile_push', { content: { heading: '  ', content: 'Body only' } }), [{ path: 'content.heading', message: 'This field is required' }]],
      ['an empty text', message('facebook', { content: { heading: 'Hi', content: '' } }), [{ path: 'content.content', message: 'This field is required' }]],
      ['an SMS over 640 characters', message('sms', { content: { content: 'x'.repeat(641) } }), [{ path: 'content.content', message: 'This value is too long' }]],
      ['a target URL that is not one', message('web_push', { content: { ...CONTENT.web_push, target_url: 'shop dot com' } }), [{ path: 'content.target_url', message: 'Please enter a valid URL (http, https or ftp)' }]],
      ['additional data that is not JSON', message('web_push', { content: { ...CONTENT.web_push, additional_data: '{"a":' } }), [{ path: 'content.additional_data', message: 'Please enter valid JSON' }]],
      ['additional data that is a JSON array', message('web_push', { content: { ...CONTENT.web_push, additional_data: '[1,2]' } }), [{ path: 'content.additional_data', message: 'Please enter valid JSON' }]],
      ['additional data B that is not JSON', message('mobile_push', { content: { ...CONTENT.mobile_push, additional_data_b: 'nope' } }), [{ path: 'content.additional_data_b', message: 'Please enter valid JSON' }]],
      ['a button without text', message('web_push', { content: { ...CONTENT.web_push, buttons: [{ action_id: 'buy', button_text: '' }] } }), [{ path: 'content.buttons.0.button_text', message: 'This field is required' }]],
      ['an unknown type', { type: 'email', content: { content: 'Hi' } }, [{ path: 'type', message: 'Must be one of: mobile_push, web_push, sms, facebook' }]],
      ['an expiry beyond 28 days', message('web_push', { ttl_seconds: 29 * 24 * 3600 }), [{ path: 'ttl_seconds', message: 'Must be at most 2419200' }]],
      ['an empty list of direct recipients', message('web_push', { audience: { device_ids: [] } }), [{ path: 'audience.device_ids', message: 'This field is required' }]],
      ['a segment of another application', message('web_push', { audience: { segment_id: 999_999 } }), [{ path: 'audience.segment_id', message: "This segment doesn't exist in the application" }]],
      ['a template that does not exist', message('web_push', { template_id: 999_999 }), [{ path: 'template_id', message: "This template doesn't exist in the application" }]],
      ['a campaign that does not exist', message('web_push', { campaign_id: 999_999 }), [{ path: 'campaign_id', message: "This campaign doesn't exist in the application" }]],
      ['a moment an hour ago', message('web_push', { schedule: { mode: 'at', at: new Date(Date.now() - HOUR).toISOString() } }), [{ path: 'schedule.at', message: 'The time to send has already passed' }]],
      ['a moment that is not a date', message('web_push', { schedule: { mode: 'at', at: 'tomorrow' } }), [{ path: 'schedule.at', message: 'Must be an ISO 8601 date and time with its zone, such as 2026-12-02T09:30:00+07:00 or 2026-12-02T02:30:00Z' }]],
      ['a local time on a day that does not exist', message('web_push', { schedule: { mode: 'local_time', date: '2031-02-30', time: '09:00' } }), [{ path: 'schedule.date', message: 'Enter a valid date' }]],
      ['a local time already past in every timezone', message('web_push', { schedule: { mode: 'local_time', date: new Date(Date.now() - 2 * 24 * HOUR).toISOString().slice(0, 10), time: '09:00' } }), [{ path: 'schedule.date', message: 'The time to send has already passed' }]],
      ['a local time of 25:00', message('web_push', { schedule: { mode: 'local_time', date: '2031-01-01', time: '25:00' } }), [{ path: 'schedule.time', message: 'This value is not valid' }]],
    ];
    it.each(cases)('refuses %s with the field’s message, and creates nothing', async (_name, body, fields) => {
      const before = await countNotifications();
      const answer = await create(body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, error: 'INVALID_PARAM', message: fields[0].message });
      expect(answer.body.fields).toEqual(fields);
      expect(await countNotifications()).toBe(before);
    });

    it('answers every problem the checks find at once', async () => {
      const answer = await create(
        message('web_push', {
          content: { content: 'No heading' },
          template_id: 999_999,
          schedule: { mode: 'at', at: new Date(Date.now() - HOUR).toISOString() },
        }),
      );
      expect(answer.status).toBe(400);
      expect(answer.body.fields.map((field: { path: string }) => field.path)).toEqual(['content.heading', 'template_id', 'schedule.at']);
    });

    it("refuses another application's segment, template and campaign", async () => {
      const segment = await db(server)
        .insertInto('segments')
        .values({ application_id: OTHER, name: 'Theirs', name_key: segmentNameKey('Theirs'), rule: '{"any":[]}', created_by: null, created_at: isoIn(0), updated_at: isoIn(0) })
        .returning('id')
        .executeTakeFirstOrThrow();
      const answer = await create(message('web_push', { audience: { segment_id: Number(segment.id) } }));
      expect(answer.body.fields).toEqual([{ path: 'audience.segment_id', message: "This segment doesn't exist in the application" }]);
    });
  });

  it('caps the buttons by the plan with the spec’s message: 2 on the free plan, 3 on pay as you go', async () => {
    const buttons = (n: number) => Array.from({ length: n }, (_, i) => ({ action_id: `b${i}`, button_text: `Button ${i}`, launch_url: 'https://shop.example.vn' }));
    const three = message('web_push', { content: { ...CONTENT.web_push, buttons: buttons(3) } });
    const before = await countNotifications();
    const refused = await create(three);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, error: 'PLAN_LIMIT', message: 'Your account only support maximum 2 buttons' });
    expect(await countNotifications()).toBe(before);
    expect((await create(message('web_push', { content: { ...CONTENT.web_push, buttons: buttons(2) } }))).status).toBe(200);
    await db(server).updateTable('applications').set({ plan: 'pay_as_you_go' }).where('application_id', '=', APP).execute();
    try {
      expect((await create(three)).status).toBe(200);
      const four = await create(message('web_push', { content: { ...CONTENT.web_push, buttons: buttons(4) } }));
      expect(four.body.fields).toEqual([{ path: 'content.buttons', message: 'This value is out of range' }]);
    } finally {
      await db(server).updateTable('applications').set({ plan: 'free' }).where('application_id', '=', APP).execute();
    }
  });

  describe('schedules', () => {
    it('is due at its moment', async () => {
      const at = isoIn(3 * HOUR);
      const data = await created(message('web_push', { schedule: { mode: 'at', at } }));
      expect(data.status).toBe('waiting');
      expect(data.send_at).toBe(at);
    });

    it('takes a moment given with an offset and stores it in UTC', async () => {
      const data = await created(message('web_push', { schedule: { mode: 'at', at: '2031-06-01T09:30:00+07:00' } }));
      expect(data.send_at).toBe('2031-06-01T02:30:00.000Z');
    });

    it('accepts a moment less than a minute ago (the form was just filled), due at once', async () => {
      const at = isoIn(-30_000);
      const data = await created(message('web_push', { schedule: { mode: 'at', at } }));
      expect(data.send_at).toBe(at);
    });

    it('at a local time, is due when the first timezone (UTC+14) reaches it', async () => {
      const data = await created(message('web_push', { schedule: { mode: 'local_time', date: '2031-03-10', time: '09:00' } }));
      expect(data.send_at).toBe('2031-03-09T19:00:00.000Z');
    });

    it('at a local time already past in the east but not in the west, is due at once', async () => {
      // 3 hours ago in UTC: past for UTC+0 … UTC+14, still ahead for UTC-4 … UTC-12.
      const local = new Date(server.clock.now().getTime() - 3 * HOUR);
      const date = local.toISOString().slice(0, 10);
      const time = local.toISOString().slice(11, 16);
      const data = await created(message('web_push', { schedule: { mode: 'local_time', date, time } }));
      expect(Date.parse(data.send_at!)).toBeLessThan(server.clock.now().getTime());
    });
  });
});

describe('status changes', () => {
  it('sends a draft: new → waiting, due at its schedule', async () => {
    const at = isoIn(2 * HOUR);
    const draft = await created(message('web_push', { draft: true, schedule: { mode: 'at', at } }));
    const sent = await act(draft.id, 'send');
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ status: 'waiting', send_at: at });
    const again = await act(draft.id, 'send');
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: 'CONFLICT', message: 'Only a draft can be sent' });
  });

  it('checks a draft again when it is sent: its platform may have been switched off meanwhile', async () => {
    await setPlatform(APP, 'facebook', 'active');
    const draft = await created(message('facebook', { draft: true }));
    await setPlatform(APP, 'facebook', 'inactive');
    try {
      const refused = await act(draft.id, 'send');
      expect(refused.status).toBe(400);
      expect(refused.body.message).toBe('Connect a Facebook page in Settings before creating a Facebook message.');
      expect((await row(draft.id))?.status).toBe('new');
    } finally {
      await setPlatform(APP, 'facebook', 'active');
    }
  });

  it('takes a scheduled message back to draft (waiting → new) and clears its send time', async () => {
    const waiting = await created(message('web_push', { schedule: { mode: 'at', at: isoIn(HOUR) } }));
    const back = await act(waiting.id, 'draft');
    expect(back.body.data).toMatchObject({ status: 'new', send_at: null });
    const twice = await act(waiting.id, 'draft');
    expect(twice.status).toBe(409);
    expect(twice.body.message).toBe("Only a scheduled message that hasn't started sending can go back to draft");
  });

  it('cancels drafts and scheduled messages; canceled is final', async () => {
    const draft = await created(message('web_push', { draft: true }));
    const waiting = await created(message('web_push'));
    expect((await act(draft.id, 'cancel')).body.data.status).toBe('canceled');
    expect((await act(waiting.id, 'cancel')).body.data.status).toBe('canceled');
    for (const action of ['send', 'draft', 'cancel'] as const) expect((await act(waiting.id, action)).status).toBe(409);
    expect((await row(waiting.id))?.status).toBe('canceled');
  });

  it('refuses to cancel a message already sending', async () => {
    const data = await created(message('web_push'));
    expect(await transitionNotification(db(server), data.id, 'waiting', 'running', { started_at: isoIn(0) })).toBe(true);
    const answer = await act(data.id, 'cancel');
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ success: false, error: 'CONFLICT', message: "Only drafts and scheduled messages that haven't started sending can be canceled" });
    expect((await row(data.id))?.status).toBe('running');
  });

  it('lets one of two concurrent cancels win; the other is refused', async () => {
    const data = await created(message('web_push', { schedule: { mode: 'at', at: isoIn(HOUR) } }));
    const answers = await Promise.all([act(data.id, 'cancel'), act(data.id, 'cancel')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect((await row(data.id))?.status).toBe('canceled');
  });

  it('changes a status only from the one it expects, so the engine and a cancel cannot both win', async () => {
    const data = await created(message('web_push'));
    const [start, cancel] = await Promise.all([
      transitionNotification(db(server), data.id, 'waiting', 'running'),
      transitionNotification(db(server), data.id, 'waiting', 'canceled'),
    ]);
    expect([start, cancel].filter(Boolean)).toHaveLength(1);
    expect(['running', 'canceled']).toContain((await row(data.id))?.status);
    await expect(transitionNotification(db(server), data.id, 'executed', 'waiting')).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  describe('editing', () => {
    it('replaces a scheduled message and computes its send time again', async () => {
      const data = await created(message('web_push', { schedule: { mode: 'at', at: isoIn(HOUR) } }));
      const at = isoIn(5 * HOUR);
      const answer = await server.call('PUT', `${base}/notification/${data.id}`, {
        token: owner().token,
        body: message('web_push', { name: 'Renamed', content: { heading: 'New heading', content: 'New text' }, schedule: { mode: 'at', at } }),
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ name: 'Renamed', status: 'waiting', send_at: at, content: { heading: 'New heading', content: 'New text' } });
    });

    it('turns it into a draft with draft: true, and back with draft: false', async () => {
      const data = await created(message('web_push'));
      const url = `${base}/notification/${data.id}`;
      const toDraft = await server.call('PUT', url, { token: owner().token, body: message('web_push', { draft: true }) });
      expect(toDraft.body.data).toMatchObject({ status: 'new', send_at: null });
      const toWaiting = await server.call('PUT', url, { token: owner().token, body: message('sms') });
      expect(toWaiting.body.data).toMatchObject({ status: 'waiting', type: 'sms' });
    });

    it('refuses to edit a message that started, with the reason, and changes nothing', async () => {
      const data = await created(message('web_push'));
      await transitionNotification(db(server), data.id, 'waiting', 'running');
      const before = await row(data.id);
      const answer = await server.call('PUT', `${base}/notification/${data.id}`, { token: owner().token, lang: 'en', body: message('web_push', { name: 'Too late' }) });
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({ success: false, error: 'CONFLICT', message: "Only drafts and scheduled messages that haven't started sending can be edited" });
      expect(await row(data.id)).toEqual(before);
    });

    it('checks an edit like a create', async () => {
      const data = await created(message('web_push'));
      const answer = await server.call('PUT', `${base}/notification/${data.id}`, { token: owner().token, lang: 'en', body: message('web_push', { content: { content: 'No heading' } }) });
      expect(answer.body.fields).toEqual([{ path: 'content.heading', message: 'This field is required' }]);
      expect(JSON.parse((await row(data.id))!.content).heading).toBe('Flash sale');
    });
  });

  describe('deleting', () => {
    it('deletes drafts and canceled messages only', async () => {
      const draft = await created(message('web_push', { draft: true }));
      const waiting = await created(message('web_push'));
      const refused = await server.call('DELETE', `${base}/notification/${waiting.id}`, { token: owner().token, lang: 'en' });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toBe('Only drafts and canceled messages can be deleted');
      expect(await row(waiting.id)).toBeDefined();
      expect((await server.call('DELETE', `${base}/notification/${draft.id}`, { token: owner().token })).status).toBe(200);
      expect(await row(draft.id)).toBeUndefined();
      await act(waiting.id, 'cancel');
      expect((await server.call('DELETE', `${base}/notification/${waiting.id}`, { token: owner().token })).status).toBe(200);
      expect(await row(waiting.id)).toBeUndefined();
    });

    it("answers NOT_FOUND for another application's message", async () => {
      const theirs = await created(message('sms', { draft: true }));
      const answer = await server.call('DELETE', `/api/application/${BARE}/notification/${theirs.id}`, { token: owner().token });
      expect(answer.status).toBe(404);
      expect(await row(theirs.id)).toBeDefined();
    });
  });
});

describe('the list', () => {
  const LIST_APP = 'messaging_list';
  const url = `/api/application/${LIST_APP}/notification`;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    await createApplication(server, owner(), LIST_APP, 'List');
    for (const kind of ['ios', 'sms'] as const) await setPlatform(LIST_APP, kind, 'active');
    const make = async (key: string, body: unknown) => {
      const answer = await create(body, 'super_user', LIST_APP);
      if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
      ids[key] = answer.body.data.id;
    };
    await make('summer', message('mobile_push', { name: 'Summer sale 50%' }));
    await make('winter', message('mobile_push', { name: 'Winter sale', draft: true }));
    await make('sms', message('sms', { name: 'SMS reminder' }));
    await make('api', message('sms', { name: 'From the shop server' }));
    await db(server).updateTable('notifications').set({ source: 'api', created_by: null }).where('id', '=', ids.api).execute();
    await make('canceled', message('mobile_push', { name: 'Canceled one' }));
    await server.call('POST', `${url}/${ids.canceled}/cancel`, { token: owner().token });
  });

  const names = (answer: Answer) => answer.body.data.items.map((item: { name: string }) => item.name);

  it('lists newest first with the total', async () => {
    const answer = await server.call('GET', url, { token: owner().token });
    expect(answer.body.data).toMatchObject({ total: 5, page: 1, limit: 20 });
    expect(names(answer)).toEqual(['Canceled one', 'From the shop server', 'SMS reminder', 'Winter sale', 'Summer sale 50%']);
    expect(answer.body.data.items[1].created_by).toBeNull();
  });

  it.each([
    ['status=new', ['Winter sale']],
    ['status=canceled', ['Canceled one']],
    ['status=waiting', ['From the shop server', 'SMS reminder', 'Summer sale 50%']],
    ['status=all', ['Canceled one', 'From the shop server', 'SMS reminder', 'Winter sale', 'Summer sale 50%']],
    ['source=api', ['From the shop server']],
    ['source=dashboard&type=sms', ['SMS reminder']],
    ['type=mobile_push&status=waiting', ['Summer sale 50%']],
    ['q=SALE', ['Winter sale', 'Summer sale 50%']],
    ['q=50%25', ['Summer sale 50%']],
    ['q=nothing', []],
  ])('filters by %s', async (query, expected) => {
    const answer = await server.call('GET', `${url}?${query}`, { token: owner().token });
    expect(answer.status).toBe(200);
    expect(names(answer)).toEqual(expected);
    expect(answer.body.data.total).toBe(expected.length);
  });

  it('pages', async () => {
    const second = await server.call('GET', `${url}?limit=2&page=2`, { token: owner().token });
    expect(second.body.data).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(names(second)).toEqual(['SMS reminder', 'Winter sale']);
    const past = await server.call('GET', `${url}?limit=2&page=4`, { token: owner().token });
    expect(past.body.data.items).toEqual([]);
  });

  it('refuses an unknown filter value', async () => {
    const answer = await server.call('GET', `${url}?status=sent`, { token: owner().token, lang: 'en' });
    expect(answer.status).toBe(400);
    expect(answer.body.fields).toEqual([{ path: 'status', message: 'Must be one of: all, new, waiting, running, executed, opened, canceled' }]);
  });
});

describe("the audience's segment, by name", () => {
  const SEGMENT_APP = 'messaging_segments';
  const url = `/api/application/${SEGMENT_APP}/notification`;
  const segments: Record<string, number> = {};
  const ids: Record<string, number> = {};

  async function segment(applicationId: string, name: string): Promise<number> {
    const at = isoIn(0);
    const inserted = await db(server)
      .insertInto('segments')
      .values({ application_id: applicationId, name, name_key: segmentNameKey(name), rule: '{"any":[]}', created_by: null, created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  beforeAll(async () => {
    await createApplication(server, owner(), SEGMENT_APP, 'Segments');
    await setPlatform(SEGMENT_APP, 'sms', 'active');
    segments.vip = await segment(SEGMENT_APP, 'Lapsed VIP buyers');
    segments.hanoi = await segment(SEGMENT_APP, 'Hà Nội shoppers');
    const make = async (key: string, segmentId: number | null) => {
      const answer = await create(message('sms', { name: key, audience: { segment_id: segmentId } }), 'super_user', SEGMENT_APP);
      if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
      ids[key] = answer.body.data.id;
    };
    await make('vip', segments.vip);
    await make('hanoi', segments.hanoi);
    await make('vip again', segments.vip);
    await make('everyone', null);
  });

  it('names it in the answer to create, in the detail and on every row of the list', async () => {
    const made = await create(message('sms', { audience: { segment_id: segments.hanoi }, draft: true }), 'super_user', SEGMENT_APP);
    expect(made.body.data.audience_segment).toEqual({ id: segments.hanoi, name: 'Hà Nội shoppers' });
    expect((await server.call('DELETE', `${url}/${made.body.data.id}`, { token: owner().token })).status).toBe(200);
    const detail = await server.call('GET', `${url}/${ids.vip}`, { token: owner().token });
    expect(detail.body.data.audience_segment).toEqual({ id: segments.vip, name: 'Lapsed VIP buyers' });
    const list = await server.call('GET', url, { token: owner().token });
    expect(list.status).toBe(200);
    expect(list.body.data.items.map((item: { name: string; audience_segment: unknown }) => [item.name, item.audience_segment])).toEqual([
      ['everyone', null],
      ['vip again', { id: segments.vip, name: 'Lapsed VIP buyers' }],
      ['hanoi', { id: segments.hanoi, name: 'Hà Nội shoppers' }],
      ['vip', { id: segments.vip, name: 'Lapsed VIP buyers' }],
    ]);
  });

  it('follows a rename, and answers null (the id kept) once the segment is deleted', async () => {
    await db(server).updateTable('segments').set({ name: 'VIP buyers, lapsed' }).where('id', '=', segments.vip).execute();
    expect((await server.call('GET', `${url}/${ids.vip}`, { token: owner().token })).body.data.audience_segment).toEqual({ id: segments.vip, name: 'VIP buyers, lapsed' });
    await db(server).deleteFrom('segments').where('id', '=', segments.hanoi).execute();
    const detail = await server.call('GET', `${url}/${ids.hanoi}`, { token: owner().token });
    expect(detail.body.data.audience_segment).toBeNull();
    expect(detail.body.data.audience.segment_id).toBe(segments.hanoi);
    const list = await server.call('GET', url, { token: owner().token });
    const hanoi = list.body.data.items.find((item: { id: number }) => item.id === ids.hanoi);
    expect(hanoi).toMatchObject({ audience: { segment_id: segments.hanoi }, audience_segment: null });
  });
});

describe('a saved segment as the audience, by role (spec §6: segments belong to super_user, manager, ads_manager)', () => {
  const ids: Record<string, number> = {};
  const put = (id: number, body: unknown, standing: Standing) =>
    server.call('PUT', `${base}/notification/${id}`, { token: tokenOf(standing), body, lang: 'en' });
  const draftTo = (segmentId: number | null, name = 'Draft') => message('sms', { name, draft: true, audience: { segment_id: segmentId } });
  const segmentOf = async (id: number) => JSON.parse((await row(id))!.audience).segment_id as number | null;

  beforeAll(async () => {
    const at = isoIn(0);
    for (const name of ['Buyers', 'Browsers']) {
      const inserted = await db(server)
        .insertInto('segments')
        .values({ application_id: APP, name, name_key: segmentNameKey(name), rule: '{"any":[]}', created_by: null, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids[name] = Number(inserted.id);
    }
  });

  it('lets the segments roles choose one, and refuses a User choosing one, naming the field, creating nothing', async () => {
    for (const standing of ['super_user', 'manager'] as const) {
      const answer = await create(draftTo(ids.Buyers), standing);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data.audience_segment).toEqual({ id: ids.Buyers, name: 'Buyers' });
    }
    const before = await countNotifications();
    const refused = await create(draftTo(ids.Buyers), 'user');
    expect(refused.status).toBe(400);
    expect(refused.body.fields).toEqual([
      { path: 'audience.segment_id', message: "Your role cannot choose a segment: keep the message's segment or send to everyone" },
    ]);
    expect(await countNotifications()).toBe(before);
    // Without a segment the User's message is taken.
    expect((await create(draftTo(null), 'user')).status).toBe(200);
  });

  it("lets a User edit a manager's message keeping its segment or dropping it, but not switch it to another", async () => {
    const made = await create(draftTo(ids.Buyers, 'Manager draft'), 'manager');
    const id = made.body.data.id as number;
    const kept = await put(id, draftTo(ids.Buyers, 'Edited by the User'), 'user');
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.data).toMatchObject({ name: 'Edited by the User', audience: { segment_id: ids.Buyers } });

    const switched = await put(id, draftTo(ids.Browsers, 'Switched'), 'user');
    expect(switched.status).toBe(400);
    expect(switched.body.fields.map((field: { path: string }) => field.path)).toEqual(['audience.segment_id']);
    expect((await row(id))?.name).toBe('Edited by the User');
    expect(await segmentOf(id)).toBe(ids.Buyers);

    expect((await put(id, draftTo(null, 'To everyone'), 'user')).status).toBe(200);
    expect(await segmentOf(id)).toBeNull();
    // Once dropped, choosing it again is choosing.
    expect((await put(id, draftTo(ids.Buyers), 'user')).status).toBe(400);
    expect((await put(id, draftTo(ids.Browsers), 'manager')).status).toBe(200);
    expect(await segmentOf(id)).toBe(ids.Browsers);
  });

  it('reports the role problem together with the others', async () => {
    const answer = await create(message('sms', { template_id: 999_999, audience: { segment_id: ids.Buyers } }), 'user');
    expect(answer.status).toBe(400);
    expect(answer.body.fields.map((field: { path: string }) => field.path)).toEqual(['audience.segment_id', 'template_id']);
  });
});

describe('templates', () => {
  const url = `${base}/template`;

  it('creates, reads, lists by type, updates and deletes', async () => {
    const made = await server.call('POST', url, { token: owner().token, body: { name: 'Welcome', type: 'web_push', content: { heading: 'Hi {name}', content: 'Welcome to the shop' } } });
    expect(made.status).toBe(200);
    const id = made.body.data.id;
    expect(made.body.data).toMatchObject({ name: 'Welcome', type: 'web_push', content: { heading: 'Hi {name}', content: 'Welcome to the shop', buttons: [], utm: {} } });
    await server.call('POST', url, { token: owner().token, body: { name: 'Reminder SMS', type: 'sms', content: { heading: 'dropped', content: 'Your cart is waiting' } } });

    const read = await server.call('GET', `${url}/${id}`, { token: users.viewer.token });
    expect(read.body.data.name).toBe('Welcome');
    const smsOnly = await server.call('GET', `${url}?type=sms`, { token: owner().token });
    expect(smsOnly.body.data.items.map((item: { name: string; content: { heading: string } }) => [item.name, item.content.heading])).toEqual([['Reminder SMS', '']]);
    const search = await server.call('GET', `${url}?q=welc`, { token: owner().token });
    expect(search.body.data.total).toBe(1);

    const updated = await server.call('PUT', `${url}/${id}`, { token: owner().token, body: { name: 'Welcome back', type: 'web_push', content: { heading: 'Hello', content: 'Good to see you' } } });
    expect(updated.body.data).toMatchObject({ name: 'Welcome back', content: { heading: 'Hello' } });

    // A message made from it keeps its content; only the link goes.
    const fromTemplate = await created(message('web_push', { template_id: id }));
    expect((await server.call('DELETE', `${url}/${id}`, { token: owner().token })).status).toBe(200);
    expect((await server.call('GET', `${url}/${id}`, { token: owner().token })).status).toBe(404);
    const kept = await row(fromTemplate.id);
    expect(kept?.template_id).toBeNull();
    expect(JSON.parse(kept!.content).heading).toBe('Flash sale');
  });

  it('follows the content rules of its type and the plan', async () => {
    const noHeading = await server.call('POST', url, { token: owner().token, lang: 'en', body: { name: 'Bad', type: 'mobile_push', content: { content: 'x' } } });
    expect(noHeading.body.fields).toEqual([{ path: 'content.heading', message: 'This field is required' }]);
    const noName = await server.call('POST', url, { token: owner().token, lang: 'en', body: { name: ' ', type: 'sms', content: { content: 'x' } } });
    expect(noName.body.fields).toEqual([{ path: 'name', message: 'This field is required' }]);
    const buttons = [1, 2, 3].map((i) => ({ action_id: `b${i}`, button_text: `B${i}` }));
    const tooMany = await server.call('POST', url, { token: owner().token, lang: 'en', body: { name: 'Buttons', type: 'web_push', content: { heading: 'h', content: 'c', buttons } } });
    expect(tooMany.body).toEqual({ success: false, error: 'PLAN_LIMIT', message: 'Your account only support maximum 2 buttons' });
  });

  it("answers NOT_FOUND for another application's template", async () => {
    const theirs = await db(server)
      .insertInto('templates')
      .values({ application_id: OTHER, name: 'Theirs', type: 'sms', content: '{"heading":"","content":"x","buttons":[],"utm":{}}', created_at: isoIn(0), updated_at: isoIn(0) })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await server.call('GET', `${url}/${theirs.id}`, { token: owner().token })).status).toBe(404);
    expect((await server.call('DELETE', `${url}/${theirs.id}`, { token: owner().token })).status).toBe(404);
  });
});

describe('campaigns', () => {
  const url = `${base}/campaign`;

  it('sums the counters of its messages', async () => {
    const made = await server.call('POST', url, { token: owner().token, body: { name: 'Tết 2031', description: 'Lunar new year' } });
    expect(made.body.data).toMatchObject({ name: 'Tết 2031', description: 'Lunar new year', messages: 0, stats: { targeted: 0, sent: 0 } });
    const id = made.body.data.id;
    const first = await created(message('web_push', { campaign_id: id }));
    const second = await created(message('sms', { campaign_id: id }));
    await created(message('sms'));
    await db(server).updateTable('notifications').set({ targeted: 100, sent: 90, delivered: 80, failed: 10, clicked: 8 }).where('id', '=', first.id).execute();
    await db(server).updateTable('notifications').set({ targeted: 50, sent: 50, delivered: 0, failed: 0, clicked: 0 }).where('id', '=', second.id).execute();

    const read = await server.call('GET', `${url}/${id}`, { token: users.viewer.token });
    expect(read.body.data).toMatchObject({ messages: 2, stats: { targeted: 150, sent: 140, delivered: 80, failed: 10, clicked: 8 } });
    const listed = await server.call('GET', `${url}?q=tết`, { token: owner().token });
    expect(listed.body.data.items.map((item: { id: number; messages: number }) => [item.id, item.messages])).toEqual([[id, 2]]);
    const itsMessages = await server.call('GET', `${base}/notification?campaign_id=${id}`, { token: owner().token });
    expect(itsMessages.body.data.items.map((item: { id: number }) => item.id)).toEqual([second.id, first.id]);

    const renamed = await server.call('PUT', `${url}/${id}`, { token: owner().token, body: { name: 'Tết 2031 (final)' } });
    expect(renamed.body.data).toMatchObject({ name: 'Tết 2031 (final)', description: '', messages: 2 });
  });

  it('deletes only when its name is typed exactly; its messages stay', async () => {
    const made = await server.call('POST', url, { token: owner().token, body: { name: 'Black Friday' } });
    const id = made.body.data.id;
    const member = await created(message('web_push', { campaign_id: id }));
    for (const typed of ['black friday', 'Black Friday ', '']) {
      const refused = await server.call('DELETE', `${url}/${id}`, { token: owner().token, lang: 'en', body: { confirm_name: typed } });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        success: false,
        error: 'INVALID_PARAM',
        message: "Type the campaign's name exactly to delete it",
        fields: [{ path: 'confirm_name', message: "Type the campaign's name exactly to delete it" }],
      });
    }
    expect((await server.call('GET', `${url}/${id}`, { token: owner().token })).status).toBe(200);
    const missing = await server.call('DELETE', `${url}/${id}`, { token: owner().token, lang: 'en' });
    expect(missing.status).toBe(400);

    const deleted = await server.call('DELETE', `${url}/${id}`, { token: owner().token, body: { confirm_name: 'Black Friday' } });
    expect(deleted.status).toBe(200);
    expect((await server.call('GET', `${url}/${id}`, { token: owner().token })).status).toBe(404);
    const kept = await row(member.id);
    expect(kept).toBeDefined();
    expect(kept?.campaign_id).toBeNull();
  });

  it("answers NOT_FOUND for another application's campaign, and leaves it alone", async () => {
    const theirs = await db(server)
      .insertInto('campaigns')
      .values({ application_id: OTHER, name: 'Theirs', created_at: isoIn(0), updated_at: isoIn(0) })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await server.call('GET', `${url}/${theirs.id}`, { token: owner().token })).status).toBe(404);
    expect((await server.call('PUT', `${url}/${theirs.id}`, { token: owner().token, body: { name: 'Mine now' } })).status).toBe(404);
    expect((await server.call('DELETE', `${url}/${theirs.id}`, { token: owner().token, body: { confirm_name: 'Theirs' } })).status).toBe(404);
    const kept = await db(server).selectFrom('campaigns').select(['application_id', 'name']).where('id', '=', theirs.id).executeTakeFirst();
    expect(kept).toEqual({ application_id: OTHER, name: 'Theirs' });
  });
});

describe("a message's report and the recipients' log", () => {
  const LOG_APP = 'messaging_log';
  const url = `/api/application/${LOG_APP}`;
  let big: number;
  let small: number;
  const players: Record<string, number> = {};

  async function delivery(notificationId: number, playerId: number, platform: string, status: string, fields: Record<string, unknown> = {}) {
    await db(server)
      .insertInto('deliveries')
      .values({ notification_id: notificationId, application_id: LOG_APP, player_id: playerId, platform, status, created_at: '2031-01-05T09:59:00.000Z', ...fields })
      .execute();
  }

  beforeAll(async () => {
    await createApplication(server, owner(), LOG_APP, 'Log');
    for (const kind of ['ios', 'android'] as const) await setPlatform(LOG_APP, kind, 'active');
    big = (await create(message('mobile_push', { name: 'Big one' }), 'super_user', LOG_APP)).body.data.id;
    small = (await create(message('mobile_push', { name: 'Small one' }), 'super_user', LOG_APP)).body.data.id;
    players.anna = await insertPlayer(server, LOG_APP, 'anna-iphone-0001', { platform: 'ios', external_user_id: 'customer-7', email: 'anna@example.com', mobile_number: '+84901111111' });
    players.anna2 = await insertPlayer(server, LOG_APP, 'anna-ipad-0002', { platform: 'ios', external_user_id: 'customer-7' });
    players.binh = await insertPlayer(server, LOG_APP, 'binh-android-03', { platform: 'android', email: 'binh@example.com' });
    players.chi = await insertPlayer(server, LOG_APP, 'chi-android-004', { platform: 'android', mobile_number: '+84902222222' });
    players.dung = await insertPlayer(server, LOG_APP, 'dung-android-05', { platform: 'android' });
    players.em = await insertPlayer(server, LOG_APP, 'em-iphone-00006', { platform: 'ios' });
    // The report's message: 6 recipients, as the engine records them.
    await delivery(big, players.anna, 'ios', 'sent', { sent_at: '2031-01-05T10:05:00.000Z', attempts: 1 });
    await delivery(big, players.anna2, 'ios', 'delivered', { sent_at: '2031-01-05T10:10:00.000Z', delivered_at: '2031-01-05T10:20:00.000Z', attempts: 1 });
    await delivery(big, players.binh, 'android', 'clicked', {
      sent_at: '2031-01-05T10:15:00.000Z',
      delivered_at: '2031-01-05T10:30:00.000Z',
      clicked_at: '2031-01-05T12:05:00.000Z',
      attempts: 2,
    });
    await delivery(big, players.chi, 'android', 'failed', { reason: 'unsubscribed', attempts: 1 });
    await delivery(big, players.dung, 'android', 'failed', { reason: 'unsubscribed', attempts: 1 });
    await delivery(big, players.em, 'ios', 'failed', { reason: 'auth', attempts: 1 });
    await db(server).updateTable('notifications').set({ targeted: 6, sent: 3, delivered: 2, failed: 3, clicked: 1 }).where('id', '=', big).execute();
    // The other message reached two of them.
    await delivery(small, players.anna, 'ios', 'queued');
    await delivery(small, players.binh, 'android', 'sent', { sent_at: '2031-01-06T08:00:00.000Z' });
  });

  it('reports the counters, per platform, failures by reason and the hourly timeline', async () => {
    const answer = await server.call('GET', `${url}/notification/${big}/report`, { token: users.super_user.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      stats: { targeted: 6, sent: 3, delivered: 2, failed: 3, clicked: 1 },
      ctr: 50,
      by_platform: [
        { platform: 'android', stats: { targeted: 3, sent: 1, delivered: 1, failed: 2, clicked: 1 } },
        { platform: 'ios', stats: { targeted: 3, sent: 2, delivered: 1, failed: 1, clicked: 0 } },
      ],
      failures: [
        { reason: 'unsubscribed', count: 2 },
        { reason: 'auth', count: 1 },
      ],
      timeline: [
        { at: '2031-01-05T10:00:00.000Z', sent: 3, delivered: 2, clicked: 0 },
        { at: '2031-01-05T11:00:00.000Z', sent: 0, delivered: 0, clicked: 0 },
        { at: '2031-01-05T12:00:00.000Z', sent: 0, delivered: 0, clicked: 1 },
      ],
      utc_offset: 0,
    });
  });

  it("counts the timeline's hours in the application's timezone, half and quarter hours included", async () => {
    const timeline = async (utcOffset: number) => {
      const moved = await server.call('PUT', url, { token: owner().token, body: { name: 'Log', utc_offset: utcOffset } });
      expect(moved.status).toBe(200);
      const answer = await server.call('GET', `${url}/notification/${big}/report`, { token: owner().token });
      expect(answer.body.data.utc_offset).toBe(utcOffset);
      expect(answer.body.data.stats).toEqual({ targeted: 6, sent: 3, delivered: 2, failed: 3, clicked: 1 });
      return answer.body.data.timeline;
    };
    try {
      // Sent 10:05, 10:10, 10:15; delivered 10:20, 10:30; clicked 12:05 (UTC). At UTC+07:00 the hours are UTC's.
      expect(await timeline(420)).toEqual([
        { at: '2031-01-05T10:00:00.000Z', sent: 3, delivered: 2, clicked: 0 },
        { at: '2031-01-05T11:00:00.000Z', sent: 0, delivered: 0, clicked: 0 },
        { at: '2031-01-05T12:00:00.000Z', sent: 0, delivered: 0, clicked: 1 },
      ]);
      // At UTC+05:30 an hour begins at :30 UTC: 15:00 there is 09:30 UTC, and 10:30 UTC opens the next.
      expect(await timeline(330)).toEqual([
        { at: '2031-01-05T09:30:00.000Z', sent: 3, delivered: 1, clicked: 0 },
        { at: '2031-01-05T10:30:00.000Z', sent: 0, delivered: 1, clicked: 0 },
        { at: '2031-01-05T11:30:00.000Z', sent: 0, delivered: 0, clicked: 1 },
      ]);
      // At UTC+05:45 at :15 UTC; west of UTC, at UTC-03:30, at :30 again.
      expect(await timeline(345)).toEqual([
        { at: '2031-01-05T09:15:00.000Z', sent: 2, delivered: 0, clicked: 0 },
        { at: '2031-01-05T10:15:00.000Z', sent: 1, delivered: 2, clicked: 0 },
        { at: '2031-01-05T11:15:00.000Z', sent: 0, delivered: 0, clicked: 1 },
      ]);
      expect((await timeline(-210)).map((hour: { at: string }) => hour.at)).toEqual(['2031-01-05T09:30:00.000Z', '2031-01-05T10:30:00.000Z', '2031-01-05T11:30:00.000Z']);
    } finally {
      await timeline(0);
    }
  });

  it('reports zeros and an empty timeline for a message nobody got yet', async () => {
    const fresh = (await create(message('mobile_push'), 'super_user', LOG_APP)).body.data.id;
    const answer = await server.call('GET', `${url}/notification/${fresh}/report`, { token: owner().token });
    expect(answer.body.data).toEqual({ stats: { targeted: 0, sent: 0, delivered: 0, failed: 0, clicked: 0 }, ctr: 0, by_platform: [], failures: [], timeline: [], utc_offset: 0 });
  });

  const devices = (answer: Answer) => answer.body.data.items.map((item: { device_id: string }) => item.device_id);

  it('lists every recipient newest first, with the device and the message name', async () => {
    const answer = await server.call('GET', `${url}/message`, { token: owner().token });
    expect(answer.status).toBe(200);
    expect(answer.body.data.total).toBe(8);
    expect(devices(answer)).toEqual(['binh-android-03', 'anna-iphone-0001', 'em-iphone-00006', 'dung-android-05', 'chi-android-004', 'binh-android-03', 'anna-ipad-0002', 'anna-iphone-0001']);
    expect(answer.body.data.items[5]).toEqual({
      id: expect.any(Number),
      notification_id: big,
      notification_name: 'Big one',
      player_id: players.binh,
      device_id: 'binh-android-03',
      platform: 'android',
      status: 'clicked',
      reason: null,
      attempts: 2,
      sent_at: '2031-01-05T10:15:00.000Z',
      delivered_at: '2031-01-05T10:30:00.000Z',
      clicked_at: '2031-01-05T12:05:00.000Z',
      created_at: '2031-01-05T09:59:00.000Z',
    });
  });

  it.each([
    ['q=anna-ipad-0002', ['anna-ipad-0002']],
    ['q=customer-7', ['anna-iphone-0001', 'anna-ipad-0002', 'anna-iphone-0001']],
    ['q=BINH@example.com', ['binh-android-03', 'binh-android-03']],
    ['q=%2B84902222222', ['chi-android-004']],
    // A device id whole; a user id, email or number also by its beginning, as the player list searches.
    ['q=anna-ipad', []],
    ['q=anna', ['anna-iphone-0001', 'anna-iphone-0001']],
    ['q=customer', ['anna-iphone-0001', 'anna-ipad-0002', 'anna-iphone-0001']],
    ['q=Binh', ['binh-android-03', 'binh-android-03']],
    ['q=0902%2022', ['chi-android-004']],
    ['status=failed', ['em-iphone-00006', 'dung-android-05', 'chi-android-004']],
    ['status=queued', ['anna-iphone-0001']],
    ['notification_id=SMALL', ['binh-android-03', 'anna-iphone-0001']],
    ['notification_id=BIG&status=failed', ['em-iphone-00006', 'dung-android-05', 'chi-android-004']],
    ['notification_id=BIG&q=customer-7', ['anna-ipad-0002', 'anna-iphone-0001']],
    ['notification_id=SMALL&q=customer-7&status=queued', ['anna-iphone-0001']],
    ['player_id=ANNA', ['anna-iphone-0001', 'anna-iphone-0001']],
    ['player_id=ANNA&notification_id=SMALL', ['anna-iphone-0001']],
    ['player_id=ANNA&q=customer-7', ['anna-iphone-0001', 'anna-iphone-0001']],
    ['player_id=ANNA&q=binh@example.com', []],
  ])('finds recipients by %s', async (query, expected) => {
    const filled = query.replace('SMALL', String(small)).replace('BIG', String(big)).replace('ANNA', String(players.anna));
    const answer = await server.call('GET', `${url}/message?${filled}`, { token: owner().token });
    expect(answer.status).toBe(200);
    expect(devices(answer)).toEqual(expected);
    expect(answer.body.data.total).toBe(expected.length);
  });

  it('refuses a search more than 500 players begin with, saying to type more, in the caller’s language', async () => {
    const BROAD = 'messaging_log_broad';
    await createApplication(server, owner(), BROAD, 'Broad');
    const now = server.clock.now().toISOString();
    const rows = Array.from({ length: 501 }, (_, index) => ({
      application_id: BROAD,
      device_id: `device-${index}`,
      external_user_id: `member-${index}`,
      platform: 'ios',
      device_type: 'mobile',
      created_at: now,
      updated_at: now,
    }));
    await db(server).insertInto('players').values(rows).execute();
    for (const [lang, message] of [
      ['en', 'More than 500 players begin with “member”: type more of the ID, email or phone number'],
      ['vi', 'Hơn 500 người dùng bắt đầu bằng “member”: hãy nhập thêm ID, email hoặc số điện thoại'],
    ]) {
      const answer = await server.call('GET', `/api/application/${BROAD}/message?q=member`, { token: owner().token, lang });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'INVALID_PARAM', message });
    }
    // 111 of them begin with member-1: searched, they have received nothing.
    const narrower = await server.call('GET', `/api/application/${BROAD}/message?q=member-1`, { token: owner().token });
    expect(narrower.status).toBe(200);
    expect(narrower.body.data.total).toBe(0);
  });

  it("pages through one message's recipients across statuses", async () => {
    const pages = [];
    for (let page = 1; page <= 3; page += 1) {
      const answer = await server.call('GET', `${url}/message?notification_id=${big}&limit=2&page=${page}`, { token: owner().token });
      expect(answer.body.data.total).toBe(6);
      pages.push(devices(answer));
    }
    expect(pages).toEqual([
      ['em-iphone-00006', 'dung-android-05'],
      ['chi-android-004', 'binh-android-03'],
      ['anna-ipad-0002', 'anna-iphone-0001'],
    ]);
  });

  it('refuses pages beyond the first 10,000 rows, saying how to go further', async () => {
    const answer = await server.call('GET', `${url}/message?limit=100&page=101`, { token: owner().token, lang: 'en' });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe("Page numbers reach only the first 10,000 recipients: page further with before_id (each page gives the next one's next_before_id), or search or filter");
    const vi = await server.call('GET', `${url}/message?limit=100&page=101`, { token: owner().token });
    expect(vi.body.message).toBe('Số trang chỉ tới 10.000 người nhận đầu tiên: hãy xem tiếp bằng before_id (mỗi trang cho next_before_id của trang sau), hoặc tìm kiếm hay lọc');
    expect((await server.call('GET', `${url}/message?limit=100&page=100`, { token: owner().token })).status).toBe(200);
    // By cursor the page number is not read, so no depth is refused.
    const deep = await server.call('GET', `${url}/message?limit=100&page=101&before_id=1`, { token: owner().token });
    expect(deep.status).toBe(200);
    expect(deep.body.data).toMatchObject({ items: [], total: 8, next_before_id: null });
  });

  it("shows nothing of another application's message", async () => {
    const answer = await server.call('GET', `${base}/message?notification_id=${big}`, { token: owner().token });
    expect(answer.body.data).toMatchObject({ items: [], total: 0 });
    const player = await server.call('GET', `${base}/message?player_id=${players.anna}`, { token: owner().token });
    expect(player.body.data).toMatchObject({ items: [], total: 0 });
    expect((await server.call('GET', `${base}/notification/${big}/report`, { token: owner().token })).status).toBe(404);
  });

  it('reports anew once something changed: a click after a first look shows in the breakdown', async () => {
    const third = (await create(message('mobile_push', { name: 'Third one' }), 'super_user', LOG_APP)).body.data.id;
    await delivery(third, players.dung, 'android', 'sent', { sent_at: '2031-01-07T08:00:00.000Z' });
    await delivery(third, players.em, 'ios', 'sent', { sent_at: '2031-01-07T08:00:00.000Z' });
    await db(server).updateTable('notifications').set({ targeted: 2, sent: 2 }).where('id', '=', third).execute();
    const before = await server.call('GET', `${url}/notification/${third}/report`, { token: owner().token });
    expect(before.body.data.by_platform).toEqual([
      { platform: 'android', stats: { targeted: 1, sent: 1, delivered: 0, failed: 0, clicked: 0 } },
      { platform: 'ios', stats: { targeted: 1, sent: 1, delivered: 0, failed: 0, clicked: 0 } },
    ]);
    const dung = await db(server).selectFrom('deliveries').select('id').where('notification_id', '=', third).where('player_id', '=', players.dung).executeTakeFirstOrThrow();
    // The device's report moves the delivery and the message's counters in one transaction, as in production.
    expect(await recordDeliveryReport({ db: db(server), clock: () => server.clock.now() }, Number(dung.id), 'clicked')).toBe(true);
    const after = await server.call('GET', `${url}/notification/${third}/report`, { token: owner().token });
    expect(after.body.data.stats).toEqual({ targeted: 2, sent: 2, delivered: 1, failed: 0, clicked: 1 });
    expect(after.body.data.by_platform).toEqual([
      { platform: 'android', stats: { targeted: 1, sent: 1, delivered: 1, failed: 0, clicked: 1 } },
      { platform: 'ios', stats: { targeted: 1, sent: 1, delivered: 0, failed: 0, clicked: 0 } },
    ]);
    expect(after.body.data.timeline.reduce((sum: number, hour: { clicked: number }) => sum + hour.clicked, 0)).toBe(1);
  });
});

describe("the recipients' log by cursor (before_id), beyond what page numbers reach", () => {
  const CURSOR_APP = 'messaging_cursor';
  const url = `/api/application/${CURSOR_APP}/message`;
  const PLAYERS = 23;
  const STATUSES = ['queued', 'sent', 'delivered', 'clicked', 'failed'] as const;
  let first: number;
  let second: number;
  let playerIds: number[] = [];

  beforeAll(async () => {
    await createApplication(server, owner(), CURSOR_APP, 'Cursor');
    await setPlatform(CURSOR_APP, 'android', 'active');
    first = (await create(message('mobile_push', { name: 'First' }), 'super_user', CURSOR_APP)).body.data.id;
    second = (await create(message('mobile_push', { name: 'Second' }), 'super_user', CURSOR_APP)).body.data.id;
    const at = server.clock.now().toISOString();
    const players = await db(server)
      .insertInto('players')
      .values(Array.from({ length: PLAYERS }, (_, i) => ({ application_id: CURSOR_APP, device_id: `cursor-device-${String(i).padStart(3, '0')}`, platform: 'android', device_type: 'mobile', created_at: at, updated_at: at })))
      .returning('id')
      .execute();
    playerIds = players.map((player) => Number(player.id));
    // The two messages' rows interleaved, their statuses cycling: 46 rows, ids not in status order.
    await db(server)
      .insertInto('deliveries')
      .values(
        playerIds.flatMap((playerId, i) =>
          [first, second].map((notificationId, j) => ({
            notification_id: notificationId,
            application_id: CURSOR_APP,
            player_id: playerId,
            platform: 'android',
            status: STATUSES[(i * 2 + j) % STATUSES.length],
            created_at: at,
          })),
        ),
      )
      .execute();
  });

  /** The ids the filter matches, newest first, read from the table itself. */
  async function expectedIds(filter: { notification_id?: number; status?: string }): Promise<number[]> {
    let query = db(server).selectFrom('deliveries').select('id').where('application_id', '=', CURSOR_APP);
    if (filter.notification_id) query = query.where('notification_id', '=', filter.notification_id);
    if (filter.status) query = query.where('status', '=', filter.status);
    return (await query.orderBy('id', 'desc').execute()).map((row) => Number(row.id));
  }

  /** Follows next_before_id from the newest page to the last; every page answers the same total. */
  async function walk(query: string, limit: number): Promise<{ ids: number[]; pages: number; totals: number[] }> {
    const ids: number[] = [];
    const totals: number[] = [];
    let cursor: number | null = null;
    let pages = 0;
    do {
      const answer: Answer = await server.call('GET', `${url}?limit=${limit}${query}${cursor === null ? '' : `&before_id=${cursor}`}`, { token: owner().token });
      expect(answer.status).toBe(200);
      const items = answer.body.data.items as { id: number }[];
      expect(items.length).toBeLessThanOrEqual(limit);
      ids.push(...items.map((item) => item.id));
      totals.push(answer.body.data.total);
      cursor = answer.body.data.next_before_id;
      if (cursor !== null) expect(cursor).toBe(items[items.length - 1].id);
      pages += 1;
    } while (cursor !== null && pages < 100);
    return { ids, pages, totals };
  }

  it.each([
    ['the whole application', {}, 5],
    ["one message, every status (the merged per-status runs)", { notification_id: 'FIRST' }, 4],
    ['one message, one status', { notification_id: 'SECOND', status: 'failed' }, 2],
    ['one status across messages', { status: 'clicked' }, 3],
  ] as const)('walks %s page by page and gets each row once, newest first', async (_name, filter, limit) => {
    const resolved = { ...filter, notification_id: 'notification_id' in filter ? (filter.notification_id === 'FIRST' ? first : second) : undefined };
    const expected = await expectedIds(resolved);
    expect(expected.length).toBeGreaterThan(limit);
    const query = `${resolved.notification_id ? `&notification_id=${resolved.notification_id}` : ''}${'status' in filter ? `&status=${filter.status}` : ''}`;
    const walked = await walk(query, limit);
    expect(walked.ids).toEqual(expected);
    expect(new Set(walked.ids).size).toBe(walked.ids.length);
    expect(walked.pages).toBe(Math.ceil(expected.length / limit));
    expect(new Set(walked.totals)).toEqual(new Set([expected.length]));
  });

  it('walks a search for one player the same way', async () => {
    const walked = await walk('&q=cursor-device-007', 1);
    expect(walked.ids).toEqual(await db(server).selectFrom('deliveries').select('id').where('player_id', '=', playerIds[7]).orderBy('id', 'desc').execute().then((rows) => rows.map((row) => Number(row.id))));
    expect(walked.ids).toHaveLength(2);
  });

  it('neither repeats nor skips a row when new recipients arrive between pages', async () => {
    const expected = await expectedIds({});
    const page1 = await server.call('GET', `${url}?limit=10`, { token: owner().token });
    const late = await db(server)
      .insertInto('players')
      .values({ application_id: CURSOR_APP, device_id: 'cursor-late-device', platform: 'android', device_type: 'mobile', created_at: isoIn(0), updated_at: isoIn(0) })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db(server).insertInto('deliveries').values({ notification_id: first, application_id: CURSOR_APP, player_id: Number(late.id), platform: 'android', status: 'queued', created_at: isoIn(0) }).execute();
    const page2 = await server.call('GET', `${url}?limit=10&before_id=${page1.body.data.next_before_id}`, { token: owner().token });
    expect([...page1.body.data.items, ...page2.body.data.items].map((item: { id: number }) => item.id)).toEqual(expected.slice(0, 20));
    expect(page2.body.data.total).toBe(expected.length + 1);
  });

  it('still pages by number, now with the next cursor, which the last page leaves null', async () => {
    const expected = await expectedIds({});
    const byNumber = await server.call('GET', `${url}?limit=10&page=2`, { token: owner().token });
    expect(byNumber.body.data.items.map((item: { id: number }) => item.id)).toEqual(expected.slice(10, 20));
    expect(byNumber.body.data).toMatchObject({ page: 2, limit: 10, total: expected.length, next_before_id: expected[19] });
    const last = await server.call('GET', `${url}?limit=10&page=${Math.ceil(expected.length / 10)}`, { token: owner().token });
    expect(last.body.data.next_before_id).toBeNull();
  });

  it(`counts a log of more than ${DELIVERY_LOG_COUNT_CAP.toLocaleString('en')} rows only up to the cap, and says so`, async () => {
    const BIG_APP = 'messaging_count_cap';
    await createApplication(server, owner(), BIG_APP, 'Count cap');
    await setPlatform(BIG_APP, 'android', 'active');
    const ids = [];
    for (const name of ['Cap one', 'Cap two']) ids.push((await create(message('mobile_push', { name }), 'super_user', BIG_APP)).body.data.id as number);
    const at = server.clock.now().toISOString();
    // Two messages to half the cap plus one player each: one row over the cap.
    const half = DELIVERY_LOG_COUNT_CAP / 2 + 1;
    for (let from = 0; from < half; from += 500) {
      const rows = Array.from({ length: Math.min(500, half - from) }, (_, i) => ({ application_id: BIG_APP, device_id: `cap-${from + i}`, platform: 'android', device_type: 'mobile', created_at: at, updated_at: at }));
      await db(server).insertInto('players').values(rows).execute();
    }
    for (const id of ids) {
      await db(server)
        .insertInto('deliveries')
        .columns(['notification_id', 'application_id', 'player_id', 'platform', 'status', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('players')
            .select((p) => [p.lit(id).as('notification_id'), p.val(BIG_APP).as('application_id'), 'players.id', p.val('android').as('platform'), p.val('sent').as('status'), p.val(at).as('created_at')])
            .where('players.application_id', '=', BIG_APP),
        )
        .execute();
    }
    const log = `/api/application/${BIG_APP}/message`;
    const all = await server.call('GET', `${log}?limit=5`, { token: owner().token });
    expect(all.body.data).toMatchObject({ total: DELIVERY_LOG_COUNT_CAP, total_capped: true });
    expect(all.body.data.items).toHaveLength(5);
    const deeper = await server.call('GET', `${log}?limit=5&before_id=${all.body.data.next_before_id}`, { token: owner().token });
    expect(deeper.body.data).toMatchObject({ total: DELIVERY_LOG_COUNT_CAP, total_capped: true });
    // Under the cap the count is exact.
    const one = await server.call('GET', `${log}?limit=5&notification_id=${ids[0]}`, { token: owner().token });
    expect(one.body.data).toMatchObject({ total: half, total_capped: false });
  });

  it('refuses a cursor that is not a positive whole number', async () => {
    const answer = await server.call('GET', `${url}?before_id=abc`, { token: owner().token, lang: 'en' });
    expect(answer.status).toBe(400);
    expect(answer.body.fields[0].path).toBe('before_id');
  });
});

describe('roles (spec §6: notifications for super users, managers, users and viewers; viewers read only)', () => {
  const WRITERS: Standing[] = ['super_user', 'manager', 'user'];
  const READERS: Standing[] = [...WRITERS, 'viewer'];

  function expectRefused(standing: Standing, answer: Answer) {
    const code = standing === 'anonymous' ? 'NOT_AUTHORIZED' : 'NO_PERMISSION';
    expect(answer.status, `${standing}: ${JSON.stringify(answer.body)}`).toBe(code === 'NOT_AUTHORIZED' ? 401 : 403);
    expect(answer.body).toMatchObject({ success: false, error: code });
  }

  it.each(STANDINGS)('reads the lists as %s only when the area allows it', async (standing) => {
    const data = await created(message('web_push'));
    for (const path of ['notification', `notification/${data.id}`, `notification/${data.id}/report`, 'template', 'campaign', 'message']) {
      const answer = await server.call('GET', `${base}/${path}`, { token: tokenOf(standing) });
      if (READERS.includes(standing)) expect(answer.status, `${standing} GET ${path}`).toBe(200);
      else expectRefused(standing, answer);
    }
  });

  it.each(STANDINGS)('writes as %s only when the area allows it, and a refused write changes nothing', async (standing) => {
    const data = await created(message('web_push', { draft: true }));
    const before = await countNotifications();
    const writes: [string, string, unknown?][] = [
      ['POST', 'notification', message('web_push', { name: `by ${standing}` })],
      ['PUT', `notification/${data.id}`, message('web_push', { name: `edited by ${standing}`, draft: true })],
      ['POST', 'template', { name: `by ${standing}`, type: 'sms', content: { content: 'x' } }],
      ['POST', 'campaign', { name: `by ${standing}` }],
    ];
    for (const [method, path, body] of writes) {
      const answer = await server.call(method, `${base}/${path}`, { token: tokenOf(standing), body });
      if (WRITERS.includes(standing)) expect(answer.status, `${standing} ${method} ${path}`).toBe(200);
      else expectRefused(standing, answer);
    }
    const send = await act(data.id, 'send', standing);
    if (WRITERS.includes(standing)) {
      expect(send.status).toBe(200);
      return;
    }
    expectRefused(standing, send);
    expect(await countNotifications()).toBe(before);
    expect(await row(data.id)).toMatchObject({ status: 'new', name: 'Flash sale' });
  });

  it.each(STANDINGS)('manages REST API keys as %s only with the platform settings roles', async (standing) => {
    const answer = await server.call('POST', `${base}/api_key`, { token: tokenOf(standing) });
    if (standing === 'super_user' || standing === 'ads_manager') expect(answer.status).toBe(200);
    else expectRefused(standing, answer);
  });
});
