import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inFlightBound } from '../../server/delivery';
import { countDeliveries } from '../../server/delivery/status';
import { createApplication, createUser, db, startServer, type TestServer } from '../api/helpers';
import { insertWebSubscribers } from '../api/players-fixtures';
import { testCertificates } from '../fakes/tls';
import { start as startWebPush, type FakeSubscription, type WebPushFake } from '../fakes/webpush';

/**
 * The delivery engine survives a worker killed mid-send (SIGKILL: no shutdown, no last write): 3,000 web push
 * subscribers on a push service slow enough to kill the worker a third of the way; a new worker takes over.
 * The message completes, every subscriber got it, none twice beyond what the dead worker had sent without
 * writing it down (bounded by the engine's in-flight bound), and the counters equal the deliveries table.
 * On SQLite with the database queue; and on PostgreSQL with BullMQ (Redis database 13) when both are set.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUBSCRIBERS = 3000;
/** Each push answered this much later: about a thousand a second through the sender's connections. */
const PUSH_DELAY_MS = 60;

const redisBase = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL;
const postgresUrl = process.env.TEST_DATABASE_URL;

/** The Redis URL of this suite's own database, index 13. */
function redisUrl13(): string {
  const url = new URL(redisBase!);
  url.pathname = '/13';
  return url.toString();
}

interface Worker {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** `server/worker.ts` in a process of its own (its own process group, so SIGKILL reaches exactly it). */
function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/worker.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, worker?: Worker): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${worker ? `\nworker output:\n${worker.output.join('').slice(-4000)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function crashSuite(mode: 'sqlite' | 'postgres') {
  let server: TestServer;
  let webPush: WebPushFake;
  let dir: string;
  let workerEnv: Record<string, string>;
  const workers: Worker[] = [];

  beforeAll(async () => {
    webPush = await startWebPush({ delayMs: PUSH_DELAY_MS });
    dir = mkdtempSync(join(tmpdir(), 'nudge-crash-'));
    writeFileSync(join(dir, 'ca.pem'), (await testCertificates()).cert);
    const previous = process.env.NUDGE_TEST_DB;
    process.env.NUDGE_TEST_DB = mode;
    try {
      server = await startServer({ env: { PROVIDER_CA_FILE: join(dir, 'ca.pem'), LOG_LEVEL: 'warn' } });
    } finally {
      if (previous === undefined) delete process.env.NUDGE_TEST_DB;
      else process.env.NUDGE_TEST_DB = previous;
    }
    const config = server.config;
    workerEnv = {
      DATA_DIR: config.dataDir,
      SECRET_KEY: config.secretKey,
      PUBLIC_URL: config.publicUrl,
      PROVIDER_CA_FILE: join(dir, 'ca.pem'),
      LOG_LEVEL: 'warn',
      ...(config.database.kind === 'postgres' ? { DATABASE_URL: config.database.url, REDIS_URL: redisUrl13() } : {}),
    };
    if (mode === 'postgres') {
      const redis = new Redis(redisUrl13());
      await redis.flushdb();
      await redis.quit();
    }
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        process.kill(-worker.child.pid!, 'SIGKILL');
        await worker.exited;
      }
    }
    await server?.close();
    await webPush?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (mode === 'postgres') {
      const redis = new Redis(redisUrl13());
      await redis.flushdb();
      await redis.quit();
    }
  });

  it(
    'completes the message after a worker is killed mid-send: everyone once, duplicates only of the unrecorded sends',
    async () => {
      const owner = await createUser(server);
      const appId = `crash_${mode}`;
      await createApplication(server, owner, appId);
      const saved = await server.call('PUT', `/api/application/${appId}/platform/web_push`, {
        token: owner.token,
        body: { enabled: true, site_url: 'https://shop.example.vn', box: { text: 'Nhận tin?', allow_text: 'Có', deny_text: 'Không', delay_seconds: 0, position: 'top' } },
      });
      expect(saved.status).toBe(200);
      const vapid = saved.body.data.vapid_public_key as string;

      const subscriptions: FakeSubscription[] = Array.from({ length: SUBSCRIBERS }, () => webPush.createSubscription({ applicationServerKey: vapid }));
      const now = server.clock.now().toISOString();
      await insertWebSubscribers(db(server), appId, subscriptions, { prefix: 'crash-device', now });

      const first = startWorker(workerEnv);
      workers.push(first);
      const created = await server.call('POST', `/api/application/${appId}/notification`, {
        token: owner.token,
        body: { type: 'web_push', content: { heading: 'Flash sale', content: 'Giảm 50% hôm nay', target_url: 'https://shop.example.vn/sale' }, draft: false },
      });
      expect(created.status).toBe(200);
      const id: number = created.body.data.id;

      const settled = async () =>
        Number(
          (
            await db(server)
              .selectFrom('deliveries')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('notification_id', '=', id)
              .where('status', '!=', 'queued')
              .executeTakeFirstOrThrow()
          ).n,
        );
      await waitFor('a third of the message to be sent', async () => (await settled()) >= SUBSCRIBERS / 3, 90_000, first);
      process.kill(-first.child.pid!, 'SIGKILL');
      await first.exited;
      // The push service answers what was in flight; then count what the dead worker sent but never wrote down.
      await new Promise((resolve) => setTimeout(resolve, 500 + PUSH_DELAY_MS));
      const receivedAtKill = webPush.count();
      const recordedAtKill = await settled();
      expect(recordedAtKill).toBeLessThan(SUBSCRIBERS);
      const unrecorded = receivedAtKill - recordedAtKill;
      expect(unrecorded).toBeGreaterThanOrEqual(0);
      expect(unrecorded).toBeLessThanOrEqual(inFlightBound());

      const second = startWorker(workerEnv);
      workers.push(second);
      // The dead worker's jobs come back once their lease (database queue) or lock (BullMQ) expires.
      await waitFor(
        'the message to complete',
        async () => ['executed', 'opened'].includes((await db(server).selectFrom('notifications').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status),
        150_000,
        second,
      );
      process.kill(-second.child.pid!, 'SIGTERM');
      expect(await second.exited).toBe(0);

      const times = new Map<string, number>();
      for (const push of webPush.received) times.set(push.subscriptionId, (times.get(push.subscriptionId) ?? 0) + 1);
      const missing = subscriptions.filter((sub) => !times.has(sub.id));
      expect(missing).toHaveLength(0);
      const twice = subscriptions.filter((sub) => (times.get(sub.id) ?? 0) > 1);
      expect(twice.length).toBeLessThanOrEqual(unrecorded);
      expect(subscriptions.filter((sub) => (times.get(sub.id) ?? 0) > 2)).toHaveLength(0);
      console.info(
        `${mode}: killed with ${recordedAtKill} of ${SUBSCRIBERS} recorded, ${unrecorded} sent but unrecorded (bound ${inFlightBound()}); ${twice.length} subscribers got it twice`,
      );
      // Every push the service got decrypted to this message.
      expect(new Set(webPush.received.map((push) => JSON.parse(push.text!).title))).toEqual(new Set(['Flash sale']));

      const row = await db(server).selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const counted = await countDeliveries(db(server), id);
      expect(counted).toEqual({ targeted: SUBSCRIBERS, sent: SUBSCRIBERS, delivered: 0, clicked: 0, failed: 0 });
      expect({ targeted: row.targeted, sent: row.sent, delivered: row.delivered, clicked: row.clicked, failed: row.failed }).toEqual(counted);
      expect(row.finished_at).toBeTruthy();
    },
    300_000,
  );
}

describe('on SQLite, with the database queue', () => crashSuite('sqlite'));

describe.skipIf(!postgresUrl || !redisBase)('on PostgreSQL, with BullMQ on Redis', () => crashSuite('postgres'));
