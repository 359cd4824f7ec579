import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDK_BUDGETS, buildSdk, printSdkSizes } from '../../storefront-widgets/budgets';

/**
 * Builds the storefront widgets into a temporary folder and prints each output's gzipped size beside its
 * budget. Exits 1 when one is over. Run alone with `npx tsx tests/bench/widget-sizes.ts`.
 */
export async function benchWidgetSizes(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'nudge-sdk-sizes-'));
  try {
    await buildSdk(dir);
    return printSdkSizes(dir).every((size) => size.gzip <= SDK_BUDGETS[size.name]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchWidgetSizes().then((ok) => process.exit(ok ? 0 : 1));
}
