import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers';

/** The storefront scripts at /sdk/*: what a shop's page loads from its script tag. */

describe('with a built storefront in SDK_DIR', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-sdk-'));
    mkdirSync(join(dir, 'chunks'));
    writeFileSync(join(dir, 'nudge.js'), '(function(){window.nudge=window.nudge||function(){};})();');
    writeFileSync(join(dir, 'chunks', 'spin-B2x9kQ1a.js'), 'export const mount = () => () => {};');
    // The console beside it, as in production: each keeps to its own paths.
    mkdirSync(join(dir, 'console'));
    writeFileSync(join(dir, 'console', 'index.html'), '<!doctype html><div id="root"></div>');
    server = await startServer({ env: { SDK_DIR: dir, STATIC_DIR: join(dir, 'console') } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers });

  it('serves the loader as JavaScript to any origin, cached for five minutes', async () => {
    const answer = await get('/sdk/nudge.js', { origin: 'https://shop.example.net' });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('window.nudge');
    expect(answer.headers['content-type']).toMatch(/^(application|text)\/javascript; charset=utf-8$/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['cache-control']).toBe('public, max-age=300');
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });

  it('serves hashed chunks for a year, immutable', async () => {
    const answer = await get('/sdk/chunks/spin-B2x9kQ1a.js');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^(application|text)\/javascript; charset=utf-8$/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers 304 to a browser revalidating the loader', async () => {
    const first = await get('/sdk/nudge.js');
    const again = await get('/sdk/nudge.js', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
  });

  it('answers 404 for a chunk that is not there (an old name after a release), never the console’s page', async () => {
    const answer = await get('/sdk/chunks/spin-0ld0ld0ld.js');
    expect(answer.statusCode).toBe(404);
    expect(answer.body).not.toContain('<div id="root">');
  });

  it('leaves the console’s pages to the console', async () => {
    const page = await get('/application/shop/banner');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<div id="root">');
  });
});

describe('without a storefront build', () => {
  let server: TestServer;
  let consoleDir: string;
  beforeAll(async () => {
    // A built console must not answer /sdk/* with its page either.
    consoleDir = mkdtempSync(join(tmpdir(), 'nudge-console-'));
    writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><div id="root"></div>');
    server = await startServer({ env: { SDK_DIR: join(consoleDir, 'no-sdk-here'), STATIC_DIR: consoleDir } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  it('answers 404 for /sdk/*', async () => {
    for (const url of ['/sdk/nudge.js', '/sdk/', '/sdk/chunks/spin-B2x9kQ1a.js']) {
      const answer = await server.app.inject({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.body).not.toContain('<div id="root">');
    }
  });
});
