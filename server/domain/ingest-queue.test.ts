import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit, QueueFullError, type GroupCommitOptions } from './ingest-queue';
import { TokenBuckets } from './ingest-limits';

/** A queue of numbers whose "write" records each group; the weight of an entry is its value. */
function queue(options: Partial<GroupCommitOptions<number, string>> = {}) {
  const groups: number[][] = [];
  const commit = new GroupCommit<number, string>({
    flushItems: 10,
    flushDelayMs: 5,
    maxFlushItems: 100,
    maxPendingItems: 50,
    maxWaitMs: 1_000,
    weigh: (entry) => entry,
    write: async (entries) => {
      groups.push(entries);
      return entries.map((entry) => `stored ${entry}`);
    },
    ...options,
  });
  return { commit, groups };
}

/** A queue with no flush delay whose writes wait until `open` is called (a lock wait, a slow disk), each group recorded. */
function stalledQueue(options: Partial<GroupCommitOptions<number, string>> = {}) {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const groups: number[][] = [];
  const { commit } = queue({
    flushDelayMs: 0,
    write: async (entries) => {
      groups.push(entries);
      await gate;
      return entries.map(String);
    },
    ...options,
  });
  return { commit, groups, open };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the group-commit queue', () => {
  it('writes what was queued together after the delay, and answers each caller with its own result', async () => {
    vi.useFakeTimers();
    const { commit, groups } = queue();
    const answers = [commit.submit(1), commit.submit(2), commit.submit(3)];
    await vi.advanceTimersByTimeAsync(4);
    expect(groups).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(groups).toEqual([[1, 2, 3]]);
    expect(await Promise.all(answers)).toEqual(['stored 1', 'stored 2', 'stored 3']);
  });

  it('with no delay, writes together what was queued in the same turn of the event loop', async () => {
    const { commit, groups } = queue({ flushDelayMs: 0 });
    const answers = [commit.submit(1), commit.submit(2)];
    await Promise.all(answers);
    await commit.submit(3);
    expect(groups).toEqual([[1, 2], [3]]);
  });

  it('writes at once when enough items are queued, without waiting for the delay', async () => {
    vi.useFakeTimers();
    const { commit, groups } = queue();
    const answers = [commit.submit(4), commit.submit(6)];
    await Promise.all(answers);
    expect(groups).toEqual([[4, 6]]);
  });

  it('groups what arrives during a write into the next write', async () => {
    let release: () => void = () => {};
    const groups: number[][] = [];
    const { commit } = queue({
      write: async (entries) => {
        groups.push(entries);
        if (groups.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return entries.map(String);
      },
    });
    const first = commit.submit(10);
    await new Promise((resolve) => setTimeout(resolve, 1));
    const during = [commit.submit(1), commit.submit(2), commit.submit(3)];
    release();
    await Promise.all([first, ...during]);
    expect(groups).toEqual([[10], [1, 2, 3]]);
  });

  it('hands over a second group while a write is under way when maxWrites allows two, and the next when one ends', async () => {
    const releases: (() => void)[] = [];
    const groups: number[][] = [];
    const { commit } = queue({
      flushDelayMs: 0,
      maxWrites: 2,
      write: (entries) => {
        groups.push(entries);
        return new Promise((resolve) => releases.push(() => resolve(entries.map((entry) => `stored ${entry}`))));
      },
    });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const first = commit.submit(1);
    await turn();
    const second = [commit.submit(2), commit.submit(3)];
    await turn();
    expect(groups).toEqual([[1], [2, 3]]);
    // Two under way: the next waits for one of them.
    const third = commit.submit(4);
    await turn();
    expect(groups).toEqual([[1], [2, 3]]);
    releases[0]();
    expect(await first).toBe('stored 1');
    await vi.waitFor(() => expect(groups).toEqual([[1], [2, 3], [4]]));
    // Closing waits for every write under way.
    let closed = false;
    const closing = commit.close().then(() => (closed = true));
    releases[2]();
    await turn();
    expect(closed).toBe(false);
    releases[1]();
    await closing;
    expect(await Promise.all([...second, third])).toEqual(['stored 2', 'stored 3', 'stored 4']);
  });

  it('never takes more than maxFlushItems in one write', async () => {
    const { commit, groups } = queue({ flushItems: 1_000, maxFlushItems: 5, flushDelayMs: 1 });
    await Promise.all([1, 2, 3, 4, 5].map((entry) => commit.submit(entry)));
    expect(groups).toEqual([[1, 2], [3], [4], [5]]);
  });

  it('refuses at once with QueueFullError past maxPendingItems, counting entries being written', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { commit } = queue({
      write: async (entries) => {
        await gate;
        return entries.map(String);
      },
    });
    const writing = commit.submit(30);
    const queued = commit.submit(15);
    await expect(commit.submit(6)).rejects.toBeInstanceOf(QueueFullError);
    expect(commit.pending).toBe(45);
    const fits = commit.submit(5);
    open();
    expect(await Promise.all([writing, queued, fits])).toEqual(['30', '15', '5']);
    await commit.close();
    expect(commit.pending).toBe(0);
  });

  it('refuses new entries while the oldest queued one has waited past maxWaitMs, and takes them again once writes catch up', async () => {
    vi.useFakeTimers();
    const { commit, groups, open } = stalledQueue();
    // A write that does not end (a lock wait, a slow disk): what arrives meanwhile queues behind it.
    const writing = commit.submit(1);
    await vi.advanceTimersByTimeAsync(1);
    const waiting = commit.submit(2);
    await vi.advanceTimersByTimeAsync(1_000);
    const stillTaken = commit.submit(3);
    await vi.advanceTimersByTimeAsync(1);
    // The oldest queued entry has now waited 1,001 ms: far below maxPendingItems, yet refused at once.
    await expect(commit.submit(4)).rejects.toBeInstanceOf(QueueFullError);
    open();
    await vi.advanceTimersByTimeAsync(1);
    expect(await Promise.all([writing, waiting, stillTaken])).toEqual(['1', '2', '3']);
    const later = commit.submit(5);
    await vi.advanceTimersByTimeAsync(1);
    expect(await later).toBe('5');
    expect(groups.flat()).toEqual([1, 2, 3, 5]);
  });

  it('counts a group handed over behind a write under way as waiting, and refuses new entries once it has waited past maxWaitMs', async () => {
    vi.useFakeTimers();
    const { commit, open } = stalledQueue({ maxWrites: 2 });
    const writing = commit.submit(1);
    await vi.advanceTimersByTimeAsync(1);
    // Handed over at once (a second write may be under way), but behind the first.
    const behind = commit.submit(2);
    await vi.advanceTimersByTimeAsync(1_001);
    await expect(commit.submit(3)).rejects.toBeInstanceOf(QueueFullError);
    open();
    expect(await Promise.all([writing, behind])).toEqual(['1', '2']);
    const later = commit.submit(4);
    await vi.advanceTimersByTimeAsync(1);
    expect(await later).toBe('4');
  });

  it('when a group fails, writes each entry alone so only the bad one fails', async () => {
    const { commit } = queue({
      write: async (entries) => {
        if (entries.includes(3)) throw new Error('bad entry');
        return entries.map(String);
      },
    });
    const answers = await Promise.allSettled([commit.submit(1), commit.submit(3), commit.submit(2)]);
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('writes what is queued on close, then refuses new entries', async () => {
    const { commit, groups } = queue({ flushDelayMs: 60_000 });
    const answer = commit.submit(2);
    await commit.close();
    expect(await answer).toBe('stored 2');
    expect(groups).toEqual([[2]]);
    await expect(commit.submit(1)).rejects.toThrow(/shutting down/);
  });
});

describe('the in-memory token buckets', () => {
  const rule = { max: 3, windowMs: 3_000 };

  it('allows a burst of max, then one more per window/max', () => {
    const buckets = new TokenBuckets();
    const takes = [0, 0, 0, 0].map(() => buckets.take([{ key: 'v', rule }], 1_000));
    expect(takes).toEqual([true, true, true, false]);
    expect(buckets.take([{ key: 'v', rule }], 1_999)).toBe(false);
    expect(buckets.take([{ key: 'v', rule }], 2_000)).toBe(true);
  });

  it('takes from no bucket when any of them is empty', () => {
    const buckets = new TokenBuckets();
    for (let index = 0; index < 3; index += 1) buckets.take([{ key: 'ip', rule }], 0);
    expect(buckets.take([{ key: 'visitor', rule }, { key: 'ip', rule }], 0)).toBe(false);
    // The visitor's bucket was not charged for the refused call.
    const visitor = [0, 0, 0, 0].map(() => buckets.take([{ key: 'visitor', rule }], 0));
    expect(visitor).toEqual([true, true, true, false]);
  });

  it("says how long until a refused call would be taken: the emptiest bucket's refill", () => {
    const buckets = new TokenBuckets();
    for (let index = 0; index < 3; index += 1) buckets.take([{ key: 'ip', rule }], 1_000);
    const checks = [{ key: 'visitor', rule }, { key: 'ip', rule }];
    expect(buckets.take(checks, 1_000)).toBe(false);
    // One token a second (3 per 3 s): the address's bucket is empty, the visitor's full.
    expect(buckets.waitMs(checks, 1_000)).toBe(1_000);
    expect(buckets.waitMs(checks, 1_600)).toBe(400);
    expect(buckets.take(checks, 1_600)).toBe(false);
    expect(buckets.waitMs(checks, 2_000)).toBe(0);
    expect(buckets.take(checks, 2_000)).toBe(true);
  });

  it('stays within its key bound by dropping refilled buckets first', () => {
    const buckets = new TokenBuckets(3);
    buckets.take([{ key: 'a', rule }], 0);
    buckets.take([{ key: 'b', rule }], 10_000);
    buckets.take([{ key: 'c', rule }], 10_000);
    buckets.take([{ key: 'd', rule }], 10_000);
    expect(buckets.size).toBe(3);
  });
});
