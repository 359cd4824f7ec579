import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SegmentRule } from '../../shared/contract';
import type { Dialect } from '../../server/db';
import { audienceIndexes } from '../../server/domain/audience-index';
import { countMatching } from '../../server/domain/segments';
import { collectGarbage } from './fake-process';
import { BENCH_APPLICATION, BENCH_NOW, BENCH_PLAYERS, measure, startBenchServer } from './segment-seed';

/**
 * Issue 5 "Speed": the segment editor's live count (POST /segment/count: the rule's count and the total) with
 * four conditions over a million players, on SQLite (p95 ≤ 200 ms) and PostgreSQL (p95 ≤ 50 ms), each in a
 * process of its own. Server time through app.inject, sign-in check included. Run alone with
 * `npx tsx tests/bench/segment-count.ts` (or `… segment-count.ts postgres` for one database).
 */
export const SEGMENT_COUNT_TARGETS: Record<Dialect, number> = { sqlite: 200, postgres: 50 };

/** Four conditions of four kinds: a field, a number field, an attribute, a recent event. */
export const FOUR_CONDITIONS: SegmentRule = {
  any: [
    {
      all: [
        { kind: 'field', field: 'country', op: 'eq', value: 'VN' },
        { kind: 'field', field: 'session_count', op: 'gte', value: 2 },
        { kind: 'attribute', name: 'plan', type: 'text', op: 'neq', value: 'free' },
        { kind: 'event', name: 'purchase', performed: true, within_days: 30 },
      ],
    },
  ],
};

/** Live heap and buffers after a full collection: what is really held, not what awaits the collector. */
const liveBytes = () => {
  collectGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

export async function benchSegmentCount(dialects: readonly Dialect[] = ['sqlite', 'postgres']): Promise<boolean> {
  let ok = true;
  for (const dialect of dialects) {
    const server = await startBenchServer(dialect);
    if (!server) {
      console.log(`  ${dialect}: skipped, no PostgreSQL answers on 127.0.0.1 (set BENCH_DATABASE_URL)`);
      continue;
    }
    try {
      // The live count reads the audience's in-memory copy (server/domain/audience-index.ts), built once per
      // process in the background; the first counts meanwhile go to SQL. Build it first, and say what it cost.
      const heapBefore = liveBytes();
      const t0 = performance.now();
      const index = await audienceIndexes(server.app.services).warm(BENCH_APPLICATION);
      const heapAfter = liveBytes();
      console.log(
        `  ${dialect}: in-memory audience copy of ${index?.size.toLocaleString('en')} players built in ${((performance.now() - t0) / 1000).toFixed(1)} s, about ${Math.round((heapAfter - heapBefore) / 1_048_576)} MB`,
      );
      const sqlCount = await countMatching({ ...server.app.services, clock: () => BENCH_NOW }, BENCH_APPLICATION, FOUR_CONDITIONS);
      let answer: { count: number; total: number } | undefined;
      const met = await measure(`${dialect}, 4 conditions over ${BENCH_PLAYERS.toLocaleString('en')} players`, SEGMENT_COUNT_TARGETS[dialect], async () => {
        const response = await server.app.inject({
          method: 'POST',
          url: `/api/application/${BENCH_APPLICATION}/segment/count`,
          headers: { 'x-token': server.token },
          payload: { rule: FOUR_CONDITIONS },
        });
        if (response.statusCode !== 200) throw new Error(`segment count answered ${response.statusCode}: ${response.body}`);
        answer = response.json().data;
      });
      console.log(`    (${answer?.count.toLocaleString('en')} of ${answer?.total.toLocaleString('en')} players match; SQL counts ${sqlCount.toLocaleString('en')})`);
      ok &&= met && answer?.count === sqlCount;
    } finally {
      await server.close();
    }
  }
  return ok;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv[2] as Dialect | undefined;
  if (only) {
    benchSegmentCount([only]).then((ok) => process.exit(ok ? 0 : 1));
  } else {
    // Each database in a process of its own: the audience copy's size is then its own, not net of the
    // previous one's being freed meanwhile.
    let failed = false;
    for (const dialect of ['sqlite', 'postgres']) {
      const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), dialect], { stdio: 'inherit' });
      failed ||= run.status !== 0;
    }
    process.exit(failed ? 1 : 0);
  }
}
