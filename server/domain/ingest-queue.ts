/**
 * Group commit: callers hand entries to an in-process queue and wait; a flusher writes everything queued in a single
 * call (one transaction), then settles each caller with its own result. One write is under way at a time, or up to
 * `maxWrites` where the writer runs them one after the other. A caller's promise resolves only once its entry is
 * written, so an answer sent after it means "stored". Throughput comes from few, large transactions; latency stays
 * within one flush delay plus one write.
 *
 * Memory and waiting are bounded: `submit` refuses at once with QueueFullError (the route answers 503 with
 * Retry-After) when the entries queued or being written would pass `maxPendingItems`, or when the oldest entry
 * still waiting for its write has waited more than `maxWaitMs`: the writes are falling behind what arrives (the
 * database is slow or waits on a lock), and a new entry would wait longer still. Without the second bound such a
 * database had every request answered seconds late (50,000 items are six seconds of single events at 8,000/s)
 * before any was refused; with it, what is taken is answered within about `maxWaitMs`, and the rest is told at
 * once to come back later (the storefront SDK keeps it and retries). When the server's own CPU is what falls
 * behind, requests wait in the sockets before they reach this queue: neither bound sees them.
 */

export interface GroupCommitOptions<T, R> {
  /** Writes a group; returns one result per entry, in order. Throwing fails the group (see `submit`). */
  write(entries: T[]): Promise<R[]>;
  /** How many items an entry weighs (events of a batch). */
  weigh(entry: T): number;
  /** Flush as soon as this many items are queued… */
  flushItems: number;
  /**
   * …or this long after the first one was queued. 0: as soon as the event loop has read what is waiting on
   * the sockets (setImmediate), the classic group commit: under load the groups grow by themselves, because
   * everything that arrives during a write goes into the next one.
   */
  flushDelayMs: number;
  /** The most items one write takes; the rest waits for the next. */
  maxFlushItems: number;
  /**
   * How many writes may be under way at once (1 when left out). A second write is handed over while the first is
   * still running only where the writer runs the writes it is given one after the other, in the order given (the
   * PostgreSQL writer thread): it then starts the next the moment the last ends, without waiting for the event loop
   * to take the answer and hand the next group over.
   */
  maxWrites?: number;
  /** The most items queued and being written at once. */
  maxPendingItems: number;
  /** New entries are refused while the oldest one waiting for its write (see oldestWaiting) has waited longer than this (ms). */
  maxWaitMs: number;
}

/** The queue is full: try again shortly. */
export class QueueFullError extends Error {
  constructor() {
    super('ingestion queue full');
    this.name = 'QueueFullError';
  }
}

interface Waiting<T, R> {
  entry: T;
  weight: number;
  /** When it was queued (Date.now()). */
  since: number;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export class GroupCommit<T, R> {
  private queue: Waiting<T, R>[] = [];
  private queuedItems = 0;
  private pendingItems = 0;
  private timer: { cancel(): void } | null = null;
  /** The writes under way, in the order they were handed over, with when their oldest entry was queued. */
  private readonly writing = new Map<Promise<void>, number>();
  private closed = false;

  constructor(private readonly options: GroupCommitOptions<T, R>) {}

  /** Items queued or being written now. */
  get pending(): number {
    return this.pendingItems;
  }

  /**
   * Queues an entry; resolves with its result once written. When the group's write fails, each entry of it
   * is written again on its own, so one bad entry fails only its own caller.
   */
  submit(entry: T): Promise<R> {
    if (this.closed) return Promise.reject(new Error('ingestion is shutting down'));
    const weight = Math.max(1, this.options.weigh(entry));
    if (this.pendingItems + weight > this.options.maxPendingItems) return Promise.reject(new QueueFullError());
    const now = Date.now();
    if (now - this.oldestWaiting() > this.options.maxWaitMs) return Promise.reject(new QueueFullError());
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ entry, weight, since: now, resolve, reject });
      this.queuedItems += weight;
      this.pendingItems += weight;
      this.schedule();
    });
  }

  /** Refuses new entries, writes what is queued and waits for it. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.writing.size > 0 || this.queue.length > 0) {
      if (this.timer) {
        this.timer.cancel();
        this.timer = null;
      }
      this.flush();
      await Promise.race(this.writing.keys());
    }
  }

  /**
   * When the oldest entry still waiting for its write was queued (Infinity: none waits). The groups handed over behind
   * the oldest write under way wait for it (their writer runs them in turn) as the queued entries do, and came first.
   */
  private oldestWaiting(): number {
    let index = 0;
    for (const since of this.writing.values()) if (index++ === 1) return since;
    return this.queue.length > 0 ? this.queue[0].since : Infinity;
  }

  /** True when no further write may start now. */
  private get busy(): boolean {
    return this.writing.size >= (this.options.maxWrites ?? 1);
  }

  private schedule(): void {
    if (this.busy || this.queue.length === 0) return;
    if (this.queuedItems >= this.options.flushItems) {
      if (this.timer) {
        this.timer.cancel();
        this.timer = null;
      }
      this.flush();
      return;
    }
    if (this.timer) return;
    const fire = () => {
      this.timer = null;
      this.flush();
    };
    if (this.options.flushDelayMs <= 0) {
      const immediate = setImmediate(fire);
      this.timer = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(fire, this.options.flushDelayMs);
      this.timer = { cancel: () => clearTimeout(timeout) };
    }
  }

  private flush(): void {
    if (this.busy || this.queue.length === 0) return;
    const group: Waiting<T, R>[] = [];
    let items = 0;
    while (this.queue.length > 0 && (group.length === 0 || items + this.queue[0].weight <= this.options.maxFlushItems)) {
      const next = this.queue.shift() as Waiting<T, R>;
      group.push(next);
      items += next.weight;
    }
    this.queuedItems -= items;
    const writing: Promise<void> = this.writeGroup(group).finally(() => {
      this.pendingItems -= items;
      this.writing.delete(writing);
      // Whatever arrived during this write has already waited: it goes next, at once when enough did.
      if (this.queue.length > 0) {
        if (this.queuedItems >= this.options.flushItems || this.closed) this.flush();
        else this.schedule();
      }
    });
    this.writing.set(writing, group[0].since);
    // Room for another write: what arrives now is scheduled as the first entry of an idle queue would be.
    this.schedule();
  }

  private async writeGroup(group: Waiting<T, R>[]): Promise<void> {
    try {
      const results = await this.options.write(group.map((waiting) => waiting.entry));
      group.forEach((waiting, index) => waiting.resolve(results[index]));
      return;
    } catch (error) {
      if (group.length === 1) {
        group[0].reject(error);
        return;
      }
    }
    for (const waiting of group) {
      try {
        const [result] = await this.options.write([waiting.entry]);
        waiting.resolve(result);
      } catch (error) {
        waiting.reject(error);
      }
    }
  }
}
