// Builds every browser output of Nudge. Each output is one config object in the exported array, so later
// issues add theirs (the embedded admin entry, the storefront widgets, the service worker) beside `admin`.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import replace from '@rollup/plugin-replace';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';
import { sdkConfigs } from './storefront-widgets/rollup.config.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const require = (specifier) => fileURLToPath(import.meta.resolve(specifier));

/** Where the server mounts a console's files; absolute so deep links (/application/x/permission) load them. */
const PUBLIC_PATH = '/';

/** The plugins every browser output shares: TypeScript, browser resolution, CommonJS (React), JSON, production. */
function browserPlugins({ tsconfig }) {
  return [
    // First, so that React's `process.env.NODE_ENV` branches are constant before CommonJS and tree-shaking see them.
    replace({ preventAssignment: true, values: { 'process.env.NODE_ENV': JSON.stringify('production') } }),
    nodeResolve({ browser: true, extensions: ['.mjs', '.js', '.json', '.ts', '.tsx'] }),
    commonjs(),
    json({ preferConst: true }),
    typescript({ tsconfig, noEmitOnError: true, outputToFilesystem: false }),
    terser({ format: { comments: false } }),
  ];
}

/** Empties an output folder before a build so stale hashed files never pile up or get served. */
function cleanDir(dir) {
  return {
    name: 'nudge-clean-dir',
    buildStart() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function hashed({ file, name }) {
  const source = readFileSync(file);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 8);
  const ext = extname(file);
  return { source, fileName: `assets/${name ?? basename(file, ext)}-${hash}${ext}` };
}

/**
 * Copies stylesheets in with hashed names and writes index.html around the entry chunk: the language
 * attribute, the viewport meta, the stylesheet links and a modulepreload per chunk the entry imports.
 * `headStart` are lines that must open <head> (the embedded admin's App Bridge tags); `publicPath` is where
 * the server mounts the output's folder.
 */
/**
 * The tab's icon: the Nudge mark (the bell on the brand's gradient, as .nudge-brand-mark draws it), inline, so the
 * page needs no request for it; without one every page load asked for /favicon.ico and logged a 404.
 */
const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 28 28"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#2c6ecb"/><stop offset="1" stop-color="#5c2ec5"/></linearGradient></defs><rect width="28" height="28" rx="6" fill="url(#g)"/><path transform="translate(4 4)" fill="#fff" d="M10 2a5.5 5.5 0 0 0-5.5 5.5v2.7L3.2 12.8A1 1 0 0 0 4.1 14.3h11.8a1 1 0 0 0 .9-1.5l-1.3-2.6V7.5A5.5 5.5 0 0 0 10 2Zm-2.4 13.5a2.5 2.5 0 0 0 4.8 0H7.6Z"/></svg>',
)}`;

function htmlPage({ title, lang, stylesheets, themeColor, headStart = [], publicPath = PUBLIC_PATH }) {
  return {
    name: 'nudge-html-page',
    generateBundle(_options, bundle) {
      const links = stylesheets.map((sheet) => {
        const { source, fileName } = hashed(sheet);
        this.emitFile({ type: 'asset', fileName, source });
        return `<link rel="stylesheet" href="${publicPath}${fileName}">`;
      });
      const entry = Object.values(bundle).find((chunk) => chunk.type === 'chunk' && chunk.isEntry);
      if (!entry) this.error('no entry chunk to put in index.html');
      const preloads = entry.imports.map((file) => `<link rel="modulepreload" href="${publicPath}${file}">`);
      const html = [
        '<!doctype html>',
        `<html lang="${lang}">`,
        '<head>',
        ...headStart,
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        `<meta name="theme-color" content="${themeColor}">`,
        `<title>${title}</title>`,
        `<link rel="icon" type="image/svg+xml" href="${FAVICON}">`,
        ...links,
        ...preloads,
        `<script type="module" src="${publicPath}${entry.fileName}"></script>`,
        '</head>',
        '<body>',
        '<div id="root"></div>',
        '<noscript>Nudge needs JavaScript. / Nudge cần JavaScript.</noscript>',
        '</body>',
        '</html>',
        '',
      ].join('\n');
      this.emitFile({ type: 'asset', fileName: 'index.html', source: html });
    },
  };
}

/**
 * Warnings about code we don't own (Polaris' `'use client'` directives, zod's comment placement and its
 * internal import cycle) say nothing we can act on; ours still show.
 */
function quietAboutDependencies(warning, warn) {
  const inDependency = (id) => typeof id === 'string' && id.includes('node_modules');
  if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
  if (warning.code === 'INVALID_ANNOTATION' && inDependency(warning.id)) return;
  if (warning.code === 'CIRCULAR_DEPENDENCY' && (warning.ids ?? []).every(inDependency)) return;
  warn(warning);
}

/**
 * The consoles' packages in one vendor chunk: React, Polaris and the app shell load together anyway, and a console
 * release then reuses the browser's cached copy. The numbering plans of libphonenumber-js (115 KB) stay with the one
 * screen that reads numbers, the contact buttons' (shared/validation/phone.ts), instead of loading with every page.
 */
function vendorChunk(id) {
  if (id.includes('/node_modules/') && !id.includes('/node_modules/libphonenumber-js/')) return 'vendor';
  return undefined;
}

/** The hosted console: dist/admin, one entry chunk and one lazily loaded chunk per screen. */
function adminConfig() {
  const outDir = join(root, 'dist/admin');
  return {
    input: { main: join(root, 'admin/app/main.tsx') },
    output: {
      dir: outDir,
      format: 'es',
      entryFileNames: 'assets/[name]-[hash].js',
      chunkFileNames: 'assets/[name]-[hash].js',
      assetFileNames: 'assets/[name]-[hash][extname]',
      manualChunks: vendorChunk,
    },
    plugins: [
      cleanDir(outDir),
      ...browserPlugins({ tsconfig: join(root, 'admin/tsconfig.json') }),
      htmlPage({
        title: 'Nudge',
        // The console picks vi or en at start (spec §1); the page starts in the default one.
        lang: 'vi',
        themeColor: '#1a1a1a',
        stylesheets: [
          { file: require('@shopify/polaris/build/esm/styles.css'), name: 'polaris' },
          { file: join(root, 'admin/app/layout/shell.css'), name: 'shell' },
        ],
      }),
    ],
    onwarn: quietAboutDependencies,
  };
}

/**
 * The embedded admin (issue 4): dist/embed, served at /embed/assets by the server, whose /shopify-banner and
 * /shopify-maxlead pages are this index.html with the two placeholders filled in. The platform requires its
 * key's meta tag and its App Bridge script (classic and blocking) to come first in <head>.
 */
function embedAdminConfig() {
  const outDir = join(root, 'dist/embed');
  return {
    input: { main: join(root, 'embed/admin/main.tsx') },
    output: {
      dir: outDir,
      format: 'es',
      entryFileNames: 'assets/[name]-[hash].js',
      chunkFileNames: 'assets/[name]-[hash].js',
      assetFileNames: 'assets/[name]-[hash][extname]',
      manualChunks: vendorChunk,
    },
    plugins: [
      cleanDir(outDir),
      ...browserPlugins({ tsconfig: join(root, 'embed/admin/tsconfig.json') }),
      htmlPage({
        title: 'Nudge',
        // English inside the platform's frame (spec §1); the entry switches when the user chooses.
        lang: 'en',
        themeColor: '#1a1a1a',
        publicPath: '/embed/',
        headStart: [
          '<meta name="shopify-api-key" content="%SHOPIFY_API_KEY%">',
          '<script src="%APP_BRIDGE_URL%"></script>',
        ],
        stylesheets: [
          { file: require('@shopify/polaris/build/esm/styles.css'), name: 'polaris' },
          { file: join(root, 'admin/app/layout/shell.css'), name: 'shell' },
          { file: join(root, 'embed/admin/embed.css'), name: 'embed' },
        ],
      }),
    ],
    onwarn: quietAboutDependencies,
  };
}

// The storefront widgets (loader, chunks, preview frame) own their config: their budgets test builds with it.
export default [adminConfig(), embedAdminConfig(), ...sdkConfigs()];
