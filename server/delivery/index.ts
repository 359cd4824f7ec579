import type { Services } from '../context';
import { repeatAsLeader, type JobContext, type JobQueue } from '../jobs';
import { ChannelCache } from './channels';
import { runBatch } from './deliver';
import {
  DEFAULT_ENGINE_OPTIONS,
  FANOUT_QUEUE,
  SEND_QUEUE,
  fanoutKey,
  type BatchPayload,
  type Engine,
  type EngineOptions,
  type FanoutPayload,
} from './engine';
import { runFanout } from './fanout';
import { transitionNotification } from '../domain/notifications';
import { completeIfDone } from './status';

export { DEFAULT_ENGINE_OPTIONS, FANOUT_QUEUE, SEND_QUEUE, inFlightBound, type EngineOptions } from './engine';

/** How long stop() waits for running jobs to write what they sent. */
const STOP_GRACE_MS = 15_000;

/**
 * Starts the delivery engine in this process: the handlers of the fan-out and batch queues, and the
 * dispatcher, which every ~250 ms (and at once), in the one process leading it cluster-wide, moves due
 * messages (waiting, send_at ≤ now) to running — conditionally, so even two leaders would start each once —
 * and queues their fan-out. Every few seconds it also
 * re-queues the fan-out of a running message whose fan-out isn't done (a crash between the two steps) and
 * completes finished ones. `stop()` stops the dispatcher, lets running jobs write their results and hand
 * back the rest, and closes the senders; the caller closes the queue.
 */
export function startDelivery(s: Services, queue: JobQueue, overrides: Partial<EngineOptions> = {}): { stop(): Promise<void> } {
  const options = { ...DEFAULT_ENGINE_OPTIONS, ...overrides };
  const stopping = new AbortController();
  const engine: Engine = { s, queue, channels: new ChannelCache(s), options, stopping: stopping.signal };
  const running = new Set<Promise<unknown>>();

  /** Runs a job handler, tracked so stop() can wait for it. */
  function tracked<P>(handler: (engine: Engine, payload: P, context: JobContext) => Promise<void>) {
    return (payload: P, context: JobContext) => {
      const run = handler(engine, payload, context);
      running.add(run);
      const forget = () => running.delete(run);
      run.then(forget, forget);
      return run;
    };
  }

  queue.work(FANOUT_QUEUE, { fanout: tracked<FanoutPayload>(runFanout) }, { concurrency: options.fanoutConcurrency });
  queue.work(SEND_QUEUE, { deliver: tracked<BatchPayload>(runBatch) }, { concurrency: options.batchConcurrency });

  let lastRecovery = 0;

  /** One round of the dispatcher, in the one process that leads it cluster-wide (see below). */
  async function dispatchOnce(signal: AbortSignal): Promise<void> {
    const now = s.clock();
    const due = await s.db
      .selectFrom('notifications')
      .select('id')
      .where('status', '=', 'waiting')
      .where('send_at', '<=', now.toISOString())
      .orderBy('send_at')
      .limit(100)
      .execute();
    for (const { id } of due) {
      if (signal.aborted) return;
      const startedAt = s.clock().toISOString();
      if (await transitionNotification(s.db, id, 'waiting', 'running', { started_at: startedAt, updated_at: startedAt })) {
        s.log.info({ notificationId: id }, 'message running');
        await queue.add(FANOUT_QUEUE, 'fanout', { notification_id: id } satisfies FanoutPayload, { dedupeKey: fanoutKey(id) });
      }
    }
    if (now.getTime() - lastRecovery >= options.recoverEveryMs) {
      lastRecovery = now.getTime();
      await recover(now, signal);
    }
  }

  async function recover(now: Date, signal: AbortSignal): Promise<void> {
    // Started a while ago: a fresh message's fan-out job is simply still on its way.
    const before = new Date(now.getTime() - options.recoverEveryMs).toISOString();
    const stalled = await s.db
      .selectFrom('notifications')
      .select(['id', 'fanout_done_at'])
      .where('status', '=', 'running')
      .where('started_at', '<', before)
      .orderBy('id')
      .limit(100)
      .execute();
    for (const row of stalled) {
      if (signal.aborted) return;
      if (row.fanout_done_at) await completeIfDone(s, row.id);
      else await queue.add(FANOUT_QUEUE, 'fanout', { notification_id: row.id } satisfies FanoutPayload, { dedupeKey: fanoutKey(row.id) });
    }
  }

  const dispatcher = repeatAsLeader(
    s,
    'delivery-dispatcher',
    { firstAfterMs: 0, everyMs: options.dispatchEveryMs, failure: 'delivery dispatcher failed' },
    dispatchOnce,
  );

  return {
    async stop() {
      if (stopping.signal.aborted) return;
      stopping.abort();
      await dispatcher.stop();
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise<void>((resolve) => {
          grace = setTimeout(resolve, STOP_GRACE_MS);
          grace.unref();
        }),
      ]);
      clearTimeout(grace);
      await engine.channels.close();
    },
  };
}
