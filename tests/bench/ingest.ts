import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../server/app';
import { parseTextAsJson } from '../../server/routes/common';
import { loadConfig } from '../../server/config';
import { migrateToLatest, toCount, type Dialect } from '../../server/db';
import { ensureSeedApplication, seedAudience } from '../../scripts/seed-lib';
import { collectGarbage, cpuTimeMs, quantile, serverFlagsNote, type MachineShare } from './fake-process';

/**
 * Ingestion throughput (issue 5 "Speed"): the real server on 127.0.0.1, a load generator in a child process
 * (ingest-load.ts) posting to POST /api/sdk/track, on SQLite and then on PostgreSQL when DATABASE_URL or
 * TEST_DATABASE_URL is set (in a fresh schema, dropped after), each time beside 10,000 seeded players, each database
 * in a process of its own (benchEachDatabase). Four runs per database, ~8 s each:
 * (a) the SDK's batches of 10 events, as fast as the server answers (closed loop, 32 connections) → events/s,
 *     target ≥ 20,000;
 * (b) single-event requests, likewise (48 connections) → requests/s, target ≥ 8,000;
 * (c) both again at the target rates, 2,000 batches/s and 8,000 single requests/s, paced by the clock (open loop,
 *     latency counted from when each request was due) → p99 ≤ 25 ms at that load, every request due answered.
 *     New devices arrive evenly through the run (VISITORS, ingest-load.ts `nextVisitor`). Until 2026-11-26 every
 *     run's devices were all new in its first moments: 5,000 players created within 0.6 s, a pace of new devices
 *     (each request 245–270 µs of CPU in all on PostgreSQL, against the 250 µs that 8,000 requests/s leave on
 *     two cores) that built a queue the rest of the run then worked off, and that queue set the p99.
 *     The latency asked for is the latency at the target rate: in a closed loop the server is saturated by
 *     construction and a request's latency is only the connections' count over the throughput (printed beside
 *     (a) and (b), not judged).
 * Before the databases' runs, once: the loopback floor, (c)'s load against a route that does no ingestion
 * (loopbackFloor), to tell the machine's share of (c)'s latency from the server's. After them, not judged: (c) at
 * half its rates with PostgreSQL a millisecond away (benchRemote), where a group's round trips cost what they do
 * between two machines.
 * Then: no event lost (rows in `events` = events acknowledged with 200) and memory flat: the process's own
 * resident memory (RssAnon, after a forced GC) before and after the runs within 64 MB. Mapped pages of the
 * SQLite file are printed beside it but not judged: they grow with the database file, as the OS page cache.
 * Beside the figures: what the server process wrote per request (on SQLite the WAL and the checkpoints), and the
 * CPU each process spent per single-event request (this server, and of it the thread of its event loop with that
 * thread's share of a core; the load generator; PostgreSQL's processes when the database is on this machine),
 * against what the target rate leaves per request on this machine's cores: where the time goes when a target is
 * missed, and whether the event loop (near a whole core) or the machine (every core busy) is the limit; and for
 * the single-event runs of (b) and (c), how the machine's cores spent them (busy, stolen by the hypervisor, waiting
 * on the disk, idle), measured by the load generator over exactly its run.
 *
 * The server here runs with the flags `npm start` gives it (package.json config.server_node_flags; `npm run bench`
 * passes them, a run alone prints a note when they are missing): V8's young generation raised to 64 MB semi-spaces
 * (--max-semi-space-size=64, the default being 16). At (c)'s rates the server allocates about 200 MB/s, and with
 * 16 MB the scavenges came every ~80 ms: the objects of requests waiting for their group's write survived two of them
 * and were promoted, and the old generation filled and was compacted again and again. On PostgreSQL (two cores,
 * 2026-12-05, one machine) the event loop's GC went from 93–113 pauses and 234–270 ms per (c) run in four runs
 * without the flag to 20–27 pauses and 38–79 ms in nine with it (PostgreSQL in a process of its own, see
 * benchEachDatabase), and (c)'s p99 from 37–50 ms (batches, median 41) and 35–41 ms (single events, median 38) to
 * 15–52 ms (median 26) and 21–41 ms (median 27): better, and over 25 ms in more than half the runs. 128 MB did no
 * better (36 and 23 ms, one run). It costs 40–90 MB more resident memory. The writer thread (PostgreSQL) keeps Node's
 * default young generation (server/domain/ingest.ts WRITER_YOUNG_GENERATION_MB): with the flag it had the event
 * loop's too, and that was the process's memory growth here on PostgreSQL until 2026-12-07.
 *
 * Tried and not adopted (2026-12-06, SQLite, two cores): --single-threaded-gc, to keep
 * V8's background GC threads off the core the database and the generator share. (c)'s p99 went from 17–21 ms
 * (batches) and 24–27 ms (single events) in three runs without it to 35–38 ms and 42–46 ms in two with it: the
 * marking the helper threads did concurrently is then done inside the event loop's pauses (GC 190–214 ms per run
 * against 140–159 ms).
 *
 * The per-address ingestion limit is raised for the run: every request comes from 127.0.0.1, where real
 * traffic comes from many addresses. The global @fastify/rate-limit does not apply to ingestion at all
 * (server/routes/track.ts). Run alone with `npx tsx tests/bench/ingest.ts` (or `… ingest.ts postgres` for one database).
 */
const TARGETS = { eventsPerSecond: 20_000, requestsPerSecond: 8_000, p99Ms: 25, rssGrowthMb: 64 };
const SECONDS = Number(process.env.INGEST_BENCH_SECONDS ?? 8);
/**
 * Players (with their events) seeded before the runs. Statistics and plans are then made for tables of a
 * shop's size, as autovacuum keeps them on a real database. On an empty schema they were made for the few hundred
 * players of the warm-up, a table of a few pages, where PostgreSQL's generic plan for the players UPDATE reads
 * the whole table, and it kept reading the whole table as the run grew it to thousands of rows: 2–4 ms of every
 * group on a slow machine, a third of PostgreSQL's time. A real database re-plans after autovacuum's next
 * ANALYZE, within a minute of such growth; the runs here last seconds.
 */
const SEED_PLAYERS = 10_000;

interface LoadResult {
  requests: number;
  acknowledged: number;
  statuses: Record<string, number>;
  elapsed: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests sent (closed loop) or due at the pace (open loop). */
  due: number;
  /**
   * Open loop: the 99th percentile of how late the generator's own pace timer saw a request fall due (its event
   * loop busy, or its process waiting for one of the cores it shares with the server). Counted in the latency, as
   * it cannot be told apart from the server's share there; printed beside it to show how much of it there is.
   */
  lateP99: number;
  /** The load generator's own CPU time, ms. */
  cpuMs: number;
  /** How the machine's cores spent the run, from its first request to its last answer (null off Linux). */
  machine: MachineShare | null;
}

/**
 * Resident memory after a full GC, in MB: all of it, split into the process's own (anonymous) pages and pages of
 * mapped files, and of the anonymous pages the JavaScript objects still alive (V8's heapUsed). The judged figure is
 * RssAnon; the live objects beside it tell a leak (they grow) from a heap and allocator that keep the room a busier
 * run made for them (they do not), and the event loop's whole V8 heap (heapTotal) whether that room is V8's own.
 * On PostgreSQL (2026-12-07, two cores, the server's flags) RssAnon grew 52-122 MB in eight runs while the event
 * loop's heap stayed at 175-180 MB: the room was the writer thread's heap, whose young generation the server's flag
 * took from 64 to 128 MB under load (printed from the thread every 4 s in two runs: 100 → 204 MB). Since the thread
 * keeps Node's default young generation (server/domain/ingest.ts WRITER_YOUNG_GENERATION_MB): 334 → 320 MB.
 */
const memory = () => {
  collectGarbage();
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const usage = process.memoryUsage();
  return { rss: usage.rss / 1024 / 1024, anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024, heap: usage.heapUsed / 1024 / 1024, heapTotal: usage.heapTotal / 1024 / 1024 };
};

/**
 * Distinct visitors per run: batches come from 500 browsers (one batch every 2.5 s each at the target rate) and
 * single events from 5,000 devices (one every 0.6 s each). Each is new to the server the first time: at the target
 * rates, in (c), 500 new devices among 16,000 batches and 5,000 among 64,000 single events.
 */
const VISITORS = { batch: 500, single: 5_000 } as const;

/**
 * (c)'s runs at the target rates (batches of 10 at the events target over ten, single events at the requests
 * target), each with enough connections that the pace never waits for one while the server keeps up; the
 * loopback floor runs the same.
 */
const PACED = {
  batch: { rate: TARGETS.eventsPerSecond / 10, connections: 64 },
  single: { rate: TARGETS.requestsPerSecond, connections: 128 },
} as const;

function load(options: { port: number; key: string; mode: 'batch' | 'single'; seconds: number; connections: number; prefix: string; rate?: number }): Promise<LoadResult> {
  const script = join(import.meta.dirname, 'ingest-load.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, JSON.stringify({ ...options, visitors: VISITORS[options.mode] })],
      { cwd: join(import.meta.dirname, '../..'), maxBuffer: 16 * 1024 * 1024, timeout: (options.seconds + 60) * 1000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`load generator failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as LoadResult);
      },
    );
  });
}

async function freshSchema(base: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `nudge_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    },
  };
}


/**
 * CPU time (ms) of the machine's PostgreSQL server processes so far, read from /proc; null when the database is
 * not on this machine (or this is not Linux). The benchmark's processes share the machine's cores, so each
 * one's CPU per request says where the time goes.
 */
function localPostgresCpuMs(url: string | undefined): number | null {
  if (!url) return null;
  const parsed = new URL(url);
  // On this machine: a loopback address, or a Unix socket directory (`?host=/var/run/postgresql`).
  const local = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(parsed.hostname) || (parsed.searchParams.get('host') ?? '').startsWith('/');
  if (!local) return null;
  let ms = 0;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
        // With the ended children each one has waited for: a backend that exits during the run (a pool closing
        // its connections) moves its time into the postmaster's, where it was lost before (a negative figure).
        ms += statCpuMs(stat, true);
      } catch {
        // The process ended meanwhile.
      }
    }
  } catch {
    return null;
  }
  return ms;
}

/**
 * The CPU time (ms) in a /proc/…/stat line: utime and stime, fields 14 and 15 (12 and 13 after the name and state),
 * and with `children` cutime and cstime too (16 and 17: the children it has waited for).
 */
function statCpuMs(stat: string, children = false): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  // In USER_HZ ticks, 100 a second on every Linux this runs on.
  return (own + (children ? Number(fields[13]) + Number(fields[14]) : 0)) * 10;
}

/**
 * CPU time (ms) of this process's main thread so far, the one running the event loop (/proc/self/task/<pid>/stat);
 * null off Linux. Beside the whole process's CPU (which adds V8's helper threads, the SQLite checkpointer and the
 * PostgreSQL writer thread): whether the event loop is the limit (near a whole core) or the machine is.
 */
function eventLoopThreadCpuMs(): number | null {
  try {
    return statCpuMs(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** Starts counting a CPU time that `read` gives (ms, or null where it cannot be read): the function returned gives the ms since, or null. */
function cpuSince(read: () => number | null): () => number | null {
  const start = read();
  return () => (start === null ? null : (read() ?? start) - start);
}

/** The machine's cores over a span, as printed: busy, stolen, waiting on the disk, idle. */
function machineLine(share: MachineShare): string {
  const pct = (value: number) => `${(100 * value).toFixed(0)}%`;
  return `the machine's ${availableParallelism()} cores over the run: ${pct(share.busy)} busy, ${pct(share.steal)} stolen by the hypervisor, ${pct(share.iowait)} waiting on the disk, ${pct(share.idle)} idle`;
}

/** Starts counting the local PostgreSQL's CPU time (cpuSince). */
const postgresCpuSince = (url: string | undefined) => cpuSince(() => localPostgresCpuMs(url));
/**
 * What this process has written so far, in bytes and write calls (/proc/self/io: files and sockets, every thread);
 * null off Linux. On SQLite that is mostly the WAL and the checkpoints, and says what a request costs the disk.
 */
function writtenSoFar(): { bytes: number; calls: number } | null {
  try {
    const io = readFileSync('/proc/self/io', 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? NaN);
    return { bytes: field('wchar'), calls: field('syscw') };
  } catch {
    return null;
  }
}
const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');

/**
 * Each request's time inside the server while `withStalls` records (ms): from Fastify's first sight of it
 * (onRequest) until its answer was written (onResponse, `reply.elapsedTime`). Null when not recording.
 */
let serverTimes: number[] | null = null;

/**
 * The server process's own stalls while `run` goes: how late its event loop ran (p99 and the longest, ms), the
 * garbage collector's pauses (their total and the longest, ms), and the p99 of the requests' time inside the server
 * (serverTimes). Beside (c)'s p99: a stall of the event loop holds every request behind it, and at the target rate
 * the queue it leaves takes several times as long to drain. What (c) measures beyond the time inside the server was
 * spent before the server read the request (its event loop busy, or its process waiting for a core), on the
 * loopback, or in the load generator.
 */
async function withStalls<T>(run: () => Promise<T>): Promise<{ result: T; stalls: string }> {
  const times: number[] = [];
  serverTimes = times;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push(entry.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  loop.enable();
  try {
    const result = await run();
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    const gcTotal = pauses.reduce((sum, pause) => sum + pause, 0);
    const inServer = quantile(times.sort((a, b) => a - b), 0.99);
    return {
      result,
      stalls: `time inside the server p99 ${inServer.toFixed(1)} ms; server event loop late p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms; GC ${pauses.length} pauses, ${gcTotal.toFixed(0)} ms in all, longest ${Math.max(0, ...pauses).toFixed(1)} ms`,
    };
  } finally {
    serverTimes = null;
    loop.disable();
    observer.disconnect();
  }
}

/**
 * The real server on 127.0.0.1 (configured by `env`) beside SEED_PLAYERS players, warmed up; `close` stops it and
 * removes its data directory.
 */
async function startBenchServer(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'nudge-bench-ingest-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', SECRET_KEY: 'bench-secret', PORT: '0', HOST: '127.0.0.1', STATIC_DIR: join(dataDir, 'none'), ...env });
  const app = buildApp(config, { limits: { sdkTrackPerIp: { max: 10_000_000, windowMs: 60_000 } } });
  const close = async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await migrateToLatest({ kysely: app.services.db, dialect: app.services.dialect });
    const { clientKey } = await ensureSeedApplication(app.services.db, { applicationId: 'bench_ingest', email: 'bench-ingest@example.com', password: 'bench-password' });
    // A shop with an audience, not an empty database: the load's visitors are new players beside these.
    await seedAudience(app.services.db, app.services.dialect, { applicationId: 'bench_ingest', players: SEED_PLAYERS });
    app.addHook('onResponse', (_request, reply, done) => {
      serverTimes?.push(reply.elapsedTime);
      done();
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;

    // Warm-up: JIT, prepared paths, the key cache.
    await load({ port, key: clientKey, mode: 'batch', seconds: 1, connections: 8, prefix: 'warm' });
    // The schema is seconds old: PostgreSQL has no statistics on its tables yet, which autovacuum gathers within
    // a minute of the first writes on any real database. Ingestion's prepared statements keep the plan made at
    // their sixth run (server/db/index.ts) until statistics change, so without this they would keep a plan made
    // for tables of a few rows for the whole run.
    if (app.services.dialect === 'postgres') await sql`analyze`.execute(app.services.db);
    return { app, port, clientKey, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function benchOne(label: string, env: Record<string, string>): Promise<boolean> {
  const { app, port, clientKey, close } = await startBenchServer(env);
  try {
    const memoryBefore = memory();
    // The server's own CPU time per run: on a shared, busy machine the wall-clock figures say more about the
    // neighbours than about the server; CPU per event says what one free core would sustain.
    let cpu = process.cpuUsage();
    let database = postgresCpuSince(env.DATABASE_URL);
    const written0 = writtenSoFar();
    const batch = await load({ port, key: clientKey, mode: 'batch', seconds: SECONDS, connections: 32, prefix: 'batch' });
    const batchCpuMs = cpuTimeMs(process.cpuUsage(cpu));
    const batchDatabaseMs = database();
    const written1 = writtenSoFar();
    cpu = process.cpuUsage();
    database = postgresCpuSince(env.DATABASE_URL);
    const loop = cpuSince(eventLoopThreadCpuMs);
    const single = await load({ port, key: clientKey, mode: 'single', seconds: SECONDS, connections: 48, prefix: 'single' });
    const singleCpuMs = cpuTimeMs(process.cpuUsage(cpu));
    const singleDatabaseMs = database();
    const singleLoopMs = loop();
    const written2 = writtenSoFar();
    // At the target rates (PACED).
    const { result: batchPaced, stalls: batchStalls } = await withStalls(() => load({ port, key: clientKey, mode: 'batch', seconds: SECONDS, prefix: 'batchpaced', ...PACED.batch }));
    const { result: singlePaced, stalls: singleStalls } = await withStalls(() => load({ port, key: clientKey, mode: 'single', seconds: SECONDS, prefix: 'singlepaced', ...PACED.single }));
    const memoryAfter = memory();

    const count = async (prefix: string) =>
      toCount(
        (
          await app.services.db
            .selectFrom('events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('client_event_id', 'like', `${prefix}-%`)
            .executeTakeFirst()
        )?.n,
      );
    const storedBatch = await count('batch');
    const storedSingle = await count('single');
    const storedPaced = await count('batchpaced') + (await count('singlepaced'));

    const eventsPerSecond = batch.acknowledged / batch.elapsed;
    const requestsPerSecond = single.requests / single.elapsed;
    const checks = {
      events: eventsPerSecond >= TARGETS.eventsPerSecond,
      requests: requestsPerSecond >= TARGETS.requestsPerSecond,
      // At the target rate: every request that fell due answered, and the 99th percentile within the bound.
      p99: [batchPaced, singlePaced].every((run) => run.requests === run.due && run.p99 <= TARGETS.p99Ms),
      lost: storedBatch === batch.acknowledged && storedSingle === single.acknowledged && storedPaced === batchPaced.acknowledged + singlePaced.acknowledged,
      errors: [batch, single, batchPaced, singlePaced].every((run) => Object.keys(run.statuses).every((status) => status === '200')),
      // The process's own memory: what a leak or an unbounded queue would grow. The mapped pages of the
      // database file grow with the file and belong to the OS page cache (server/db/index.ts, mmap_size).
      memory: memoryAfter.anon - memoryBefore.anon <= TARGETS.rssGrowthMb,
    };
    const f = (value: number) => Math.round(value).toLocaleString('en');
    console.log(`### ${label}`);
    console.log(
      `(a) batches of 10, closed loop (32 connections): ${f(eventsPerSecond)} events/s (${f(batch.requests / batch.elapsed)} req/s), p50 ${batch.p50.toFixed(1)} ms, p99 ${batch.p99.toFixed(1)} ms, max ${batch.max.toFixed(1)} ms, statuses ${JSON.stringify(batch.statuses)} — target ≥ ${f(TARGETS.eventsPerSecond)} events/s: ${mark(checks.events)}`,
    );
    console.log(
      `(b) single events, closed loop (48 connections): ${f(requestsPerSecond)} req/s, p50 ${single.p50.toFixed(1)} ms, p99 ${single.p99.toFixed(1)} ms, max ${single.max.toFixed(1)} ms, statuses ${JSON.stringify(single.statuses)} — target ≥ ${f(TARGETS.requestsPerSecond)} req/s: ${mark(checks.requests)}`,
    );
    console.log(
      `server CPU: ${((batchCpuMs * 1000) / Math.max(1, batch.acknowledged)).toFixed(1)} µs per event in batches (${f((batch.acknowledged / Math.max(1, batchCpuMs)) * 1000)} events per CPU-second), ${((singleCpuMs * 1000) / Math.max(1, single.requests)).toFixed(1)} µs per single-event request (${f((single.requests / Math.max(1, singleCpuMs)) * 1000)} requests per CPU-second); load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
    );
    // Where the single-event requests' time goes, per request, across the processes sharing the cores.
    const perRequest = (ms: number) => `${((ms * 1000) / Math.max(1, single.requests)).toFixed(0)} µs`;
    const loopShare = singleLoopMs === null ? '' : ` (its event loop's thread ${perRequest(singleLoopMs)}, ${((100 * singleLoopMs) / (single.elapsed * 1000)).toFixed(0)}% of one core)`;
    const parts = [`server ${perRequest(singleCpuMs)}${loopShare}`, `load generator ${perRequest(single.cpuMs)}`];
    if (singleDatabaseMs !== null) parts.push(`PostgreSQL ${perRequest(singleDatabaseMs)}`);
    const total = singleCpuMs + single.cpuMs + (singleDatabaseMs ?? 0);
    console.log(
      `CPU per single-event request: ${parts.join(' + ')} = ${perRequest(total)}; ${f(TARGETS.requestsPerSecond)} req/s on ${availableParallelism()} cores leaves ${((availableParallelism() * 1e6) / TARGETS.requestsPerSecond).toFixed(0)} µs for all of them` +
        (batchDatabaseMs === null ? '' : `; in batches PostgreSQL took ${((batchDatabaseMs * 1000) / Math.max(1, batch.acknowledged)).toFixed(1)} µs per event`) +
        (single.machine ? `; ${machineLine(single.machine)}` : ''),
    );
    if (written0 && written1 && written2) {
      const per = (from: { bytes: number; calls: number }, to: { bytes: number; calls: number }, requests: number) =>
        `${((to.bytes - from.bytes) / 1024 / Math.max(1, requests)).toFixed(1)} KB in ${((to.calls - from.calls) / Math.max(1, requests)).toFixed(1)} write calls`;
      console.log(
        `written by the server process (files and sockets): ${per(written0, written1, batch.requests)} per batch request, ${per(written1, written2, single.requests)} per single-event request`,
      );
    }
    const paced = (run: LoadResult, what: string, rate: number) =>
      `${what} at ${f(rate)}/s: ${f(run.requests)} of ${f(run.due)} due answered in ${run.elapsed.toFixed(1)} s, p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, max ${run.max.toFixed(1)} ms (the generator's own pace timer late: p99 ${run.lateP99.toFixed(1)} ms)`;
    console.log(
      `(c) at the target rates: ${paced(batchPaced, 'batches', PACED.batch.rate)}; ${paced(singlePaced, 'single events', PACED.single.rate)} — p99 ≤ ${TARGETS.p99Ms} ms in both: ${mark(checks.p99)}`,
    );
    console.log(`(c) stalls: batches: ${batchStalls}; single events: ${singleStalls}${singlePaced.machine ? `; single events, ${machineLine(singlePaced.machine)}` : ''}`);
    console.log(`every answer 200: ${mark(checks.errors)}`);
    console.log(
      `none lost: stored ${f(storedBatch)} / acknowledged ${f(batch.acknowledged)} (batches), ${f(storedSingle)} / ${f(single.acknowledged)} (single), ${f(storedPaced)} / ${f(batchPaced.acknowledged + singlePaced.acknowledged)} (at the target rates): ${mark(checks.lost)}`,
    );
    const mb = (value: number) => `${value.toFixed(0)} MB`;
    console.log(
      `memory: the process's own (RssAnon) ${mb(memoryBefore.anon)} before, ${mb(memoryAfter.anon)} after (growth ≤ ${TARGETS.rssGrowthMb} MB): ${mark(checks.memory)}; mapped database pages ${mb(memoryBefore.file)} → ${mb(memoryAfter.file)}; RSS ${mb(memoryBefore.rss)} → ${mb(memoryAfter.rss)}; JavaScript objects alive ${mb(memoryBefore.heap)} → ${mb(memoryAfter.heap)}, in an event loop's heap of ${mb(memoryBefore.heapTotal)} → ${mb(memoryAfter.heapTotal)}`,
    );
    return Object.values(checks).every(Boolean);
  } finally {
    await close();
  }
}

/** The remote run's delay, each way (ms), and its paces: half of (c)'s, the same connections. */
const REMOTE = { delayMs: 1, batch: { rate: PACED.batch.rate / 2, connections: PACED.batch.connections }, single: { rate: PACED.single.rate / 2, connections: PACED.single.connections } };

/**
 * PostgreSQL on another machine, printed after the databases' runs and not judged: the same server and load at
 * half (c)'s paces, with the database behind a proxy (delay-proxy.ts, its own process) that holds everything
 * REMOTE.delayMs each way, as a network between two machines does. On the loopback a round trip costs little, so
 * what a group's round trips cost a real deployment shows here: one statement per group of batches, a new device's
 * player included (server/domain/ingest.ts writeBatches), where a group with a new device took two before
 * 2026-12-03. That day on two cores, two runs each way alternating, single events p50 14.3–18.2 ms and p99
 * 32.5–45.5 ms against 22.5–26.6 and 46.7–63.5 with two statements; batches p50 16.6–21.4 against 25.9–30.3 ms,
 * p99 76 against 69–81 (alike).
 */
async function benchRemote(base: string): Promise<void> {
  const target = new URL(base);
  if (!target.hostname || target.searchParams.has('host')) {
    console.log('PostgreSQL at a distance: skipped (the database is reached through a Unix socket)');
    return;
  }
  const script = join(import.meta.dirname, 'delay-proxy.ts');
  const proxy = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify({ host: target.hostname, port: Number(target.port || 5432), delayMs: REMOTE.delayMs })], {
    cwd: join(import.meta.dirname, '../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      proxy.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      proxy.once('exit', (code) => reject(new Error(`delay proxy stopped (exit code ${code})`)));
    });
    const schema = await freshSchema(base);
    try {
      const url = new URL(schema.url);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      const server = await startBenchServer({ DATABASE_URL: url.toString() });
      try {
        const batch = await load({ port: server.port, key: server.clientKey, mode: 'batch', seconds: SECONDS, prefix: 'remotebatch', ...REMOTE.batch });
        const single = await load({ port: server.port, key: server.clientKey, mode: 'single', seconds: SECONDS, prefix: 'remotesingle', ...REMOTE.single });
        const line = (run: LoadResult, what: string, rate: number) =>
          `${what} at ${rate.toLocaleString('en')}/s: ${run.requests.toLocaleString('en')} of ${run.due.toLocaleString('en')} due answered in ${run.elapsed.toFixed(1)} s, p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, statuses ${JSON.stringify(run.statuses)}`;
        console.log(`### PostgreSQL ${REMOTE.delayMs} ms away each way (a delaying proxy; half the target rates; not judged)`);
        console.log(`${line(batch, 'batches of 10', REMOTE.batch.rate)}; ${line(single, 'single events', REMOTE.single.rate)}`);
      } finally {
        await server.close();
      }
    } finally {
      await schema.drop();
    }
  } finally {
    proxy.kill();
  }
}

/**
 * The loopback floor, printed before the databases' runs and not judged: the same load generator, at (c)'s paces
 * and connections, against a route that only does what any HTTP server does (read the text/plain body, parse its
 * JSON, answer 200), after a warm-up of its own. What (c)'s latency costs on this machine before ingestion does
 * anything: the kernel's loopback, the two processes sharing the cores, the generator's own delays. On a
 * 2-core virtual machine (2026-11-27) it answered single events at 8,000/s in p99 4.6 ms, using about 50 µs of
 * CPU per request where ingestion used 145 µs (SQLite): ingestion's misses of (c) there were its own. Without the
 * warm-up the same route had p99 115–155 ms, all of it in the run's first half second (code not yet optimised).
 */
async function loopbackFloor(): Promise<void> {
  const app = Fastify({ logger: false });
  parseTextAsJson(app);
  app.post('/api/sdk/track', async (request) => ({ success: true, data: { accepted: (request.body as { items: unknown[] }).items.length } }));
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const paced = (mode: 'batch' | 'single', seconds: number) => load({ port, key: 'floor', mode, seconds, prefix: `floor${mode}`, ...PACED[mode] });
    await paced('single', 2);
    const batch = await paced('batch', SECONDS);
    const cpu = process.cpuUsage();
    const single = await paced('single', SECONDS);
    // Beside (b)'s server CPU per single-event request: the part of it any Fastify route on this machine spends.
    const singleCpuUs = (cpuTimeMs(process.cpuUsage(cpu)) * 1000) / Math.max(1, single.requests);
    const line = (run: LoadResult) => `p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, max ${run.max.toFixed(1)} ms`;
    console.log(
      `loopback floor (no database: a route that parses the body and answers, the same generator, paces and connections as (c); not judged): batches at ${PACED.batch.rate.toLocaleString('en')}/s ${line(batch)}; single events at ${PACED.single.rate.toLocaleString('en')}/s ${line(single)}, ${singleCpuUs.toFixed(0)} µs of this process's CPU per request`,
    );
  } finally {
    await app.close();
  }
}

const databaseUrl = () => process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** What a run prints before any database's: a note when the server's flags are missing, then the loopback floor. */
async function beforeDatabases(): Promise<void> {
  const note = serverFlagsNote();
  if (note) console.log(note);
  await loopbackFloor();
}

/**
 * The loopback floor, then each database in a process of its own (this file again, naming it), as a server runs
 * one database and as `npm run bench` runs each benchmark (tests/bench/run.ts). In one process, PostgreSQL's runs
 * came after SQLite's on the heap those left: on 2026-12-05 (two cores, with the server's flags) the event loop's GC
 * took 126–190 ms per (c) run there against 38–79 ms in a process of PostgreSQL's own, and (c)'s p99 was 43–46 ms
 * (batches) and 31–38 ms (single events) in two such runs against 15–52 and 21–41 ms (medians 26 and 27) in nine of
 * its own.
 * True when every target is met.
 */
async function benchEachDatabase(): Promise<boolean> {
  await beforeDatabases();
  const own = (database: Dialect) =>
    spawnSync(process.execPath, [...process.execArgv, process.argv[1], database, 'alone'], { stdio: 'inherit', cwd: join(import.meta.dirname, '../..') }).status === 0;
  let ok = own('sqlite');
  if (databaseUrl()) ok = own('postgres') && ok;
  else console.log('PostgreSQL: skipped (set DATABASE_URL or TEST_DATABASE_URL)');
  return ok;
}

/**
 * One database's runs (after the loopback floor, unless `floor` is false: benchEachDatabase ran it); true when every
 * target is met. PostgreSQL without a URL is a miss.
 */
async function benchIngest(only: Dialect, floor = true): Promise<boolean> {
  let ok = true;
  if (floor) await beforeDatabases();
  if (only === 'sqlite') return benchOne('SQLite', {});
  const base = databaseUrl();
  if (base) {
    const schema = await freshSchema(base);
    try {
      // Ingestion's commits as configured (server/db/index.ts ingestionDb): asynchronous unless
      // PG_INGEST_SYNCHRONOUS_COMMIT=on is set for the run, to compare.
      const synchronous = process.env.PG_INGEST_SYNCHRONOUS_COMMIT ?? 'off';
      ok = (await benchOne(`PostgreSQL (PG_INGEST_SYNCHRONOUS_COMMIT=${synchronous})`, { DATABASE_URL: schema.url, PG_INGEST_SYNCHRONOUS_COMMIT: synchronous })) && ok;
    } finally {
      await schema.drop();
    }
    await benchRemote(base);
  } else {
    console.log('PostgreSQL: not run (set DATABASE_URL or TEST_DATABASE_URL)');
    ok = false;
  }
  return ok;
}

// `ingest.ts`: both databases, each in its own process; `ingest.ts sqlite` or `… postgres`: one, here.
if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv[2];
  if (only !== undefined && only !== 'sqlite' && only !== 'postgres') throw new Error(`unknown database ${only}: sqlite or postgres`);
  (only ? benchIngest(only, process.argv[3] !== 'alone') : benchEachDatabase()).then((ok) => process.exit(ok ? 0 : 1));
}
