import { parentPort, workerData } from 'node:worker_threads';
import { sql } from 'kysely';
import type { DatabaseConfig } from '../config';
import { ingestionDb, openDatabase } from '../db';
import { KnownPlayers, writeBatches, writeRemembering, type IngestBatch, type IngestResult } from './ingest';

/**
 * The thread that writes ingestion's groups on PostgreSQL (see WriterThread in ./ingest.ts): its own connections
 * (ingestion's pool, `ingestionDb`), its own KnownPlayers. A request is one group, written as the process's event
 * loop would write it (`writeRemembering`, `writeBatches`) and answered with one result per batch or with the
 * error; the queue sends one at a time (see ingestQueue), requests sent together run at once. `warm` opens a connection
 * (answered with no results), `close` ends the connections and the thread.
 */
export type ThreadRequest = { id: number; batches: string; now: number } | { id: number; warm: true } | { id: number; close: true };
export type ThreadAnswer = { id: number; results: IngestResult[] } | { id: number; error: { name: string; message: string; code?: unknown } };

if (parentPort) {
  const port = parentPort;
  const { kysely } = openDatabase(workerData.database as DatabaseConfig);
  const db = ingestionDb(kysely);
  const known = new KnownPlayers();
  port.on('message', (request: ThreadRequest) => {
    if ('close' in request) {
      // process.exit in a thread ends the thread only; tsx's loader, registered in it, would keep it alive.
      kysely.destroy().finally(() => process.exit(0));
      return;
    }
    const { id } = request;
    let write: Promise<IngestResult[]>;
    if ('warm' in request) {
      write = sql`select 1`.execute(db).then(() => []);
    } else {
      const batches = JSON.parse(request.batches) as IngestBatch[];
      write = writeRemembering(known, batches, (ids) => writeBatches(db, 'postgres', batches, new Date(request.now), ids));
    }
    write.then(
      (results) => port.postMessage({ id, results } satisfies ThreadAnswer),
      (error: unknown) => {
        const { name = 'Error', message = String(error), code } = (error ?? {}) as { name?: string; message?: string; code?: unknown };
        port.postMessage({ id, error: { name, message, code } } satisfies ThreadAnswer);
      },
    );
  });
}
