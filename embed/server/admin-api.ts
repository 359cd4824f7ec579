import type { ShopifyConfig } from '../../server/config';
import { shopUrl } from './shop-domain';
import { isUtcOffset } from '../../shared/validation';
import { isPhoneCountry } from '../../shared/validation/phone-countries';

/*
 * The calls this app makes to the shop platform: the OAuth code exchange, the token exchange of a session
 * token for an offline token (managed install), and the Admin GraphQL API. Every call has a deadline.
 */

const EXCHANGE_TIMEOUT_MS = 10_000;
const GRAPHQL_TIMEOUT_MS = 10_000;

/** The platform answered, and said no (a 4xx): the code, session token or access token is not accepted. */
export class PlatformRefused extends Error {
  constructor(readonly status: number, detail: string) {
    super(`shop platform refused (${status}): ${detail.slice(0, 300)}`);
    this.name = 'PlatformRefused';
  }
}

/** The offline token the platform granted, and its scopes. */
export interface AccessGrant {
  accessToken: string;
  scopes: string[];
}

async function post(url: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
    redirect: 'error',
  });
  const text = await response.text();
  if (response.status >= 400 && response.status < 500) throw new PlatformRefused(response.status, text);
  if (!response.ok) throw new Error(`shop platform answered ${response.status} at ${new URL(url).pathname}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`shop platform answered non-JSON at ${new URL(url).pathname}`);
  }
}

function toGrant(answer: unknown): AccessGrant {
  const record = answer as { access_token?: unknown; scope?: unknown } | null;
  if (!record || typeof record.access_token !== 'string' || record.access_token === '') {
    throw new Error('shop platform granted no access token');
  }
  const scope = typeof record.scope === 'string' ? record.scope : '';
  return { accessToken: record.access_token, scopes: scope.split(',').map((s) => s.trim()).filter(Boolean) };
}

/** OAuth: trades the authorization code of the callback for the shop's offline token. */
export async function exchangeCode(config: ShopifyConfig, shop: string, code: string): Promise<AccessGrant> {
  const answer = await post(
    shopUrl(config, shop, '/admin/oauth/access_token'),
    { client_id: config.apiKey, client_secret: config.apiSecret, code },
    {},
    EXCHANGE_TIMEOUT_MS,
  );
  return toGrant(answer);
}

/** Managed install: trades a valid session token for the shop's offline token (RFC 8693 token exchange). */
export async function exchangeSessionToken(config: ShopifyConfig, shop: string, sessionToken: string): Promise<AccessGrant> {
  const answer = await post(
    shopUrl(config, shop, '/admin/oauth/access_token'),
    {
      client_id: config.apiKey,
      client_secret: config.apiSecret,
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: sessionToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: 'urn:shopify:params:oauth:token-type:offline-access-token',
    },
    {},
    EXCHANGE_TIMEOUT_MS,
  );
  return toGrant(answer);
}

/** One Admin GraphQL query with the shop's offline token; GraphQL errors become an Error. */
export async function adminGraphql<T>(
  config: ShopifyConfig,
  shop: string,
  accessToken: string,
  query: string,
  variables: Record<string, unknown> = {},
  timeoutMs = GRAPHQL_TIMEOUT_MS,
): Promise<T> {
  const answer = (await post(
    shopUrl(config, shop, `/admin/api/${config.apiVersion}/graphql.json`),
    { query, variables },
    { 'x-shopify-access-token': accessToken },
    timeoutMs,
  )) as { data?: T; errors?: unknown };
  if (answer.errors || !answer.data) throw new Error(`Admin API error: ${JSON.stringify(answer.errors ?? 'no data').slice(0, 300)}`);
  return answer.data;
}

/** What the app keeps of the shop itself. */
export interface ShopDetails {
  name: string;
  email: string | null;
  /** The shop's timezone as a UtcOffset, when it is one (its application's timezone when created). */
  utcOffset: number | null;
  /** The shop's country, when its numbering plan is known (its application's country for phone numbers when created). */
  phoneCountry: string | null;
}

/**
 * The shop's name, contact email, timezone and country (no scope needed). The country is its address's
 * (Shop.billingAddress, which API version 2026-01 renames shopAddress and keeps until a later version).
 */
export async function readShopDetails(config: ShopifyConfig, shop: string, accessToken: string): Promise<ShopDetails> {
  const data = await adminGraphql<{
    shop: {
      name?: string | null;
      email?: string | null;
      myshopifyDomain?: string;
      timezoneOffsetMinutes?: number | null;
      billingAddress?: { countryCodeV2?: string | null } | null;
    };
  }>(config, shop, accessToken, 'query ShopDetails { shop { name email myshopifyDomain timezoneOffsetMinutes billingAddress { countryCodeV2 } } }');
  const offset = data.shop.timezoneOffsetMinutes;
  const country = data.shop.billingAddress?.countryCodeV2;
  return {
    name: data.shop.name?.trim() || shop,
    email: data.shop.email?.trim() || null,
    utcOffset: typeof offset === 'number' && isUtcOffset(offset) ? offset : null,
    phoneCountry: typeof country === 'string' && isPhoneCountry(country) ? country : null,
  };
}
