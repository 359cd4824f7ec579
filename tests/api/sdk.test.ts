import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';
import { addDays, dayAtOffset, dayStartAtOffset } from '../../shared/format';

/**
 * The public storefront API (/api/sdk) as a shop's page calls it: no token, the client key, JSON sent as
 * text/plain from any origin. And the lead report the merchant reads afterwards.
 */
const DAY = 24 * 3600_000;
const APP = 'sdk_shop';

let server: TestServer;
let owner: TestUser;
let key: string;

const iso = (offsetMs: number) => new Date(server.clock.now().getTime() + offsetMs).toISOString();

async function widget(body: Record<string, unknown>, application = APP, user = owner): Promise<number> {
  const answer = await server.call('POST', `/api/application/${application}/widget`, { token: user.token, body: { status: 'active', ...body } });
  if (answer.status !== 200) throw new Error(`create widget failed: ${JSON.stringify(answer.body)}`);
  return answer.body.data.id;
}

const contactForm = (name: string, settings: Record<string, unknown> = {}, rules?: Record<string, unknown>) => ({
  type: 'contact',
  name,
  settings: { title: 'Talk to us', fields: ['name', 'email', 'phone', 'message'], required: ['email'], ...settings },
  ...(rules ? { rules } : {}),
});

/** A POST as the widgets send it: the JSON as a text/plain body. */
function beacon(path: string, body: Record<string, unknown>, options: { lang?: string; ip?: string; contentType?: string } = {}) {
  return server.call('POST', `/api/sdk/${path}`, {
    body: JSON.stringify(body),
    headers: { 'content-type': options.contentType ?? 'text/plain;charset=UTF-8', origin: 'https://shop.example.net' },
    lang: options.lang,
    ip: options.ip,
  });
}

async function leadsOf(widgetId: number) {
  return db(server).selectFrom('leads').selectAll().where('widget_id', '=', widgetId).orderBy('id').execute();
}

beforeAll(async () => {
  server = await startServer({
    // Generous per-address limits: every call here comes from 127.0.0.1. The limits have their own test below.
    limits: { sdkLeadPerIp: { max: 10_000, windowMs: 60_000 }, sdkSpinPerIp: { max: 10_000, windowMs: 60_000 } },
  });
  owner = await createUser(server, { name: 'Shop owner' });
  key = (await createApplication(server, owner, APP, 'Sdk shop')).client_key;
}, 60_000);
afterAll(async () => server?.close());

describe('the public config', () => {
  let ids: Record<string, number>;
  beforeAll(async () => {
    ids = {
      banner: await widget({ type: 'banner', name: 'Private banner name', settings: { title: 'Hello', link: 'https://shop.example.com' } }),
      off: await widget({ type: 'banner', name: 'Switched off', status: 'inactive', settings: { title: 'Off' } }),
      over: await widget({ type: 'banner', name: 'Over', settings: { title: 'Gone' }, rules: { end_at: iso(-DAY) } }),
      upcoming: await widget({ type: 'schedule', name: 'Next week', settings: { title: 'Soon' }, rules: { start_at: iso(7 * DAY), end_at: iso(8 * DAY) } }),
      spin: await widget({
        type: 'spin',
        name: 'Secret odds wheel',
        settings: {
          title: 'Spin',
          slices: [
            { id: 'big', label: 'Big prize', color: '#ff0000', weight: 1, stock: 3, code_prefix: 'SECRETPFX' },
            { id: 'none', label: 'Next time', color: '#cccccc', weight: 99, lose: true },
          ],
        },
      }),
    };
    // Counters that must stay private.
    await beacon('event', { key, widget_id: ids.banner, visitor_id: 'visitor-config', kind: 'view' });
  });

  const config = (headers: Record<string, string> = {}) => server.call('GET', `/api/sdk/config?key=${key}`, { headers });

  it('lists active widgets whose dates are open or still to come, and nothing switched off or over', async () => {
    const answer = await config();
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    const listed = answer.body.data.widgets.map((w: { id: number }) => w.id);
    expect(listed).toEqual([ids.banner, ids.upcoming, ids.spin]);
    expect(answer.body.data.widgets[1]).toEqual({
      id: ids.upcoming,
      type: 'schedule',
      settings: expect.objectContaining({ title: 'Soon' }),
      rules: expect.objectContaining({ start_at: expect.any(String), end_at: expect.any(String) }),
    });
  });

  it('says nothing private: no names, counters, odds, stock or code prefixes', async () => {
    const answer = await config();
    const text = JSON.stringify(answer.body);
    for (const secret of ['Private banner name', 'Secret odds wheel', 'SECRETPFX', 'weight', 'stock', 'views', 'leads']) {
      expect(text).not.toContain(secret);
    }
    const spin = answer.body.data.widgets.find((w: { id: number }) => w.id === ids.spin);
    expect(spin.settings.slices).toEqual([
      { id: 'big', label: 'Big prize', color: '#ff0000', lose: false },
      { id: 'none', label: 'Next time', color: '#cccccc', lose: true },
    ]);
  });

  it('may be cached for a minute, with an ETag, and answers 304 when the browser has it already', async () => {
    const first = await config();
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await config({ 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await config({ 'if-none-match': `W/${etag}, "other"` })).status).toBe(304);

    // A merchant's change makes a new ETag: the old copy is not served as current.
    await server.call('POST', `/api/application/${APP}/widget/${ids.banner}/status`, { token: owner.token, body: { status: 'inactive' } });
    try {
      const changed = await config({ 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(changed.body.data.widgets.map((w: { id: number }) => w.id)).not.toContain(ids.banner);
    } finally {
      await server.call('POST', `/api/application/${APP}/widget/${ids.banner}/status`, { token: owner.token, body: { status: 'active' } });
    }
  });

  it('is readable from any shop’s origin, and answers the preflight', async () => {
    const answer = await config({ origin: 'https://any-shop.example.org' });
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    const preflight = await server.call('OPTIONS', '/api/sdk/lead', {
      headers: { origin: 'https://any-shop.example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': 'content-type',
    });
  });

  it('answers NOT_FOUND for a wrong key, readable cross-origin and not cached as a config', async () => {
    const answer = await server.call('GET', '/api/sdk/config?key=0123456789abcdef0123456789abcdef', { lang: 'en' });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ success: false, error: 'NOT_FOUND', message: 'Not found.' });
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['cache-control']).toBeUndefined();
    expect((await server.call('GET', '/api/sdk/config')).body.error).toBe('INVALID_PARAM');
  });
});

describe('when a visitor sends the contact form', () => {
  let form: number;
  beforeAll(async () => {
    form = await widget(contactForm('Contact form', { fields: ['name', 'email', 'message'] }));
  });

  it('takes the JSON as text/plain, stores the lead, counts it, and leaves a new_lead row for the webhooks', async () => {
    const answer = await beacon('lead', {
      key,
      widget_id: form,
      visitor_id: 'visitor-form-1',
      name: 'Nguyễn Văn An',
      email: 'an@example.com',
      phone: '0912345678',
      message: 'Gọi lại giúp tôi',
      page_url: 'https://shop.example.net/products/1',
      website: '',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: {} });
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    const [lead] = await leadsOf(form);
    // The form has no phone field: a phone sent anyway is not the merchant's to keep.
    expect(lead).toMatchObject({
      application_id: APP,
      source: 'contact',
      name: 'Nguyễn Văn An',
      email: 'an@example.com',
      phone: null,
      message: 'Gọi lại giúp tôi',
      page_url: 'https://shop.example.net/products/1',
      visitor_id: 'visitor-form-1',
    });
    const outbox = await db(server).selectFrom('webhook_outbox').selectAll().where('application_id', '=', APP).execute();
    const row = outbox.find((item) => JSON.parse(item.payload).lead.id === lead.id);
    // Whether the webhook dispatcher (it drains the outbox every second) has handled it yet is up to timing.
    expect(row).toMatchObject({ event: 'new_lead', application_id: APP });
    expect(JSON.parse(row!.payload)).toEqual({
      event: 'new_lead',
      application_id: APP,
      lead: expect.objectContaining({ id: lead.id, widget_id: form, widget_name: 'Contact form', email: 'an@example.com', source: 'contact' }),
    });
    const listed = await server.call('GET', `/api/application/${APP}/widget/${form}`, { token: owner.token });
    expect(listed.body.data.leads).toBe(1);
  });

  it('takes application/json too', async () => {
    const answer = await server.call('POST', '/api/sdk/lead', { body: { key, widget_id: form, visitor_id: 'visitor-form-json', email: 'json@example.com' } });
    expect(answer.body).toEqual({ success: true, data: {} });
    expect((await leadsOf(form)).map((lead) => lead.email)).toContain('json@example.com');
  });

  it('refuses a missing required field with the field’s message in the visitor’s language', async () => {
    const before = (await leadsOf(form)).length;
    const en = await beacon('lead', { key, widget_id: form, visitor_id: 'visitor-form-2', name: 'No email' }, { lang: 'en' });
    expect(en.status).toBe(400);
    expect(en.body).toEqual({
      success: false,
      error: 'INVALID_PARAM',
      message: 'This field is required',
      fields: [{ path: 'email', message: 'This field is required' }],
    });
    expect(en.headers['access-control-allow-origin']).toBe('*');
    const vi = await beacon('lead', { key, widget_id: form, visitor_id: 'visitor-form-2', email: '   ' }, { lang: 'vi-VN,vi;q=0.9' });
    expect(vi.body.fields).toEqual([{ path: 'email', message: 'Trường này là bắt buộc' }]);
    expect((await leadsOf(form)).length).toBe(before);
  });

  it('refuses a body over 16 KB before storing anything', async () => {
    const answer = await beacon('lead', { key, widget_id: form, visitor_id: 'visitor-huge', email: 'huge@example.com', message: 'x'.repeat(20_000) });
    expect(answer.status).toBe(413);
    expect(answer.body.success).toBe(false);
    expect((await leadsOf(form)).map((lead) => lead.email)).not.toContain('huge@example.com');
  });

  it('refuses a malformed email, and JSON that is not JSON', async () => {
    const bad = await beacon('lead', { key, widget_id: form, visitor_id: 'visitor-form-3', email: 'not-an-email' }, { lang: 'en' });
    expect(bad.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'email', message: 'Please enter the correct email' }] });
    const garbage = await server.call('POST', '/api/sdk/lead', { body: '{"key": ', headers: { 'content-type': 'text/plain' }, lang: 'en' });
    expect(garbage.status).toBe(400);
    expect(garbage.body).toEqual({ success: false, error: 'INVALID_PARAM', message: 'The request body is not valid JSON.' });
  });

  it('answers a bot that filled the honeypot exactly like a person, and stores nothing', async () => {
    const leads = (await leadsOf(form)).length;
    const outbox = (await db(server).selectFrom('webhook_outbox').select('id').execute()).length;
    const answer = await beacon('lead', { key, widget_id: form, visitor_id: 'visitor-bot', email: 'bot@example.com', website: 'http://spam.example' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: {} });
    expect((await leadsOf(form)).length).toBe(leads);
    expect((await db(server).selectFrom('webhook_outbox').select('id').execute()).length).toBe(outbox);
  });

  it('answers NOT_FOUND for a widget that is off, over, not yet started, not a form, or of another shop', async () => {
    const off = await widget({ ...contactForm('Off form'), status: 'inactive' });
    const over = await widget(contactForm('Over form', {}, { end_at: iso(-DAY) }));
    const later = await widget(contactForm('Later form', {}, { start_at: iso(DAY) }));
    const banner = await widget({ type: 'banner', name: 'Banner', settings: { title: 'B' } });
    const stranger = await createUser(server, { name: 'Other shop' });
    await createApplication(server, stranger, 'sdk_other_shop');
    const theirs = await widget(contactForm('Their form'), 'sdk_other_shop', stranger);
    for (const id of [off, over, later, banner, theirs, 987654]) {
      const answer = await beacon('lead', { key, widget_id: id, visitor_id: 'visitor-nf', email: 'nf@example.com' });
      expect(answer.status, `widget ${id}`).toBe(404);
      expect(answer.body.error).toBe('NOT_FOUND');
    }
    const wrongKey = await beacon('lead', { key: 'ffffffffffffffffffffffffffffffff', widget_id: form, visitor_id: 'visitor-nf', email: 'nf@example.com' });
    expect(wrongKey.body.error).toBe('NOT_FOUND');
    expect(await db(server).selectFrom('leads').select('id').where('email', '=', 'nf@example.com').execute()).toEqual([]);
  });
});

describe('contact buttons (maxlead)', () => {
  let buttons: number;
  let capture: number;
  beforeAll(async () => {
    const settings = { buttons: [{ type: 'zalo', value: '0912345678' }, { type: 'mail', value: 'shop@example.com' }] };
    buttons = await widget({ type: 'maxlead', name: 'Buttons', settings });
    capture = await widget({ type: 'maxlead', name: 'Capture', settings: { ...settings, capture: 'phone' } });
  });

  it('records a button’s use as a lead, and asks for the phone when the widget captures one', async () => {
    const click = await beacon('lead', { key, widget_id: buttons, visitor_id: 'visitor-btn-1', button_type: 'zalo', page_url: 'https://shop.example.net/' });
    expect(click.body.success).toBe(true);
    expect(await leadsOf(buttons)).toEqual([expect.objectContaining({ source: 'maxlead', button_type: 'zalo', phone: null })]);

    const nothing = await beacon('lead', { key, widget_id: buttons, visitor_id: 'visitor-btn-1' }, { lang: 'en' });
    expect(nothing.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'button_type' }] });

    const noPhone = await beacon('lead', { key, widget_id: capture, visitor_id: 'visitor-btn-2', button_type: 'zalo' }, { lang: 'en' });
    expect(noPhone.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'phone', message: 'This field is required' }] });
    const withPhone = await beacon('lead', { key, widget_id: capture, visitor_id: 'visitor-btn-2', button_type: 'zalo', phone: '+84 912 345 678' });
    expect(withPhone.body.success).toBe(true);
    expect(await leadsOf(capture)).toEqual([expect.objectContaining({ source: 'maxlead', button_type: 'zalo', phone: '+84 912 345 678' })]);
  });

  it("gives WhatsApp and Viber numbers in international form, read in the application's country for phone numbers", async () => {
    const APP_TH = 'sdk_shop_th';
    const keyTh = (await createApplication(server, owner, APP_TH, 'Shop in Thailand')).client_key;
    const settings = {
      buttons: [
        { type: 'whatapps', value: '(081) 234-5678' },
        { type: 'viber', value: '+84 912 345 678' },
        // Zalo's links take the number as written.
        { type: 'zalo', value: '0912345678' },
      ],
    };
    const id = await widget({ type: 'maxlead', name: 'Thai buttons', settings }, APP_TH);
    const buttonsOf = async (clientKey: string) =>
      (await server.call('GET', `/api/sdk/config?key=${clientKey}`)).body.data.widgets.find((w: { id: number }) => w.id === id).settings.buttons.map((b: { value: string }) => b.value);
    // Vietnam, as every new application unless told otherwise.
    expect(await buttonsOf(keyTh)).toEqual(['+84812345678', '+84912345678', '0912345678']);
    const update = await server.call('PUT', `/api/application/${APP_TH}`, { token: owner.token, body: { name: 'Shop in Thailand', phone_country: 'TH' } });
    expect(update.status).toBe(200);
    expect(await buttonsOf(keyTh)).toEqual(['+66812345678', '+84912345678', '0912345678']);
    // The merchant's settings keep what was typed.
    const stored = await server.call('GET', `/api/application/${APP_TH}/widget/${id}`, { token: owner.token });
    expect(stored.body.data.settings.buttons[0].value).toBe('(081) 234-5678');
  });

  it('counts views, clicks, and clicks per button the widget has, sent by sendBeacon', async () => {
    const send = (kind: string, button_type?: string) => beacon('event', { key, widget_id: buttons, visitor_id: 'visitor-btn-3', kind, button_type });
    expect((await send('view')).body).toEqual({ success: true, data: {} });
    await send('click', 'zalo');
    await send('click', 'zalo');
    await send('click', 'mail');
    // A button this widget does not have counts as a click of the widget, not of that button.
    await send('click', 'tiktok');
    const totals = await server.call('GET', `/api/application/${APP}/widget/${buttons}`, { token: owner.token });
    expect(totals.body.data).toMatchObject({ views: 1, clicks: 4 });
    const clicks = await server.call('GET', `/api/application/${APP}/lead/clicks`, { token: owner.token });
    expect(clicks.body).toEqual({ success: true, data: { items: [{ button_type: 'zalo', clicks: 2 }, { button_type: 'mail', clicks: 1 }] } });
  });

  it('refuses an event of an unknown kind', async () => {
    const answer = await beacon('event', { key, widget_id: buttons, visitor_id: 'visitor-btn-4', kind: 'purchase' }, { lang: 'en' });
    expect(answer.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'kind' }] });
  });
});

describe("a shop's own days", () => {
  it("counts button clicks and finds leads by the days of the application's timezone", async () => {
    const hanoi = 'sdk_hanoi';
    const hanoiKey = (await createApplication(server, owner, hanoi, 'Hanoi shop', 420)).client_key;
    const buttons = await widget({ type: 'maxlead', name: 'Buttons', settings: { buttons: [{ type: 'zalo', value: '0912345678' }] } }, hanoi);
    // 00:30 in Hanoi (UTC+07:00) is 17:30 UTC, still the day before in UTC.
    const midnight = dayStartAtOffset(addDays(dayAtOffset(server.clock.now().getTime(), 420), 1), 420);
    const step = midnight + 30 * 60_000 - server.clock.now().getTime();
    server.clock.advance(step);
    try {
      const today = dayAtOffset(server.clock.now().getTime(), 420);
      expect((await beacon('event', { key: hanoiKey, widget_id: buttons, visitor_id: 'visitor-hanoi', kind: 'click', button_type: 'zalo' })).body.success).toBe(true);
      expect((await beacon('lead', { key: hanoiKey, widget_id: buttons, visitor_id: 'visitor-hanoi', button_type: 'zalo' })).body.success).toBe(true);
      const get = async (path: string) => (await server.call('GET', `/api/application/${hanoi}/${path}`, { token: owner.token })).body.data;
      expect((await get(`lead/clicks?from=${today}&to=${today}`)).items).toEqual([{ button_type: 'zalo', clicks: 1 }]);
      expect((await get(`lead/clicks?to=${addDays(today, -1)}`)).items).toEqual([]);
      expect((await get(`lead?from=${today}&to=${today}`)).total).toBe(1);
      expect((await get(`lead?to=${addDays(today, -1)}`)).total).toBe(0);
    } finally {
      server.clock.advance(-step);
    }
  });
});

describe('the lead report', () => {
  const REPORT = 'sdk_report';
  let reporter: TestUser;
  let reportKey: string;
  let form: number;
  let wheel: number;
  beforeAll(async () => {
    reporter = await createUser(server, { name: 'Reporter' });
    reportKey = (await createApplication(server, reporter, REPORT)).client_key;
    form = await widget(contactForm('Báo giá', { fields: ['name', 'email', 'phone', 'message'], required: [] }), REPORT, reporter);
    wheel = await widget(
      { type: 'spin', name: 'Wheel', settings: { title: 'Spin', slices: [{ id: 'gift', label: 'Quà "to"', color: '#ff0000', weight: 1, code_prefix: 'GIFT-' }, { id: 'no', label: 'No', color: '#000', weight: 0, lose: true }] } },
      REPORT,
      reporter,
    );
    const send = (body: Record<string, unknown>) => beacon('lead', { key: reportKey, widget_id: form, ...body });
    await send({ visitor_id: 'visitor-rep-1', name: '=HYPERLINK("http://evil.example","click")', email: 'evil@example.com' });
    server.clock.advance(2 * DAY);
    await send({ visitor_id: 'visitor-rep-2', name: 'Trần Thị Bình', phone: '0987654321', message: 'Xin chào, "báo giá" giúp\ndòng hai' });
    server.clock.advance(DAY);
    const spun = await beacon('spin', { key: reportKey, widget_id: wheel, visitor_id: 'visitor-rep-3', email: 'Lucky@Example.com' });
    expect(spun.body.data).toMatchObject({ slice_id: 'gift', lose: false, code: expect.stringMatching(/^GIFT-[A-Z2-9]{8}$/) });
  });

  const report = (query = '') => server.call('GET', `/api/application/${REPORT}/lead${query}`, { token: reporter.token, lang: 'en' });

  it('lists the leads newest first with their widget, prize and code', async () => {
    const answer = await report();
    expect(answer.body.data.total).toBe(3);
    expect(answer.body.data.items.map((lead: { source: string }) => lead.source)).toEqual(['spin', 'contact', 'contact']);
    expect(answer.body.data.items[0]).toEqual({
      id: expect.any(Number),
      widget_id: wheel,
      widget_name: 'Wheel',
      source: 'spin',
      name: null,
      email: 'Lucky@Example.com',
      phone: null,
      message: null,
      button_type: null,
      prize: 'Quà "to"',
      code: expect.stringMatching(/^GIFT-/),
      page_url: null,
      created: expect.any(String),
    });
  });

  it('filters by source and by days', async () => {
    expect((await report('?source=spin')).body.data.items.map((lead: { source: string }) => lead.source)).toEqual(['spin']);
    const first = (await report('?source=contact')).body.data.items[1].created.slice(0, 10);
    const second = (await report('?source=contact')).body.data.items[0].created.slice(0, 10);
    const onlyFirst = await report(`?from=${first}&to=${first}`);
    expect(onlyFirst.body.data.items.map((lead: { email: string }) => lead.email)).toEqual(['evil@example.com']);
    const fromSecond = await report(`?from=${second}`);
    expect(fromSecond.body.data.total).toBe(2);
    const instants = await report(`?from=${encodeURIComponent(`${second}T00:00:00+07:00`)}&to=${encodeURIComponent(`${second}T23:59:59.999Z`)}`);
    expect(instants.body.data.items.map((lead: { name: string }) => lead.name)).toEqual(['Trần Thị Bình']);
    // Words, a day its month has not (Date.parse rolls it into March), another order of day and month.
    for (const from of ['yesterday', '2026-02-30', '05/12/2026']) {
      const bad = await report(`?from=${encodeURIComponent(from)}`);
      expect(bad.body, from).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'from', message: 'This value is not valid' }] });
    }
    expect((await report('?source=sms')).body.error).toBe('INVALID_PARAM');
  });

  it('exports them as CSV that Excel reads in Vietnamese and never runs as a formula', async () => {
    const answer = await server.app.inject({ method: 'GET', url: `/api/application/${REPORT}/lead/export.csv`, headers: { 'x-token': reporter.token } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toMatch(/^attachment; filename="leads-sdk_report-\d{4}-\d{2}-\d{2}\.csv"$/);
    const bytes = answer.rawPayload;
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('"created","source","widget","name","email","phone","message","button","prize","code","page_url"');
    expect(lines.at(-1)).toBe('');
    expect(text).toContain('"\'=HYPERLINK(""http://evil.example"",""click"")"');
    expect(text).not.toMatch(/(^|,)"=/m);
    expect(text).toContain('"Trần Thị Bình"');
    // A line break inside a quoted field stays inside that field.
    expect(text).toContain('"Xin chào, ""báo giá"" giúp\ndòng hai"');
    expect(text).toContain('"Quà ""to"""');
    // Three records, newest first: the spin, then the second and the first contact.
    const records = text.split('\r\n').filter((line) => /^"\d{4}-/.test(line));
    expect(records.map((line) => line.split('","')[1])).toEqual(['spin', 'contact', 'contact']);
  });

  it('exports only what the filters select', async () => {
    const answer = await server.call('GET', `/api/application/${REPORT}/lead/export.csv?source=spin`, { token: reporter.token });
    const records = String(answer.body).split('\r\n').filter((line) => /^"\d{4}-/.test(line));
    expect(records).toHaveLength(1);
    expect(records[0]).toContain('"Lucky@Example.com"');
  });
});

describe('with tight storefront limits', () => {
  let tight: TestServer;
  let tightKey: string;
  let form: number;
  beforeAll(async () => {
    tight = await startServer({
      env: { RATE_LIMIT_MAX: '30' },
      limits: {
        sdkLeadPerVisitor: { max: 2, windowMs: 60_000 },
        sdkLeadPerIp: { max: 4, windowMs: 60_000 },
        sdkLeadPerApplication: { max: 6, windowMs: 60_000 },
      },
    });
    const user = await createUser(tight);
    tightKey = (await createApplication(tight, user, 'tight_shop')).client_key;
    const answer = await tight.call('POST', '/api/application/tight_shop/widget', { token: user.token, body: { ...contactForm('Form'), status: 'active' } });
    form = answer.body.data.id;
  });
  afterAll(async () => tight?.close());

  const send = (visitor: string, ip: string) =>
    tight.call('POST', '/api/sdk/lead', {
      body: JSON.stringify({ key: tightKey, widget_id: form, visitor_id: visitor, email: `${visitor}@example.com` }),
      headers: { 'content-type': 'text/plain' },
      ip,
      lang: 'en',
    });

  it('limits one visitor, then one address, then the whole application, and lets them back after the window', async () => {
    expect((await send('visitor-one', '10.1.0.1')).status).toBe(200);
    expect((await send('visitor-one', '10.1.0.1')).status).toBe(200);
    const third = await send('visitor-one', '10.1.0.1');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ success: false, error: 'RATE_LIMITED', message: 'Too many attempts. Please wait a few minutes and try again.' });
    expect(third.headers['access-control-allow-origin']).toBe('*');

    // New visitor ids from the same address: the address's limit holds.
    expect((await send('visitor-two', '10.1.0.1')).status).toBe(200);
    expect((await send('visitor-three', '10.1.0.1')).status).toBe(200);
    expect((await send('visitor-four', '10.1.0.1')).status).toBe(429);

    // New addresses too: the application's limit holds.
    expect((await send('visitor-five', '10.1.0.2')).status).toBe(200);
    expect((await send('visitor-six', '10.1.0.3')).status).toBe(200);
    expect((await send('visitor-seven', '10.1.0.4')).status).toBe(429);

    const stored = await db(tight).selectFrom('leads').select('id').execute();
    expect(stored).toHaveLength(6);

    tight.clock.advance(60_000);
    expect((await send('visitor-one', '10.1.0.1')).status).toBe(200);
  });

  it('keeps the CORS header on the global per-address limit’s refusal, so the widget can read it', async () => {
    let last;
    for (let i = 0; i < 31; i++) last = await tight.call('GET', `/api/sdk/config?key=${tightKey}`, { ip: '10.1.9.9', lang: 'en' });
    expect(last!.status).toBe(429);
    expect(last!.body).toMatchObject({ success: false, error: 'RATE_LIMITED' });
    expect(last!.headers['access-control-allow-origin']).toBe('*');
  });
});
