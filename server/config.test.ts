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
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/nudge' });
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
});
