import { parentPort, workerData } from 'node:worker_threads';
import { sql } from 'kysely';
import type { DatabaseConfig } from '../config';
import { ingestionDb, openDatabase } from '../db';
import { INGEST_QUEUE, KnownPlayers, weighBatch, writeBatches, writeRemembering, type IngestBatch, type IngestResult } from './ingest';
import { GroupCommit } from './ingest-queue';

/**
 * The thread that writes ingestion's groups on PostgreSQL (see WriterThread in ./ingest.ts): its own connections
 * (ingestion's pool, `ingestionDb`), its own KnownPlayers. A request is one of the event loop's groups, answered with
 * one result per batch or with the error. The groups are written as the event loop would write them
 * (`writeRemembering`, `writeBatches`), one write at a time: those handed over while one is under way are written
 * together, in the order they came, as soon as it ends (`THREAD_QUEUE`). `warm` opens a connection (answered with no
 * results), `close` writes what is waiting and ends the connections and the thread.
 */
export type ThreadRequest = { id: number; batches: string; now: number } | { id: number; warm: true } | { id: number; close: true };
export type ThreadAnswer = { id: number; results: IngestResult[] } | { id: number; error: { name: string; message: string; code?: unknown } };

/** A group handed over, as the thread holds it until it is written. */
interface Write {
  batches: IngestBatch[];
  /** The event loop's clock when it handed the group over (ms). */
  now: number;
}

/**
 * The thread's group commit (./ingest-queue.ts): the next write starts as soon as the last one ends, with every group
 * handed over meanwhile, up to as many items as one of the event loop's groups. Written together they fail together;
 * each is then written alone, so a bad one fails only its own requests (and the event loop's queue then writes their
 * batches one by one). The event loop's queue bounds what waits (INGEST_QUEUE): nothing is refused here.
 */
const THREAD_QUEUE = { flushItems: INGEST_QUEUE.maxFlushItems, flushDelayMs: 0, maxFlushItems: INGEST_QUEUE.maxFlushItems, maxPendingItems: Infinity, maxWaitMs: Infinity };

if (parentPort) {
  const port = parentPort;
  const { kysely } = openDatabase(workerData.database as DatabaseConfig);
  const db = ingestionDb(kysely);
  const known = new KnownPlayers();
  const writes = new GroupCommit<Write, IngestResult[]>({
    ...THREAD_QUEUE,
    weigh: (write) => write.batches.reduce((items, batch) => items + weighBatch(batch), 0),
    write: async (handed) => {
      const batches = handed.flatMap((write) => write.batches);
      const now = new Date(Math.max(...handed.map((write) => write.now)));
      const results = await writeRemembering(known, batches, (ids) => writeBatches(db, 'postgres', batches, now, ids));
      let at = 0;
      return handed.map((write) => results.slice(at, (at += write.batches.length)));
    },
  });
  port.on('message', (request: ThreadRequest) => {
    if ('close' in request) {
      // process.exit in a thread ends the thread only; tsx's loader, registered in it, would keep it alive.
      void writes.close().finally(() => kysely.destroy().finally(() => process.exit(0)));
      return;
    }
    const { id } = request;
    const written =
      'warm' in request
        ? sql`select 1`.execute(db).then(() => [])
        : writes.submit({ batches: JSON.parse(request.batches) as IngestBatch[], now: request.now });
    written.then(
      (results) => port.postMessage({ id, results } satisfies ThreadAnswer),
      (error: unknown) => {
        const { name = 'Error', message = String(error), code } = (error ?? {}) as { name?: string; message?: string; code?: unknown };
        port.postMessage({ id, error: { name, message, code } } satisfies ThreadAnswer);
      },
    );
  });
}
