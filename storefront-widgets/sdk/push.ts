import type { DeviceInfo } from '../../shared/contract/audience';
import type { PublicWebPush } from '../../shared/contract/platform';
import type { WidgetContext } from '../types';
import type { KeyValueStore } from './storage';

/*
 * Web push on the shop's page (part of the track chunk, no Preact): decides whether to offer the
 * subscription box, asks the browser only after the visitor said yes in it, registers the merchant's service
 * worker, subscribes, and keeps the server's copy of the subscription in step on every visit.
 */

/** When the visitor last said "later" in the box (epoch ms). */
export const DENIED_KEY = 'nudge_pd';
/** The endpoint the server was last told of. */
export const ENDPOINT_KEY = 'nudge_pe';
/** A "later" keeps the box away this long. */
export const DENY_MS = 7 * 864e5;

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

/** Whether this browser can take web push at all. */
export const pushSupported = (): boolean => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** Whether the box may be offered: permission not asked yet, and no "later" within the last 7 days. */
export function mayOffer(permission: NotificationPermission, deniedAt: string | null, now: number): boolean {
  return permission === 'default' && !(now - Number(deniedAt) < DENY_MS);
}

/** The VAPID key as PushManager wants it: base64url text to bytes. */
export function keyBytes(base64url: string): Uint8Array {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

export function startPush({ ctx, push, store, visitor, device, load }: PushOptions): void {
  if (!pushSupported()) return;
  const post = (path: string, body: object) =>
    fetch(`${ctx.api}/api/sdk/push/${path}`, {
      method: 'POST',
      body: JSON.stringify({ key: ctx.key, visitor_id: visitor, ...body }),
      keepalive: true,
      credentials: 'omit',
    }).then((res) => res.ok);

  /**
   * Tells the server of the browser's subscription when it is new or changed, or when the visitor said yes in the
   * box just now (`opt_in`). Without that yes the browser renewed it, which does not undo an unsubscribe on the
   * playerinfo page; with it, a subscription the browser kept through that unsubscribe counts again.
   */
  const report = async (subscription: PushSubscription, opt_in?: true) => {
    if (!opt_in && store.getItem(ENDPOINT_KEY) === subscription.endpoint) return;
    const { device_type, os, browser, language, timezone } = device;
    if (await post('subscribe', { subscription: subscription.toJSON(), device: { device_type, os, browser, language, timezone }, opt_in })) {
      store.setItem(ENDPOINT_KEY, subscription.endpoint);
    }
  };

  const subscribe = async (opt_in?: true) => {
    // The query tells the worker (sw.ts) whom to report to when the browser renews the subscription itself.
    const query = `?k=${encodeURIComponent(ctx.key)}&a=${encodeURIComponent(ctx.api)}&v=${visitor}`;
    const registration = await navigator.serviceWorker.register(push.sw_path + query);
    await navigator.serviceWorker.ready;
    const subscription =
      (await registration.pushManager.getSubscription()) ||
      (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(push.vapid_public_key) as BufferSource }));
    await report(subscription, opt_in);
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
    if (endpoint) post('unsubscribe', { endpoint }).then((done) => done && store.setItem(ENDPOINT_KEY, ''), () => 0);
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
