/**
 * `npm run bench`: every benchmark, each printing its figures beside the target it must reach. Exits 1 when
 * one misses its target. Benchmarks send traffic only to 127.0.0.1 and are bounded in count and time.
 */
import { benchWidgetSizes } from './widget-sizes';

const benches: { name: string; run: () => Promise<boolean> }[] = [
  { name: 'storefront bundle sizes (gzipped, against their budgets)', run: benchWidgetSizes },
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
