import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { rollup, type OutputOptions } from 'rollup';
import { SDK_WIDGET_TYPES, sdkConfig } from './rollup.config.mjs';

/**
 * What each storefront file may weigh, gzipped (issue 3): the loader 1.5 KB, the shared Preact runtime
 * 5 KB, each widget's chunk 4 KB, the spin wheel's 5 KB; issue 5's collection chunk and subscription box
 * 4 KB each, the chunk that keeps the web push subscription in step (loaded beside collection where web push is
 * on) 2 KB, the service worker's script 2 KB. Counted with 1 KB = 1000 bytes, the stricter of the two
 * readings, so the promise holds whichever one a reader has in mind.
 */
export const SDK_BUDGETS: Record<string, number> = {
  loader: 1500,
  runtime: 5000,
  schedule: 4000,
  banner: 4000,
  contact: 4000,
  spin: 5000,
  suggestion: 4000,
  fake_noti: 4000,
  maxlead: 4000,
  track: 4000,
  push: 2000,
  pushbox: 4000,
  sw: 2000,
};

export interface SdkFileSize {
  /** loader, runtime, a widget type, track, push, pushbox or sw. */
  name: string;
  file: string;
  bytes: number;
  gzip: number;
  budget: number;
}

/** Builds dist/sdk into `outDir` through rollup's JS API (the same options `npm run build` uses). */
export async function buildSdk(outDir: string): Promise<void> {
  const options = sdkConfig({ outDir });
  const bundle = await rollup(options);
  try {
    await bundle.write(options.output as OutputOptions);
  } finally {
    await bundle.close();
  }
}

/** The size of every file of a built dist/sdk, from its manifest, with its budget. */
export function measureSdk(dir: string): SdkFileSize[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, string>;
  return Object.keys(SDK_BUDGETS).map((name) => {
    const file = manifest[name];
    if (!file) throw new Error(`dist/sdk has no ${name}`);
    const code = readFileSync(join(dir, file));
    return { name, file, bytes: code.length, gzip: gzipSync(code, { level: 9 }).length, budget: SDK_BUDGETS[name] };
  });
}

/** The sizes as a table for a terminal: file, raw and gzipped bytes, budget, headroom; over-budget rows marked. */
export function formatSdkSizes(sizes: SdkFileSize[]): string {
  const rows = sizes.map((s) => [
    s.name,
    s.file,
    String(s.bytes),
    String(s.gzip),
    String(s.budget),
    `${s.gzip <= s.budget ? '' : 'OVER '}${s.budget - s.gzip}`,
  ]);
  const head = ['output', 'file', 'bytes', 'gzip', 'budget', 'headroom'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const gzip = (name: string) => sizes.find((s) => s.name === name)?.gzip ?? 0;
  const heaviest = Math.max(...SDK_WIDGET_TYPES.map(gzip));
  return [
    'Storefront widgets, gzipped bytes (budgets of issue 3, 1 KB = 1000 B)',
    line(head),
    ...rows.map(line),
    `A page with one widget loads at most ${gzip('loader') + gzip('runtime') + heaviest + gzip('track') + gzip('push')} B (loader + runtime + its chunk + collection with web push).`,
  ].join('\n');
}

/** Prints the sizes of `dir`, a built dist/sdk (for `npm run bench`). */
export function printSdkSizes(dir: string): SdkFileSize[] {
  const sizes = measureSdk(dir);
  console.log(formatSdkSizes(sizes));
  return sizes;
}
