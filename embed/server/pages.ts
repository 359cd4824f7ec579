import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EMBEDDED_DEFAULT_LANGUAGE, pickLanguage, translate } from '../../shared/i18n';
import type { ShopifyConfig } from '../../server/config';
import { AppError } from '../../server/errors';
import { isHashedAsset } from '../../server/plugins/console';
import { sendError } from '../../server/plugins/errors';
import { PlatformRefused } from './admin-api';
import { InvalidSessionToken, verifySessionToken } from './session-token';
import { adminOrigin, embeddedAdminUrl, sanitizeShop, shopOrigin } from './shop-domain';
import { shopForSessionToken } from './shops';

/*
 * The embedded console's pages. The two entry points (/shopify-banner, /shopify-maxlead and any path under
 * them) answer the built template (dist/embed/index.html) with the API key and App Bridge's URL filled in,
 * once the `id_token` of the page load checks out; without a valid one the page goes to the bounce page,
 * where App Bridge fetches a fresh token and reloads it (the platform's `shopify-reload` protocol).
 */

/** The two embedded apps' entry points (spec §2). */
export const EMBED_ENTRIES = ['/shopify-banner', '/shopify-maxlead'] as const;
/** Where a page load without a valid session token is sent. */
export const BOUNCE_PATH = '/auth/session-token';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A short text answer for a person in a browser (an install that failed, a page not built), in English by default. */
export function plainPage(request: FastifyRequest, reply: FastifyReply, status: number, key: string): FastifyReply {
  const lang = pickLanguage(request.headers['accept-language'], EMBEDDED_DEFAULT_LANGUAGE);
  return reply.code(status).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(translate(lang, key));
}

/** `frame-ancestors`: the shop's admin and the unified admin only; without a shop, the unified admin only. */
export function frameAncestors(config: ShopifyConfig, shop: string | null): string {
  const origins = shop ? [shopOrigin(config, shop), adminOrigin(config)] : [adminOrigin(config)];
  return `frame-ancestors ${[...new Set(origins)].join(' ')}`;
}

function htmlHeaders(reply: FastifyReply, config: ShopifyConfig, shop: string | null): FastifyReply {
  return reply
    .header('content-security-policy', frameAncestors(config, shop))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8');
}

async function template(embedDir: string): Promise<string | null> {
  try {
    return await readFile(join(embedDir, 'index.html'), 'utf8');
  } catch {
    return null;
  }
}

/** The query of the request without `id_token`: what the page is reloaded with after a bounce. */
function queryWithoutToken(request: FastifyRequest): URLSearchParams {
  const url = request.url;
  const params = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  params.delete('id_token');
  params.delete('shopify-reload');
  return params;
}

/** Sends the page load to the bounce page, which reloads it (on this app's own URL) with a fresh id_token. */
function bounce(request: FastifyRequest, reply: FastifyReply, config: ShopifyConfig): FastifyReply {
  const params = queryWithoutToken(request);
  const path = request.url.split('?')[0];
  const reload = `${config.appUrl}${path}${params.size > 0 ? `?${params}` : ''}`;
  params.set('shopify-reload', reload);
  return reply.header('cache-control', 'no-store').redirect(`${BOUNCE_PATH}?${params}`, 302);
}

/** GET /shopify-banner, /shopify-maxlead and any path under them. */
async function embeddedPage(request: FastifyRequest, reply: FastifyReply) {
  const { services } = request.server;
  const config = services.config.shopify;
  if (!config) return sendError(request, reply, new AppError('NOT_FOUND'));
  const page = await template(services.config.embedDir);
  if (page === null) return plainPage(request, reply, 503, 'embed.errors.notBuilt');
  const render = (shop: string | null) =>
    htmlHeaders(reply, config, shop).send(
      page.replaceAll('%SHOPIFY_API_KEY%', escapeHtml(config.apiKey)).replaceAll('%APP_BRIDGE_URL%', escapeHtml(config.appBridgeUrl)),
    );

  const query = request.query as Record<string, unknown>;
  // Opened outside the platform's admin: the page itself explains how to open it from there.
  if (query.shop === undefined && query.host === undefined) return render(null);
  const shop = sanitizeShop(query.shop);
  if (!shop) return plainPage(request, reply, 400, 'embed.errors.invalidShop');
  if (!embeddedAdminUrl(config, query.host, shop)) return plainPage(request, reply, 400, 'embed.errors.invalidHost');

  const idToken = typeof query.id_token === 'string' ? query.id_token : null;
  if (!idToken) return bounce(request, reply, config);
  try {
    const claims = await verifySessionToken(config, idToken, services.clock());
    if (claims.shop !== shop) throw new InvalidSessionToken('token of another shop');
  } catch (error) {
    if (!(error instanceof InvalidSessionToken)) throw error;
    request.log.info({ reason: error.message }, 'page load with an invalid session token');
    return bounce(request, reply, config);
  }
  try {
    // Managed install: the first page load of a shop exchanges its token and creates its application.
    await shopForSessionToken(services, shop, idToken);
  } catch (error) {
    if (error instanceof PlatformRefused) {
      request.log.warn({ shop, err: error }, 'token exchange refused');
      return plainPage(request, reply, 401, 'embed.errors.sessionRefused');
    }
    request.log.error({ shop, err: error }, 'install failed');
    return plainPage(request, reply, 502, 'embed.errors.platformUnreachable');
  }
  return render(shop);
}

/**
 * GET /auth/session-token: the bounce page, as the platform's library renders it (App Bridge with the API
 * key); App Bridge reads `shopify-reload` and reloads that URL, on this app's origin only, with a fresh token.
 */
async function bouncePage(request: FastifyRequest, reply: FastifyReply) {
  const config = request.server.services.config.shopify;
  if (!config) return sendError(request, reply, new AppError('NOT_FOUND'));
  const query = request.query as Record<string, unknown>;
  const shop = sanitizeShop(query.shop);
  if (!shop) return plainPage(request, reply, 400, 'embed.errors.invalidShop');
  const reload = typeof query['shopify-reload'] === 'string' ? query['shopify-reload'] : '';
  let sameApp = false;
  try {
    sameApp = new URL(reload).origin === new URL(config.appUrl).origin;
  } catch {
    sameApp = false;
  }
  if (!sameApp) return plainPage(request, reply, 400, 'embed.errors.invalidReload');
  const key = escapeHtml(config.apiKey);
  return htmlHeaders(reply, config, shop).send(
    [
      '<!doctype html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      `<meta name="shopify-api-key" content="${key}">`,
      `<meta name="shopify-reload" content="${escapeHtml(reload)}">`,
      `<script src="${escapeHtml(config.appBridgeUrl)}" data-api-key="${key}"></script>`,
      '</head>',
      '<body></body>',
      '</html>',
    ].join('\n'),
  );
}

/** The entry pages, the bounce page and the built assets at /embed/assets (hashed names cached for a year). */
export async function pageRoutes(app: FastifyInstance): Promise<void> {
  for (const entry of EMBED_ENTRIES) {
    app.get(entry, { schema: { hide: true } }, embeddedPage);
    app.get(`${entry}/*`, { schema: { hide: true } }, embeddedPage);
  }
  app.get(BOUNCE_PATH, { schema: { hide: true } }, bouncePage);

  // Like the console's files: served when they were built before the start (npm start builds first).
  const assetsDir = join(app.services.config.embedDir, 'assets');
  if (!app.services.config.shopify || !existsSync(assetsDir)) {
    app.get('/embed/assets/*', { schema: { hide: true } }, async () => {
      throw new AppError('NOT_FOUND');
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: assetsDir,
    prefix: '/embed/assets/',
    decorateReply: false,
    index: false,
    cacheControl: false,
    setHeaders(res, file) {
      res.setHeader('cache-control', isHashedAsset(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
