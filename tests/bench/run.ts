/**
 * `npm run bench`: every benchmark, each printing its figures beside the target it must reach. Exits 1 when
 * one misses its target. Benchmarks send traffic only to 127.0.0.1 and are bounded in count and time.
 */
import { benchDelivery } from './delivery';
import { benchFcmApns } from './fcm-apns';
import { benchWebPush } from './webpush';
import { benchPlayerList } from './player-list';
import { benchSegmentCount } from './segment-count';
import { benchIngest } from './ingest';
import { benchWidgetSizes } from './widget-sizes';

const benches: { name: string; run: () => Promise<boolean> }[] = [
  { name: 'storefront bundle sizes (gzipped, against their budgets)', run: benchWidgetSizes },
  { name: 'ingestion throughput: SDK batches and single events, SQLite and PostgreSQL', run: benchIngest },
  { name: 'segment live count, four conditions over 1M players: p95 ≤ 50 ms PostgreSQL, ≤ 200 ms SQLite', run: benchSegmentCount },
  { name: 'player list first page at 1M players: p95 ≤ 100 ms server time', run: benchPlayerList },
  { name: 'web push senders: ≥ 4,000 msg/s and ≥ 3× web-push, encryption included', run: benchWebPush },
  { name: 'FCM and APNs senders: ≥ 10,000 msg/s each', run: benchFcmApns },
  { name: 'delivery-100k: 100,000 web push subscribers, send → last delivery row settled ≤ 30 s', run: benchDelivery },
];

let failed = 0;
for (const bench of benches) {
  console.log(`\n## ${bench.name}`);
  const ok = await bench.run().catch((error: unknown) => {
    console.error(error);
    return false;
  });
  console.log(ok ? 'target met' : 'TARGET MISSED');
  if (!ok) failed += 1;
}
console.log(`\n${benches.length - failed} of ${benches.length} benchmarks met their targets`);
process.exit(failed ? 1 : 0);
