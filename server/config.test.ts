import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nudge-config-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('runs with no settings at all: port 3000, SQLite under DATA_DIR, mail to the outbox', () => {
    const dataDir = tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      dataDir,
      database: { kind: 'sqlite', file: join(dataDir, 'nudge.db') },
      redisUrl: null,
      smtpUrl: null,
      mailFrom: 'Nudge <no-reply@localhost>',
      publicUrl: 'http://localhost:3000',
      logLevel: 'info',
      trustProxy: false,
      guideUrl: null,
    });
    expect(config.staticDir.endsWith(join('dist', 'admin'))).toBe(true);
  });

  it('generates a secret key once, keeps it private in DATA_DIR/secret.key, and reuses it', () => {
    const dataDir = tempDir();
    const first = loadConfig({ DATA_DIR: dataDir }).secretKey;
    const file = join(dataDir, 'secret.key');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first);
    expect(first.length).toBeGreaterThanOrEqual(43);
    expect(loadConfig({ DATA_DIR: dataDir }).secretKey).toBe(first);
  });

  it('prefers SECRET_KEY when set, and writes no file', () => {
    const dataDir = tempDir();
    expect(loadConfig({ DATA_DIR: dataDir, SECRET_KEY: 'from-env' }).secretKey).toBe('from-env');
    expect(existsSync(join(dataDir, 'secret.key'))).toBe(false);
  });

  it('picks PostgreSQL for a postgres:// DATABASE_URL', () => {
    const config = loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', DATABASE_URL: 'postgres://u@db:5432/nudge' });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/nudge', ingestSynchronousCommit: false });
  });

  it('reads PG_INGEST_SYNCHRONOUS_COMMIT as on or off, off by default, and refuses anything else', () => {
    const read = (value?: string) => {
      const { database } = loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', DATABASE_URL: 'postgres://u@db/nudge', PG_INGEST_SYNCHRONOUS_COMMIT: value });
      return database.kind === 'postgres' && database.ingestSynchronousCommit;
    };
    expect(read()).toBe(false);
    expect(read('ON')).toBe(true);
    expect(read('off')).toBe(false);
    expect(() => read('yes')).toThrow(/PG_INGEST_SYNCHRONOUS_COMMIT must be on or off/);
  });

  it('derives PUBLIC_URL from PORT and strips a trailing slash from an explicit one', () => {
    expect(loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', PUBLIC_URL: 'https://push.example.com/' }).publicUrl).toBe('https://push.example.com');
  });

  it('reads TRUST_PROXY as a flag, a hop count or an address list', () => {
    const read = (value: string) => loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', TRUST_PROXY: value }).trustProxy;
    expect(read('true')).toBe(true);
    expect(read('2')).toBe(2);
    expect(read('10.0.0.0/8,127.0.0.1')).toBe('10.0.0.0/8,127.0.0.1');
  });

  it('refuses a port or log level that cannot work, naming the variable', () => {
    expect(() => loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
  });

  it('leaves shop-platform embedding off unless both SHOPIFY_API_KEY and SHOPIFY_API_SECRET are set', () => {
    expect(loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k' }).shopify).toBeNull();
    expect(loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', SHOPIFY_API_KEY: 'key' }).shopify).toBeNull();
    expect(loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', SHOPIFY_API_SECRET: 'secret' }).shopify).toBeNull();
  });

  it('points the shop platform at its real hosts by default, and the app URL at PUBLIC_URL', () => {
    const config = loadConfig({ DATA_DIR: tempDir(), SECRET_KEY: 'k', PUBLIC_URL: 'https://nudge.example.com', SHOPIFY_API_KEY: 'key', SHOPIFY_API_SECRET: 'secret' });
    expect(config.shopify).toEqual({
      apiKey: 'key',
      apiSecret: 'secret',
      scopes: ['read_orders'],
      appUrl: 'https://nudge.example.com',
      apiVersion: '2025-10',
      shopBaseUrl: 'https://{shop}',
      adminUrl: 'https://admin.shopify.com',
      appBridgeUrl: 'https://cdn.shopify.com/shopifycloud/app-bridge.js',
    });
    expect(config.embedDir.endsWith(join('dist', 'embed'))).toBe(true);
  });

  it('lets every shop-platform host and setting be configured, and refuses ones that cannot work', () => {
    const base = { DATA_DIR: tempDir(), SECRET_KEY: 'k', SHOPIFY_API_KEY: 'key', SHOPIFY_API_SECRET: 'secret' };
    const config = loadConfig({
      ...base,
      SHOPIFY_SCOPES: 'read_orders, read_products',
      SHOPIFY_APP_URL: 'https://app.example.com/',
      SHOPIFY_API_VERSION: '2025-07',
      SHOPIFY_SHOP_BASE_URL: 'http://127.0.0.1:9999/shops/{shop}',
      SHOPIFY_ADMIN_URL: 'http://127.0.0.1:9999',
      SHOPIFY_APP_BRIDGE_URL: 'http://127.0.0.1:9999/app-bridge.js',
    }).shopify;
    expect(config).toMatchObject({
      scopes: ['read_orders', 'read_products'],
      appUrl: 'https://app.example.com',
      apiVersion: '2025-07',
      shopBaseUrl: 'http://127.0.0.1:9999/shops/{shop}',
      adminUrl: 'http://127.0.0.1:9999',
      appBridgeUrl: 'http://127.0.0.1:9999/app-bridge.js',
    });
    expect(() => loadConfig({ ...base, SHOPIFY_SHOP_BASE_URL: 'http://127.0.0.1:9999/shops' })).toThrow(/SHOPIFY_SHOP_BASE_URL/);
    expect(() => loadConfig({ ...base, SHOPIFY_API_VERSION: 'latest' })).toThrow(/SHOPIFY_API_VERSION/);
    expect(() => loadConfig({ ...base, SHOPIFY_APP_URL: 'nudge' })).toThrow(/SHOPIFY_APP_URL/);
  });
});
