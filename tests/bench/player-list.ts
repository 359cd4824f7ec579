import { BENCH_APPLICATION, BENCH_PLAYERS, measure, startBenchServer } from './segment-seed';

/**
 * Issue 5 "Speed": the player list's first page (GET /player, last seen first, with its exact total) at a
 * million players, p95 ≤ 100 ms server time on SQLite and PostgreSQL. A filtered page and the other sorts are
 * printed too, without a target. Run alone with `npx tsx tests/bench/player-list.ts`.
 */
export const PLAYER_LIST_TARGET_MS = 100;

export async function benchPlayerList(): Promise<boolean> {
  let ok = true;
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const server = await startBenchServer(dialect);
    if (!server) {
      console.log(`  ${dialect}: skipped, no PostgreSQL answers on 127.0.0.1 (set BENCH_DATABASE_URL)`);
      continue;
    }
    try {
      const page = (query: string) => async () => {
        const response = await server.app.inject({ method: 'GET', url: `/api/application/${BENCH_APPLICATION}/player${query}`, headers: { 'x-token': server.token } });
        if (response.statusCode !== 200) throw new Error(`player list answered ${response.statusCode}: ${response.body}`);
      };
      const label = `${dialect}, first page of ${BENCH_PLAYERS.toLocaleString('en')} players`;
      // Not `ok &&= …`: a miss on SQLite would skip measuring PostgreSQL.
      ok = (await measure(label, PLAYER_LIST_TARGET_MS, page(''))) && ok;
      // Informative only: what a filter or another sort costs.
      for (const query of ['?country=VN&subscribed=true', '?tag=vip', '?sort=page_views']) {
        await measure(`${dialect}, ${query}`, null, page(query), { warmup: 1, runs: 10, maxMs: 20_000 });
      }
    } finally {
      await server.close();
    }
  }
  return ok;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchPlayerList().then((ok) => process.exit(ok ? 0 : 1));
}
