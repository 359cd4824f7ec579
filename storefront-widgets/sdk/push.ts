import type { DeviceInfo } from '../../shared/contract/audience';
import type { PublicWebPush, PushSubscribeResult } from '../../shared/contract/platform';
import type { WidgetContext } from '../types';
import type { KeyValueStore } from './storage';

/*
 * chunks/push-<release>.js: web push on the shop's page, no Preact. The track chunk loads it where the
 * application has web push on and the browser can take it (pushSupported). It decides whether to offer the
 * subscription box, asks the browser only after the visitor said yes in it, registers the merchant's service
 * worker, subscribes, and keeps the server's copy of the subscription in step on every visit.
 */

/** When the visitor last said "later" in the box (epoch ms). */
export const DENIED_KEY = 'nudge_pd';
/** The endpoint the server was last told of. */
export const ENDPOINT_KEY = 'nudge_pe';
/** When the server was last told of it (epoch ms). */
export const REPORTED_KEY = 'nudge_pt';
/**
 * An unchanged subscription is told again after this long: the push service may have refused it for good since
 * (404, 410 or 400 to a message) while the browser still hands it out, which only the server's answer reveals.
 */
export const REPORT_MS = 864e5;
/** A "later" keeps the box away this long. */
export const DENY_MS = 7 * 864e5;
/**
 * When the SDK learned that the visitor unsubscribed on their playerinfo page (epoch ms; '' when subscribed): the
 * server's answer to a report says so. Their browser keeps the permission and the subscription, so the box is
 * offered to them again, not sooner than OPT_OUT_MS after, and their yes subscribes them with no prompt of the
 * browser's.
 */
export const OPTED_OUT_KEY = 'nudge_po';
/** An unsubscribe on the playerinfo page keeps the box away this long. */
export const OPT_OUT_MS = 30 * 864e5;

/** What this chunk exports. */
export interface PushModule {
  startPush(options: PushOptions): void;
}

/** What the subscription box chunk (chunks/pushbox-<release>.js) exports. */
export interface PushBoxModule {
  /** Shows the box; `answer(true)` on allow, `answer(false)` on deny or close. */
  showBox(box: PublicWebPush['box'], ctx: WidgetContext, answer: (allow: boolean) => void): void;
}

export interface PushOptions {
  ctx: WidgetContext;
  push: PublicWebPush;
  store: KeyValueStore;
  visitor: string;
  device: DeviceInfo;
  load: (name: string) => Promise<unknown>;
}

/**
 * Whether the box may be offered: no "later" within the last 7 days, and the permission not asked yet, or given
 * to a visitor who unsubscribed on their playerinfo page 30 days ago or longer (`optedOutAt`).
 */
export function mayOffer(permission: NotificationPermission, deniedAt: string | null, optedOutAt: string | null, now: number): boolean {
  if (now - Number(deniedAt) < DENY_MS) return false;
  return permission === 'default' || (permission === 'granted' && !!optedOutAt && !(now - Number(optedOutAt) < OPT_OUT_MS));
}

/**
 * Whether the browser's subscription is to be told to the server: new or changed since it was last told, told a
 * day ago or longer (REPORT_MS), or the visitor said yes in the box just now (`optIn`).
 */
export function mustReport(endpoint: string, told: string | null, toldAt: string | null, now: number, optIn?: true): boolean {
  return !!optIn || told !== endpoint || !(now - Number(toldAt) < REPORT_MS);
}

/** The VAPID key as PushManager wants it: base64url text to bytes. */
export function keyBytes(base64url: string): Uint8Array {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/**
 * Once the registration's worker is active, which subscribing needs. Not navigator.serviceWorker.ready: that waits
 * for a worker whose scope covers this page, and a worker served from a path in a folder (/apps/nudge/sw.js) covers
 * only that folder's pages, so elsewhere the visitor's yes waited forever and no subscription was stored. A worker
 * that failed to install ends the wait too (subscribing then fails, as it should).
 */
export function activated(registration: Pick<ServiceWorkerRegistration, 'active' | 'installing' | 'waiting'>): Promise<unknown> {
  const worker = registration.installing || registration.waiting;
  if (registration.active || !worker) return Promise.resolve();
  return new Promise((resolve) => worker.addEventListener('statechange', () => (worker.state === 'activated' || worker.state === 'redundant') && resolve(0)));
}

export function startPush({ ctx, push, store, visitor, device, load }: PushOptions): void {
  /** Answers the server's answer, or false when the call failed. */
  const post = <T>(path: string, body: object): Promise<{ data: T } | false> =>
    fetch(`${ctx.api}/api/sdk/push/${path}`, {
      method: 'POST',
      body: JSON.stringify({ key: ctx.key, visitor_id: visitor, ...body }),
      keepalive: true,
      credentials: 'omit',
    }).then((res) => res.ok && res.json());

  /**
   * Tells the server of the subscription. `opt_in` when the visitor said yes in the box just now: without it the
   * browser renewed the subscription by itself, which does not undo an unsubscribe on the playerinfo page; with it,
   * a subscription the browser kept through that unsubscribe counts again.
   */
  const report = (subscription: PushSubscription, opt_in?: true) => {
    const { device_type, os, browser, language, timezone } = device;
    return post<PushSubscribeResult>('subscribe', { subscription: subscription.toJSON(), device: { device_type, os, browser, language, timezone }, opt_in });
  };

  const subscribe = async (opt_in?: true) => {
    // The query tells the worker (sw.ts) whom to report to when the browser renews the subscription itself.
    const query = `?k=${encodeURIComponent(ctx.key)}&a=${encodeURIComponent(ctx.api)}&v=${visitor}`;
    const registration = await navigator.serviceWorker.register(push.sw_path + query);
    await activated(registration);
    const fresh = () =>
      registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(push.vapid_public_key) as BufferSource });
    let subscription = (await registration.pushManager.getSubscription()) || (await fresh());
    if (!mustReport(subscription.endpoint, store.getItem(ENDPOINT_KEY), store.getItem(REPORTED_KEY), Date.now(), opt_in)) return;
    let answer = await report(subscription, opt_in);
    if (answer && answer.data.renew) {
      // The push service refused this subscription for good, and the browser still hands it out: a new one instead.
      await subscription.unsubscribe();
      answer = await report((subscription = await fresh()), opt_in);
    }
    if (answer) {
      store.setItem(ENDPOINT_KEY, subscription.endpoint);
      store.setItem(REPORTED_KEY, String(Date.now()));
      // Not subscribed, though the browser has a subscription: the visitor unsubscribed on their playerinfo page.
      if (answer.data.subscribed) store.setItem(OPTED_OUT_KEY, '');
      else if (!store.getItem(OPTED_OUT_KEY)) store.setItem(OPTED_OUT_KEY, String(Date.now()));
    }
  };

  /** The box, after its delay; the browser's own prompt only after the visitor's yes in it. */
  const offer = () =>
    setTimeout(() => {
      (load('pushbox') as Promise<PushBoxModule>)
        .then((box) =>
          box.showBox(push.box, ctx, (allow) => {
            if (!allow) return store.setItem(DENIED_KEY, String(Date.now()));
            // Within the click. Where the permission is given already (a visitor back after unsubscribing on their
            // playerinfo page), the browser answers at once, without a prompt.
            Notification.requestPermission().then((answer) => {
              if (answer === 'granted') subscribe(true).catch(() => 0);
              else store.setItem(DENIED_KEY, String(Date.now()));
            });
          }),
        )
        .catch(() => 0);
    }, push.box.delay_seconds * 1000);

  const mayOfferNow = () => mayOffer(Notification.permission, store.getItem(DENIED_KEY), store.getItem(OPTED_OUT_KEY), Date.now());

  const permission = Notification.permission;
  if (permission === 'granted') {
    // Every visit: a subscription that vanished (cleared site data, expired) is made again, a changed one reported;
    // a visitor who unsubscribed on their playerinfo page is offered the box again after a while.
    subscribe()
      .catch(() => 0)
      .then(() => mayOfferNow() && offer());
    return;
  }
  if (permission === 'denied') {
    // The visitor withdrew the permission in the browser's settings: the server stops sending to whatever this
    // browser holds. Not only to the endpoint the page last told it: the service worker may have renewed the
    // subscription since, telling the server of one the page never saw.
    if (store.getItem(ENDPOINT_KEY)) post<object>('unsubscribe', {}).then((done) => done && store.setItem(ENDPOINT_KEY, ''), () => 0);
    return;
  }
  if (mayOfferNow()) offer();
}
