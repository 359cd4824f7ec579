import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveriesTable, NotificationsTable } from '../../server/db/schema';
import { addMember, createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';
import { DAY_MS, insertPlayer } from './players-fixtures';
import { addDays, dayAtOffset, dayStartAtOffset } from '../../shared/format';

/** The dashboard's message statistics: recipients per day and channel, failures, the most clicked messages. */
const APP = 'msgstats_app';
const OTHER = 'msgstats_other';
const url = (query = '') => `/api/application/${APP}/dashboard/messages${query}`;

let server: TestServer;
let owner: TestUser;
let viewer: TestUser;
let adsManager: TestUser;
let today: string;
const day = (offset: number) => new Date(Date.parse(`${today}T00:00:00.000Z`) + offset * DAY_MS).toISOString().slice(0, 10);
const at = (offset: number, hour = 10) => `${day(offset)}T${String(hour).padStart(2, '0')}:00:00.000Z`;

async function insertNotification(applicationId: string, fields: Partial<Insertable<NotificationsTable>>): Promise<number> {
  const row = await db(server)
    .insertInto('notifications')
    .values({
      application_id: applicationId,
      type: 'web_push',
      name: '',
      status: 'executed',
      source: 'dashboard',
      content: JSON.stringify({ heading: 'Hello', content: 'Body', buttons: [], utm: {} }),
      audience: JSON.stringify({ segment_id: null, filters: null, tags: [] }),
      schedule: JSON.stringify({ mode: 'now' }),
      ttl_seconds: 259_200,
      created_at: at(-100),
      updated_at: at(-100),
      send_at: null,
      ...fields,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

type DeliveryFields = Partial<Omit<Insertable<DeliveriesTable>, 'notification_id' | 'application_id' | 'player_id'>>;

async function insertDelivery(applicationId: string, notificationId: number, playerId: number, fields: DeliveryFields) {
  await db(server)
    .insertInto('deliveries')
    .values({ platform: 'web', status: 'sent', created_at: fields.sent_at ?? at(-1), ...fields, notification_id: notificationId, application_id: applicationId, player_id: playerId })
    .execute();
}

beforeAll(async () => {
  server = await startServer();
  today = server.clock.now().toISOString().slice(0, 10);
  owner = await createUser(server, { name: 'owner' });
  viewer = await createUser(server, { name: 'viewer' });
  adsManager = await createUser(server, { name: 'ads' });
  await createApplication(server, owner, APP, 'Stats');
  await createApplication(server, owner, OTHER, 'Other');
  await addMember(server, owner, APP, viewer, 'viewer');
  await addMember(server, owner, APP, adsManager, 'ads_manager');

  const players = await Promise.all(['p1', 'p2', 'p3', 'p4'].map((id) => insertPlayer(server, APP, `msgstats-${id}`)));
  const phone = await insertPlayer(server, APP, 'msgstats-phone', { mobile_number: '+84901234567' });
  const stranger = await insertPlayer(server, OTHER, 'msgstats-other');

  // Two days ago: three web recipients; one clicked yesterday, one delivered, one only sent.
  const sale = await insertNotification(APP, {
    name: 'Flash sale',
    send_at: at(-2),
    targeted: 4,
    sent: 4,
    delivered: 3,
    clicked: 2,
  });
  await insertDelivery(APP, sale, players[0], { status: 'clicked', sent_at: at(-2), delivered_at: at(-2, 11), clicked_at: at(-1) });
  await insertDelivery(APP, sale, players[1], { status: 'delivered', sent_at: at(-2), delivered_at: at(-2, 12) });
  await insertDelivery(APP, sale, players[2], { status: 'sent', sent_at: at(-2) });
  // A click reported without a delivery report first: it was delivered when it was clicked.
  await insertDelivery(APP, sale, players[3], { status: 'clicked', sent_at: at(-2), clicked_at: at(0) });

  // Yesterday: an SMS sent to one number; another recipient failed.
  const sms = await insertNotification(APP, {
    type: 'sms',
    content: JSON.stringify({ heading: '', content: 'Your code ends today', buttons: [], utm: {} }),
    send_at: at(-1),
    targeted: 2,
    sent: 1,
    failed: 1,
  });
  await insertDelivery(APP, sms, phone, { platform: 'sms', status: 'sent', sent_at: at(-1) });
  await insertDelivery(APP, sms, players[0], { platform: 'sms', status: 'failed', reason: 'no_address', created_at: at(-1) });
  await insertDelivery(APP, sms, players[1], { platform: 'sms', status: 'queued', created_at: at(-1) });

  // Sixty days ago: in the 90-day period only.
  const old = await insertNotification(APP, { name: 'Old news', send_at: at(-60), sent: 1, delivered: 1, clicked: 1 });
  await insertDelivery(APP, old, players[2], { status: 'clicked', sent_at: at(-60), delivered_at: at(-60), clicked_at: at(-60, 12) });

  // A draft, and another application's message: neither counts.
  await insertNotification(APP, { status: 'new', name: 'Draft' });
  const foreign = await insertNotification(OTHER, { send_at: at(-1), sent: 9, clicked: 9 });
  await insertDelivery(OTHER, foreign, stranger, { status: 'clicked', sent_at: at(-1), delivered_at: at(-1), clicked_at: at(-1) });
}, 60_000);
afterAll(async () => server?.close());

describe('GET /dashboard/messages', () => {
  it('counts recipients on the day each was sent, delivered and clicked, every day of the last 30 present', async () => {
    const answer = await server.call('GET', url(), { token: owner.token });
    expect(answer.status).toBe(200);
    const { data } = answer.body;
    expect(data.from).toBe(day(-29));
    expect(data.to).toBe(today);
    expect(data.days).toHaveLength(30);
    const byDay = new Map(data.days.map((entry: { day: string }) => [entry.day, entry]));
    expect(byDay.get(day(-2))).toEqual({ day: day(-2), sent: 4, delivered: 2, clicked: 0 });
    expect(byDay.get(day(-1))).toEqual({ day: day(-1), sent: 1, delivered: 0, clicked: 1 });
    expect(byDay.get(day(0))).toEqual({ day: today, sent: 0, delivered: 1, clicked: 1 });
    expect(byDay.get(day(-3))).toEqual({ day: day(-3), sent: 0, delivered: 0, clicked: 0 });
  });

  it('totals each channel with its failures, and the whole with its click-through rate', async () => {
    const { data } = (await server.call('GET', url(), { token: owner.token })).body;
    expect(data.by_channel).toEqual([
      { platform: 'web', sent: 4, delivered: 3, clicked: 2, failed: 0 },
      { platform: 'ios', sent: 0, delivered: 0, clicked: 0, failed: 0 },
      { platform: 'android', sent: 0, delivered: 0, clicked: 0, failed: 0 },
      { platform: 'sms', sent: 1, delivered: 0, clicked: 0, failed: 1 },
      { platform: 'facebook', sent: 0, delivered: 0, clicked: 0, failed: 0 },
    ]);
    expect(data.totals).toEqual({ sent: 5, delivered: 3, clicked: 2, failed: 1, ctr: 66.7 });
  });

  it('lists the messages due in the period, most clicked first, titled by name or content', async () => {
    const { data } = (await server.call('GET', url(), { token: owner.token })).body;
    expect(data.top_messages.map((message: { title: string }) => message.title)).toEqual(['Flash sale', 'Your code ends today']);
    expect(data.top_messages[0]).toMatchObject({ type: 'web_push', status: 'executed', send_at: at(-2), ctr: 66.7 });
    expect(data.top_messages[0].stats).toEqual({ targeted: 4, sent: 4, delivered: 3, failed: 0, clicked: 2 });
  });

  it('reaches back 90 days when asked, and only 7 when asked', async () => {
    const ninety = (await server.call('GET', url('?days=90'), { token: owner.token })).body.data;
    expect(ninety.days).toHaveLength(90);
    expect(ninety.days.find((entry: { day: string }) => entry.day === day(-60))).toEqual({ day: day(-60), sent: 1, delivered: 1, clicked: 1 });
    expect(ninety.top_messages.map((message: { title: string }) => message.title)).toEqual(['Flash sale', 'Old news', 'Your code ends today']);
    const seven = (await server.call('GET', url('?days=7'), { token: owner.token })).body.data;
    expect(seven.from).toBe(day(-6));
    expect(seven.totals.sent).toBe(5);
  });

  it('refuses any other period and changes nothing', async () => {
    for (const query of ['?days=14', '?days=abc', '?days=-7']) {
      const answer = await server.call('GET', url(query), { token: owner.token, lang: 'en' });
      expect(answer.status, query).toBe(400);
      expect(answer.body.error).toBe('INVALID_PARAM');
    }
  });

  it('answers an application without messages with zeros', async () => {
    const { data } = (await server.call('GET', `/api/application/${OTHER}/dashboard/messages?days=7`, { token: owner.token })).body;
    // The other application's one message was yesterday: its own figures, none of this application's.
    expect(data.totals).toEqual({ sent: 1, delivered: 1, clicked: 1, failed: 0, ctr: 100 });
    const empty = await createUser(server, { name: 'empty' });
    await createApplication(server, empty, 'msgstats_empty');
    const none = (await server.call('GET', '/api/application/msgstats_empty/dashboard/messages', { token: empty.token })).body.data;
    expect(none.totals).toEqual({ sent: 0, delivered: 0, clicked: 0, failed: 0, ctr: 0 });
    expect(none.top_messages).toEqual([]);
    expect(none.days.every((entry: { sent: number }) => entry.sent === 0)).toBe(true);
  });

  it("counts each recipient on its day in the application's timezone", async () => {
    // UTC-09:30: 05:00 UTC is still the evening before there, 10:00 UTC the same morning.
    await createApplication(server, owner, 'msgstats_marquesas', 'Marquesas', -570);
    const local = dayAtOffset(server.clock.now().getTime(), -570);
    const start = dayStartAtOffset(local, -570);
    const player = await insertPlayer(server, 'msgstats_marquesas', 'msgstats-marquesas');
    const message = await insertNotification('msgstats_marquesas', { send_at: new Date(start - 3 * DAY_MS).toISOString() });
    // Sent a minute before today began there, delivered and clicked as it began: the same UTC day.
    await insertDelivery('msgstats_marquesas', message, player, {
      status: 'clicked',
      sent_at: new Date(start - 60_000).toISOString(),
      delivered_at: new Date(start).toISOString(),
      clicked_at: new Date(start).toISOString(),
    });
    const { data } = (await server.call('GET', '/api/application/msgstats_marquesas/dashboard/messages?days=7', { token: owner.token })).body;
    expect(data.days.at(-1).day).toBe(local);
    const byDay = new Map(data.days.map((entry: { day: string }) => [entry.day, entry]));
    expect(byDay.get(addDays(local, -1))).toEqual({ day: addDays(local, -1), sent: 1, delivered: 0, clicked: 0 });
    expect(byDay.get(local)).toEqual({ day: local, sent: 0, delivered: 1, clicked: 1 });
  });

  it('is for the roles that see notifications: a viewer reads it, an ads manager and outsiders do not', async () => {
    expect((await server.call('GET', url(), { token: viewer.token })).status).toBe(200);
    expect((await server.call('GET', url(), { token: adsManager.token })).body.error).toBe('NO_PERMISSION');
    const outsider = await createUser(server, { name: 'outsider' });
    expect((await server.call('GET', url(), { token: outsider.token })).body.error).toBe('NO_PERMISSION');
    expect((await server.call('GET', url())).body.error).toBe('NOT_AUTHORIZED');
  });
});
