import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | {
      kind: 'postgres';
      url: string;
      /**
       * Ingestion's commits wait for PostgreSQL's WAL flush (PG_INGEST_SYNCHRONOUS_COMMIT=on) or not (off, the
       * default): see `ingestionDb` in server/db/index.ts.
       */
      ingestSynchronousCommit: boolean;
    };

/** The server's configuration, read from the environment once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  /** Kept for the scale mode's queue (BullMQ); nothing uses it in this slice. */
  redisUrl: string | null;
  /** smtp://host:port; when unset, mail goes to the `mail_outbox` table and the log. */
  smtpUrl: string | null;
  mailFrom: string;
  /** Base of every link the server emails (verification, reset, invitation). */
  publicUrl: string;
  /** Keys the HMAC of one-time codes; later also the encryption of secrets at rest. */
  secretKey: string;
  logLevel: LogLevel;
  trustProxy: boolean | number | string;
  /** The integration guide; the console shows its link only when this is set. */
  guideUrl: string | null;
  staticDir: string;
  /** The built storefront scripts (loader and widget chunks), served at /sdk/*. */
  sdkDir: string;
  /** The global, generous per-IP limit of @fastify/rate-limit. */
  rateLimit: { max: number; windowMs: number };
  /** The built embedded console (index.html template and hashed assets), served at /shopify-* and /embed/assets. */
  embedDir: string;
  /** The shop platform (Shopify) app; null, and every embedding route answers 404, without key and secret. */
  shopify: ShopifyConfig | null;
  /** Where the delivery engine and the platform checks reach each provider (tests: the local fakes). */
  providers: ProvidersConfig;
  /** Outbound webhooks and their SSRF guard. */
  webhooks: WebhooksConfig;
}

/** Every provider host is configuration; the defaults are the real services. */
export interface ProvidersConfig {
  /** FCM HTTP v1 (FCM_BASE_URL). */
  fcmBaseUrl: string;
  /** Google's OAuth token endpoint for service accounts (GOOGLE_TOKEN_URL); overrides the key file's token_uri. */
  googleTokenUrl: string | null;
  /** APNs hosts as `host:port` (APNS_PRODUCTION_HOST, APNS_DEVELOPMENT_HOST). */
  apnsProductionHost: string;
  apnsDevelopmentHost: string;
  /** The SMS provider's HTTP API (SMS_BASE_URL). */
  smsBaseUrl: string;
  /** The Graph API: Messenger Send API and the page check (GRAPH_BASE_URL). */
  graphBaseUrl: string;
  /** Extra CA certificates (PEM file, PROVIDER_CA_FILE) trusted for provider and push-service TLS (tests). */
  caFile: string | null;
  /** VAPID `sub` claim: a mailto: or https: contact for the push services (VAPID_SUBJECT). */
  vapidSubject: string;
}

export interface WebhooksConfig {
  /**
   * Hosts or IPs (exact, or CIDR for IPs) that outbound webhooks may reach although private, loopback or
   * link-local (WEBHOOK_ALLOWED_HOSTS, comma-separated): for tests and on-premises receivers. Empty: none.
   */
  allowedHosts: string[];
}

/** The shop-platform app's credentials and the platform's hosts (every host is configuration, for tests). */
export interface ShopifyConfig {
  apiKey: string;
  apiSecret: string;
  /** Access scopes asked for at install. */
  scopes: string[];
  /** Where the platform reaches this app (OAuth redirect, bounce reloads); no trailing slash. */
  appUrl: string;
  /** The Admin API version in `/admin/api/<version>/graphql.json`. */
  apiVersion: string;
  /** The base of a shop's own URLs with a `{shop}` placeholder: `https://{shop}` in production. */
  shopBaseUrl: string;
  /** The platform's unified admin, allowed to frame the embedded pages. */
  adminUrl: string;
  /** The App Bridge script every embedded page loads first. */
  appBridgeUrl: string;
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function text(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function integer(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  const raw = text(value);
  if (raw === null) return fallback;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return parsed;
}

function trustProxy(value: string | undefined): boolean | number | string {
  const raw = text(value);
  if (raw === null || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  // A comma-separated list of addresses or CIDR ranges, as Fastify takes it.
  return raw;
}

/**
 * The key kept in DATA_DIR/secret.key: generated on the first start so the embedded mode needs no set-up,
 * then reused so codes and encrypted secrets survive restarts.
 */
function secretKey(dataDir: string, explicit: string | null): string {
  if (explicit) return explicit;
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored) return stored;
  }
  mkdirSync(dataDir, { recursive: true });
  const generated = randomBytes(32).toString('base64url');
  writeFileSync(file, `${generated}\n`, { mode: 0o600, flag: 'w' });
  chmodSync(file, 0o600);
  return generated;
}

function absoluteUrl(name: string, value: string): string {
  try {
    new URL(value.replace('{shop}', 'shop.myshopify.com'));
  } catch {
    throw new Error(`${name} must be an absolute URL, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

/** The shop-platform settings; embedding stays off unless both the API key and its secret are set. */
function shopifyConfig(env: NodeJS.ProcessEnv, publicUrl: string): ShopifyConfig | null {
  const apiKey = text(env.SHOPIFY_API_KEY);
  const apiSecret = text(env.SHOPIFY_API_SECRET);
  if (!apiKey || !apiSecret) return null;
  const apiVersion = text(env.SHOPIFY_API_VERSION) ?? '2025-10';
  if (!/^\d{4}-\d{2}$|^unstable$/.test(apiVersion)) throw new Error(`SHOPIFY_API_VERSION must look like 2025-10, got "${apiVersion}"`);
  const shopBaseUrl = absoluteUrl('SHOPIFY_SHOP_BASE_URL', text(env.SHOPIFY_SHOP_BASE_URL) ?? 'https://{shop}');
  if (!shopBaseUrl.includes('{shop}')) throw new Error('SHOPIFY_SHOP_BASE_URL must contain {shop}');
  return {
    apiKey,
    apiSecret,
    // read_orders: the recent orders behind the fake-buyer notices' "real orders" source.
    scopes: (text(env.SHOPIFY_SCOPES) ?? 'read_orders')
      .split(',')
      .map((scope) => scope.trim())
      .filter(Boolean),
    appUrl: absoluteUrl('SHOPIFY_APP_URL', text(env.SHOPIFY_APP_URL) ?? publicUrl),
    apiVersion,
    shopBaseUrl,
    adminUrl: absoluteUrl('SHOPIFY_ADMIN_URL', text(env.SHOPIFY_ADMIN_URL) ?? 'https://admin.shopify.com'),
    appBridgeUrl: absoluteUrl(
      'SHOPIFY_APP_BRIDGE_URL',
      text(env.SHOPIFY_APP_BRIDGE_URL) ?? 'https://cdn.shopify.com/shopifycloud/app-bridge.js',
    ),
  };
}

/** `on` or `off` (any case); unset or empty gives the default. */
function onOff(name: string, value: string | undefined, fallback: boolean): boolean {
  const raw = text(value)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'on' || raw === 'off') return raw === 'on';
  throw new Error(`${name} must be on or off, got "${value}"`);
}

/** Reads the configuration from `env` (defaults: port 3000, SQLite under ./data). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer('PORT', env.PORT, 3000, 0, 65535);
  const dataDir = resolve(text(env.DATA_DIR) ?? './data');
  const databaseUrl = text(env.DATABASE_URL);
  const database: DatabaseConfig =
    databaseUrl && /^postgres(ql)?:\/\//i.test(databaseUrl)
      ? { kind: 'postgres', url: databaseUrl, ingestSynchronousCommit: onOff('PG_INGEST_SYNCHRONOUS_COMMIT', env.PG_INGEST_SYNCHRONOUS_COMMIT, false) }
      : { kind: 'sqlite', file: join(dataDir, 'nudge.db') };
  if (database.kind === 'sqlite') mkdirSync(dataDir, { recursive: true });

  const logLevel = (text(env.LOG_LEVEL) ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const publicUrl = (text(env.PUBLIC_URL) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new Error(`PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
  }

  return {
    port,
    host: text(env.HOST) ?? '0.0.0.0',
    dataDir,
    database,
    redisUrl: text(env.REDIS_URL),
    smtpUrl: text(env.SMTP_URL),
    mailFrom: text(env.MAIL_FROM) ?? 'Nudge <no-reply@localhost>',
    publicUrl,
    secretKey: secretKey(dataDir, text(env.SECRET_KEY)),
    logLevel,
    trustProxy: trustProxy(env.TRUST_PROXY),
    guideUrl: text(env.GUIDE_URL),
    staticDir: resolve(text(env.STATIC_DIR) ?? 'dist/admin'),
    sdkDir: resolve(text(env.SDK_DIR) ?? 'dist/sdk'),
    rateLimit: {
      max: integer('RATE_LIMIT_MAX', env.RATE_LIMIT_MAX, 1200, 1, 1_000_000),
      windowMs: 60_000,
    },
    embedDir: resolve(text(env.EMBED_DIR) ?? 'dist/embed'),
    shopify: shopifyConfig(env, publicUrl),
    providers: {
      fcmBaseUrl: absoluteUrl('FCM_BASE_URL', text(env.FCM_BASE_URL) ?? 'https://fcm.googleapis.com').replace(/\/+$/, ''),
      googleTokenUrl: text(env.GOOGLE_TOKEN_URL) ? absoluteUrl('GOOGLE_TOKEN_URL', text(env.GOOGLE_TOKEN_URL)!) : null,
      apnsProductionHost: text(env.APNS_PRODUCTION_HOST) ?? 'api.push.apple.com:443',
      apnsDevelopmentHost: text(env.APNS_DEVELOPMENT_HOST) ?? 'api.sandbox.push.apple.com:443',
      smsBaseUrl: absoluteUrl('SMS_BASE_URL', text(env.SMS_BASE_URL) ?? 'https://api.speedsms.vn/index.php').replace(/\/+$/, ''),
      graphBaseUrl: absoluteUrl('GRAPH_BASE_URL', text(env.GRAPH_BASE_URL) ?? 'https://graph.facebook.com/v21.0').replace(/\/+$/, ''),
      caFile: text(env.PROVIDER_CA_FILE),
      vapidSubject: text(env.VAPID_SUBJECT) ?? `mailto:no-reply@${new URL(publicUrl).hostname}`,
    },
    webhooks: {
      allowedHosts: (text(env.WEBHOOK_ALLOWED_HOSTS) ?? '')
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    },
  };
}
