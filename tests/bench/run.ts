/**
 * `npm run bench`: every benchmark, each printing its figures beside the target it must reach. Exits 1 when
 * one misses its target. Benchmarks send traffic only to 127.0.0.1 and are bounded in count and time.
 *
 * Each benchmark runs in a process of its own, as the server and the worker do in production, so none measures
 * a heap that the ones before it filled (the 1M-player audience copy, their databases, their garbage), and one
 * that crashes does not take the rest with it. Each runs with the server's Node.js flags (serverNodeFlags), as
 * `npm start` and `npm run serve` give them to the server.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { serverNodeFlags } from './fake-process';

const benches: { name: string; file: string }[] = [
  { name: 'storefront bundle sizes (gzipped, against their budgets)', file: 'widget-sizes.ts' },
  { name: 'ingestion throughput: SDK batches and single events, SQLite and PostgreSQL', file: 'ingest.ts' },
  { name: 'segment live count, four conditions over 1M players: p95 ≤ 50 ms PostgreSQL, ≤ 200 ms SQLite', file: 'segment-count.ts' },
  { name: 'player list first page at 1M players: p95 ≤ 100 ms server time', file: 'player-list.ts' },
  { name: 'web push senders: ≥ 4,000 msg/s and ≥ 3× web-push, encryption included', file: 'webpush.ts' },
  { name: 'FCM and APNs senders: ≥ 10,000 msg/s each', file: 'fcm-apns.ts' },
  { name: 'delivery-100k: 100,000 web push subscribers, send → last delivery row settled ≤ 30 s', file: 'delivery.ts' },
];

const flags = serverNodeFlags();
let failed = 0;
for (const bench of benches) {
  console.log(`\n## ${bench.name}`);
  // Each file runs its benchmark when it is the entry point and exits 0 when every target is met.
  const run = spawnSync(process.execPath, [...flags, '--import', 'tsx', join(import.meta.dirname, bench.file)], {
    cwd: join(import.meta.dirname, '../..'),
    stdio: 'inherit',
  });
  const ok = run.status === 0;
  if (run.error) console.error(run.error);
  console.log(ok ? 'target met' : 'TARGET MISSED');
  if (!ok) failed += 1;
}
console.log(`\n${benches.length - failed} of ${benches.length} benchmarks met their targets`);
process.exit(failed ? 1 : 0);
