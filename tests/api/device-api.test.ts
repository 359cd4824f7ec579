import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migrateToLatest } from '../../server/db';
import { buildMigrations } from '../../server/db/migrations';
import { createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';

/** The REST device API (/api/v1/devices…) as a mobile app or a server calls it, with `Authorization: Key`. */
const APP = 'device_api_app';

let server: TestServer;
let key: string;
let owner: TestUser;

const call = (method: string, url: string, body?: unknown, auth: string | null = `Key ${key}`) =>
  server.call(method, url, { body, headers: auth ? { authorization: auth } : {} });

/** An APNs device token as iOS apps send it, hexadecimal, 64 characters: `label` in hex, padded. */
const apns = (label: string) => Buffer.from(label).toString('hex').padEnd(64, '0');

const player = (deviceId: string) =>
  db(server).selectFrom('players').selectAll().where('application_id', '=', APP).where('device_id', '=', deviceId).executeTakeFirstOrThrow();

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server);
  key = (await createApplication(server, owner, APP)).client_key;
}, 60_000);
afterAll(async () => server?.close());

describe('registering a device', () => {
  it('registers an app install with its own id and its device facts', async () => {
    const answer = await call('POST', '/api/v1/devices', {
      device_id: 'ios-install-0001',
      platform: 'ios',
      device_token: apns('abc'),
      os: 'iOS',
      os_version: '17.4',
      app_version: '2.3.0',
      device_model: 'iPhone15,2',
      language: 'vi',
      country: 'VN',
      timezone: 'Asia/Ho_Chi_Minh',
      timezone_offset: 420,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ device_id: 'ios-install-0001', created: true });
    const row = await player('ios-install-0001');
    expect(Number(row.id)).toBe(answer.body.data.player_id);
    expect(row).toMatchObject({ platform: 'ios', device_type: 'mobile', device_token: apns('abc'), os_version: '17.4', app_version: '2.3.0', device_model: 'iPhone15,2', country: 'VN', timezone_offset: 420 });
    expect(row.last_seen_at).not.toBeNull();
  });

  it('updates the same device on a second registration, keeping what it does not repeat', async () => {
    const answer = await call('POST', '/api/v1/devices', { device_id: 'ios-install-0001', platform: 'ios', app_version: '2.4.0', device_token: apns('new') });
    expect(answer.body.data).toMatchObject({ device_id: 'ios-install-0001', created: false });
    expect(await player('ios-install-0001')).toMatchObject({ app_version: '2.4.0', device_token: apns('new'), os_version: '17.4', device_model: 'iPhone15,2' });
  });

  it('keeps the country code in capitals whatever case the app sends, so the player list finds it', async () => {
    await call('POST', '/api/v1/devices', { device_id: 'android-install-lower', platform: 'android', country: 'th' });
    expect((await player('android-install-lower')).country).toBe('TH');
    const list = await server.call('GET', `/api/application/${APP}/player?country=TH`, { token: owner.token });
    expect(list.body.data.items.map((item: { device_id: string }) => item.device_id)).toEqual(['android-install-lower']);
  });

  it('keeps the language alone, as "vi" from "vi-VN" or "vi_VN", so a segment on language vi counts every such device', async () => {
    for (const [device, language] of [['lang-browser-0001', 'vi-VN'], ['lang-android-0001', 'vi_VN'], ['lang-ios-0001', 'VI'], ['lang-english-0001', 'en-US']]) {
      expect((await call('POST', '/api/v1/devices', { device_id: device, platform: 'android', language })).status).toBe(200);
    }
    expect((await player('lang-browser-0001')).language).toBe('vi');
    expect((await player('lang-android-0001')).language).toBe('vi');
    expect((await player('lang-english-0001')).language).toBe('en');
    const rule = { any: [{ all: [{ kind: 'field', field: 'language', op: 'eq', value: 'vi' }] }] };
    const counted = await server.call('POST', `/api/application/${APP}/segment/count`, { token: owner.token, body: { rule } });
    // 'ios-install-0001' above registered with 'vi'.
    expect(counted.body.data.count).toBe(4);
  });

  it('refuses a language that is not a language code, saying so in the caller’s language, and stores nothing', async () => {
    for (const [language, expected] of [
      ['en', 'A language is a code such as vi, en or en-US'],
      ['vi', 'Ngôn ngữ là một mã như vi, en hoặc en-US'],
    ]) {
      const answer = await server.call('POST', '/api/v1/devices', {
        body: { device_id: 'lang-refused-0001', platform: 'android', language: 'Tiếng Việt' },
        headers: { authorization: `Key ${key}`, 'accept-language': language },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.fields).toEqual([{ path: 'language', message: expected }]);
    }
    const rows = await db(server).selectFrom('players').select('id').where('device_id', '=', 'lang-refused-0001').execute();
    expect(rows).toEqual([]);
  });

  it('brings players stored before with a region ("vi-VN") to the language alone, and has the audience copy rebuilt', async () => {
    await call('POST', '/api/v1/devices', { device_id: 'lang-legacy-0001', platform: 'web' });
    await db(server).updateTable('players').set({ language: 'vi-VN' }).where('device_id', '=', 'lang-legacy-0001').execute();
    await db(server).updateTable('players').set({ language: 'pt_BR' }).where('device_id', '=', 'lang-english-0001').execute();
    const epoch = async () => (await db(server).selectFrom('applications').select('audience_epoch').where('application_id', '=', APP).executeTakeFirstOrThrow()).audience_epoch;
    const before = await epoch();
    await sql`delete from kysely_migration where name = '0015_player_language'`.execute(db(server));
    await migrateToLatest({ kysely: db(server), dialect: server.dialect });
    expect((await player('lang-legacy-0001')).language).toBe('vi');
    expect((await player('lang-english-0001')).language).toBe('pt');
    expect((await player('ios-install-0001')).language).toBe('vi');
    expect(await epoch()).toBe(before + 1);
  });

  it('makes a device id when the app sends none', async () => {
    const answer = await call('POST', '/api/v1/devices', { platform: 'android', os: 'Android' });
    expect(answer.status).toBe(200);
    expect(answer.body.data.device_id).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(await player(answer.body.data.device_id)).toMatchObject({ platform: 'android', os: 'Android' });
  });

  it('refuses a call without the key, or with an unknown one, says how to send it, and stores nothing', async () => {
    // Not the console's "session expired": an app has no session, it has the application's client key.
    const messages = {
      en: "The client key is missing or wrong. Send the application's client key as: Authorization: Key <client key>",
      vi: 'Client key bị thiếu hoặc sai. Hãy gửi client key của ứng dụng theo dạng: Authorization: Key <client key>',
    };
    for (const auth of [null, 'Key not-a-real-key', `Bearer ${'x'.repeat(20)}`]) {
      for (const lang of ['en', 'vi'] as const) {
        const answer = await server.call('POST', '/api/v1/devices', {
          body: { device_id: 'never-stored-1', platform: 'ios' },
          headers: auth ? { authorization: auth } : {},
          lang,
        });
        expect(answer.status).toBe(401);
        expect(answer.body.error).toBe('NOT_AUTHORIZED');
        expect(answer.body.message).toBe(messages[lang]);
      }
    }
    const rows = await db(server).selectFrom('players').select('id').where('device_id', '=', 'never-stored-1').execute();
    expect(rows).toEqual([]);
  });

  it('speaks of the key, not of the body, to a call without a valid key whatever it sends', async () => {
    // The key is checked before the body is read: a caller without one learns nothing of what the calls take.
    const calls: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/devices', { device_id: 'bad id with spaces', platform: 'toaster' }],
      ['POST', '/api/v1/devices/some-device/events', { events: 'not a list' }],
      ['PUT', '/api/v1/devices/some-device/attributes', { attributes: [] }],
      ['PUT', '/api/v1/devices/some-device/identity', {}],
      ['POST', '/api/v1/devices/some-device/sessions', { at: 'yesterday' }],
      ['POST', '/api/v1/devices/some-device/notifications/1/report', { event: 'exploded' }],
    ];
    for (const [method, url, body] of calls) {
      for (const auth of [null, 'Key not-a-real-key']) {
        const answer = await call(method, url, body, auth);
        expect(answer.status, `${method} ${url} with ${auth}`).toBe(401);
        expect(answer.body.error).toBe('NOT_AUTHORIZED');
      }
      // With the key, the same body is refused for what it is.
      const answer = await call(method, url, body);
      expect(answer.status, `${method} ${url} with the key`).toBe(400);
      expect(answer.body.error).toBe('INVALID_PARAM');
    }
  });

  it('gives a device that names its timezone but not its offset the offset of that zone, and keeps an offset sent', async () => {
    const register = async (fields: Record<string, unknown>) => {
      const answer = await call('POST', '/api/v1/devices', { device_id: 'zone-named-0001', platform: 'android', ...fields });
      expect(answer.status).toBe(200);
      const row = await player('zone-named-0001');
      return { timezone: row.timezone, timezone_offset: row.timezone_offset === null ? null : Number(row.timezone_offset) };
    };
    // Zones without summer time, so the offset is the same whenever the test runs (summer time: shared/format's tests).
    expect(await register({ timezone: 'Asia/Kathmandu' })).toEqual({ timezone: 'Asia/Kathmandu', timezone_offset: 345 });
    expect(await register({ timezone: 'America/Sao_Paulo' })).toEqual({ timezone: 'America/Sao_Paulo', timezone_offset: -180 });
    // Kiribati's UTC+14:00: past the application's choices (UTC+13:00), still a device's clock.
    expect(await register({ timezone: 'Pacific/Kiritimati' })).toEqual({ timezone: 'Pacific/Kiritimati', timezone_offset: 840 });
    // The offset the device sends wins; a name is taken in any case, as sent.
    expect(await register({ timezone: 'Asia/Kathmandu', timezone_offset: 420 })).toEqual({ timezone: 'Asia/Kathmandu', timezone_offset: 420 });
    expect(await register({ timezone: ' asia/kathmandu ' })).toEqual({ timezone: 'asia/kathmandu', timezone_offset: 345 });
  });

  it('refuses a timezone that is not a zone this server knows, saying so in the language asked for, and changes nothing', async () => {
    expect((await call('POST', '/api/v1/devices', { device_id: 'zone-refused-01', platform: 'ios', timezone: 'Asia/Ho_Chi_Minh' })).status).toBe(200);
    for (const [timezone, lang, message] of [
      ['Mars/Olympus_Mons', 'en', 'A timezone is an IANA name such as Asia/Ho_Chi_Minh'],
      ['+07:00', 'vi', 'Múi giờ là một tên IANA, vd. Asia/Ho_Chi_Minh'],
      ['Vietnam', 'en', 'A timezone is an IANA name such as Asia/Ho_Chi_Minh'],
    ]) {
      const answer = await server.call('POST', '/api/v1/devices', { headers: { authorization: `Key ${key}` }, body: { device_id: 'zone-refused-01', platform: 'ios', timezone, app_version: '9.9.9' }, lang });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'INVALID_PARAM', fields: [{ path: 'timezone', message }] });
    }
    // Neither the zone nor the rest of a refused registration was stored.
    const row = await player('zone-refused-01');
    expect({ timezone: row.timezone, timezone_offset: Number(row.timezone_offset), app_version: row.app_version }).toEqual({ timezone: 'Asia/Ho_Chi_Minh', timezone_offset: 420, app_version: null });
  });

  it("keeps a storefront browser's zone name this server does not know, with the offset the browser sent, and stores its events", async () => {
    const answer = await server.call('POST', '/api/sdk/track', {
      body: { key, visitor_id: 'unknown-zone-visitor-1', device: { platform: 'web', timezone: 'Etc/Unknown', timezone_offset: 60 }, items: [{ type: 'event', id: 'unknown-zone-e1', at: server.clock.now().getTime(), name: 'view_product' }] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.accepted).toBe(1);
    const row = await player('unknown-zone-visitor-1');
    expect({ timezone: row.timezone, timezone_offset: Number(row.timezone_offset) }).toEqual({ timezone: 'Etc/Unknown', timezone_offset: 60 });
  });

  it("takes a browser's offset as far east as UTC+14:00 in the storefront SDK's batch, and refuses one past it", async () => {
    const track = (offset: number, visitor: string) =>
      server.call('POST', '/api/sdk/track', {
        body: { key, visitor_id: visitor, device: { platform: 'web', timezone: 'Pacific/Kiritimati', timezone_offset: offset }, items: [{ type: 'event', id: `${visitor}-e1`, at: server.clock.now().getTime(), name: 'view_product' }] },
        lang: 'en',
      });
    expect((await track(840, 'kiribati-visitor-01')).status).toBe(200);
    expect(Number((await player('kiribati-visitor-01')).timezone_offset)).toBe(840);
    const refused = await track(841, 'kiribati-visitor-02');
    expect(refused.status).toBe(400);
    expect(refused.body.fields[0].path).toBe('device.timezone_offset');
    expect(await db(server).selectFrom('players').select('id').where('device_id', '=', 'kiribati-visitor-02').execute()).toEqual([]);
  });

  it('takes a blank country, language or timezone as saying nothing, as any other fact: the registration and its token are stored, the values stored before kept', async () => {
    await call('POST', '/api/v1/devices', { device_id: 'blank-region-01', platform: 'android', country: 'VN', language: 'vi', timezone: 'Asia/Ho_Chi_Minh' });
    // A phone with no region set.
    const answer = await call('POST', '/api/v1/devices', { device_id: 'blank-region-01', platform: 'android', device_token: 'fcm-blank-region', country: '', language: ' ', timezone: '' });
    expect(answer.status).toBe(200);
    expect(answer.body.data.subscribed).toBe(true);
    expect(await player('blank-region-01')).toMatchObject({ device_token: 'fcm-blank-region', country: 'VN', language: 'vi', timezone: 'Asia/Ho_Chi_Minh', timezone_offset: 420 });
    const fresh = await call('POST', '/api/v1/devices', { device_id: 'blank-region-02', platform: 'ios', country: '', language: '', timezone: '' });
    expect(fresh.status).toBe(200);
    expect(await player('blank-region-02')).toMatchObject({ country: null, language: null, timezone: null });
  });

  it('refuses an unknown platform with INVALID_PARAM', async () => {
    const answer = await call('POST', '/api/v1/devices', { platform: 'symbian' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INVALID_PARAM');
    expect(answer.body.fields[0].path).toBe('platform');
  });

  it('refuses a country name where its code goes, saying so, and stores nothing', async () => {
    for (const country of ['Vietnam', 'V', 'V1']) {
      const answer = await server.call('POST', '/api/v1/devices', { body: { device_id: 'country-named-1', platform: 'ios', country }, headers: { authorization: `Key ${key}` }, lang: 'en' });
      expect(answer.status).toBe(400);
      expect(answer.body.fields).toEqual([{ path: 'country', message: 'A country is its 2-letter code, e.g. VN' }]);
    }
    expect(await db(server).selectFrom('players').select('id').where('device_id', '=', 'country-named-1').execute()).toEqual([]);
  });

  it('refuses a device id outside the rule, saying the rule in the caller’s language, and stores nothing', async () => {
    for (const [language, expected] of [
      ['en', 'A device id is 8 to 64 letters, digits, - or _'],
      ['vi', 'Mã thiết bị gồm 8 đến 64 ký tự: chữ cái, chữ số, - hoặc _'],
    ]) {
      const answer = await server.call('POST', '/api/v1/devices', {
        body: { device_id: 'dev-1', platform: 'web' },
        headers: { authorization: `Key ${key}`, 'accept-language': language },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.fields).toEqual([{ path: 'device_id', message: expected }]);
    }
    const rows = await db(server).selectFrom('players').select('id').where('device_id', '=', 'dev-1').execute();
    expect(rows).toEqual([]);
  });
});

describe("an app install's mobile push subscription", () => {
  const register = (body: Record<string, unknown>, lang = 'en') =>
    server.call('POST', '/api/v1/devices', { body, headers: { authorization: `Key ${key}` }, lang });
  const channels = async (playerId: number) =>
    (await server.call('GET', `/api/application/${APP}/player/${playerId}`, { token: owner.token })).body.data.player.channels;

  it('subscribes an iOS or Android install that sends its token, so mobile push reaches it, and not one without a token or a browser', async () => {
    const ios = await register({ device_id: 'sub-ios-00001', platform: 'ios', device_token: apns('sub-1') });
    expect(ios.body.data).toMatchObject({ created: true, subscribed: true });
    expect(await player('sub-ios-00001')).toMatchObject({ subscribed: 1, subscribed_at: expect.any(String) });
    expect(await channels(ios.body.data.player_id)).toEqual(['mobile_push']);

    const tokenless = await register({ device_id: 'sub-android-01', platform: 'android' });
    expect(tokenless.body.data.subscribed).toBe(false);
    // The token comes on a later launch, once the person allowed notifications.
    expect((await register({ device_id: 'sub-android-01', platform: 'android', device_token: 'fcm-token-sub-1' })).body.data.subscribed).toBe(true);
    expect(await channels(tokenless.body.data.player_id)).toEqual(['mobile_push']);

    const browser = await register({ device_id: 'sub-web-000001', platform: 'web', device_token: 'not-a-push-subscription' });
    expect(browser.body.data.subscribed).toBe(false);
    expect(await player('sub-web-000001')).toMatchObject({ subscribed: 0 });
  });

  it('keeps an install unsubscribed, on the playerinfo page or by subscribed: false, when the app sends the same token again, until it says true (or, after subscribed: false, sends a new token)', async () => {
    const device = 'sub-ios-00002';
    await register({ device_id: device, platform: 'ios', device_token: apns('sub-2') });
    const off = await register({ device_id: device, platform: 'ios', device_token: apns('sub-2'), subscribed: false });
    expect(off.body.data.subscribed).toBe(false);
    expect(await player(device)).toMatchObject({ subscribed: 0, unsubscribed_at: expect.any(String) });
    expect(await channels(off.body.data.player_id)).toEqual([]);
    // The next launch sends the token as every launch does.
    expect((await register({ device_id: device, platform: 'ios', device_token: apns('sub-2') })).body.data.subscribed).toBe(false);
    expect((await register({ device_id: device, platform: 'ios', device_token: apns('sub-2'), subscribed: true })).body.data.subscribed).toBe(true);

    // Turned off again in the app; the token renewed (or the app reinstalled): a new token subscribes again.
    expect((await register({ device_id: device, platform: 'ios', device_token: apns('sub-2'), subscribed: false })).body.data.subscribed).toBe(false);
    expect((await register({ device_id: device, platform: 'ios', device_token: apns('sub-2b') })).body.data.subscribed).toBe(true);

    // Unsubscribed on the playerinfo page, which the app never hears of: neither the same token nor one APNs
    // renewed subscribes again; only the app saying the person turned notifications on.
    await server.call('POST', `/api/public/application/${APP}/playerinfo/${device}/unsubscribe`, {});
    expect(await player(device)).toMatchObject({ subscribed: 0, opted_out_at: expect.any(String) });
    expect((await register({ device_id: device, platform: 'ios', device_token: apns('sub-2b') })).body.data.subscribed).toBe(false);
    expect((await register({ device_id: device, platform: 'ios', device_token: apns('sub-2c') })).body.data.subscribed).toBe(false);
    expect(await channels(off.body.data.player_id)).toEqual([]);
    expect((await register({ device_id: device, platform: 'ios', device_token: apns('sub-2c'), subscribed: true })).body.data.subscribed).toBe(true);
    expect(await player(device)).toMatchObject({ subscribed: 1, device_token: apns('sub-2c'), opted_out_at: null });
  });

  it('gives a push token to one install: another install registering it takes it, so the phone gets each message once; tokens held twice before are settled (0029)', async () => {
    // The app reinstalled (a new device id), or a registration retried without its device id: the same phone's token.
    const first = await register({ device_id: 'token-first-01', platform: 'android', device_token: 'fcm-token-shared' });
    expect(first.body.data.subscribed).toBe(true);
    const again = await register({ device_id: 'token-again-01', platform: 'android', device_token: ' fcm-token-shared ' });
    expect(again.body.data.subscribed).toBe(true);
    expect(await player('token-first-01')).toMatchObject({ device_token: null, subscribed: 0, unsubscribed_at: expect.any(String) });
    expect(await channels(first.body.data.player_id)).toEqual([]);
    expect(await player('token-again-01')).toMatchObject({ device_token: 'fcm-token-shared', subscribed: 1 });
    // Registering again with its own token changes nothing for the install.
    expect((await register({ device_id: 'token-again-01', platform: 'android', device_token: 'fcm-token-shared' })).body.data.subscribed).toBe(true);
    expect(await channels(again.body.data.player_id)).toEqual(['mobile_push']);

    // Stored twice before 0029: the newest player keeps the token, the others are unsubscribed, an unsubscribed
    // one keeping the moment it was.
    await register({ device_id: 'token-old-0001', platform: 'ios', device_token: apns('shared-old') });
    await register({ device_id: 'token-old-0002', platform: 'ios', device_token: apns('other-old'), subscribed: false });
    await register({ device_id: 'token-old-0003', platform: 'ios', device_token: apns('other-old-3') });
    const { unsubscribed_at: unsubscribedAt } = await player('token-old-0002');
    await db(server).updateTable('players').set({ device_token: apns('shared-old') }).where('application_id', '=', APP).where('device_id', 'in', ['token-old-0002', 'token-old-0003']).execute();
    const migration = buildMigrations(server.app.services.dialect)['0029_players_device_token'];
    await migration.down!(db(server));
    await migration.up(db(server));
    expect(await player('token-old-0001')).toMatchObject({ device_token: null, subscribed: 0, unsubscribed_at: expect.any(String) });
    expect(await player('token-old-0002')).toMatchObject({ device_token: null, subscribed: 0, unsubscribed_at: unsubscribedAt });
    expect(await player('token-old-0003')).toMatchObject({ device_token: apns('shared-old'), subscribed: 1 });
  });

  it('refuses subscribed: true without a token, or for a browser, saying what it needs in the caller’s language, and stores nothing', async () => {
    const en = await register({ device_id: 'sub-refused-01', platform: 'android', subscribed: true });
    expect(en.status).toBe(400);
    expect(en.body.fields).toEqual([{ path: 'subscribed', message: 'To subscribe an iOS or Android install, send its device_token in the same call' }]);
    const vi = await register({ device_id: 'sub-refused-01', platform: 'web', device_token: 'x'.repeat(20), subscribed: true }, 'vi');
    expect(vi.body.fields).toEqual([{ path: 'subscribed', message: 'Để đăng ký nhận thông báo cho một bản cài iOS hoặc Android, hãy gửi device_token của nó trong cùng lệnh gọi' }]);
    expect(await db(server).selectFrom('players').select('id').where('device_id', '=', 'sub-refused-01').execute()).toEqual([]);
  });

  it('refuses an iOS token that is not the hexadecimal APNs token, saying so in the caller’s language, and stores nothing', async () => {
    for (const token of ['apns-token-abc', 'ab'.repeat(31), `${'ab'.repeat(31)}zz`, 'f'.repeat(202)]) {
      const en = await register({ device_id: 'ios-bad-token-1', platform: 'ios', device_token: token });
      expect(en.status, token).toBe(400);
      expect(en.body.fields, token).toEqual([{ path: 'device_token', message: 'An iOS device_token is the token APNs gave the app, in hexadecimal: 64 to 200 characters 0–9 and a–f' }]);
    }
    const vi = await register({ device_id: 'ios-bad-token-1', platform: 'ios', device_token: 'not hex', subscribed: true }, 'vi');
    expect(vi.body.fields).toContainEqual({ path: 'device_token', message: 'device_token của bản cài iOS là token mà APNs cấp cho ứng dụng, dạng thập lục phân: 64 đến 200 ký tự 0–9 và a–f' });
    expect(await db(server).selectFrom('players').select('id').where('device_id', '=', 'ios-bad-token-1').execute()).toEqual([]);
    // The same rule is not asked of Android's FCM tokens; an iOS token in capitals or with spaces around it is taken.
    expect((await register({ device_id: 'android-any-token', platform: 'android', device_token: 'fcm:token-abc' })).status).toBe(200);
    expect((await register({ device_id: 'ios-good-token-1', platform: 'ios', device_token: ` ${'AB'.repeat(32)} ` })).body.data.subscribed).toBe(true);
    expect((await player('ios-good-token-1')).device_token).toBe('AB'.repeat(32));
  });
});

describe('a registered device', () => {
  const device = 'android-install-77';
  beforeAll(async () => {
    await call('POST', '/api/v1/devices', { device_id: device, platform: 'android' });
  });

  it('records sessions, counting a retried one once', async () => {
    const at = server.clock.now().getTime() - 10_000;
    const body = { id: 'session-start-0001', at, utm: { utm_source: 'push' } };
    expect((await call('POST', `/api/v1/devices/${device}/sessions`, body)).body).toEqual({ success: true, data: { accepted: 1 } });
    await call('POST', `/api/v1/devices/${device}/sessions`, body);
    expect(await player(device)).toMatchObject({ session_count: 1, first_session_at: new Date(at).toISOString(), utm_source: 'push' });
  });

  it('records a session starting now for a call with no body at all, as for {}', async () => {
    const bare = 'android-install-79';
    await call('POST', '/api/v1/devices', { device_id: bare, platform: 'android' });
    const before = server.clock.now().getTime();
    const answer = await call('POST', `/api/v1/devices/${bare}/sessions`);
    const after = server.clock.now().getTime();
    expect(answer.body).toEqual({ success: true, data: { accepted: 1 } });
    const started = await player(bare);
    expect(started.session_count).toBe(1);
    expect(Date.parse(started.last_session_at ?? '')).toBeGreaterThanOrEqual(before);
    expect(Date.parse(started.last_session_at ?? '')).toBeLessThanOrEqual(after);
    expect((await call('POST', `/api/v1/devices/${bare}/sessions`, {})).status).toBe(200);
    expect((await player(bare)).session_count).toBe(2);
  });

  it('reads an event time of 10 digits or fewer as seconds, as apps often send it, and a longer one as milliseconds', async () => {
    const clockwork = 'android-install-78';
    await call('POST', '/api/v1/devices', { device_id: clockwork, platform: 'android' });
    const ms = Math.floor(server.clock.now().getTime() / 1000) * 1000 - 3_600_000;
    const events = [
      { id: 'evt-seconds-0001', name: 'opened_app', at: ms / 1000 },
      { id: 'evt-millis-00001', name: 'opened_app', at: ms + 1000 },
    ];
    expect((await call('POST', `/api/v1/devices/${clockwork}/events`, { events })).status).toBe(200);
    const rows = await db(server).selectFrom('events').select(['client_event_id', 'occurred_at']).where('name', '=', 'opened_app').orderBy('client_event_id').execute();
    expect(rows.map((row) => [row.client_event_id, new Date(row.occurred_at).toISOString()])).toEqual([
      ['evt-millis-00001', new Date(ms + 1000).toISOString()],
      ['evt-seconds-0001', new Date(ms).toISOString()],
    ]);
  });

  it('says what a call takes when it sends no events, too many, or a value that is not one, in the caller’s language, and stores nothing', async () => {
    const refused = async (method: string, path: string, body: unknown, lang: string) => {
      const answer = await server.call(method, `/api/v1/devices/${device}${path}`, { body, headers: { authorization: `Key ${key}` }, lang });
      expect(answer.status).toBe(400);
      return answer.body.fields;
    };
    const many = Array.from({ length: 51 }, (_, index) => ({ id: `evt-many-${String(index).padStart(4, '0')}`, name: 'too_many' }));
    expect(await refused('POST', '/events', { events: [] }, 'en')).toEqual([{ path: 'events', message: 'Send 1 to 50 events in a call' }]);
    expect(await refused('POST', '/events', { events: many }, 'vi')).toEqual([{ path: 'events', message: 'Mỗi lần gửi từ 1 đến 50 sự kiện' }]);
    // One problem a field, the first: an empty name is required, not also "use letters a–z…".
    expect(await refused('POST', '/events', { events: [{ id: 'evt-unnamed-0001', name: ' ' }] }, 'en')).toEqual([{ path: 'events.0.name', message: 'This field is required' }]);
    // An event id too short to be a retry-safe client id, or with other characters, names the rule.
    expect(await refused('POST', '/events', { events: [{ id: 'e1', name: 'short_id' }] }, 'en')).toEqual([
      { path: 'events.0.id', message: 'An item or event id is 8 to 64 letters, digits, - or _ (a UUID is one)' },
    ]);
    expect(await refused('POST', '/events', { events: [{ id: 'evt 0001 with spaces', name: 'short_id' }] }, 'vi')).toEqual([
      { path: 'events.0.id', message: 'Mã của mục hoặc sự kiện gồm 8 đến 64 ký tự: chữ cái, chữ số, - hoặc _ (một UUID là hợp lệ)' },
    ]);
    const scalar = 'A value is text (up to 1,000 characters), a number, true, false or null';
    expect(await refused('PUT', '/attributes', { attributes: { profile: { age: 3 } } }, 'en')).toEqual([{ path: 'attributes.profile', message: scalar }]);
    expect(await refused('PUT', '/attributes', { attributes: { bio: 'x'.repeat(1001) } }, 'en')).toEqual([{ path: 'attributes.bio', message: scalar }]);
    expect(await refused('POST', '/events', { events: [{ id: 'evt-nested-0001', name: 'nested', properties: { cart: [1, 2] } }] }, 'vi')).toEqual([
      { path: 'events.0.properties.cart', message: 'Giá trị là chữ (tối đa 1.000 ký tự), số, true, false hoặc null' },
    ]);
    const { id } = await player(device);
    expect(await db(server).selectFrom('events').select('id').where('player_id', '=', id).where('name', 'in', ['too_many', 'nested', 'short_id']).execute()).toEqual([]);
    expect(await db(server).selectFrom('player_attributes').select('name').where('player_id', '=', id).where('name', 'in', ['profile', 'bio']).execute()).toEqual([]);
  });

  it('records events with their client ids, storing a retry once', async () => {
    const events = [
      { id: 'evt-000000001', name: 'purchase', properties: { total: 450000, 'paid.date': '2025-03-01T10:00:00Z' } },
      { id: 'evt-000000002', name: 'level_up', properties: { level: 3 } },
    ];
    const answer = await call('POST', `/api/v1/devices/${device}/events`, { events });
    expect(answer.body).toEqual({ success: true, data: { accepted: 2 } });
    await call('POST', `/api/v1/devices/${device}/events`, { events });
    const { id } = await player(device);
    const rows = await db(server).selectFrom('events').select(['name', 'client_event_id']).where('player_id', '=', id).where('name', '!=', 'session_start').orderBy('client_event_id').execute();
    expect(rows).toEqual([
      { name: 'purchase', client_event_id: 'evt-000000001' },
      { name: 'level_up', client_event_id: 'evt-000000002' },
    ]);
  });

  it('stores text carrying a NUL character without it, on PostgreSQL too, which refuses it in text (a 500 before)', async () => {
    const nul = '\u0000';
    const device = 'nul-text-00001';
    expect((await call('POST', '/api/v1/devices', { device_id: device, platform: 'android', os: `And${nul}roid` })).status).toBe(200);
    expect((await player(device)).os).toBe('Android');
    const answer = await call('POST', `/api/v1/devices/${device}/events`, { events: [{ id: `evt-nul-${nul}0001`, name: 'viewed', properties: { [`ti${nul}tle`]: `Sale${nul} 50%` } }] });
    expect(answer.status).toBe(200);
    const row = await db(server).selectFrom('events').select(['client_event_id', 'properties']).where('client_event_id', '=', 'evt-nul-0001').executeTakeFirstOrThrow();
    expect(JSON.parse(String(row.properties))).toEqual({ title: 'Sale 50%' });
    expect((await call('PUT', `/api/v1/devices/${device}/attributes`, { attributes: { plan: `gold${nul}` } })).status).toBe(200);
    const stored = await db(server).selectFrom('player_attributes').selectAll().where('player_id', '=', (await player(device)).id).where('name', '=', 'plan').executeTakeFirstOrThrow();
    expect(Object.values(stored)).toContain('gold');
  });

  it('sets attributes', async () => {
    const answer = await call('PUT', `/api/v1/devices/${device}/attributes`, { attributes: { tier: 'gold', 'signup.date': '2024-12-01' } });
    expect(answer.body).toEqual({ success: true, data: { accepted: 2 } });
    const { id } = await player(device);
    const rows = await db(server).selectFrom('player_attributes').select(['name', 'value', 'number_value']).where('player_id', '=', id).orderBy('name').execute();
    expect(rows).toEqual([
      { name: 'signup.date', value: '2024-12-01T00:00:00.000Z', number_value: Date.parse('2024-12-01') },
      { name: 'tier', value: 'gold', number_value: null },
    ]);
  });

  it('sets identity: external user id, email, mobile number, Facebook PSID', async () => {
    const answer = await call('PUT', `/api/v1/devices/${device}/identity`, { external_user_id: 'crm-9', email: 'app.user@example.com', mobile_number: '0912345678', fb_psid: '1234567890' });
    expect(answer.status).toBe(200);
    // The national number, read in the application's country for phone numbers (Vietnam unless told), kept international.
    expect(await player(device)).toMatchObject({ external_user_id: 'crm-9', email: 'app.user@example.com', mobile_number: '+84912345678', fb_psid: '1234567890' });
  });

  it('keeps an email in lower case and a mobile number in its international form, so the player list finds them typed either way; those stored before are brought in line (0022, 0024)', async () => {
    expect((await call('PUT', `/api/v1/devices/${device}/identity`, { email: '  Anh.Nguyen@Example.COM ', mobile_number: '+84 912-345.678' })).status).toBe(200);
    expect(await player(device)).toMatchObject({ email: 'anh.nguyen@example.com', mobile_number: '+84912345678' });
    const search = async (q: string) =>
      (await server.call('GET', `/api/application/${APP}/player?q=${encodeURIComponent(q)}`, { token: owner.token })).body.data.items.map((item: { device_id: string }) => item.device_id);
    expect(await search('ANH.NGUYEN@example.com')).toEqual([device]);
    expect(await search('+84 912 345 678')).toEqual([device]);
    // Written the national way, in the application's country.
    expect(await search('0912 345 678')).toEqual([device]);
    expect(await search('0912 345 679')).toEqual([]);

    await db(server).updateTable('players').set({ email: 'Anh.Nguyen@Example.COM', mobile_number: '0912 345-678' }).where('application_id', '=', APP).where('device_id', '=', device).execute();
    const migrations = buildMigrations(server.app.services.dialect);
    await migrations['0022_players_identity_stored_form'].up(db(server));
    expect(await player(device)).toMatchObject({ email: 'anh.nguyen@example.com', mobile_number: '0912345678' });
    // Found in that form too, before 0024 reads it.
    expect(await search('0912 345 678')).toEqual([device]);
    await migrations['0024_players_mobile_numbers_international'].up(db(server));
    expect(await player(device)).toMatchObject({ mobile_number: '+84912345678' });
    // Written with parentheses, as many do: the same number.
    expect((await call('PUT', `/api/v1/devices/${device}/identity`, { mobile_number: '(091) 234-5678' })).status).toBe(200);
    expect(await player(device)).toMatchObject({ mobile_number: '+84912345678' });
    expect(await search('(091) 234 5678')).toEqual([device]);
    await call('PUT', `/api/v1/devices/${device}/identity`, { email: 'app.user@example.com', mobile_number: '0912345678' });
  });

  it('refuses a bad email or mobile number, naming the field, and keeps the stored identity', async () => {
    const email = await call('PUT', `/api/v1/devices/${device}/identity`, { email: 'app.user@' }, `Key ${key}`);
    expect(email.status).toBe(400);
    expect(email.body.error).toBe('INVALID_PARAM');
    expect(email.body.fields).toEqual([{ path: 'email', message: expect.any(String) }]);
    const mobile = await call('PUT', `/api/v1/devices/${device}/identity`, { mobile_number: '12' });
    expect(mobile.body.fields[0].path).toBe('mobile_number');
    expect(await player(device)).toMatchObject({ email: 'app.user@example.com', mobile_number: '+84912345678' });
  });

  it("reads a national number in the application's own country for phone numbers, and leaves an international one its country", async () => {
    const uk = await server.call('POST', '/api/application', { token: owner.token, body: { application_id: 'device_api_uk', name: 'UK shop', phone_country: 'gb' } });
    expect(uk.status, JSON.stringify(uk.body)).toBe(200);
    expect(uk.body.data.phone_country).toBe('GB');
    const ukKey = `Key ${uk.body.data.client_key}`;
    const identify = async (deviceId: string, mobile_number: string) => {
      expect((await call('POST', '/api/v1/devices', { device_id: deviceId, platform: 'android' }, ukKey)).status).toBe(200);
      expect((await call('PUT', `/api/v1/devices/${deviceId}/identity`, { mobile_number }, ukKey)).status).toBe(200);
      return (await db(server).selectFrom('players').select('mobile_number').where('application_id', '=', 'device_api_uk').where('device_id', '=', deviceId).executeTakeFirstOrThrow()).mobile_number;
    };
    expect(await identify('uk-install-0001', '07700 900123')).toBe('+447700900123');
    expect(await identify('uk-install-0002', '+84 912 345 678')).toBe('+84912345678');
  });

  it('refuses an attribute name with accented letters, saying which letters a name takes', async () => {
    const answer = await server.call('PUT', `/api/v1/devices/${device}/attributes`, { body: { attributes: { 'ngày sinh': '1990-01-02' } }, headers: { authorization: `Key ${key}` }, lang: 'en' });
    expect(answer.status).toBe(400);
    expect(answer.body.fields).toEqual([{ path: 'attributes.ngày sinh', message: expect.stringContaining('letters a–z without accents') }]);
  });

  it("refuses an empty name, a property name outside the names' rule and a .date value that is not a date, saying which, and stores nothing", async () => {
    const refused = async (method: string, path: string, body: unknown, lang: string) => {
      const answer = await server.call(method, `/api/v1/devices/${device}${path}`, { body, headers: { authorization: `Key ${key}` }, lang });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      return answer.body.fields;
    };
    // An empty key has no path of its own: the message says what is empty instead of "required" on the record.
    expect(await refused('PUT', '/attributes', { attributes: { '': 'x', tier: 'silver' } }, 'en')).toEqual([{ path: 'attributes', message: "A name can't be empty" }]);
    expect(await refused('POST', '/events', { events: [{ id: 'evt-emptyprop-01', name: 'viewed', properties: { '': 1 } }] }, 'vi')).toEqual([
      { path: 'events.0.properties', message: 'Tên không được để trống' },
    ]);
    // Properties' names follow the rule of event and attribute names, as the storefront SDK already kept them.
    expect(await refused('POST', '/events', { events: [{ id: 'evt-badprop-0001', name: 'viewed', properties: { 'giá<b>': 1 } }] }, 'en')).toEqual([
      { path: 'events.0.properties.giá<b>', message: expect.stringContaining('letters a–z without accents') },
    ]);
    expect(await refused('POST', '/events', { events: [{ id: 'evt-baddate-0001', name: 'booked', properties: { 'stay.date': '31/12/2026' } }] }, 'en')).toEqual([
      { path: 'events.0.properties.stay.date', message: expect.stringMatching(/^A name ending in \.date takes a date/) },
    ]);
    expect(await refused('PUT', '/attributes', { attributes: { 'signup.date': 'yesterday' } }, 'vi')).toEqual([
      { path: 'attributes.signup.date', message: expect.stringMatching(/^Tên kết thúc bằng \.date nhận giá trị ngày/) },
    ]);
    const { id } = await player(device);
    expect(await db(server).selectFrom('events').select('id').where('player_id', '=', id).where('name', 'in', ['viewed', 'booked']).execute()).toEqual([]);
    expect(await db(server).selectFrom('player_attributes').select(['name', 'value']).where('player_id', '=', id).where('name', 'in', ['tier', 'signup.date']).orderBy('name').execute()).toEqual([
      { name: 'signup.date', value: '2024-12-01T00:00:00.000Z' },
      { name: 'tier', value: 'gold' },
    ]);
  });

  it('refuses an empty identity, naming the fields it takes', async () => {
    const answer = await server.call('PUT', `/api/v1/devices/${device}/identity`, { body: {}, headers: { authorization: `Key ${key}` }, lang: 'en' });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('Give at least one of external_user_id, email, mobile_number, fb_psid');
  });

  it('answers NOT_FOUND for a device never registered, saying to register it first, storing nothing', async () => {
    const answer = await server.call('POST', '/api/v1/devices/not-registered-9/events', {
      body: { events: [{ id: 'evt-999999999', name: 'x' }] },
      headers: { authorization: `Key ${key}` },
      lang: 'en',
    });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toBe('NOT_FOUND');
    expect(answer.body.message).toBe('No device has this id in this application: register it first with POST /api/v1/devices');
    const vi = await server.call('PUT', '/api/v1/devices/not-registered-9/identity', { body: { email: 'a@example.com' }, headers: { authorization: `Key ${key}` }, lang: 'vi' });
    expect(vi.body.message).toBe('Ứng dụng này không có thiết bị nào mang id này: hãy đăng ký nó trước bằng POST /api/v1/devices');
    const rows = await db(server).selectFrom('players').select('id').where('device_id', '=', 'not-registered-9').execute();
    expect(rows).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('documents the device API under its tag with the client-key scheme', async () => {
    const answer = await server.call('GET', '/api/docs/json');
    const paths = answer.body.paths as Record<string, Record<string, { tags: string[]; security: unknown }>>;
    expect(paths['/api/v1/devices'].post.tags).toEqual(['devices']);
    expect(paths['/api/v1/devices/{device_id}/identity'].put.security).toEqual([{ clientKey: [] }]);
    expect(answer.body.components.securitySchemes.clientKey).toMatchObject({ in: 'header', name: 'Authorization' });
  });

  it('says what an app must know to call it: the body a session may leave out, the types taken, the limits, and 429 and 503', async () => {
    const answer = await server.call('GET', '/api/docs/json');
    type Operation = { description: string; requestBody: { required: boolean; content: Record<string, { schema: Record<string, any> }> } };
    const paths = answer.body.paths as Record<string, Record<string, Operation>>;
    const sessions = paths['/api/v1/devices/{device_id}/sessions'].post;
    const events = paths['/api/v1/devices/{device_id}/events'].post;
    const attributes = paths['/api/v1/devices/{device_id}/attributes'].put;
    expect(sessions.requestBody.required).toBe(false);
    // A body the call cannot do without stays required.
    expect(events.requestBody.required).toBe(true);
    expect(Object.keys(events.requestBody.content).sort()).toEqual(['application/json', 'text/plain']);
    expect(events.requestBody.content['application/json'].schema.properties.events.items.properties.properties.maxProperties).toBe(50);
    expect(attributes.requestBody.content['application/json'].schema.properties.attributes).toMatchObject({ minProperties: 1, maxProperties: 50 });
    for (const operation of [sessions, events, attributes, paths['/api/v1/devices'].post]) {
      expect(operation.description).toContain('RATE_LIMITED (429) with Retry-After');
      expect(operation.description).toContain('503 with Retry-After');
    }
  });

  it('takes a device call sent as text/plain holding JSON, as the docs say', async () => {
    const registered = await server.call('POST', '/api/v1/devices', {
      body: JSON.stringify({ device_id: 'plain-text-01', platform: 'android', country: 'VN' }),
      headers: { authorization: `Key ${key}`, 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(registered.status).toBe(200);
    expect((await player('plain-text-01')).country).toBe('VN');
  });
});
