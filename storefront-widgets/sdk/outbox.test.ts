import { describe, expect, it, vi } from 'vitest';
import type { TrackItem } from '../../shared/contract/audience';
import { TRACK_BATCH_MAX } from '../../shared/validation';
import { BATCH_BYTES, FLUSH_DELAY_MS, OUTBOX_KEY, OUTBOX_MAX, RETRY_MAX_MS, WAIT_KEY, createOutbox, type SendResult } from './outbox';
import type { KeyValueStore } from './storage';

/** Storage shared by "pages" of the same browser. */
function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (key) => data.get(key) ?? null, setItem: (key, value) => void data.set(key, value) };
}

const event = (n: number): TrackItem => ({ type: 'event', id: `item-${String(n).padStart(4, '0')}`, at: 1_700_000_000_000 + n, name: 'view_item' });

/** Timers the test fires by hand, with the delays they were set for, and a clock that firing one moves on by its delay. */
function manualTimers() {
  const pending: { run: () => void; ms: number }[] = [];
  let clock = 1_700_000_000_000;
  return {
    pending,
    setTimer: (run: () => void, ms: number) => void pending.push({ run, ms }),
    now: () => clock,
    advance: (ms: number) => void (clock += ms),
    fire: async () => {
      const timer = pending.shift();
      clock += timer?.ms ?? 0;
      timer?.run();
      await settle();
      return timer?.ms;
    },
  };
}
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('the outbox', () => {
  it('sends a batch as soon as 10 items wait', async () => {
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => 'ok');
    const timers = manualTimers();
    const outbox = createOutbox({ store: memoryStore(), send, setTimer: timers.setTimer });
    for (let n = 1; n <= 10; n++) outbox.add(event(n));
    await settle();
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0][0].map((item) => item.id)).toEqual(Array.from({ length: 10 }, (_, i) => event(i + 1).id));
    expect(outbox.waiting()).toEqual([]);
  });

  it('sends fewer items after about 2 seconds', async () => {
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => 'ok');
    const timers = manualTimers();
    const outbox = createOutbox({ store: memoryStore(), send, setTimer: timers.setTimer });
    outbox.add(event(1));
    outbox.add(event(2));
    await settle();
    expect(send).not.toHaveBeenCalled();
    expect(timers.pending.map((t) => t.ms)).toEqual([FLUSH_DELAY_MS]);
    await timers.fire();
    expect(send.mock.calls[0][0]).toHaveLength(2);
  });

  it('keeps a failed batch in storage, retries with a growing delay, and sends it once the server is back', async () => {
    const store = memoryStore();
    let up = false;
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => (up ? 'ok' : 'retry'));
    const timers = manualTimers();
    const outbox = createOutbox({ store, send, setTimer: timers.setTimer });
    outbox.add(event(1));
    expect(await timers.fire()).toBe(FLUSH_DELAY_MS);
    expect(JSON.parse(store.getItem(OUTBOX_KEY)!)).toHaveLength(1);
    const first = await timers.fire();
    const second = await timers.fire();
    expect(second).toBeGreaterThan(first!);
    up = true;
    await timers.fire();
    expect(send).toHaveBeenCalledTimes(4);
    expect(outbox.waiting()).toEqual([]);
  });

  it('waits as long as a busy server asked before trying again, but never more than the longest retry delay', async () => {
    const answers: SendResult[] = [12_000, 1_000, 3_600_000, 'ok'];
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => answers.shift()!);
    const timers = manualTimers();
    const outbox = createOutbox({ store: memoryStore(), send, setTimer: timers.setTimer, now: timers.now });
    outbox.add(event(1));
    expect(await timers.fire()).toBe(FLUSH_DELAY_MS);
    // Retry-After: 12 → 12 s, not the 4 s of the first retry.
    expect(await timers.fire()).toBe(12_000);
    // 1 s asked, but the second retry's own delay (8 s) is longer.
    expect(await timers.fire()).toBe(8_000);
    // An hour asked: the longest retry delay, then stored.
    expect(await timers.fire()).toBe(RETRY_MAX_MS);
    expect(send).toHaveBeenCalledTimes(4);
    expect(outbox.waiting()).toEqual([]);
  });

  it('makes the next page wait out what the server asked too, sending nothing meanwhile, not even a beacon', async () => {
    const store = memoryStore();
    const timers = manualTimers();
    const limited = createOutbox({ store, send: async () => 30_000, setTimer: timers.setTimer, now: timers.now });
    limited.add(event(1));
    await timers.fire();
    expect(store.getItem(WAIT_KEY)).toBe(String(timers.now() + 30_000));
    // The shopper opens another page 10 s later: its page view joins the outbox, and nothing goes for 20 s more.
    timers.advance(10_000);
    timers.pending.length = 0;
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => 'ok');
    const nextPage = createOutbox({ store, send, setTimer: timers.setTimer, now: timers.now });
    await nextPage.flush();
    nextPage.add(event(2));
    await nextPage.flush(true);
    await settle();
    expect(send).not.toHaveBeenCalled();
    expect(nextPage.waiting().map((item) => item.id)).toEqual([event(1).id, event(2).id]);
    expect(timers.pending.map((timer) => timer.ms)).toEqual([20_000]);
    await timers.fire();
    expect(send.mock.calls.map(([items, final]) => [items.map((item) => item.id), final])).toEqual([[[event(1).id, event(2).id], false]]);
    expect(nextPage.waiting()).toEqual([]);
  });

  it('lets the next page send at once what the previous page could not send for a network failure', async () => {
    const store = memoryStore();
    const offline = createOutbox({ store, send: async () => 'retry', setTimer: () => undefined });
    offline.add(event(1));
    offline.add(event(2));
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => 'ok');
    const nextPage = createOutbox({ store, send, setTimer: () => undefined });
    expect(nextPage.waiting()).toHaveLength(2);
    await nextPage.flush();
    expect(send.mock.calls[0][0].map((item) => item.id)).toEqual([event(1).id, event(2).id]);
    expect(nextPage.waiting()).toEqual([]);
  });

  it(`keeps at most ${OUTBOX_MAX} items, dropping the oldest`, () => {
    const outbox = createOutbox({ store: memoryStore(), send: async () => 'retry', setTimer: () => undefined });
    // Failing sends: the items pile up.
    for (let n = 1; n <= OUTBOX_MAX + 30; n++) outbox.add(event(n));
    const waiting = outbox.waiting();
    expect(waiting).toHaveLength(OUTBOX_MAX);
    expect(waiting[0].id).toBe(event(31).id);
    expect(waiting.at(-1)!.id).toBe(event(OUTBOX_MAX + 30).id);
  });

  it('drops a batch the server refuses for good instead of sending it forever', async () => {
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => 'drop');
    const outbox = createOutbox({ store: memoryStore(), send, setTimer: () => undefined });
    outbox.add(event(1));
    await outbox.flush();
    expect(outbox.waiting()).toEqual([]);
  });

  it(`sends at most ${TRACK_BATCH_MAX} items a request, and everything in beacons when the page goes`, async () => {
    const store = memoryStore();
    createOutbox({ store, send: async () => 'retry', setTimer: () => undefined });
    store.setItem(OUTBOX_KEY, JSON.stringify(Array.from({ length: 120 }, (_, i) => event(i + 1))));
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => 'ok');
    const outbox = createOutbox({ store, send, setTimer: () => undefined });
    await outbox.flush(true);
    expect(send.mock.calls.map(([items, final]) => [items.length, final])).toEqual([
      [50, true],
      [50, true],
      [20, true],
    ]);
    // Hidden, then closed: what the beacons carried does not go in beacons twice.
    await outbox.flush(true);
    expect(send).toHaveBeenCalledTimes(3);
    expect(outbox.unsent()).toEqual([]);
  });

  it('keeps what a beacon carried until a send whose answer it sees: the next page sends it again with its own first batch', async () => {
    const store = memoryStore();
    // The browser takes the beacon; whether the server got it (no network, 503), the page never learns.
    const leaving = createOutbox({ store, send: async () => 'ok', setTimer: () => undefined });
    leaving.add(event(1));
    await leaving.flush(true);
    expect(leaving.waiting().map((item) => item.id)).toEqual([event(1).id]);
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => 'ok');
    const timers = manualTimers();
    const nextPage = createOutbox({ store, send, setTimer: timers.setTimer, now: timers.now });
    // Nothing to send at once: it goes with the next page's own items (the same id is stored once).
    expect(nextPage.unsent()).toEqual([]);
    nextPage.add(event(2));
    expect(await timers.fire()).toBe(FLUSH_DELAY_MS);
    expect(send.mock.calls.map(([items, final]) => [items.map((item) => item.id), final])).toEqual([[[event(1).id, event(2).id], false]]);
    expect(nextPage.waiting()).toEqual([]);
  });

  it('keeps each request within the bytes the server takes: long page views go in several, in order', async () => {
    const store = memoryStore();
    // Filter pages with long query strings, titles in Vietnamese (3 bytes a letter in UTF-8).
    const page = (n: number): TrackItem => ({
      type: 'page',
      id: `page-${String(n).padStart(4, '0')}`,
      at: 1_700_000_000_000 + n,
      session_id: 's1',
      url: `https://shop.example.vn/collections/all?page=${n}&filter=${'màu-đỏ,'.repeat(200)}`.slice(0, 2000),
      title: 'Áo dài lụa tơ tằm thêu tay '.repeat(11).slice(0, 300),
    });
    store.setItem(OUTBOX_KEY, JSON.stringify(Array.from({ length: 60 }, (_, i) => page(i + 1))));
    const send = vi.fn(async (_items: TrackItem[], _final: boolean): Promise<SendResult> => 'ok');
    const outbox = createOutbox({ store, send, setTimer: () => undefined });
    await outbox.flush();
    // Each stored batch sends the next one.
    for (let turn = 0; turn < 20 && outbox.waiting().length > 0; turn++) await settle();
    const sent = send.mock.calls.map(([items]) => items);
    expect(sent.length).toBeGreaterThan(2);
    for (const items of sent) expect(new TextEncoder().encode(JSON.stringify(items)).length).toBeLessThanOrEqual(BATCH_BYTES);
    expect(sent.flat().map((item) => item.id)).toEqual(Array.from({ length: 60 }, (_, i) => page(i + 1).id));
    expect(outbox.waiting()).toEqual([]);
  });

  it('keeps what a refused beacon carried for the next page', async () => {
    const outbox = createOutbox({ store: memoryStore(), send: async (_items, final) => (final ? 'retry' : 'ok'), setTimer: () => undefined });
    outbox.add(event(1));
    await outbox.flush(true);
    expect(outbox.waiting()).toHaveLength(1);
  });
});
