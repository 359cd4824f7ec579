import type { TrackItem } from '../../shared/contract/audience';
import { TRACK_BATCH_MAX } from '../../shared/validation';
import type { KeyValueStore } from './storage';

/**
 * The SDK's outbox: items wait in first-party storage until the server has them, so a page closed early,
 * a flaky network or a server hiccup loses nothing: the next page (or the next try) sends them again.
 * Every item carries its client id, so an item sent twice is stored once.
 *
 * A beacon (the page going away) is the exception to "until the server has them": the browser takes it and
 * its answer is never seen, so a lost network or a busy server (503) would lose it. Its items stay, marked as
 * carried (BEACONED_KEY), and go again with the next page's first batch, which goes anyway (its page view): sent
 * once more, without a request of their own.
 */

/** A batch goes when this many items wait… */
export const FLUSH_ITEMS = 10;
/** …or this long after the first one came. */
export const FLUSH_DELAY_MS = 2000;
/** At most this many items are kept; beyond it the oldest go (a browser offline for days). */
export const OUTBOX_MAX = 200;
/**
 * Items per request: at most the server's TRACK_BATCH_MAX (shared/validation), and at most this many bytes of them
 * (JSON, UTF-8): the server takes a body of up to 64 KB (server/routes/track.ts, tests/api/track.test.ts), and the
 * key, the visitor id and the device facts around the items fit in the 4 KB left.
 * Fifty page views of long URLs (filter pages, ad click ids) pass 64 KB, and a body the server refuses is dropped.
 */
export const BATCH_BYTES = 60 * 1024;
/** Retries wait 2 s, 4 s, 8 s … up to 5 minutes, or as long as the server asked (Retry-After), up to 5 minutes too. */
export const RETRY_MAX_MS = 300_000;
export const OUTBOX_KEY = 'nudge_q';
/**
 * Until when (epoch ms) the server asked not to be sent to (Retry-After). Kept beside the outbox, not in the page:
 * the next page, or another tab of the same visitor (whose limit it shares), waits too, and no beacon goes meanwhile,
 * which the server would refuse and the outbox could not tell. A network failure is not kept: a page that loaded
 * has the network back, and tries at once.
 */
export const WAIT_KEY = 'nudge_qw';
/** The ids of waiting items a beacon carried: not beaconed twice, and not a reason to send at once. */
export const BEACONED_KEY = 'nudge_qb';

/**
 * A send's outcome: stored; try again later; refused for good (a malformed batch would fail forever); or a
 * number: try again, not before this many ms (a busy or limiting server's Retry-After).
 */
export type SendResult = 'ok' | 'retry' | 'drop' | number;

export interface OutboxOptions {
  store: KeyValueStore;
  /** Posts the items; `final` when the page is going away (a beacon, whose outcome can't be awaited). */
  send: (items: TrackItem[], final: boolean) => Promise<SendResult>;
  setTimer?: (run: () => void, ms: number) => unknown;
  now?: () => number;
}

export interface Outbox {
  add(item: TrackItem): void;
  /** Sends what waits now; `final` on pagehide. */
  flush(final?: boolean): Promise<void>;
  /** The items waiting (for tests and the retry on the next page). */
  waiting(): TrackItem[];
  /** The waiting items no beacon carried: what the next page sends at once. */
  unsent(): TrackItem[];
}

const encoder = new TextEncoder();
/** Bytes of text in UTF-8, as it goes on the wire (a Vietnamese letter is 2 or 3 of them). */
export const byteLength = (text: string): number => encoder.encode(text).length;

/** The first items that go in one request: at most TRACK_BATCH_MAX and BATCH_BYTES, and always one (too large alone, it is refused and dropped). */
export function nextBatch(items: TrackItem[]): TrackItem[] {
  // The brackets of the array, then each item and its comma.
  let bytes = 2;
  let count = 0;
  while (count < items.length && count < TRACK_BATCH_MAX) {
    bytes += byteLength(JSON.stringify(items[count])) + 1;
    if (count > 0 && bytes > BATCH_BYTES) break;
    count += 1;
  }
  return items.slice(0, count);
}

/**
 * Reads and writes the queue in storage each time rather than keeping it in memory: tabs of the same shop
 * share it, and what one tab could not send another sends.
 */
export function createOutbox({ store, send, setTimer = (run, ms) => setTimeout(run, ms), now = Date.now }: OutboxOptions): Outbox {
  let timer = false;
  let busy = false;
  let failures = 0;

  /** A JSON array kept in storage; anything else (none yet, or not ours) is empty. */
  const list = <T>(key: string): T[] => {
    try {
      const values = JSON.parse(store.getItem(key) || '[]');
      return Array.isArray(values) ? values : [];
    } catch {
      return [];
    }
  };
  const read = () => list<TrackItem>(OUTBOX_KEY);
  const write = (items: TrackItem[]) => store.setItem(OUTBOX_KEY, JSON.stringify(items.slice(-OUTBOX_MAX)));
  const remove = (sent: TrackItem[]) => {
    const ids = new Set(sent.map((item) => item.id));
    write(read().filter((item) => !ids.has(item.id)));
  };
  const beaconed = () => new Set(list<string>(BEACONED_KEY));
  const notIn = (carried: Set<string>, items: TrackItem[]) => items.filter((item) => !carried.has(item.id));

  const later = (ms: number) => {
    if (timer) return;
    timer = true;
    setTimer(() => {
      timer = false;
      void flush();
    }, ms);
  };

  async function flush(final = false): Promise<void> {
    if (busy && !final) return;
    const items = read();
    if (!items.length) return;
    // The server asked to wait (here or on an earlier page): the items stay, and go once the wait is over.
    const wait = +(store.getItem(WAIT_KEY) || 0) - now();
    if (wait > 0) {
      if (!final) later(wait);
      return;
    }
    if (final) {
      // The page is going: what no beacon carried yet, in beacons, kept until a send whose answer is seen.
      const carried = beaconed();
      for (let rest = notIn(carried, items); rest.length > 0; ) {
        const batch = nextBatch(rest);
        rest = rest.slice(batch.length);
        if ((await send(batch, true)) === 'ok') for (const item of batch) carried.add(item.id);
      }
      // Only the ids still waiting: the others were stored meanwhile.
      store.setItem(BEACONED_KEY, JSON.stringify(read().map((item) => item.id).filter((id) => carried.has(id))));
      return;
    }
    busy = true;
    const batch = nextBatch(items);
    let result: SendResult = 'retry';
    try {
      result = await send(batch, false);
    } catch {
      // a network failure: retried below
    }
    busy = false;
    if (result !== 'ok' && result !== 'drop') {
      failures += 1;
      const asked = +result || 0;
      const delay = Math.min(Math.max(FLUSH_DELAY_MS * 2 ** failures, asked), RETRY_MAX_MS);
      if (asked) store.setItem(WAIT_KEY, String(now() + delay));
      later(delay);
      return;
    }
    failures = 0;
    remove(batch);
    if (read().length) void flush();
  }

  return {
    add(item) {
      const items = read();
      items.push(item);
      write(items);
      if (items.length >= FLUSH_ITEMS && !failures) void flush();
      else later(FLUSH_DELAY_MS);
    },
    flush,
    waiting: read,
    unsent: () => notIn(beaconed(), read()),
  };
}
