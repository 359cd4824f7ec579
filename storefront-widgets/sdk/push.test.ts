import { describe, expect, it } from 'vitest';
import { DENY_MS, OPT_OUT_MS, REPORT_MS, activated, keyBytes, mayOffer, mustReport } from './push';

describe('the subscription box offer', () => {
  const now = 1_700_000_000_000;

  it('is made only while the browser has not asked yet', () => {
    expect(mayOffer('default', null, null, now)).toBe(true);
    expect(mayOffer('granted', null, null, now)).toBe(false);
    expect(mayOffer('denied', null, null, now)).toBe(false);
  });

  it('waits 7 days after the visitor said "later"', () => {
    expect(mayOffer('default', String(now - DENY_MS + 60_000), null, now)).toBe(false);
    expect(mayOffer('default', String(now - DENY_MS), null, now)).toBe(true);
  });

  it('is made again, with the permission given, 30 days after the visitor unsubscribed on their playerinfo page', () => {
    expect(mayOffer('granted', null, String(now - OPT_OUT_MS + 60_000), now)).toBe(false);
    expect(mayOffer('granted', null, String(now - OPT_OUT_MS), now)).toBe(true);
    // A "later" to that offer keeps it away 7 days more.
    expect(mayOffer('granted', String(now - DENY_MS + 60_000), String(now - OPT_OUT_MS), now)).toBe(false);
    // Subscribed ('' kept once the server says so): never.
    expect(mayOffer('granted', null, '', now)).toBe(false);
    // Withdrawn in the browser's settings: the browser would not ask.
    expect(mayOffer('denied', null, String(now - OPT_OUT_MS), now)).toBe(false);
  });
});

describe('the VAPID key', () => {
  it('turns base64url text into the bytes PushManager wants', () => {
    const bytes = Uint8Array.from({ length: 65 }, (_, i) => (i * 37) % 256);
    expect(Array.from(keyBytes(Buffer.from(bytes).toString('base64url')))).toEqual(Array.from(bytes));
  });
});

describe("telling the server of the browser's subscription", () => {
  const now = 1_700_000_000_000;
  const endpoint = 'https://fcm.googleapis.com/fcm/send/abc';

  it('tells a new or changed subscription', () => {
    expect(mustReport(endpoint, null, null, now)).toBe(true);
    expect(mustReport(endpoint, 'https://fcm.googleapis.com/fcm/send/old', String(now), now)).toBe(true);
  });

  it('tells an unchanged one again a day later, when the push service may have dropped it', () => {
    expect(mustReport(endpoint, endpoint, String(now - REPORT_MS + 60_000), now)).toBe(false);
    expect(mustReport(endpoint, endpoint, String(now - REPORT_MS), now)).toBe(true);
    // Told before the time was kept.
    expect(mustReport(endpoint, endpoint, null, now)).toBe(true);
  });

  it("always tells the visitor's yes in the box", () => {
    expect(mustReport(endpoint, endpoint, String(now), now, true)).toBe(true);
  });
});

describe('the service worker registered for subscribing', () => {
  /** A worker going through its states as the browser moves it on. */
  function worker(state: ServiceWorkerState) {
    const listeners: (() => void)[] = [];
    const self = {
      state,
      addEventListener: (_type: string, listener: () => void) => listeners.push(listener),
      moveTo(next: ServiceWorkerState) {
        self.state = next;
        for (const listener of listeners) listener();
      },
    };
    return self;
  }
  const settled = async (promise: Promise<unknown>) => Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20))]);

  it('is ready once its own worker is active, whatever pages its scope covers', async () => {
    expect(await settled(activated({ active: {} as ServiceWorker, installing: null, waiting: null }))).toBe(true);
    const installing = worker('installing');
    const wait = activated({ active: null, installing: installing as unknown as ServiceWorker, waiting: null });
    installing.moveTo('installed');
    installing.moveTo('activating');
    expect(await settled(wait)).toBe(false);
    installing.moveTo('activated');
    expect(await settled(wait)).toBe(true);
  });

  it('ends the wait when the worker fails to install, so subscribing fails instead of hanging', async () => {
    const failing = worker('installing');
    const wait = activated({ active: null, installing: null, waiting: failing as unknown as ServiceWorker });
    failing.moveTo('redundant');
    expect(await settled(wait)).toBe(true);
  });
});
