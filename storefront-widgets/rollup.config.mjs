// Builds what runs on a shop's pages into dist/sdk/:
//   nudge.js                        the loader, a classic script (no imports, no Preact); cached briefly
//   chunks/runtime-<release>.js     Preact, the Shadow DOM mount and the visitor's storage, shared by every widget
//   chunks/<type>-<release>.js      one chunk per widget type, loaded only where that widget shows
//   chunks/track-<release>.js       collection (sessions, page views, events): no Preact
//   chunks/push-<release>.js        the web push subscription kept in step, where web push is on: no Preact
//   chunks/pushbox-<release>.js     the web push subscription box, on the runtime like a widget
//   sw.js                           the service worker's code, a classic script the shop's worker file imports
//   preview.js                      the console's preview frame: every widget, drafts posted by the console
//   manifest.json                   type -> chunk file, for the server and the size budgets
// <release> is one hash of everything that goes into the chunks, so they can be cached as immutable
// (the server does so for hashed names) while the loader needs to know a single word to find them all.
// The root rollup.config.mjs imports `sdkConfigs()` and adds it to its array.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import { createRequire } from 'node:module';
import { VERSION as ROLLUP_VERSION, rollup } from 'rollup';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const root = dirname(here);

/** The widget types, each a folder under widgets/ with an index.tsx that exports `mount`. */
export const SDK_WIDGET_TYPES = ['schedule', 'banner', 'contact', 'spin', 'suggestion', 'fake_noti', 'maxlead'];
/**
 * The other chunks the loader imports by name. `track` takes its own copy of the visitor's storage rather
 * than the runtime's, which would bring Preact along.
 */
export const SDK_CHUNKS = {
  track: join(here, 'sdk', 'track.ts'),
  push: join(here, 'sdk', 'push.ts'),
  pushbox: join(here, 'pushbox', 'index.tsx'),
};

const clean = (id) => id.split('?')[0];
const inFolder = (id, folder) => !relative(folder, clean(id)).startsWith('..');
const WIDGETS_DIR = join(here, 'widgets');
const RUNTIME_FILES = ['storage.ts', 'session.ts', 'visitor.ts'].map((file) => join(here, 'sdk', file));
/**
 * Preact, widgets/core and the visitor's storage make the shared runtime chunk (one store and one visitor
 * id for every widget on the page); everything else belongs to one widget.
 */
const isRuntime = (id) =>
  !id.includes('?w=') &&
  (id.includes(`${sep}node_modules${sep}preact${sep}`) || inFolder(id, join(WIDGETS_DIR, 'core')) || RUNTIME_FILES.includes(clean(id)));

/** Which widget a module belongs to: its folder under widgets/, or the copy's `?w=` owner. */
function ownerOf(id) {
  const copy = /\?w=([a-z_]+)$/.exec(id);
  if (copy) return copy[1];
  const chunk = Object.keys(SDK_CHUNKS).find((name) => SDK_CHUNKS[name] === clean(id));
  if (chunk) return chunk;
  const rel = relative(WIDGETS_DIR, clean(id)).split(sep);
  return rel.length > 1 && SDK_WIDGET_TYPES.includes(rel[0]) ? rel[0] : null;
}

/**
 * Gives each widget its own copy of the helpers it shares with others (the dialog frame, form fields,
 * the SDK transport). Rollup never duplicates a module, so without this every helper shared by two
 * widgets would become one more small chunk to fetch; with it a page pays exactly loader + runtime + the
 * chunks of the widgets it shows, which is what the budgets promise.
 */
function perWidgetCopies() {
  return {
    name: 'nudge-per-widget-copies',
    async resolveId(source, importer, options) {
      const owner = importer && ownerOf(importer);
      if (!owner) return null;
      const resolved = await this.resolve(source, clean(importer), { ...options, skipSelf: true });
      const shared = isRuntime(resolved?.id ?? '') && owner !== 'track';
      if (!resolved || resolved.external || shared || resolved.id.includes(`${sep}node_modules${sep}`)) return resolved;
      if (ownerOf(resolved.id) === owner) return resolved;
      return { id: `${resolved.id}?w=${owner}` };
    },
    load(id) {
      return id.includes('?w=') ? readFileSync(clean(id), 'utf8') : null;
    },
  };
}

/**
 * TypeScript to JavaScript, file by file. Type checking is `npm run typecheck`'s job; transpiling alone
 * keeps this build (and the budget test that runs it) to a couple of seconds.
 */
function transpile() {
  return {
    name: 'nudge-transpile',
    transform(code, id) {
      const file = clean(id);
      if (!/\.tsx?$/.test(file)) return null;
      const { outputText } = ts.transpileModule(code, {
        fileName: file,
        compilerOptions: {
          target: ts.ScriptTarget.ES2020,
          module: ts.ModuleKind.ESNext,
          jsx: ts.JsxEmit.ReactJSX,
          jsxImportSource: 'preact',
          isolatedModules: true,
          sourceMap: false,
        },
      });
      return { code: outputText, map: null };
    },
  };
}

/** Browsers that run the widgets have ES2020 (dynamic import needs it anyway); no getter of ours has side effects. */
const TERSER = { ecma: 2020, compress: { passes: 3, pure_getters: true }, format: { comments: false } };

const resolve = () => nodeResolve({ browser: true, extensions: ['.ts', '.tsx', '.mjs', '.js'] });

/** Puts the release hash in the loader in place of `__NUDGE_RELEASE__` (after transpiling, so not into its `declare`). */
function releaseInLoader(release) {
  return {
    name: 'nudge-release-in-loader',
    transform(code) {
      return code.includes('__NUDGE_RELEASE__') ? code.replaceAll('__NUDGE_RELEASE__', JSON.stringify(release)) : null;
    },
  };
}

/** Builds the loader as a classic script that loads chunks/<name>-<release>.js (relative to itself). */
async function buildLoader(release) {
  const bundle = await rollup({
    input: join(here, 'loader.ts'),
    plugins: [transpile(), releaseInLoader(release), resolve(), terser(TERSER)],
    onwarn(warning, warn) {
      warn(warning);
    },
  });
  const { output } = await bundle.generate({ format: 'iife', strict: false });
  await bundle.close();
  const [chunk] = output;
  // Parsed as a classic script, as the shop's page will: a static import or export would be a syntax error there.
  new Script(chunk.code, { filename: 'nudge.js' });
  return chunk.code;
}

/** Builds sw.js, the service worker's code: a classic script, as importScripts() wants. */
async function buildServiceWorker() {
  const bundle = await rollup({ input: join(here, 'sw.ts'), plugins: [transpile(), resolve(), terser(TERSER)] });
  const { output } = await bundle.generate({ format: 'iife', name: 'nudgeServiceWorker', strict: false });
  await bundle.close();
  new Script(output[0].code, { filename: 'sw.js' });
  return output[0].code;
}

/**
 * One hash for the whole set of chunks, from every module's transformed code and the versions of the tools
 * that turn it into output: the same sources always give the same names, any change gives new ones.
 * Computed when output starts, before the chunks are named.
 */
function releaseHash() {
  const plugin = {
    name: 'nudge-release-hash',
    value: '',
    renderStart() {
      const hash = createHash('sha256').update(JSON.stringify([ROLLUP_VERSION, require('terser/package.json').version, TERSER]));
      for (const id of [...this.getModuleIds()].sort()) hash.update(relative(root, id)).update(this.getModuleInfo(id)?.code ?? '');
      // Base 36: ten characters with a letter and a digit, as the server's "hashed file" rule wants.
      plugin.value = BigInt(`0x${hash.digest('hex')}`).toString(36).slice(0, 10);
    },
  };
  return plugin;
}

/**
 * Writes the loader (which needs only the release hash) and the manifest once the chunks are rendered.
 * Refuses a build in which a module ended up in a chunk of its own (shared between widgets outside the runtime).
 */
function loaderAndManifest(release) {
  return {
    name: 'nudge-loader',
    async generateBundle(_options, bundle) {
      const manifest = { loader: 'nudge.js', release: release.value };
      for (const file of Object.values(bundle)) {
        if (file.type !== 'chunk') continue;
        const known = file.isEntry ? SDK_WIDGET_TYPES.includes(file.name) || file.name in SDK_CHUNKS || file.name === 'preview' : file.name === 'runtime';
        if (!known) this.error(`unexpected shared chunk ${file.fileName} (${Object.keys(file.modules).join(', ')})`);
        manifest[file.name] = file.fileName;
      }
      this.emitFile({ type: 'asset', fileName: 'nudge.js', source: await buildLoader(release.value) });
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: await buildServiceWorker() });
      manifest.sw = 'sw.js';
      this.emitFile({ type: 'asset', fileName: 'manifest.json', source: `${JSON.stringify(manifest, null, 2)}\n` });
    },
  };
}

/** The rollup options that build dist/sdk (or `outDir`), the loader included. */
export function sdkConfig({ outDir = join(root, 'dist/sdk') } = {}) {
  const release = releaseHash();
  // The console's frame asks for /sdk/preview.js by name; everything else is named after the release.
  const name = (chunk) => (chunk.name === 'preview' ? 'preview.js' : `chunks/${chunk.name}-${release.value}.js`);
  return {
    input: {
      ...Object.fromEntries(SDK_WIDGET_TYPES.map((type) => [type, join(WIDGETS_DIR, type, 'index.tsx')])),
      ...SDK_CHUNKS,
      preview: join(here, 'preview-frame.ts'),
    },
    preserveEntrySignatures: 'exports-only',
    output: {
      dir: outDir,
      format: 'es',
      entryFileNames: name,
      chunkFileNames: name,
      manualChunks: (id) => (isRuntime(id) ? 'runtime' : undefined),
    },
    plugins: [
      {
        name: 'nudge-clean-dir',
        buildStart() {
          rmSync(outDir, { recursive: true, force: true });
        },
      },
      release,
      perWidgetCopies(),
      transpile(),
      resolve(),
      terser({ ...TERSER, module: true }),
      loaderAndManifest(release),
    ],
  };
}

/** All of dist/sdk, as an array for the root rollup.config.mjs to spread into its own. */
export function sdkConfigs(options) {
  return [sdkConfig(options)];
}

export default sdkConfigs();
