import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startShopPlatform, type ShopPlatform } from '../fakes/shop-platform';
import { PUBLIC_URL, db, startServer, type Answer, type TestServer } from './helpers';

/** The embedded console's template as the build writes it: the two placeholders the server fills. */
export const TEMPLATE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="shopify-api-key" content="%SHOPIFY_API_KEY%">
<script src="%APP_BRIDGE_URL%"></script>
<script type="module" src="/embed/assets/embed-a1b2c3d4.js"></script>
</head><body><div id="root"></div></body></html>`;

export interface EmbedStack {
  server: TestServer;
  platform: ShopPlatform;
  embedDir: string;
  close(): Promise<void>;
}

/** The real server with embedding on, its platform hosts pointed at a local fake, and a built template. */
export async function startEmbedStack(options: { built?: boolean; env?: Record<string, string> } = {}): Promise<EmbedStack> {
  const platform = await startShopPlatform({ appUrl: PUBLIC_URL });
  const embedDir = mkdtempSync(join(tmpdir(), 'nudge-embed-'));
  if (options.built !== false) {
    mkdirSync(join(embedDir, 'assets'));
    writeFileSync(join(embedDir, 'index.html'), TEMPLATE);
    writeFileSync(join(embedDir, 'assets', 'embed-a1b2c3d4.js'), 'console.log("embedded console");\n');
  }
  const server = await startServer({ env: { ...platform.env(), EMBED_DIR: embedDir, ...options.env } });
  return {
    server,
    platform,
    embedDir,
    async close() {
      await server.close();
      await platform.close();
      rmSync(embedDir, { recursive: true, force: true });
    },
  };
}

/** An API call authenticated the embedded console's way: the placeholder X-Token and a session token. */
export function withSessionToken(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-token': 'shopify-embedded', authorization: `Bearer ${token}`, ...extra };
}

/** The path and query of an absolute URL, for app.inject. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** The page load of the platform's admin frame: /{entry}?shop&host&embedded=1&id_token. */
export async function loadEmbeddedPage(stack: EmbedStack, shop: string, options: { entry?: string; idToken?: string | null } = {}): Promise<Answer<string>> {
  const params = new URLSearchParams({ shop, host: stack.platform.host(shop), embedded: '1' });
  const idToken = options.idToken === undefined ? await stack.platform.sessionToken(shop) : options.idToken;
  if (idToken !== null) params.set('id_token', idToken);
  return stack.server.call('GET', `${options.entry ?? '/shopify-banner'}?${params}`);
}

/** Installs a shop the managed way (its first page load exchanges the session token) and answers its row. */
export async function installByPageLoad(stack: EmbedStack, shop: string) {
  const page = await loadEmbeddedPage(stack, shop);
  if (page.status !== 200) throw new Error(`install by page load failed: ${page.status} ${page.body}`);
  return db(stack.server).selectFrom('shops').selectAll().where('shop', '=', shop).executeTakeFirstOrThrow();
}

/** The OAuth dance up to the callback: GET /auth, the fake's consent screen, and the callback URL it signed. */
export async function startOAuth(stack: EmbedStack, shop: string): Promise<{ callback: URL; cookie: string }> {
  const begin = await stack.server.call('GET', `/auth?shop=${encodeURIComponent(shop)}`);
  if (begin.status !== 302) throw new Error(`GET /auth answered ${begin.status}: ${begin.body}`);
  const setCookie = String(begin.headers['set-cookie']);
  const cookie = setCookie.split(';')[0];
  const consent = await fetch(String(begin.headers.location), { redirect: 'manual' });
  if (consent.status !== 302) throw new Error(`the fake's authorize answered ${consent.status}: ${await consent.text()}`);
  return { callback: new URL(consent.headers.get('location')!), cookie };
}

/** A copy of a callback URL with some parameters changed, signed again by the platform (so only they differ). */
export function resigned(stack: EmbedStack, callback: URL, changes: Record<string, string | null>): URL {
  const query: Record<string, string> = {};
  for (const [key, value] of callback.searchParams) if (key !== 'hmac') query[key] = value;
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete query[key];
    else query[key] = value;
  }
  const url = new URL(callback.toString());
  url.search = new URLSearchParams({ ...query, hmac: stack.platform.signQuery(query) }).toString();
  return url;
}

/** Delivers a signed webhook to the app, optionally with its body changed after signing. */
export async function deliverWebhook(
  stack: EmbedStack,
  topic: string,
  shop: string,
  payload: unknown,
  options: { id?: string; tamper?: (body: string) => string } = {},
) {
  const delivery = stack.platform.webhook(topic, shop, payload, { id: options.id });
  const response = await stack.server.app.inject({
    method: 'POST',
    url: '/embed/webhooks',
    headers: delivery.headers,
    payload: options.tamper ? options.tamper(delivery.body) : delivery.body,
  });
  return { status: response.statusCode, body: response.body };
}
