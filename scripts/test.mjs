#!/usr/bin/env node
// The one test command (`npm test`): every suite, then one plain closing line `N passed, N failed`.
//   1. Chromium for the browser suite: Debian's /usr/bin/chromium, and Debian's faketime, installed with apt-get
//      when missing (root).
//   2. The console build the browser suite drives (`npm run build`).
//   3. vitest: unit + components + api on SQLite, api on PostgreSQL when DATABASE_URL is set, and the scale
//      suite (BullMQ, worker processes; tests/scale) when REDIS_URL is set.
//   4. vitest: e2e (playwright-core + Chromium against the real server and the built console).
// `--only e2e` runs just the browser suite (`npm run test:e2e`); `--skip e2e` everything else.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const skip = args.includes('--skip') ? args[args.indexOf('--skip') + 1] : null;
const wants = (suite) => (only ? only === suite : skip !== suite);

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const resultsDir = join(process.cwd(), 'test-results');
mkdirSync(resultsDir, { recursive: true });

// The suites read the databases from TEST_* variables so that nothing else picks DATABASE_URL up by accident.
const env = { ...process.env };
if (env.DATABASE_URL && !env.TEST_DATABASE_URL) env.TEST_DATABASE_URL = env.DATABASE_URL;
if (env.REDIS_URL && !env.TEST_REDIS_URL) env.TEST_REDIS_URL = env.REDIS_URL;
delete env.DATABASE_URL;
delete env.REDIS_URL;

function run(command, commandArgs, options = {}) {
  console.log(`\n$ ${command} ${commandArgs.join(' ')}`);
  const result = spawnSync(command, commandArgs, { stdio: 'inherit', env, ...options });
  return result.status ?? 1;
}

/**
 * Debian's faketime command: the browser suite asks it which library it preloads and starts a server on a later day
 * with that library (tests/e2e/harness.ts faketimeLibrary).
 */
const hasFaketime = () => spawnSync('faketime', ['-f', '+0', 'true']).status === 0;

function ensureBrowserTools() {
  if (existsSync(CHROMIUM) && hasFaketime()) return true;
  if (process.getuid?.() !== 0) {
    console.error(`${CHROMIUM} or the faketime command is missing: install Debian's chromium and faketime (apt-get install -y chromium faketime) and run again.`);
    return false;
  }
  console.log('Installing Debian chromium and faketime for the browser suite…');
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', 'chromium', 'faketime'], { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  return existsSync(CHROMIUM) && hasFaketime();
}

/** Runs vitest on some projects and reads its JSON report; a crash counts as one failure. */
function vitest(label, projects, extra = []) {
  const out = join(resultsDir, `${label}.json`);
  rmSync(out, { force: true });
  const status = run('npx', [
    'vitest', 'run',
    ...projects.flatMap((p) => ['--project', p]),
    '--reporter=default', '--reporter=json', `--outputFile.json=${out}`,
    ...extra,
  ]);
  if (!existsSync(out)) return { label, passed: 0, failed: 1, skipped: 0, status };
  const report = JSON.parse(readFileSync(out, 'utf8'));
  const failed = report.numFailedTests + (report.numFailedTestSuites > 0 && report.numFailedTests === 0 ? report.numFailedTestSuites : 0);
  return {
    label,
    passed: report.numPassedTests,
    failed: failed + (status !== 0 && failed === 0 ? 1 : 0),
    skipped: report.numPendingTests + report.numTodoTests,
    status,
  };
}

const totals = [];

if (wants('main')) {
  const projects = ['unit', 'components', 'api'];
  if (env.TEST_DATABASE_URL) projects.push('api-postgres');
  else console.log('\nDATABASE_URL is not set: the API suite runs on SQLite only.');
  if (env.TEST_REDIS_URL) projects.push('scale');
  else console.log('REDIS_URL is not set: the scale suite (BullMQ on Redis) does not run.');
  totals.push(vitest('main', projects));
}

if (wants('e2e')) {
  if (!ensureBrowserTools()) {
    totals.push({ label: 'e2e', passed: 0, failed: 1, skipped: 0, status: 1 });
  } else if (run('npm', ['run', 'build']) !== 0) {
    console.error('The console build failed; the browser suite cannot run.');
    totals.push({ label: 'e2e', passed: 0, failed: 1, skipped: 0, status: 1 });
  } else {
    // One browser flow at a time: they share the machine's two cores with a server each.
    totals.push(vitest('e2e', ['e2e'], ['--no-file-parallelism']));
  }
}

console.log('');
for (const t of totals) console.log(`${t.label}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
const passed = totals.reduce((n, t) => n + t.passed, 0);
const failed = totals.reduce((n, t) => n + t.failed, 0);
const skipped = totals.reduce((n, t) => n + t.skipped, 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
