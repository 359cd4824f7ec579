import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { ShopifyConfig } from '../../server/config';
import { AppError } from '../../server/errors';
import { sendError } from '../../server/plugins/errors';
import { randomToken } from '../../server/security/tokens';
import { exchangeCode, PlatformRefused, readShopDetails } from './admin-api';
import { plainPage } from './pages';
import { embeddedAdminUrl, sanitizeShop, shopUrl } from './shop-domain';
import { installShop } from './shops';

/*
 * The OAuth install (authorization code grant), with the checks of the platform's own library: a valid shop
 * domain, the callback's HMAC (hex HMAC-SHA256 of the sorted query without `hmac`, under the app secret), a
 * timestamp within 90 s, and the `state` nonce equal to the one in this browser's signed cookie.
 */

/** How far the callback's timestamp may be from our clock, as the platform's library allows. */
export const OAUTH_TIMESTAMP_TOLERANCE_S = 90;
const STATE_COOKIE = 'shopify_app_state';
const STATE_TTL_S = 60;
const CALLBACK_PATH = '/auth/callback';

/** The query of a URL as the platform's library reads it: repeated keys joined with commas. */
export function oauthQuery(url: string): Record<string, string> {
  const query: Record<string, string> = Object.create(null);
  const search = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  for (const [key, value] of new URLSearchParams(search)) query[key] = key in query ? `${query[key]},${value}` : value;
  return query;
}

/** The message the platform signs: every parameter but `hmac` and `signature`, sorted, form-encoded. */
export function oauthSignedMessage(query: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(query).sort((a, b) => a.localeCompare(b))) {
    if (key !== 'hmac' && key !== 'signature') params.append(key, query[key]);
  }
  return params.toString().replace(/\+/g, '%20');
}

/** True when the callback's `hmac` is the platform's signature of the rest of the query. */
export function isAuthenticCallback(secret: string, query: Record<string, string>): boolean {
  const given = query.hmac;
  if (!given || !/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = createHmac('sha256', secret).update(oauthSignedMessage(query)).digest();
  return timingSafeEqual(Buffer.from(given.toLowerCase(), 'hex'), expected);
}

function stateKey(secretKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, 'nudge', 'nudge:oauth-state-cookie', 32));
}

function signState(secretKey: string, state: string): string {
  return `${state}.${createHmac('sha256', stateKey(secretKey)).update(state).digest('base64url')}`;
}

/** The state nonce of the signed cookie; null when there is none or its signature fails. */
function stateFromCookie(secretKey: string, cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name !== STATE_COOKIE) continue;
    const value = decodeURIComponent(rest.join('='));
    const dot = value.lastIndexOf('.');
    if (dot <= 0) return null;
    const state = value.slice(0, dot);
    const expected = Buffer.from(signState(secretKey, state));
    const given = Buffer.from(value);
    return given.length === expected.length && timingSafeEqual(given, expected) ? state : null;
  }
  return null;
}

function stateCookie(config: ShopifyConfig, value: string, maxAge: number): string {
  const secure = config.appUrl.startsWith('https:') ? '; Secure' : '';
  return `${STATE_COOKIE}=${encodeURIComponent(value)}; Max-Age=${maxAge}; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax${secure}`;
}

/** GET /auth?shop=…: sends the merchant to the shop's consent screen, with a state nonce in a signed cookie. */
async function beginInstall(request: FastifyRequest, reply: FastifyReply) {
  const { services } = request.server;
  const config = services.config.shopify;
  if (!config) return sendError(request, reply, new AppError('NOT_FOUND'));
  const shop = sanitizeShop((request.query as Record<string, unknown>).shop);
  if (!shop) return plainPage(request, reply, 400, 'embed.errors.invalidShop');
  const state = randomToken();
  const authorize = new URL(shopUrl(config, shop, '/admin/oauth/authorize'));
  authorize.searchParams.set('client_id', config.apiKey);
  authorize.searchParams.set('scope', config.scopes.join(','));
  authorize.searchParams.set('redirect_uri', `${config.appUrl}${CALLBACK_PATH}`);
  authorize.searchParams.set('state', state);
  return reply
    .header('set-cookie', stateCookie(config, signState(services.config.secretKey, state), STATE_TTL_S))
    .header('cache-control', 'no-store')
    .redirect(authorize.toString(), 302);
}

/** GET /auth/callback: every check, then the code for the offline token, then the shop becomes an application. */
async function completeInstall(request: FastifyRequest, reply: FastifyReply) {
  const { services } = request.server;
  const config = services.config.shopify;
  if (!config) return sendError(request, reply, new AppError('NOT_FOUND'));
  const query = oauthQuery(request.url);
  const shop = sanitizeShop(query.shop);
  if (!shop) return plainPage(request, reply, 400, 'embed.errors.invalidShop');
  if (!isAuthenticCallback(config.apiSecret, query)) return plainPage(request, reply, 400, 'embed.errors.invalidHmac');
  const timestamp = Number(query.timestamp);
  const now = services.clock().getTime() / 1000;
  if (!Number.isFinite(timestamp) || Math.abs(now - timestamp) > OAUTH_TIMESTAMP_TOLERANCE_S) {
    return plainPage(request, reply, 400, 'embed.errors.staleRequest');
  }
  const cookieState = stateFromCookie(services.config.secretKey, request.headers.cookie);
  if (!query.state || !cookieState || cookieState !== query.state) return plainPage(request, reply, 400, 'embed.errors.invalidState');
  if (!query.code) return plainPage(request, reply, 400, 'embed.errors.invalidHmac');
  reply.header('set-cookie', stateCookie(config, '', 0));

  let row;
  try {
    const grant = await exchangeCode(config, shop, query.code);
    const details = await readShopDetails(config, shop, grant.accessToken);
    row = await installShop(services, shop, grant, details);
  } catch (error) {
    if (error instanceof PlatformRefused) {
      request.log.warn({ shop, err: error }, 'OAuth code refused');
      return plainPage(request, reply, 400, 'embed.errors.codeRefused');
    }
    request.log.error({ shop, err: error }, 'install failed');
    return plainPage(request, reply, 502, 'embed.errors.platformUnreachable');
  }
  request.log.info({ shop, application_id: row.application_id }, 'shop installed through OAuth');
  const target = embeddedAdminUrl(config, query.host, shop) ?? shopUrl(config, shop, `/admin/apps/${encodeURIComponent(config.apiKey)}`);
  return reply.header('cache-control', 'no-store').redirect(target, 302);
}

/** GET /auth and GET /auth/callback. */
export async function oauthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/auth', { schema: { hide: true } }, beginInstall);
  app.get(CALLBACK_PATH, { schema: { hide: true } }, completeInstall);
}
