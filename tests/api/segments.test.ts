import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SegmentCondition, type SegmentRule, segmentNameKey } from '../../shared/contract';
import { migrateToLatest } from '../../server/db';
import { buildMigrations } from '../../server/db/migrations';
import { matchingPlayerIds, measureSegmentsDue } from '../../server/domain/segments';
import { startSegmentSizes } from '../../server/jobs/segment-sizes';
import { addMember, createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';
import { DAY_MS, daysAgo, insertAttribute, insertEvent, insertPlayer, insertTags } from './players-fixtures';
import { addDays, dayAtOffset, dayStartAtOffset } from '../../shared/format';

/**
 * Segments through the real server: every operator of every condition kind over four players whose fields are
 * known, the live count (POST /segment/count) and the list of matching players (the same compiled SQL) both
 * compared with the expected players; OR/AND; events not performed, counted, within a period; the clock moved.
 */
const APP = 'segment_app';
const OTHER = 'segment_other';

let server: TestServer;
let owner: TestUser;
const ids = {} as Record<'alice' | 'bob' | 'carol' | 'dave', number>;
const names = new Map<number, string>();
/** The day (YYYY-MM-DD) `days` days before the clock, as seeded. */
let dayOf: (days: number) => string;

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server, { name: 'owner' });
  await createApplication(server, owner, APP, 'Segments');
  await createApplication(server, owner, OTHER, 'Other');
  const ago = (days: number) => daysAgo(server, days);
  dayOf = (days: number) => ago(days).slice(0, 10);

  ids.alice = await insertPlayer(server, APP, 'alice-device', {
    country: 'VN',
    city: 'Hà Nội',
    language: 'vi',
    device_type: 'mobile',
    platform: 'web',
    os: 'Android',
    browser: 'Chrome',
    timezone_offset: 420,
    external_user_id: 'u-1',
    email: 'alice@example.com',
    utm_source: 'google',
    utm_medium: 'cpc',
    utm_campaign: 'Summer_Sale',
    utm_content: 'banner_a',
    first_session_at: ago(40),
    last_session_at: ago(1),
    last_seen_at: ago(1),
    created_at: ago(40),
    session_count: 12,
    page_views: 80,
    subscribed: 1,
    push_endpoint: 'https://push.example.com/alice',
    push_p256dh: 'key',
    push_auth: 'auth',
  });
  ids.bob = await insertPlayer(server, APP, 'bob-device', {
    country: 'US',
    city: 'New York',
    language: 'en',
    os: 'Windows',
    browser: 'Firefox',
    timezone_offset: -300,
    utm_source: 'facebook',
    utm_campaign: 'summer%sale',
    first_session_at: ago(5),
    last_session_at: ago(5),
    last_seen_at: ago(5),
    created_at: ago(5),
    session_count: 1,
    page_views: 3,
  });
  ids.carol = await insertPlayer(server, APP, 'carol-device', {
    country: 'VN',
    city: 'Ho Chi Minh',
    language: 'vi',
    device_type: 'mobile',
    platform: 'ios',
    os: 'iOS',
    app_version: '2.1.0',
    device_token: 'apns-token',
    subscribed: 1,
    mobile_number: '+84901234567',
    timezone_offset: 420,
    first_session_at: ago(100),
    last_session_at: ago(60),
    last_seen_at: ago(60),
    created_at: ago(100),
    session_count: 5,
    page_views: 20,
  });
  // Subscribed on Android but without a token: not reachable by mobile push.
  ids.dave = await insertPlayer(server, APP, 'dave-device', { platform: 'android', subscribed: 1, fb_psid: 'psid-1', created_at: ago(1) });
  for (const [name, id] of Object.entries(ids)) names.set(id, name);

  await insertTags(server, APP, ids.alice, ['vip', 'newsletter']);
  await insertTags(server, APP, ids.bob, ['newsletter']);
  await insertTags(server, APP, ids.carol, ['vip']);

  await insertAttribute(server, APP, ids.alice, 'plan', 'gold');
  await insertAttribute(server, APP, ids.alice, 'spent', 250);
  await insertAttribute(server, APP, ids.alice, 'married', true);
  await insertAttribute(server, APP, ids.alice, 'birthday.date', ago(3));
  await insertAttribute(server, APP, ids.bob, 'plan', 'silver');
  await insertAttribute(server, APP, ids.bob, 'spent', 50);
  await insertAttribute(server, APP, ids.bob, 'married', false);
  await insertAttribute(server, APP, ids.carol, 'spent', 1000);
  await insertAttribute(server, APP, ids.carol, 'birthday.date', ago(400));

  for (const days of [2, 10, 40]) await insertEvent(server, APP, ids.alice, 'purchase', ago(days));
  await insertEvent(server, APP, ids.alice, 'view', ago(1));
  await insertEvent(server, APP, ids.bob, 'view', ago(5));
  await insertEvent(server, APP, ids.bob, 'view', ago(5.5));
  await insertEvent(server, APP, ids.carol, 'purchase', ago(60));

  // Another application's player matches almost everything and must never be counted.
  const stranger = await insertPlayer(server, OTHER, 'alice-device', { country: 'VN', session_count: 99, subscribed: 1, push_endpoint: 'https://push.example.com/x' });
  await insertTags(server, OTHER, stranger, ['vip', 'newsletter']);
  await insertAttribute(server, OTHER, stranger, 'plan', 'gold');
  await insertEvent(server, OTHER, stranger, 'purchase', ago(1));
}, 60_000);
afterAll(async () => server?.close());

const one = (condition: unknown): SegmentRule => ({ any: [{ all: [condition as SegmentCondition] }] });

/** The count the editor shows, and the matching players, both by name. */
async function evaluate(rule: SegmentRule, token = owner.token) {
  const answer = await server.call('POST', `/api/application/${APP}/segment/count`, { token, body: { rule } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const list = await matchingPlayerIds(server.app.services, APP, rule);
  return { count: answer.body.data.count as number, total: answer.body.data.total as number, players: list.map((id) => names.get(id)).sort() };
}

async function expectMembers(rule: SegmentRule, expected: string[]) {
  const { count, players } = await evaluate(rule);
  expect(players).toEqual([...expected].sort());
  expect(count).toBe(expected.length);
}

type Case = [label: string, condition: unknown, expected: string[]];

describe('field conditions', () => {
  const cases: Case[] = [
    ['text eq', { kind: 'field', field: 'country', op: 'eq', value: 'VN' }, ['alice', 'carol']],
    ['text eq is exact', { kind: 'field', field: 'city', op: 'eq', value: 'hà nội' }, []],
    ['text neq includes players without a value', { kind: 'field', field: 'country', op: 'neq', value: 'VN' }, ['bob', 'dave']],
    ['text contains ignores case', { kind: 'field', field: 'country', op: 'contains', value: 'v' }, ['alice', 'carol']],
    ['text not_contains includes players without a value', { kind: 'field', field: 'country', op: 'not_contains', value: 'v' }, ['bob', 'dave']],
    ['text contains takes _ literally', { kind: 'field', field: 'utm_campaign', op: 'contains', value: 'summer_' }, ['alice']],
    ['text contains takes % literally', { kind: 'field', field: 'utm_campaign', op: 'contains', value: '%' }, ['bob']],
    ['text exists', { kind: 'field', field: 'country', op: 'exists' }, ['alice', 'bob', 'carol']],
    ['text not_exists', { kind: 'field', field: 'country', op: 'not_exists' }, ['dave']],
    ['text eq on app version', { kind: 'field', field: 'app_version', op: 'eq', value: '2.1.0' }, ['carol']],
    ['text eq on platform', { kind: 'field', field: 'platform', op: 'eq', value: 'android' }, ['dave']],
    ['text eq on device type', { kind: 'field', field: 'device_type', op: 'eq', value: 'mobile' }, ['alice', 'carol']],
    ['text eq on utm source', { kind: 'field', field: 'utm_source', op: 'eq', value: 'facebook' }, ['bob']],
    ['text eq on utm content', { kind: 'field', field: 'utm_content', op: 'eq', value: 'banner_a' }, ['alice']],
    ['text contains on city', { kind: 'field', field: 'city', op: 'contains', value: 'chi' }, ['carol']],
    ['text eq on email', { kind: 'field', field: 'email', op: 'eq', value: 'alice@example.com' }, ['alice']],
    ['number eq', { kind: 'field', field: 'session_count', op: 'eq', value: 5 }, ['carol']],
    ['number neq', { kind: 'field', field: 'session_count', op: 'neq', value: 5 }, ['alice', 'bob', 'dave']],
    ['number gt', { kind: 'field', field: 'session_count', op: 'gt', value: 5 }, ['alice']],
    ['number gte', { kind: 'field', field: 'session_count', op: 'gte', value: 5 }, ['alice', 'carol']],
    ['number lt', { kind: 'field', field: 'session_count', op: 'lt', value: 5 }, ['bob', 'dave']],
    ['number lte', { kind: 'field', field: 'session_count', op: 'lte', value: 1 }, ['bob', 'dave']],
    ['number gt with a fraction', { kind: 'field', field: 'session_count', op: 'gt', value: 0.5 }, ['alice', 'bob', 'carol']],
    ['number lt on page views', { kind: 'field', field: 'page_views', op: 'lt', value: 20 }, ['bob', 'dave']],
    ['number neq includes players without a value', { kind: 'field', field: 'timezone_offset', op: 'neq', value: 420 }, ['bob', 'dave']],
    ['number lt with a negative value', { kind: 'field', field: 'timezone_offset', op: 'lt', value: 0 }, ['bob']],
    ['number exists', { kind: 'field', field: 'timezone_offset', op: 'exists' }, ['alice', 'bob', 'carol']],
    ['number not_exists', { kind: 'field', field: 'timezone_offset', op: 'not_exists' }, ['dave']],
    ['date within_days', { kind: 'field', field: 'last_session_at', op: 'within_days', value: 2 }, ['alice']],
    ['date within_days, wider', { kind: 'field', field: 'last_session_at', op: 'within_days', value: 7 }, ['alice', 'bob']],
    ['date older_than_days', { kind: 'field', field: 'last_session_at', op: 'older_than_days', value: 30 }, ['carol']],
    ['date exists', { kind: 'field', field: 'first_session_at', op: 'exists' }, ['alice', 'bob', 'carol']],
    ['date not_exists', { kind: 'field', field: 'first_session_at', op: 'not_exists' }, ['dave']],
    ['date older_than_days on created', { kind: 'field', field: 'created_at', op: 'older_than_days', value: 30 }, ['alice', 'carol']],
    // Inactive players, the win-back audience: not seen for 30 days (never seen is not "seen long ago").
    ['date older_than_days on last seen', { kind: 'field', field: 'last_seen_at', op: 'older_than_days', value: 30 }, ['carol']],
    ['date within_days on last seen', { kind: 'field', field: 'last_seen_at', op: 'within_days', value: 7 }, ['alice', 'bob']],
    ['date not_exists on last seen', { kind: 'field', field: 'last_seen_at', op: 'not_exists' }, ['dave']],
  ];
  it.each(cases)('%s', async (_label, condition, expected) => expectMembers(one(condition), expected));

  it('compares dates to whole UTC days: before a day is before its start, after a day is from the next day on', async () => {
    await expectMembers(one({ kind: 'field', field: 'last_session_at', op: 'before', value: dayOf(3) }), ['bob', 'carol']);
    await expectMembers(one({ kind: 'field', field: 'last_session_at', op: 'after', value: dayOf(3) }), ['alice']);
    // The day of bob's last session is neither before nor after that day.
    await expectMembers(one({ kind: 'field', field: 'last_session_at', op: 'before', value: dayOf(5) }), ['carol']);
    await expectMembers(one({ kind: 'field', field: 'last_session_at', op: 'after', value: dayOf(5) }), ['alice']);
    await expectMembers(one({ kind: 'field', field: 'first_session_at', op: 'after', value: dayOf(101) }), ['alice', 'bob', 'carol']);
  });
});

describe('attribute conditions', () => {
  const text = (op: string, value?: string) => ({ kind: 'attribute', name: 'plan', type: 'text', op, value });
  const number = (op: string, value?: number) => ({ kind: 'attribute', name: 'spent', type: 'number', op, value });
  const boolean = (op: string) => ({ kind: 'attribute', name: 'married', type: 'boolean', op });
  const date = (op: string, value?: string | number) => ({ kind: 'attribute', name: 'birthday.date', type: 'date', op, value });
  const cases: Case[] = [
    ['text eq', text('eq', 'gold'), ['alice']],
    ['text neq includes players without it', text('neq', 'gold'), ['bob', 'carol', 'dave']],
    ['text contains ignores case', text('contains', 'LD'), ['alice']],
    ['text not_contains includes players without it', text('not_contains', 'ld'), ['bob', 'carol', 'dave']],
    ['text exists', text('exists'), ['alice', 'bob']],
    ['text not_exists', text('not_exists'), ['carol', 'dave']],
    ['number eq', number('eq', 50), ['bob']],
    ['number neq includes players without it', number('neq', 50), ['alice', 'carol', 'dave']],
    ['number gt', number('gt', 100), ['alice', 'carol']],
    ['number gte', number('gte', 250), ['alice', 'carol']],
    ['number lt', number('lt', 250), ['bob']],
    ['number lte', number('lte', 250), ['alice', 'bob']],
    ['number exists', number('exists'), ['alice', 'bob', 'carol']],
    ['number not_exists', number('not_exists'), ['dave']],
    ['boolean is_true', boolean('is_true'), ['alice']],
    ['boolean is_false', boolean('is_false'), ['bob']],
    ['boolean exists', boolean('exists'), ['alice', 'bob']],
    ['boolean not_exists', boolean('not_exists'), ['carol', 'dave']],
    ['date within_days', date('within_days', 7), ['alice']],
    ['date older_than_days', date('older_than_days', 30), ['carol']],
    ['date exists', date('exists'), ['alice', 'carol']],
    ['date not_exists', date('not_exists'), ['bob', 'dave']],
  ];
  it.each(cases)('%s', async (_label, condition, expected) => expectMembers(one(condition), expected));

  it('compares date attributes to whole UTC days', async () => {
    await expectMembers(one(date('before', dayOf(10))), ['carol']);
    await expectMembers(one(date('after', dayOf(10))), ['alice']);
    await expectMembers(one(date('after', dayOf(3))), []);
  });

  it('counts a saved rule whose day is not ISO 8601, kept from before that was asked, as it was counted', async () => {
    // Date.parse reads "Sun, 22 Nov 2026 00:00:00 GMT"; a condition submitted now must say 2026-11-22.
    const kept = one(date('before', new Date(dayOf(10)).toUTCString()));
    const at = server.clock.now().toISOString();
    const { id } = await db(server).insertInto('segments').values({ application_id: APP, name: 'Kept day', name_key: segmentNameKey('Kept day'), rule: JSON.stringify(kept), created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow();
    const detail = await server.call('GET', `/api/application/${APP}/segment/${id}`, { token: owner.token });
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body.data.size).toBe(1);
    expect((await matchingPlayerIds(server.app.services, APP, kept)).map((player) => names.get(player))).toEqual(['carol']);
    await db(server).deleteFrom('segments').where('id', '=', id).execute();
  });

  it("does not see another application's attribute of the same name", async () => {
    await expectMembers(one(text('eq', 'gold')), ['alice']);
  });
});

describe('tag conditions', () => {
  const cases: Case[] = [
    ['has', { kind: 'tag', op: 'has', tag: 'vip' }, ['alice', 'carol']],
    ['has, another tag', { kind: 'tag', op: 'has', tag: 'newsletter' }, ['alice', 'bob']],
    ['not_has includes untagged players', { kind: 'tag', op: 'not_has', tag: 'vip' }, ['bob', 'dave']],
    ['has a tag nobody has', { kind: 'tag', op: 'has', tag: 'ghost' }, []],
    ['not_has a tag nobody has', { kind: 'tag', op: 'not_has', tag: 'ghost' }, ['alice', 'bob', 'carol', 'dave']],
  ];
  it.each(cases)('%s', async (_label, condition, expected) => expectMembers(one(condition), expected));
});

describe('event conditions', () => {
  const event = (extra: Record<string, unknown>) => ({ kind: 'event', name: 'purchase', performed: true, ...extra });
  const cases: Case[] = [
    ['performed', event({}), ['alice', 'carol']],
    ['not performed', event({ performed: false }), ['bob', 'dave']],
    ['performed within 7 days', event({ within_days: 7 }), ['alice']],
    ['performed within 90 days', event({ within_days: 90 }), ['alice', 'carol']],
    ['not performed within 30 days', event({ performed: false, within_days: 30 }), ['bob', 'carol', 'dave']],
    ['performed at least twice', event({ count: { op: 'gte', value: 2 } }), ['alice']],
    ['performed at least three times', event({ count: { op: 'gte', value: 3 } }), ['alice']],
    ['performed at least four times', event({ count: { op: 'gte', value: 4 } }), []],
    ['performed exactly once', event({ count: { op: 'eq', value: 1 } }), ['carol']],
    ['performed at most once (and at least once)', event({ count: { op: 'lte', value: 1 } }), ['carol']],
    ['performed at least twice within 30 days', event({ count: { op: 'gte', value: 2 }, within_days: 30 }), ['alice']],
    ['performed at least three times within 30 days', event({ count: { op: 'gte', value: 3 }, within_days: 30 }), []],
    ['not performed at least twice: fewer times, none included', event({ performed: false, count: { op: 'gte', value: 2 } }), ['bob', 'carol', 'dave']],
    ['another event counted', { kind: 'event', name: 'view', performed: true, count: { op: 'eq', value: 2 } }, ['bob']],
    ['an event nobody sent', { kind: 'event', name: 'refund', performed: true }, []],
    ['an event nobody sent, not performed', { kind: 'event', name: 'refund', performed: false }, ['alice', 'bob', 'carol', 'dave']],
  ];
  it.each(cases)('%s', async (_label, condition, expected) => expectMembers(one(condition), expected));
});

describe('channel conditions', () => {
  const cases: Case[] = [
    ['web push', { kind: 'channel', channel: 'web_push', subscribed: true }, ['alice']],
    ['not web push', { kind: 'channel', channel: 'web_push', subscribed: false }, ['bob', 'carol', 'dave']],
    ['mobile push needs a token on ios or android', { kind: 'channel', channel: 'mobile_push', subscribed: true }, ['carol']],
    ['sms', { kind: 'channel', channel: 'sms', subscribed: true }, ['carol']],
    ['facebook', { kind: 'channel', channel: 'facebook', subscribed: true }, ['dave']],
    ['not facebook', { kind: 'channel', channel: 'facebook', subscribed: false }, ['alice', 'bob', 'carol']],
  ];
  it.each(cases)('%s', async (_label, condition, expected) => expectMembers(one(condition), expected));
});

describe('groups', () => {
  const vn = { kind: 'field', field: 'country', op: 'eq', value: 'VN' };
  const us = { kind: 'field', field: 'country', op: 'eq', value: 'US' };
  const regular = { kind: 'field', field: 'session_count', op: 'gt', value: 5 };
  const vip = { kind: 'tag', op: 'has', tag: 'vip' };

  it('AND: a player matches a group when every condition does', async () => {
    await expectMembers({ any: [{ all: [vn, regular] }] } as SegmentRule, ['alice']);
    await expectMembers({ any: [{ all: [vn, vip, { kind: 'event', name: 'purchase', performed: true, within_days: 30 }] }] } as SegmentRule, ['alice']);
    await expectMembers({ any: [{ all: [us, vip] }] } as SegmentRule, []);
  });

  it('OR: a player matches when any group does, and counts once', async () => {
    await expectMembers({ any: [{ all: [us] }, { all: [{ kind: 'channel', channel: 'facebook', subscribed: true }] }] } as SegmentRule, ['bob', 'dave']);
    await expectMembers({ any: [{ all: [vn, regular] }, { all: [us] }] } as SegmentRule, ['alice', 'bob']);
    await expectMembers({ any: [{ all: [vip] }, { all: [vn] }] } as SegmentRule, ['alice', 'carol']);
  });

  it("answers the application's players in total beside the count", async () => {
    const { total, count } = await evaluate(one(vn));
    expect(total).toBe(4);
    expect(count).toBe(2);
  });
});

describe('within_days follows the clock', () => {
  it('counts from the moved clock, for fields, attributes and events', async () => {
    const session = one({ kind: 'field', field: 'last_session_at', op: 'within_days', value: 7 });
    const birthday = one({ kind: 'attribute', name: 'birthday.date', type: 'date', op: 'within_days', value: 7 });
    const recent = one({ kind: 'event', name: 'purchase', performed: true, within_days: 7 });
    await expectMembers(session, ['alice', 'bob']);
    await expectMembers(birthday, ['alice']);
    await expectMembers(recent, ['alice']);
    server.clock.advance(3 * DAY_MS);
    try {
      await expectMembers(session, ['alice']);
      await expectMembers(birthday, ['alice']);
      await expectMembers(recent, ['alice']);
      server.clock.advance(3 * DAY_MS);
      await expectMembers(session, []);
      await expectMembers(birthday, []);
      await expectMembers(recent, []);
    } finally {
      server.clock.advance(-6 * DAY_MS);
    }
  });
});

describe('rules that are refused', () => {
  async function refused(rule: unknown) {
    const answer = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, lang: 'en', body: { rule } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INVALID_PARAM');
    return (answer.body.fields as { path: string }[]).map((field) => field.path);
  }

  it('refuses an empty rule and an empty group (spec §5), naming the path', async () => {
    expect(await refused({ any: [] })).toContain('rule.any');
    expect(await refused({ any: [{ all: [] }] })).toContain('rule.any.0.all');
  });

  it('refuses a condition without its value', async () => {
    expect(await refused(one({ kind: 'field', field: 'country', op: 'eq' }))).toContain('rule.any.0.all.0.value');
    expect(await refused(one({ kind: 'field', field: 'country', op: 'eq', value: '' }))).toContain('rule.any.0.all.0.value');
    expect(await refused(one({ kind: 'field', field: 'last_session_at', op: 'within_days', value: 'soon' }))).toContain('rule.any.0.all.0.value');
    expect(await refused(one({ kind: 'field', field: 'last_session_at', op: 'before', value: 'not a day' }))).toContain('rule.any.0.all.0.value');
  });

  it('refuses a day that is not ISO 8601 or not in its month, which Date.parse would have read as another day', async () => {
    // "12/05/2025" is 12 May to a Vietnamese merchant and 5 December to Date.parse; 2026-02-30 would roll over to March.
    for (const value of ['12/05/2025', '2026-02-30', '5']) {
      const answer = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, lang: 'en', body: { rule: one({ kind: 'attribute', name: 'birthday.date', type: 'date', op: 'after', value }) } });
      expect(answer.status, value).toBe(400);
      expect(answer.body.fields, value).toEqual([{ path: 'rule.any.0.all.0.value', message: 'Enter a valid date' }]);
    }
  });

  it("refuses an operator the field's type has not, and a field that is not offered", async () => {
    expect(await refused(one({ kind: 'field', field: 'country', op: 'gt', value: 3 }))).toContain('rule.any.0.all.0.op');
    expect(await refused(one({ kind: 'field', field: 'push_endpoint', op: 'exists' }))).toContain('rule.any.0.all.0.field');
  });

  it('refuses a country or a language that is not a code as players keep them, naming why, and lets contains search freely', async () => {
    const why = async (condition: Record<string, unknown>) => {
      const answer = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, lang: 'en', body: { rule: one(condition) } });
      expect(answer.status).toBe(400);
      return (answer.body.fields as { path: string; message: string }[]).map((field) => `${field.path}: ${field.message}`);
    };
    expect(await why({ kind: 'field', field: 'country', op: 'eq', value: 'Vietnam' })).toEqual(['rule.any.0.all.0.value: A country is its 2-letter code, e.g. VN']);
    expect(await why({ kind: 'field', field: 'country', op: 'neq', value: 'vn' })).toEqual(['rule.any.0.all.0.value: A country is its 2-letter code, e.g. VN']);
    expect(await why({ kind: 'field', field: 'language', op: 'eq', value: 'vi-VN' })).toEqual(['rule.any.0.all.0.value: A language is its 2- or 3-letter code, e.g. vi']);
    const vi = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, lang: 'vi', body: { rule: one({ kind: 'field', field: 'language', op: 'eq', value: 'Vietnamese' }) } });
    expect(vi.body.fields).toEqual([expect.objectContaining({ path: 'rule.any.0.all.0.value', message: 'Ngôn ngữ là mã 2 hoặc 3 chữ cái, vd. vi' })]);
    const contains = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, body: { rule: one({ kind: 'field', field: 'country', op: 'contains', value: 'viet' }) } });
    expect(contains.status).toBe(200);
  });

  it('refuses a platform or device type that is not one players hold, naming those', async () => {
    const why = async (condition: Record<string, unknown>, lang = 'en') => {
      const answer = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, lang, body: { rule: one(condition) } });
      expect(answer.status).toBe(400);
      return (answer.body.fields as { path: string; message: string }[]).map((field) => `${field.path}: ${field.message}`);
    };
    // As the console shows them, which matched no one.
    expect(await why({ kind: 'field', field: 'platform', op: 'eq', value: 'iOS' })).toEqual(['rule.any.0.all.0.value: Must be one of: web, ios, android']);
    expect(await why({ kind: 'field', field: 'device_type', op: 'neq', value: 'Di động' }, 'vi')).toEqual(['rule.any.0.all.0.value: Phải là một trong: desktop, mobile']);
    for (const condition of [
      { kind: 'field', field: 'platform', op: 'eq', value: 'ios' },
      { kind: 'field', field: 'device_type', op: 'contains', value: 'mob' },
    ]) {
      const answer = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, body: { rule: one(condition) } });
      expect(answer.status, JSON.stringify(condition)).toBe(200);
    }
  });

  it('refuses a number of days or of times out of its bounds, saying the bounds, and an empty one as required', async () => {
    const why = async (condition: Record<string, unknown>, lang = 'en') => {
      const answer = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, lang, body: { rule: one(condition) } });
      expect(answer.status).toBe(400);
      return (answer.body.fields as { path: string; message: string }[]).map((field) => `${field.path}: ${field.message}`);
    };
    const days = 'Enter a whole number of days from 1 to 3,650';
    expect(await why({ kind: 'field', field: 'last_session_at', op: 'within_days', value: 0 })).toEqual([`rule.any.0.all.0.value: ${days}`]);
    expect(await why({ kind: 'field', field: 'created_at', op: 'older_than_days', value: 2.5 })).toEqual([`rule.any.0.all.0.value: ${days}`]);
    expect(await why({ kind: 'attribute', name: 'signup.date', type: 'date', op: 'within_days', value: 3651 })).toEqual([`rule.any.0.all.0.value: ${days}`]);
    expect(await why({ kind: 'event', name: 'purchase', performed: true, within_days: 0 })).toEqual([`rule.any.0.all.0.within_days: ${days}`]);
    expect(await why({ kind: 'event', name: 'purchase', performed: true, count: { op: 'gte', value: -2 } })).toEqual(['rule.any.0.all.0.count.value: Enter a whole number from 0 to 1,000,000']);
    expect(await why({ kind: 'event', name: 'purchase', performed: true, count: { op: 'gte' } })).toEqual(['rule.any.0.all.0.count.value: This field is required']);
    expect(await why({ kind: 'event', name: 'purchase', performed: true, count: { op: 'eq', value: 1.5 } }, 'vi')).toEqual(['rule.any.0.all.0.count.value: Hãy nhập số nguyên từ 0 đến 1.000.000']);
    const edge = await server.call('POST', `/api/application/${APP}/segment/count`, {
      token: owner.token,
      body: { rule: one({ kind: 'event', name: 'purchase', performed: true, count: { op: 'eq', value: 0 }, within_days: 3650 }) },
    });
    expect(edge.status).toBe(200);
  });

  it('refuses a date attribute whose name does not end with .date, and the reverse', async () => {
    expect(await refused(one({ kind: 'attribute', name: 'birthday', type: 'date', op: 'exists' }))).toContain('rule.any.0.all.0.name');
    expect(await refused(one({ kind: 'attribute', name: 'birthday.date', type: 'text', op: 'exists' }))).toContain('rule.any.0.all.0.name');
  });

  it('refuses a second group that is empty, naming that group', async () => {
    expect(await refused({ any: [{ all: [{ kind: 'tag', op: 'has', tag: 'vip' }] }, { all: [] }] })).toContain('rule.any.1.all');
  });
});

describe('saved segments', () => {
  const body = (name: string, rule: SegmentRule = one({ kind: 'tag', op: 'has', tag: 'vip' })) => ({ name, rule });

  it('measures a segment when it is saved, and lists it with that size', async () => {
    const created = await server.call('POST', `/api/application/${APP}/segment`, { token: owner.token, body: body('VIPs') });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ name: 'VIPs', size: 2 });
    expect(created.body.data.measured_at).toBe(server.clock.now().toISOString().slice(0, 10) + created.body.data.measured_at.slice(10));
    const list = await server.call('GET', `/api/application/${APP}/segment`, { token: owner.token });
    expect(list.body.data.items.find((item: { id: number }) => item.id === created.body.data.id)).toMatchObject({ size: 2 });
    const stored = await db(server).selectFrom('segment_sizes').selectAll().where('segment_id', '=', created.body.data.id).execute();
    expect(stored.map((row) => Number(row.size))).toEqual([2]);
  });

  it('measures again on the first read of a new day, keeping the size over time', async () => {
    const created = await server.call('POST', `/api/application/${APP}/segment`, { token: owner.token, body: body('Web push', one({ kind: 'channel', channel: 'web_push', subscribed: true })) });
    const id = created.body.data.id as number;
    const before = await server.call('GET', `/api/application/${APP}/segment/${id}`, { token: owner.token });
    expect(before.body.data.sizes).toHaveLength(1);
    server.clock.advance(DAY_MS);
    try {
      // A new subscriber appears overnight.
      await db(server).updateTable('players').set({ push_endpoint: 'https://push.example.com/dave' }).where('id', '=', ids.dave).execute();
      const detail = await server.call('GET', `/api/application/${APP}/segment/${id}`, { token: owner.token });
      expect(detail.body.data.sizes.map((size: { size: number }) => size.size)).toEqual([1, 2]);
      expect(detail.body.data.size).toBe(2);
      expect(detail.body.data.sizes[1].day).toBe(server.clock.now().toISOString().slice(0, 10));
      // Read again the same day: no new measurement.
      const again = await server.call('GET', `/api/application/${APP}/segment/${id}`, { token: owner.token });
      expect(again.body.data.sizes).toHaveLength(2);
    } finally {
      await db(server).updateTable('players').set({ push_endpoint: null }).where('id', '=', ids.dave).execute();
      server.clock.advance(-DAY_MS);
    }
  });

  it("keeps a size per day of the application's timezone, and shows the last measured when the timezone moves west", async () => {
    await createApplication(server, owner, 'segments_hanoi', 'Hanoi', 420);
    const hanoi = '/api/application/segments_hanoi';
    await insertPlayer(server, 'segments_hanoi', 'hanoi-vn', { country: 'VN' });
    // 01:00 in Hanoi (UTC+07:00) is 18:00 UTC the day before.
    const nextMidnight = dayStartAtOffset(addDays(dayAtOffset(server.clock.now().getTime(), 420), 1), 420);
    const step = nextMidnight + 3_600_000 - server.clock.now().getTime();
    server.clock.advance(step);
    try {
      const local = dayAtOffset(server.clock.now().getTime(), 420);
      const created = await server.call('POST', `${hanoi}/segment`, { token: owner.token, body: body('Vietnam', one({ kind: 'field', field: 'country', op: 'eq', value: 'VN' })) });
      const id = created.body.data.id as number;
      expect((await server.call('GET', `${hanoi}/segment/${id}`, { token: owner.token })).body.data.sizes).toEqual([{ day: local, size: 1 }]);
      // Moved to New York (UTC-05:00), where it is still the day before: that day is not measured again...
      expect((await server.call('PUT', hanoi, { token: owner.token, body: { name: 'Hanoi', utc_offset: -300 } })).status).toBe(200);
      expect((await server.call('GET', `${hanoi}/segment/${id}`, { token: owner.token })).body.data.sizes).toEqual([{ day: local, size: 1 }]);
      // ...and a new rule's size is the one shown, kept on today there.
      await server.call('PUT', `${hanoi}/segment/${id}`, { token: owner.token, body: body('Americans', one({ kind: 'field', field: 'country', op: 'eq', value: 'US' })) });
      const detail = (await server.call('GET', `${hanoi}/segment/${id}`, { token: owner.token })).body.data;
      expect(detail.size).toBe(0);
      expect(detail.sizes).toEqual([
        { day: addDays(local, -1), size: 0 },
        { day: local, size: 1 },
      ]);
    } finally {
      server.clock.advance(-step);
    }
  });

  it("replaces a segment's rule and measures the new rule", async () => {
    const created = await server.call('POST', `/api/application/${APP}/segment`, { token: owner.token, body: body('Edit me') });
    const id = created.body.data.id as number;
    const updated = await server.call('PUT', `/api/application/${APP}/segment/${id}`, {
      token: owner.token,
      body: body('Americans', one({ kind: 'field', field: 'country', op: 'eq', value: 'US' })),
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Americans', size: 1 });
    const detail = await server.call('GET', `/api/application/${APP}/segment/${id}`, { token: owner.token });
    expect(detail.body.data.rule).toEqual(one({ kind: 'field', field: 'country', op: 'eq', value: 'US' }));
    expect(detail.body.data.sizes).toHaveLength(1);
  });

  it('deletes a segment with its sizes; a deleted or foreign segment is NOT_FOUND', async () => {
    const created = await server.call('POST', `/api/application/${APP}/segment`, { token: owner.token, body: body('Gone soon') });
    const id = created.body.data.id as number;
    expect((await server.call('DELETE', `/api/application/${APP}/segment/${id}`, { token: owner.token })).status).toBe(200);
    const gone = await server.call('GET', `/api/application/${APP}/segment/${id}`, { token: owner.token, lang: 'en' });
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe(`There is no segment ${id} in this application.`);
    expect(await db(server).selectFrom('segment_sizes').selectAll().where('segment_id', '=', id).execute()).toEqual([]);
    const foreign = await server.call('POST', `/api/application/${OTHER}/segment`, { token: owner.token, body: body('Theirs') });
    expect((await server.call('GET', `/api/application/${APP}/segment/${foreign.body.data.id}`, { token: owner.token })).status).toBe(404);
  });

  it('reads a segment saved before countries had to be codes as it was kept, and refuses saving it so', async () => {
    const kept = { any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'vn' }, { kind: 'field', field: 'language', op: 'neq', value: 'Vietnamese' }] }] };
    const at = server.clock.now().toISOString();
    const { id } = await db(server)
      .insertInto('segments')
      .values({ application_id: APP, name: 'Saved long ago', name_key: segmentNameKey('Saved long ago'), rule: JSON.stringify(kept), created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    const list = await server.call('GET', `/api/application/${APP}/segment`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.data.items.find((item: { id: number }) => item.id === Number(id))).toMatchObject({ name: 'Saved long ago', rule: kept });
    const detail = await server.call('GET', `/api/application/${APP}/segment/${id}`, { token: owner.token });
    expect(detail.status).toBe(200);
    // 'vn' was never anyone's country as kept: the segment measures, as before, no one.
    expect(detail.body.data).toMatchObject({ rule: kept, size: 0 });
    const saved = await server.call('PUT', `/api/application/${APP}/segment/${id}`, { token: owner.token, lang: 'en', body: { name: 'Saved long ago', rule: kept } });
    expect(saved.status).toBe(400);
    expect((saved.body.fields as { path: string }[]).map((field) => field.path)).toEqual(['rule.any.0.all.0.value', 'rule.any.0.all.1.value']);
  });

  it('refuses a segment without a name or with an empty rule', async () => {
    const answer = await server.call('POST', `/api/application/${APP}/segment`, { token: owner.token, body: { name: ' ', rule: { any: [] } } });
    expect(answer.status).toBe(400);
    expect((answer.body.fields as { path: string }[]).map((field) => field.path).sort()).toEqual(['name', 'rule.any']);
  });
});

describe('segment names (unique in their application, compared trimmed, spaces as one and case-insensitively)', () => {
  const NAMES = 'segment_names';
  const url = `/api/application/${NAMES}/segment`;
  const rule = one({ kind: 'tag', op: 'has', tag: 'vip' });
  const create = (name: string, lang?: string) => server.call('POST', url, { token: owner.token, body: { name, rule }, lang });
  const segmentCount = async () =>
    Number((await db(server).selectFrom('segments').select((eb) => eb.fn.countAll().as('n')).where('application_id', '=', NAMES).executeTakeFirst())?.n);

  beforeAll(async () => {
    await createApplication(server, owner, NAMES, 'Names');
  });

  it('refuses a second segment named alike with CONFLICT (409) on the name, in the caller\'s language, creating nothing', async () => {
    expect((await create('Khách VN')).status).toBe(200);
    const before = await segmentCount();
    for (const name of ['Khách VN', '  KHÁCH   vn ', 'khách vn', 'Khách VN'.normalize('NFD')]) {
      const answer = await create(name);
      expect(answer.status, name).toBe(409);
      expect(answer.body).toEqual({
        success: false,
        error: 'CONFLICT',
        message: 'Đã có phân khúc khác mang tên này (không phân biệt chữ hoa, chữ thường và khoảng trắng). Hãy chọn tên khác.',
        fields: [{ path: 'name', message: 'Đã có phân khúc khác mang tên này (không phân biệt chữ hoa, chữ thường và khoảng trắng). Hãy chọn tên khác.' }],
      });
    }
    const english = await create('khách vn', 'en');
    expect(english.body.fields).toEqual([{ path: 'name', message: 'Another segment already has this name (capitals and spacing aside). Choose a different one.' }]);
    expect(await segmentCount()).toBe(before);
    // Another name, and the same name in another application, are free.
    expect((await create('Khách VN 2')).status).toBe(200);
    expect((await server.call('POST', `/api/application/${OTHER}/segment`, { token: owner.token, body: { name: 'Khách VN', rule } })).status).toBe(200);
  });

  it("refuses renaming a segment to another's name, changing nothing of it, and lets a segment change its own name's capitals", async () => {
    const first = (await create('Hà Nội')).body.data;
    const second = (await create('Hồ Chí Minh')).body.data;
    const renamed = await server.call('PUT', `${url}/${second.id}`, { token: owner.token, lang: 'en', body: { name: 'HÀ NỘI', rule: one({ kind: 'tag', op: 'has', tag: 'hcm' }) } });
    expect(renamed.status).toBe(409);
    expect(renamed.body).toMatchObject({ error: 'CONFLICT', fields: [{ path: 'name' }] });
    const kept = await server.call('GET', `${url}/${second.id}`, { token: owner.token });
    expect(kept.body.data).toMatchObject({ name: 'Hồ Chí Minh', rule });
    const own = await server.call('PUT', `${url}/${first.id}`, { token: owner.token, body: { name: ' HÀ NỘI ', rule } });
    expect(own.status).toBe(200);
    expect(own.body.data.name).toBe('HÀ NỘI');
  });

  it('frees a name when its segment is deleted', async () => {
    const gone = (await create('Tạm thời')).body.data;
    expect((await create('tạm thời')).status).toBe(409);
    expect((await server.call('DELETE', `${url}/${gone.id}`, { token: owner.token })).status).toBe(200);
    expect((await create('tạm thời')).status).toBe(200);
  });

  it('lets only one of two saves racing with one name through: the database holds the rule', async () => {
    const answers = await Promise.all([create('Đua'), create('ĐUA')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const rows = await db(server).selectFrom('segments').select('name').where('application_id', '=', NAMES).where('name_key', '=', 'đua').execute();
    expect(rows).toHaveLength(1);
  });

  it('renames the later of segments named alike before the rule (migration 0026), on both databases, losing none', async () => {
    const APP_OLD = 'segment_names_old';
    const NEIGHBOUR = 'segment_names_neighbour';
    await createApplication(server, owner, APP_OLD, 'Before the rule');
    await createApplication(server, owner, NEIGHBOUR, 'Its neighbour');
    const kysely = db(server) as unknown as Kysely<any>;
    const migration = buildMigrations(server.dialect)['0026_segment_names_unique'];
    // The database as it was before 0026: no key, no index, and segments named alike.
    await migration.down!(kysely);
    await sql`delete from kysely_migration where name = '0026_segment_names_unique'`.execute(kysely);
    const at = server.clock.now().toISOString();
    const made: { id: number; name: string; rule: string }[] = [];
    for (const [index, name] of ['Khách VN', 'Khách VN (2)', 'KHÁCH VN', '  khách  vn ', 'Khách VN', 'Khác', `${'x'.repeat(100)}`, `${'X'.repeat(100)}`].entries()) {
      const rule = JSON.stringify(one({ kind: 'tag', op: 'has', tag: `t${index}` }));
      const row = await kysely.insertInto('segments').values({ application_id: APP_OLD, name, rule, created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow();
      made.push({ id: Number(row.id), name, rule });
    }
    const foreign = await kysely.insertInto('segments').values({ application_id: NEIGHBOUR, name: 'Khách VN', rule: made[0].rule, created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow();

    await migrateToLatest({ kysely: db(server), dialect: server.dialect });

    const rows = await db(server).selectFrom('segments').select(['id', 'name', 'name_key', 'rule']).where('application_id', '=', APP_OLD).orderBy('id').execute();
    expect(rows.map((row) => Number(row.id))).toEqual(made.map((row) => row.id));
    expect(rows.map((row) => row.rule)).toEqual(made.map((row) => row.rule));
    expect(rows.map((row) => row.name)).toEqual([
      'Khách VN',
      'Khách VN (2)',
      'KHÁCH VN (3)',
      'khách  vn (4)',
      'Khách VN (5)',
      'Khác',
      'x'.repeat(100),
      `${'X'.repeat(96)} (2)`,
    ]);
    expect(rows.map((row) => row.name_key)).toEqual(['khách vn', 'khách vn (2)', 'khách vn (3)', 'khách vn (4)', 'khách vn (5)', 'khác', 'x'.repeat(100), `${'x'.repeat(96)} (2)`]);
    // Another application's segment of the same name keeps it.
    expect((await db(server).selectFrom('segments').select('name').where('id', '=', Number(foreign.id)).executeTakeFirstOrThrow()).name).toBe('Khách VN');
    // The rule holds from now on, through the API and for a row written past it.
    const answer = await server.call('POST', `/api/application/${APP_OLD}/segment`, { token: owner.token, body: { name: 'khách vn (5)', rule: one({ kind: 'tag', op: 'has', tag: 'vip' }) } });
    expect(answer.status).toBe(409);
    await expect(
      kysely.insertInto('segments').values({ application_id: APP_OLD, name: 'Khác', name_key: 'khác', rule: made[0].rule, created_at: at, updated_at: at }).execute(),
    ).rejects.toThrow();
  });
});

describe('who may use segments (spec §6: super users, managers, ads managers)', () => {
  const standings = ['manager', 'ads_manager', 'user', 'viewer'] as const;
  const members = {} as Record<(typeof standings)[number], TestUser>;
  let outsider: TestUser;

  beforeAll(async () => {
    for (const role of standings) {
      members[role] = await createUser(server, { name: role });
      await addMember(server, owner, APP, members[role], role);
    }
    outsider = await createUser(server, { name: 'outsider' });
  }, 60_000);

  const rule = one({ kind: 'tag', op: 'has', tag: 'vip' });

  it('lets managers and ads managers count, save, read and delete', async () => {
    for (const role of ['manager', 'ads_manager'] as const) {
      const token = members[role].token;
      expect((await server.call('POST', `/api/application/${APP}/segment/count`, { token, body: { rule } })).status).toBe(200);
      const created = await server.call('POST', `/api/application/${APP}/segment`, { token, body: { name: role, rule } });
      expect(created.status).toBe(200);
      expect((await server.call('GET', `/api/application/${APP}/segment`, { token })).status).toBe(200);
      expect((await server.call('DELETE', `/api/application/${APP}/segment/${created.body.data.id}`, { token })).status).toBe(200);
    }
  });

  it('refuses users, viewers and outsiders with NO_PERMISSION, and anonymous callers with NOT_AUTHORIZED', async () => {
    for (const token of [members.user.token, members.viewer.token, outsider.token]) {
      const listed = await server.call('GET', `/api/application/${APP}/segment`, { token });
      expect(listed.body.error).toBe('NO_PERMISSION');
      const counted = await server.call('POST', `/api/application/${APP}/segment/count`, { token, body: { rule } });
      expect(counted.body.error).toBe('NO_PERMISSION');
    }
    const before = await db(server).selectFrom('segments').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    const created = await server.call('POST', `/api/application/${APP}/segment`, { token: members.user.token, body: { name: 'nope', rule } });
    expect(created.status).toBe(403);
    const after = await db(server).selectFrom('segments').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    expect(Number(after?.n)).toBe(Number(before?.n));
    expect((await server.call('GET', `/api/application/${APP}/segment`)).body.error).toBe('NOT_AUTHORIZED');
  });
});

// Last in the file: these move the clock over every saved segment, measuring each on the days they reach.
describe('the daily measurement of saved segments', () => {
  it('measures every saved segment once a day, without anyone opening it, a bounded number a round', async () => {
    const services = server.app.services;
    const created = await server.call('POST', `/api/application/${APP}/segment`, { token: owner.token, body: { name: 'VIPs daily', rule: one({ kind: 'tag', op: 'has', tag: 'vip' }) } });
    const id = created.body.data.id as number;
    // Every segment so far has today's size (measured when saved or read): nothing is due.
    await measureSegmentsDue(services, 1_000);
    expect(await measureSegmentsDue(services, 1_000)).toBe(0);
    const saved = server.clock.now().toISOString().slice(0, 10);
    server.clock.advance(DAY_MS);
    try {
      // Dave becomes a VIP overnight.
      await insertTags(server, APP, ids.dave, ['vip']);
      // A round measures at most its limit; the rest wait for the next.
      expect(await measureSegmentsDue(services, 1)).toBe(1);
      expect(await measureSegmentsDue(services, 1_000)).toBeGreaterThanOrEqual(1);
      expect(await measureSegmentsDue(services, 1_000)).toBe(0);
      const sizes = await db(server).selectFrom('segment_sizes').select(['day', 'size']).where('segment_id', '=', id).orderBy('day').execute();
      expect(sizes.map((row) => [row.day, Number(row.size)])).toEqual([
        [saved, 2],
        [server.clock.now().toISOString().slice(0, 10), 3],
      ]);
      // The console shows the day's point without having measured it itself.
      const detail = await server.call('GET', `/api/application/${APP}/segment/${id}`, { token: owner.token });
      expect(detail.body.data.sizes.map((size: { size: number }) => size.size)).toEqual([2, 3]);
    } finally {
      await db(server).deleteFrom('player_tags').where('player_id', '=', ids.dave).where('tag', '=', 'vip').execute();
      server.clock.advance(-DAY_MS);
    }
  });

  it('runs the daily rounds in the background once started, until stopped', async () => {
    const services = server.app.services;
    const created = await server.call('POST', `/api/application/${APP}/segment`, { token: owner.token, body: { name: 'VIPs in the background', rule: one({ kind: 'tag', op: 'has', tag: 'vip' }) } });
    const id = created.body.data.id as number;
    server.clock.advance(2 * DAY_MS);
    const sizes = startSegmentSizes(services, { firstAfterMs: 0, everyMs: 20 });
    try {
      const today = server.clock.now().toISOString().slice(0, 10);
      await expect
        .poll(async () => (await db(server).selectFrom('segment_sizes').select('day').where('segment_id', '=', id).execute()).map((row) => row.day), { timeout: 5_000 })
        .toContain(today);
    } finally {
      await sizes.stop();
      server.clock.advance(-2 * DAY_MS);
    }
  });
});
