import { createECDH } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vapidKeys } from '../../server/domain/web-push';
import { openSecret } from '../../server/security/secret-box';
import { addMember, createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';

/** The web push platform card's API: settings, the VAPID key pair, and what the storefront config shows of it. */
const APP = 'push_platform';

let server: TestServer;
let owner: TestUser;
let key: string;

const url = `/api/application/${APP}/platform/web_push`;

const settings = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  site_url: 'https://shop.example.vn',
  icon_url: 'https://shop.example.vn/icon.png',
  sw_path: '/nudge-sw.js',
  box: { text: 'Nhận tin khuyến mãi?', allow_text: 'Cho phép', deny_text: 'Để sau', delay_seconds: 3, position: 'bottom_left' },
  ...over,
});

beforeAll(async () => {
  server = await startServer();
  owner = await createUser(server, { name: 'Owner' });
  key = (await createApplication(server, owner, APP)).client_key;
}, 60_000);
afterAll(async () => server?.close());

describe('the web push platform', () => {
  it('has no settings at first, but a VAPID public key made once and kept', async () => {
    const first = await server.call('GET', url, { token: owner.token });
    expect(first.status).toBe(200);
    expect(first.body.data.settings).toBeNull();
    // An uncompressed P-256 point, base64url: 65 bytes.
    expect(Buffer.from(first.body.data.vapid_public_key, 'base64url')).toHaveLength(65);
    const again = await server.call('GET', url, { token: owner.token });
    expect(again.body.data.vapid_public_key).toBe(first.body.data.vapid_public_key);
  });

  it('keeps the private key sealed at rest and never answers it', async () => {
    const answer = await server.call('GET', url, { token: owner.token });
    expect(JSON.stringify(answer.body)).not.toMatch(/private|secret/i);
    const row = await db(server).selectFrom('platforms').selectAll().where('application_id', '=', APP).executeTakeFirstOrThrow();
    expect(row.kind).toBe('web');
    const keys = await vapidKeys(server.app.services, APP);
    expect(keys?.publicKey).toBe(answer.body.data.vapid_public_key);
    // The two halves belong together: the private key gives the public one.
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(keys!.privateKey, 'base64url'));
    expect(ecdh.getPublicKey().toString('base64url')).toBe(keys!.publicKey);
    expect(row.secrets).not.toContain(keys!.privateKey);
    expect(openSecret(server.config.secretKey, 'platform:web:vapid', row.secrets!)).toContain(keys!.privateKey);
  });

  it('saves the settings and puts the public part into the storefront config', async () => {
    const saved = await server.call('PUT', url, { token: owner.token, body: settings() });
    expect(saved.status).toBe(200);
    expect(saved.body.data.settings).toEqual(settings());
    const config = await server.call('GET', `/api/sdk/config?key=${key}`);
    expect(config.body.data.application_id).toBe(APP);
    expect(config.body.data.push).toEqual({ vapid_public_key: saved.body.data.vapid_public_key, sw_path: '/nudge-sw.js', box: settings().box });
    expect(JSON.stringify(config.body.data)).not.toContain('shop.example.vn/icon.png');
  });

  it('leaves push out of the storefront config when it is switched off', async () => {
    await server.call('PUT', url, { token: owner.token, body: settings({ enabled: false }) });
    const config = await server.call('GET', `/api/sdk/config?key=${key}`);
    expect(config.body.data.push).toBeUndefined();
    const row = await db(server).selectFrom('platforms').select('status').where('application_id', '=', APP).executeTakeFirstOrThrow();
    expect(row.status).toBe('inactive');
  });

  it('defaults the service worker path to /nudge-sw.js', async () => {
    const { sw_path: _, ...withoutPath } = settings();
    const saved = await server.call('PUT', url, { token: owner.token, body: withoutPath });
    expect(saved.body.data.settings.sw_path).toBe('/nudge-sw.js');
  });

  it('refuses a site URL or an icon URL that is not HTTPS, in the caller language', async () => {
    const answer = await server.call('PUT', url, {
      token: owner.token,
      lang: 'en',
      body: settings({ site_url: 'http://shop.example.vn', icon_url: 'http://shop.example.vn/icon.png' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INVALID_PARAM');
    expect(answer.body.fields).toEqual(
      expect.arrayContaining([
        { path: 'site_url', message: 'Site Url must be HTTPS' },
        { path: 'icon_url', message: 'Icon Url must be HTTPS' },
      ]),
    );
  });

  it('refuses a service worker path that is not a path on the shop', async () => {
    for (const sw_path of ['https://cdn.example.com/sw.js', 'nudge-sw.js', '/../sw.js', '//evil.example/sw.js']) {
      const answer = await server.call('PUT', url, { token: owner.token, body: settings({ sw_path }) });
      expect(answer.status, sw_path).toBe(400);
    }
  });

  it('lets ads managers in and keeps managers and viewers out (spec §6)', async () => {
    const ads = await createUser(server);
    const manager = await createUser(server);
    await addMember(server, owner, APP, ads, 'ads_manager');
    await addMember(server, owner, APP, manager, 'manager');
    expect((await server.call('PUT', url, { token: ads.token, body: settings() })).status).toBe(200);
    expect((await server.call('GET', url, { token: manager.token })).body.error).toBe('NO_PERMISSION');
    const outsider = await createUser(server);
    expect((await server.call('GET', url, { token: outsider.token })).body.error).toBe('NO_PERMISSION');
    expect((await server.call('GET', url)).status).toBe(401);
  });
});
