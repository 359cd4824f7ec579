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

/** Whether the box may be offered: permission not asked yet, and no "later" within the last 7 days. */
export function mayOffer(permission: NotificationPermission, deniedAt: string | null, now: number): boolean {
  return permission === 'default' && !(now - Number(deniedAt) < DENY_MS);
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
    await navigator.serviceWorker.ready;
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
    }
  };

  const permission = Notification.permission;
  if (permission === 'granted') {
    // Every visit: a subscription that vanished (cleared site data, expired) is made again, a changed one reported.
    subscribe().catch(() => 0);
    return;
  }
  if (permission === 'denied') {
    // The visitor withdrew the permission in the browser's settings: the server stops sending.
    const endpoint = store.getItem(ENDPOINT_KEY);
    if (endpoint) post<object>('unsubscribe', { endpoint }).then((done) => done && store.setItem(ENDPOINT_KEY, ''), () => 0);
    return;
  }
  if (!mayOffer(permission, store.getItem(DENIED_KEY), Date.now())) return;
  setTimeout(() => {
    (load('pushbox') as Promise<PushBoxModule>)
      .then((box) =>
        box.showBox(push.box, ctx, (allow) => {
          if (!allow) return store.setItem(DENIED_KEY, String(Date.now()));
          // The browser's own prompt comes only now, after the visitor's yes (and within its click).
          Notification.requestPermission().then((answer) => {
            if (answer === 'granted') subscribe(true).catch(() => 0);
            else store.setItem(DENIED_KEY, String(Date.now()));
          });
        }),
      )
      .catch(() => 0);
  }, push.box.delay_seconds * 1000);
}
