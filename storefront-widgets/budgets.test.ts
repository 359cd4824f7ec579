import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_BUDGETS, buildSdk, measureSdk, type SdkFileSize } from './budgets';

/** Every byte is the shop's: a fresh build of dist/sdk, measured against the budgets of issue 3. */
describe('a fresh build of the storefront widgets', () => {
  let dir: string;
  let sizes: SdkFileSize[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-sdk-budget-'));
    await buildSdk(dir);
    sizes = measureSdk(dir);
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const name of Object.keys(SDK_BUDGETS)) {
    it(`keeps ${name} within ${SDK_BUDGETS[name]} bytes gzipped`, () => {
      const size = sizes.find((s) => s.name === name)!;
      expect(size.gzip, `${size.file}: ${size.gzip} B gzipped`).toBeLessThanOrEqual(size.budget);
    });
  }

  it('makes the loader a classic script without Preact, which a page can run from a plain script tag', () => {
    const loader = readFileSync(join(dir, 'nudge.js'), 'utf8');
    expect(() => new Script(loader)).not.toThrow();
    expect(loader).not.toMatch(/preact|__k|createElement/);
    expect(loader).toContain('window.nudge');
  });

  for (const name of ['track', 'push']) {
    it(`keeps Preact out of collection: the ${name} chunk imports no other chunk`, () => {
      const code = readFileSync(join(dir, sizes.find((s) => s.name === name)!.file), 'utf8');
      expect(code).not.toMatch(/\bimport\s*[{*\w]|from\s*["']/);
      expect(code).not.toMatch(/preact|__k/);
    });
  }

  it('makes sw.js a classic script for the shop worker to importScripts(), with a stable name', () => {
    const sw = readFileSync(join(dir, 'sw.js'), 'utf8');
    expect(() => new Script(sw)).not.toThrow();
    expect(sw).toContain('pushsubscriptionchange');
  });

  it('names every chunk after the release, so a new build never reuses an old cached name', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, string>;
    for (const size of sizes.filter((s) => s.name !== 'loader' && s.name !== 'sw')) {
      expect(size.file).toBe(`chunks/${size.name}-${manifest.release}.js`);
    }
    expect(readFileSync(join(dir, 'nudge.js'), 'utf8')).toContain(manifest.release);
  });
});
