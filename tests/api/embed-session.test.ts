import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createUser, startServer } from './helpers';
import { installByPageLoad, loadEmbeddedPage, startEmbedStack, withSessionToken, type EmbedStack } from './embed-helpers';

/**
 * The shop platform's session tokens, failing closed: a fetch with anything but a valid HS256 token of this
 * app for a shop gets 401 with the retry header, a page load gets the bounce page, and the placeholder
 * X-Token alone is nobody.
 */
const SHOP = 'session-shop.myshopify.com';
const RETRY = 'x-shopify-retry-invalid-session-request';
let stack: EmbedStack;

beforeAll(async () => {
  stack = await startEmbedStack();
  stack.platform.setShop(SHOP, { name: 'Session Shop', email: 'owner@session-shop.example' });
  await installByPageLoad(stack, SHOP);
});
afterAll(async () => stack?.close());

async function session(token: string) {
  return stack.server.call('GET', '/api/embed/session', { headers: withSessionToken(token) });
}

function expectRefused(answer: { status: number; headers: Record<string, unknown>; body: any }) {
  expect(answer.status).toBe(401);
  expect(answer.headers[RETRY]).toBe('1');
  expect(answer.body).toMatchObject({ success: false, error: 'NOT_AUTHORIZED' });
}

describe('GET /api/embed/session with a session token', () => {
  it('answers the shop, its application and the owner role for a valid token', async () => {
    const answer = await session(await stack.platform.sessionToken(SHOP));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      application_id: 'session_shop_myshopify_com',
      shop: SHOP,
      name: 'Session Shop',
      roles: ['super_user'],
    });
  });

  it('refuses a token signed with another secret', async () => {
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { secret: 'not-the-app-secret' })));
  });

  it('refuses an unsigned token (alg none)', async () => {
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { alg: 'none' })));
  });

  it('refuses an RS256 token, whatever key signed it', async () => {
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { alg: 'RS256' })));
  });

  it('refuses a token expired 11 s ago', async () => {
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { expiresIn: -11 })));
  });

  // JWT times are whole seconds, so a token signed 11 s ahead is only 10 s ahead (and valid) once the server's
  // clock has passed into the next second, as it may on a slow machine between signing and checking; 12 s ahead
  // is refused either way. Likewise a token expired 9 s ago is refused from the next second on: 8 s is accepted.
  it('accepts a token expired 8 s ago (10 s of clock tolerance)', async () => {
    const answer = await session(await stack.platform.sessionToken(SHOP, { expiresIn: -8 }));
    expect(answer.status).toBe(200);
  });

  it('refuses a token not valid before a time 12 s ahead', async () => {
    const future = new Date(Date.now() + 12_000);
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { now: future })));
  });

  it('refuses a token for another app (wrong aud)', async () => {
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { claims: { aud: 'another-app-key' } })));
  });

  it('refuses a token whose dest is not a shop domain', async () => {
    const claims = { dest: 'https://evil.example.com', iss: 'https://evil.example.com/admin' };
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { claims })));
  });

  it('refuses a token whose dest smuggles a path or port past the shop name', async () => {
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { claims: { dest: `https://${SHOP}:8443` } })));
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { claims: { dest: `https://${SHOP}/evil` } })));
  });

  it('refuses a token whose iss is another shop than dest', async () => {
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { claims: { iss: 'https://other.myshopify.com/admin' } })));
  });

  it('refuses a token without exp or without nbf', async () => {
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { claims: { exp: undefined } })));
    expectRefused(await session(await stack.platform.sessionToken(SHOP, { claims: { nbf: undefined } })));
  });

  it('refuses a token that is not a JWT at all', async () => {
    expectRefused(await session('not.a.token'));
  });

  it('refuses the placeholder X-Token without a session token', async () => {
    const answer = await stack.server.call('GET', '/api/embed/session', { headers: { 'x-token': 'shopify-embedded' } });
    expectRefused(answer);
  });
});

describe('the rest of the API with a session token', () => {
  it('answers NOT_AUTHORIZED to the placeholder X-Token alone', async () => {
    const answer = await stack.server.call('GET', '/api/user/me', { headers: { 'x-token': 'shopify-embedded' } });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ success: false, error: 'NOT_AUTHORIZED' });
  });

  it('acts as the shop owner in the shop application', async () => {
    const token = await stack.platform.sessionToken(SHOP);
    const answer = await stack.server.call('GET', '/api/application/session_shop_myshopify_com/access', { headers: withSessionToken(token) });
    expect(answer.status).toBe(200);
    expect(answer.body.data.roles).toEqual(['super_user']);
  });

  it('answers 401 with the retry header to a bad token on any route, even beside a valid X-Token', async () => {
    const user = await createUser(stack.server);
    const bad = await stack.platform.sessionToken(SHOP, { secret: 'wrong' });
    const answer = await stack.server.call('GET', '/api/user/me', { headers: { 'x-token': user.token, authorization: `Bearer ${bad}` } });
    expectRefused(answer);
  });

  it('keeps a shop token out of every other application', async () => {
    const owner = await createUser(stack.server);
    await createApplication(stack.server, owner, 'someone_else_app');
    const token = await stack.platform.sessionToken(SHOP);
    const answer = await stack.server.call('GET', '/api/application/someone_else_app', { headers: withSessionToken(token) });
    expect(answer.status).toBe(403);
    expect(answer.body.error).toBe('NO_PERMISSION');
  });

  it('signs out without touching any X-Token session (a session token is stateless)', async () => {
    const token = await stack.platform.sessionToken(SHOP);
    const answer = await stack.server.call('POST', '/api/user/logout', { headers: withSessionToken(token) });
    expect(answer.status).toBe(200);
  });
});

describe('a page load of /shopify-banner and /shopify-maxlead', () => {
  it('serves the built page with the API key, App Bridge first, and frame-ancestors for the shop and the admin', async () => {
    const page = await loadEmbeddedPage(stack, SHOP, { entry: '/shopify-maxlead/leads' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain(`<meta name="shopify-api-key" content="${stack.platform.apiKey}">`);
    expect(page.body).toContain(`<script src="${stack.platform.appBridgeUrl}"></script>`);
    expect(page.headers['content-security-policy']).toBe(`frame-ancestors ${stack.platform.url}`);
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('sends a load without id_token to the bounce page, which reloads the same URL on this app', async () => {
    const page = await loadEmbeddedPage(stack, SHOP, { idToken: null, entry: '/shopify-banner/banner' });
    expect(page.status).toBe(302);
    const bounce = new URL(String(page.headers.location), 'http://console.nudge.test');
    expect(bounce.pathname).toBe('/auth/session-token');
    const reload = new URL(bounce.searchParams.get('shopify-reload')!);
    expect(reload.origin + reload.pathname).toBe('http://console.nudge.test/shopify-banner/banner');
    expect(reload.searchParams.get('shop')).toBe(SHOP);
    expect(reload.searchParams.has('id_token')).toBe(false);

    const bouncePage = await stack.server.call('GET', `${bounce.pathname}${bounce.search}`);
    expect(bouncePage.status).toBe(200);
    expect(bouncePage.body).toContain(`<script src="${stack.platform.appBridgeUrl}" data-api-key="${stack.platform.apiKey}"></script>`);
    expect(bouncePage.body).toContain('<meta name="shopify-reload" content="http://console.nudge.test/shopify-banner/banner?');
    expect(bouncePage.headers['content-security-policy']).toBe(`frame-ancestors ${stack.platform.url}`);
  });

  it('sends a load with an invalid id_token to the bounce page too', async () => {
    const forged = await stack.platform.sessionToken(SHOP, { secret: 'forged' });
    const page = await loadEmbeddedPage(stack, SHOP, { idToken: forged });
    expect(page.status).toBe(302);
    expect(String(page.headers.location)).toMatch(/^\/auth\/session-token\?/);
    expect(String(page.headers.location)).not.toContain(forged);
  });

  it('sends a load whose token is for another shop to the bounce page', async () => {
    const other = await stack.platform.sessionToken('other-shop.myshopify.com');
    const page = await loadEmbeddedPage(stack, SHOP, { idToken: other });
    expect(page.status).toBe(302);
  });

  it('refuses a bounce that would reload another site', async () => {
    const answer = await stack.server.call('GET', `/auth/session-token?shop=${SHOP}&shopify-reload=${encodeURIComponent('https://evil.example.com/x')}`);
    expect(answer.status).toBe(400);
  });

  it('refuses a load for a shop name that is not a shop domain', async () => {
    const answer = await stack.server.call('GET', `/shopify-banner?shop=evil.example.com&host=${stack.platform.host(SHOP)}`);
    expect(answer.status).toBe(400);
  });

  it('serves the page outside the admin (no shop, no host), framable by the unified admin only', async () => {
    const page = await stack.server.call('GET', '/shopify-banner');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(`frame-ancestors ${stack.platform.url}`);
  });

  it('serves the hashed assets with a year of immutable cache', async () => {
    const asset = await stack.server.call('GET', '/embed/assets/embed-a1b2c3d4.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await stack.server.call('GET', '/embed/assets/nothing-here1.js');
    expect(missing.status).toBe(404);
  });
});

describe('with the platform hosts of production', () => {
  let production: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    production = await startServer({ env: { SHOPIFY_API_KEY: 'prod-key', SHOPIFY_API_SECRET: 'prod-secret', EMBED_DIR: stack.embedDir } });
  });
  afterAll(async () => production?.close());

  it('lets only https://{shop} and https://admin.shopify.com frame the embedded pages', async () => {
    const host = Buffer.from('admin.shopify.com/store/demo').toString('base64');
    const answer = await production.call('GET', `/shopify-banner?shop=demo.myshopify.com&host=${host}&embedded=1`);
    const bounce = await production.call('GET', String(answer.headers.location));
    expect(bounce.headers['content-security-policy']).toBe('frame-ancestors https://demo.myshopify.com https://admin.shopify.com');
    expect(bounce.body).toContain('<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js" data-api-key="prod-key"></script>');
  });
});

describe('without a built embedded console', () => {
  let unbuilt: EmbedStack;
  beforeAll(async () => {
    unbuilt = await startEmbedStack({ built: false });
  });
  afterAll(async () => unbuilt?.close());

  it('answers a short 503 saying to build it', async () => {
    const answer = await unbuilt.server.call('GET', '/shopify-banner');
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toContain('text/plain');
    expect(answer.body).toContain('npm run build');
  });
});

describe('with embedding off (no SHOPIFY_API_KEY / SHOPIFY_API_SECRET)', () => {
  let off: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    off = await startServer();
  });
  afterAll(async () => off?.close());

  it('answers 404 on every shop-platform route', async () => {
    for (const [method, url] of [
      ['GET', '/shopify-banner'],
      ['GET', '/shopify-maxlead/leads'],
      ['GET', '/auth?shop=demo.myshopify.com'],
      ['GET', '/auth/callback?shop=demo.myshopify.com'],
      ['GET', '/auth/session-token?shop=demo.myshopify.com'],
      ['POST', '/embed/webhooks'],
      ['GET', '/embed/assets/embed-a1b2c3d4.js'],
      ['GET', '/api/embed/session'],
    ]) {
      const answer = await off.call(method, url);
      expect(answer.status, `${method} ${url}`).toBe(404);
    }
  });
});
