import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessTokenOf } from '../../embed/server/shops';
import { createApplication, createUser, db } from './helpers';
import {
  deliverWebhook,
  installByPageLoad,
  pathOf,
  resigned,
  startEmbedStack,
  startOAuth,
  withSessionToken,
  type EmbedStack,
} from './embed-helpers';

/**
 * Installing a shop: OAuth with the platform library's checks (shop domain, HMAC, timestamp within 90 s, state
 * cookie), the managed install by token exchange, re-install and uninstall. Every refused callback installs
 * nothing.
 */
let stack: EmbedStack;

beforeAll(async () => {
  stack = await startEmbedStack();
});
afterAll(async () => stack?.close());

const shops = () => db(stack.server).selectFrom('shops').selectAll();
const shopRow = (shop: string) => shops().where('shop', '=', shop).executeTakeFirst();

async function callback(url: URL, cookie?: string) {
  return stack.server.call('GET', pathOf(url.toString()), cookie ? { headers: { cookie } } : {});
}

describe('OAuth install', () => {
  it('is signed by the fake exactly as the platform documents it (its example, secret "hush")', () => {
    const query = { code: '0907a61c0c8d55e99db179b68161bc00', shop: 'some-shop.myshopify.com', state: '0.6784241404160823', timestamp: '1337178173' };
    expect(stack.platform.signQuery(query, 'hush')).toBe('700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf');
  });

  it('makes the shop an application (id from its domain) with its owner as super_user and the token sealed', async () => {
    const shop = 'oauth-shop.myshopify.com';
    stack.platform.setShop(shop, { name: 'OAuth Shop', email: 'owner@oauth-shop.example', timezoneOffsetMinutes: -300, countryCode: 'US' });
    const begin = await stack.server.call('GET', `/auth?shop=${shop}`);
    expect(begin.status).toBe(302);
    const authorize = new URL(String(begin.headers.location));
    expect(authorize.origin + authorize.pathname).toBe(`${stack.platform.url}/shops/${shop}/admin/oauth/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe(stack.platform.apiKey);
    expect(authorize.searchParams.get('scope')).toBe('read_orders');
    expect(authorize.searchParams.get('redirect_uri')).toBe('http://console.nudge.test/auth/callback');
    expect(String(begin.headers['set-cookie'])).toMatch(/^shopify_app_state=.+; Max-Age=60; Path=\/auth\/callback; HttpOnly; SameSite=Lax$/);

    const { callback: url, cookie } = await startOAuth(stack, shop);
    const done = await callback(url, cookie);
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe(`${stack.platform.url}/shops/${shop}/admin/apps/${stack.platform.apiKey}`);

    const row = (await shopRow(shop))!;
    expect(row.application_id).toBe('oauth_shop_myshopify_com');
    expect(row).toMatchObject({ name: 'OAuth Shop', email: 'owner@oauth-shop.example', scopes: 'read_orders', uninstalled_at: null });
    const [issued] = stack.platform.accessTokens(shop);
    expect(row.access_token).not.toContain(issued);
    expect(accessTokenOf(stack.server.app.services, row)).toBe(issued);

    const application = await db(stack.server).selectFrom('applications').selectAll().where('application_id', '=', row.application_id).executeTakeFirst();
    expect(application?.name).toBe('OAuth Shop');
    // The shop's timezone (UTC-05:00) is the application's: its dashboard counts the shop's days.
    expect(application?.utc_offset).toBe(-300);
    // And its country (the United States) is the application's country for phone numbers: "415 555 0123" is +1 415 555 0123.
    expect(application?.phone_country).toBe('US');
    const members = await db(stack.server)
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['users.id', 'users.email', 'users.password_hash', 'memberships.role'])
      .where('memberships.application_id', '=', row.application_id)
      .execute();
    expect(members).toEqual([{ id: row.owner_user_id, email: shop, password_hash: null, role: 'super_user' }]);
  });

  it('refuses a callback whose HMAC does not match, and installs nothing', async () => {
    const shop = 'bad-hmac.myshopify.com';
    const { callback: url, cookie } = await startOAuth(stack, shop);
    const forged = new URL(url.toString());
    forged.searchParams.set('code', `${url.searchParams.get('code')}0`);
    const answer = await callback(forged, cookie);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('not signed by the shop platform');
    const signedByOther = new URL(url.toString());
    const query = Object.fromEntries([...url.searchParams].filter(([key]) => key !== 'hmac'));
    signedByOther.searchParams.set('hmac', stack.platform.signQuery(query, 'another-secret'));
    expect((await callback(signedByOther, cookie)).status).toBe(400);
    expect(await shopRow(shop)).toBeUndefined();
  });

  it('refuses a callback signed more than 90 s ago, and installs nothing', async () => {
    const shop = 'stale.myshopify.com';
    const { callback: url, cookie } = await startOAuth(stack, shop);
    const stale = resigned(stack, url, { timestamp: String(Math.floor(Date.now() / 1000) - 91) });
    const answer = await callback(stale, cookie);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('expired');
    // Whole seconds, rounded down, and read before the request travels: 91 s ahead could arrive as 90.x.
    const future = resigned(stack, url, { timestamp: String(Math.floor(Date.now() / 1000) + 95) });
    expect((await callback(future, cookie)).status).toBe(400);
    expect(await shopRow(shop)).toBeUndefined();
  });

  it('accepts a callback signed 85 s ago', async () => {
    const shop = 'slow-merchant.myshopify.com';
    const { callback: url, cookie } = await startOAuth(stack, shop);
    const late = resigned(stack, url, { timestamp: String(Math.floor(Date.now() / 1000) - 85) });
    expect((await callback(late, cookie)).status).toBe(302);
    expect(await shopRow(shop)).toBeDefined();
  });

  it('refuses a callback without the state cookie of this browser, and installs nothing', async () => {
    const shop = 'no-state.myshopify.com';
    const { callback: url } = await startOAuth(stack, shop);
    const answer = await callback(url);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('did not start in this browser');
    expect(await shopRow(shop)).toBeUndefined();
  });

  it('refuses a callback whose state is not the cookie’s, or has none', async () => {
    const shop = 'state-mismatch.myshopify.com';
    const first = await startOAuth(stack, shop);
    const second = await startOAuth(stack, shop);
    expect((await callback(first.callback, second.cookie)).status).toBe(400);
    expect((await callback(resigned(stack, first.callback, { state: null }), first.cookie)).status).toBe(400);
    expect((await callback(first.callback, `${first.cookie}x`)).status).toBe(400);
    expect(await shopRow(shop)).toBeUndefined();
  });

  it('refuses a shop that is not a shop domain, at the start and at the callback', async () => {
    for (const shop of ['evil.example.com', 'demo.myshopify.com.evil.com', 'demo.myshopify.com/x', '-demo.myshopify.com']) {
      const answer = await stack.server.call('GET', `/auth?shop=${encodeURIComponent(shop)}`);
      expect(answer.status, shop).toBe(400);
      expect(answer.body).toContain('not a valid shop address');
    }
    const { callback: url, cookie } = await startOAuth(stack, 'real-shop.myshopify.com');
    const moved = resigned(stack, url, { shop: 'evil.example.com' });
    expect((await callback(moved, cookie)).status).toBe(400);
    expect(await shops().where('shop', '=', 'evil.example.com').executeTakeFirst()).toBeUndefined();
  });

  it('refuses a code the platform does not know', async () => {
    const shop = 'code-refused.myshopify.com';
    const { callback: url, cookie } = await startOAuth(stack, shop);
    const answer = await callback(resigned(stack, url, { code: 'not-a-code' }), cookie);
    expect(answer.status).toBe(400);
    expect(await shopRow(shop)).toBeUndefined();
  });
});

describe('managed install (token exchange on the first page load)', () => {
  it('creates the application and stores the exchanged offline token', async () => {
    const shop = 'managed.myshopify.com';
    stack.platform.setShop(shop, { name: 'Managed Shop' });
    const row = await installByPageLoad(stack, shop);
    expect(row.application_id).toBe('managed_myshopify_com');
    expect(accessTokenOf(stack.server.app.services, row)).toBe(stack.platform.accessTokens(shop)[0]);
  });

  it('never puts a shop in an application someone made by hand with its id', async () => {
    const squatter = await createUser(stack.server);
    await createApplication(stack.server, squatter, 'squatted_myshopify_com', 'Not the shop');
    const row = await installByPageLoad(stack, 'squatted.myshopify.com');
    expect(row.application_id).toBe('squatted_2_myshopify_com');
    const inSquatted = await db(stack.server)
      .selectFrom('memberships')
      .select('user_id')
      .where('application_id', '=', 'squatted_myshopify_com')
      .execute();
    expect(inSquatted.map((m) => m.user_id)).toEqual([squatter.id]);
  });

  it('installs once when two first calls race', async () => {
    const shop = 'racing.myshopify.com';
    const tokens = await Promise.all([stack.platform.sessionToken(shop), stack.platform.sessionToken(shop)]);
    const answers = await Promise.all(tokens.map((token) => stack.server.call('GET', '/api/embed/session', { headers: withSessionToken(token) })));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[0].body.data.application_id).toBe(answers[1].body.data.application_id);
    expect(await db(stack.server).selectFrom('users').select('id').where('email', '=', shop).execute()).toHaveLength(1);
  });
});

describe('uninstall and re-install', () => {
  it('app/uninstalled drops the token and marks the shop; the application and its data stay', async () => {
    const shop = 'leaving.myshopify.com';
    const row = await installByPageLoad(stack, shop);
    const token = await stack.platform.sessionToken(shop);
    const widget = await stack.server.call('POST', `/api/application/${row.application_id}/widget`, {
      headers: withSessionToken(token),
      body: { type: 'banner', name: 'Kept banner', settings: { title: 'Hello' } },
    });
    expect(widget.status).toBe(200);

    const answer = await deliverWebhook(stack, 'app/uninstalled', shop, { id: 1, myshopify_domain: shop });
    expect(answer.status).toBe(200);
    const after = (await shopRow(shop))!;
    expect(after.access_token).toBeNull();
    expect(after.uninstalled_at).not.toBeNull();
    expect(await db(stack.server).selectFrom('applications').select('application_id').where('application_id', '=', row.application_id).executeTakeFirst()).toBeDefined();
    expect(await db(stack.server).selectFrom('widgets').select('name').where('application_id', '=', row.application_id).execute()).toEqual([{ name: 'Kept banner' }]);
  });

  it('a re-install keeps the application, its owner and its data, with the new token', async () => {
    const shop = 'returning.myshopify.com';
    const first = await installByPageLoad(stack, shop);
    const token = await stack.platform.sessionToken(shop);
    await stack.server.call('POST', `/api/application/${first.application_id}/widget`, {
      headers: withSessionToken(token),
      body: { type: 'banner', name: 'Before the break', settings: { title: 'Hi' } },
    });
    await deliverWebhook(stack, 'app/uninstalled', shop, { id: 2 });
    stack.platform.revokeAccess(shop);

    const { callback: url, cookie } = await startOAuth(stack, shop);
    expect((await callback(url, cookie)).status).toBe(302);
    const again = (await shopRow(shop))!;
    expect(again.application_id).toBe(first.application_id);
    expect(again.owner_user_id).toBe(first.owner_user_id);
    expect(again.uninstalled_at).toBeNull();
    expect(accessTokenOf(stack.server.app.services, again)).toBe(stack.platform.accessTokens(shop)[0]);
    const widgets = await db(stack.server).selectFrom('widgets').select('name').where('application_id', '=', first.application_id).execute();
    expect(widgets).toEqual([{ name: 'Before the break' }]);
    expect(await db(stack.server).selectFrom('applications').select('application_id').where('application_id', 'like', 'returning%').execute()).toHaveLength(1);
  });
});
