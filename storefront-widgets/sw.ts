/**
 * dist/sdk/sw.js: Nudge's part of the shop's service worker. The merchant hosts a one-line file at the
 * configured path on the shop's own origin (default /nudge-sw.js):
 *
 *     importScripts('https://NUDGE_HOST/sdk/sw.js');
 *
 * The SDK registers that file as `<path>?k=<client key>&a=<API origin>&v=<visitor id>`, which is how this
 * code knows whom to tell when the browser renews the subscription on its own.
 *
 * The push payload (what issue 6's sender sends, JSON, encrypted per RFC 8291):
 *
 *     {
 *       "title": "Sale starts now",            required
 *       "body": "Everything −30 % until Sunday",
 *       "icon": "https://shop.example/icon.png",
 *       "image": "https://shop.example/banner.jpg",
 *       "url": "https://shop.example/sale",     opened on a click on the notification
 *       "buttons": [{ "action": "buy", "title": "Buy now", "url": "https://shop.example/cart" }],
 *       "message_id": "m_123",                  echoed in the reports
 *       "key": "<client key>",                  where to report (else the registration's k and a)
 *       "api": "https://NUDGE_HOST"
 *     }
 *
 * push → showNotification(title, {body, tag: message_id, icon, image, actions, data}) and POST /api/sdk/push/report
 * {kind: 'delivered'}; notificationclick → opens the button's URL (or the notification's; a tab already at that URL
 * is brought to the front instead) and reports
 * {kind: 'clicked', action}; pushsubscriptionchange → subscribes again and tells POST /api/sdk/push/subscribe
 * (or /unsubscribe when it can't); without the visitor's yes (`opt_in`), which the server takes as a renewal that
 * leaves a visitor who unsubscribed on the playerinfo page unsubscribed.
 */

export interface PushPayload {
  title?: string;
  body?: string;
  icon?: string;
  image?: string;
  url?: string;
  buttons?: { action: string; title: string; url?: string }[];
  message_id?: string;
  key?: string;
  api?: string;
}

/** What a notification carries to its click. */
interface NotificationData {
  url?: string;
  message_id?: string;
  actions: Record<string, string>;
  key?: string;
  api?: string;
}

type Waitable = { waitUntil(promise: Promise<unknown>): void };
type PushEventLike = Waitable & { data: { json(): unknown } | null };
type ClickEventLike = Waitable & { action: string; notification: { data: NotificationData | null; close(): void } };
type ChangeEventLike = Waitable & {
  oldSubscription?: PushSubscription | null;
  newSubscription?: PushSubscription | null;
};

/** The part of ServiceWorkerGlobalScope this code uses (a fake one in the tests). */
export interface WorkerScope {
  location: { search: string };
  registration: {
    /** The shop's URL the worker serves (its path's folder); a click on a notification without a link opens its origin's home. */
    scope: string;
    showNotification(title: string, options: NotificationOptions & { image?: string; actions?: { action: string; title: string }[] }): Promise<void>;
    pushManager: {
      getSubscription(): Promise<PushSubscription | null>;
      subscribe(options: PushSubscriptionOptionsInit): Promise<PushSubscription>;
    };
  };
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly { url: string; focus?(): Promise<unknown> }[]>;
    openWindow(url: string): Promise<unknown>;
  };
  fetch: typeof fetch;
  addEventListener(type: string, listener: (event: never) => void): void;
}

/** A picture (icon, image): HTTPS only, as the shop's pages are served. */
const https = (value: unknown): string | undefined =>
  typeof value === 'string' && /^https:\/\//i.test(value) ? value : undefined;
/** A link a click opens: the web's own, HTTP or HTTPS, as the composer takes them (never javascript: or data:). */
const link = (value: unknown): string | undefined =>
  typeof value === 'string' && /^https?:\/\//i.test(value) ? value : undefined;

/** Where and as whom to report: the payload's key and API, else those the SDK registered the worker with. */
function target(scope: WorkerScope, from: { key?: string; api?: string }) {
  const params = new URLSearchParams(scope.location.search);
  return { key: from.key || params.get('k') || '', api: from.api || params.get('a') || '', visitor: params.get('v') || '' };
}

/** The waits before a report is sent again, after a lost network or a busy server (429, 5xx). */
export const REPORT_RETRY_MS = [1_000, 4_000];

/**
 * Posts a report, sent again after REPORT_RETRY_MS while the network is lost or the server busy: a shown or clicked
 * notification reported once was lost from the message's statistics by one network blip. The server counts each
 * step of a delivery once (server/delivery/reports.ts), so a report it took whose answer was lost counts once. One
 * it refused (4xx) is not sent again.
 */
async function post(scope: WorkerScope, api: string, path: string, body: object): Promise<boolean> {
  if (!api) return false;
  for (let attempt = 0; ; attempt += 1) {
    let status = 0;
    try {
      const res = await scope.fetch(`${api}/api/sdk/push/${path}`, { method: 'POST', body: JSON.stringify(body), credentials: 'omit' });
      if (res.ok) return true;
      status = res.status;
    } catch {
      // the network: asked again below
    }
    if ((status >= 400 && status < 500 && status !== 429) || attempt >= REPORT_RETRY_MS.length) return false;
    await new Promise((resolve) => setTimeout(resolve, REPORT_RETRY_MS[attempt]));
  }
}

const endpointOf = async (scope: WorkerScope) => (await scope.registration.pushManager.getSubscription().catch(() => null))?.endpoint;

/** A push: shows the notification, then reports it delivered. */
export async function onPush(scope: WorkerScope, event: PushEventLike): Promise<void> {
  let payload: PushPayload = {};
  try {
    payload = (event.data?.json() as PushPayload) || {};
  } catch {
    // not JSON: shown with an empty title rather than not at all (userVisibleOnly promises a notification)
  }
  const buttons = Array.isArray(payload.buttons) ? payload.buttons.filter((b) => b && b.action && b.title).slice(0, 2) : [];
  const data: NotificationData = {
    url: link(payload.url),
    message_id: payload.message_id,
    actions: Object.fromEntries(buttons.flatMap((b) => (link(b.url) ? [[b.action, link(b.url)!]] : []))),
    key: payload.key,
    api: payload.api,
  };
  await scope.registration.showNotification(payload.title || '', {
    body: payload.body,
    // The same message delivered again (a push service may retry) replaces its notification, not a second one.
    ...(payload.message_id ? { tag: payload.message_id } : {}),
    icon: https(payload.icon),
    image: https(payload.image),
    actions: buttons.map(({ action, title }) => ({ action, title })),
    data,
  });
  const { key, api } = target(scope, payload);
  await post(scope, api, 'report', { key, kind: 'delivered', message_id: payload.message_id, endpoint: await endpointOf(scope) });
}

/** Brings the shop's tab already at `url` to the front, else opens one. */
async function openOrFocus(scope: WorkerScope, url: string): Promise<unknown> {
  const tabs = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true }).catch(() => []);
  const href = new URL(url).href;
  const open = tabs.find((tab) => tab.url === href && tab.focus);
  return open?.focus ? open.focus() : scope.clients.openWindow(url);
}

/** The shop's home page: the root of the worker's origin, whatever folder the worker is served from (its scope). */
const shopHome = (scope: WorkerScope) => link(scope.registration.scope) && new URL('/', scope.registration.scope).href;

/**
 * A click on the notification or one of its buttons: opens its URL (or the tab already there), the shop itself for a
 * notification without one, and reports the click.
 */
export async function onClick(scope: WorkerScope, event: ClickEventLike): Promise<void> {
  event.notification.close();
  const data = event.notification.data || { actions: {} };
  const url = (event.action && data.actions?.[event.action]) || data.url || shopHome(scope);
  const { key, api } = target(scope, data);
  await Promise.all([
    url ? openOrFocus(scope, url).catch(() => null) : null,
    post(scope, api, 'report', {
      key,
      kind: 'clicked',
      message_id: data.message_id,
      endpoint: await endpointOf(scope),
      ...(event.action ? { action: event.action } : {}),
    }),
  ]);
}

/** The browser renewed or dropped the subscription: subscribe again with the same key and tell the server. */
export async function onSubscriptionChange(scope: WorkerScope, event: ChangeEventLike): Promise<void> {
  const { key, api, visitor } = target(scope, {});
  const old = event.oldSubscription;
  let fresh = event.newSubscription || null;
  if (!fresh && old?.options?.applicationServerKey) {
    fresh = await scope.registration.pushManager
      .subscribe({ userVisibleOnly: true, applicationServerKey: old.options.applicationServerKey })
      .catch(() => null);
  }
  if (!visitor) return;
  if (fresh) await post(scope, api, 'subscribe', { key, visitor_id: visitor, subscription: fresh.toJSON() });
  else if (old) await post(scope, api, 'unsubscribe', { key, visitor_id: visitor, endpoint: old.endpoint });
}

/** Wires the handlers into a worker scope. */
export function installServiceWorker(scope: WorkerScope): void {
  scope.addEventListener('push', (event: PushEventLike) => event.waitUntil(onPush(scope, event)));
  scope.addEventListener('notificationclick', (event: ClickEventLike) => event.waitUntil(onClick(scope, event)));
  scope.addEventListener('pushsubscriptionchange', (event: ChangeEventLike) => event.waitUntil(onSubscriptionChange(scope, event)));
}

declare const ServiceWorkerGlobalScope: { new (): unknown } | undefined;
if (typeof ServiceWorkerGlobalScope !== 'undefined' && self instanceof ServiceWorkerGlobalScope) {
  installServiceWorker(self as unknown as WorkerScope);
}
