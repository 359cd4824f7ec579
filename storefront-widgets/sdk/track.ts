import type { TrackItem } from '../../shared/contract/audience';
import type { PublicConfig } from '../../shared/contract/widget';
import type { NudgeQueue } from '../loader/boot';
import { scrollFraction } from '../loader/rules';
import type { WidgetContext } from '../types';
import { deviceFacts, itemId, itemOfCall, newQuarters, utmOf } from './collect';
import { createOutbox, type SendResult } from './outbox';
import type { PushModule } from './push';
import { currentSession, touchSession } from './session';
import { store as pageStore } from './storage';
import { parseUserAgent } from './ua';
import { visitorId } from './visitor';

/**
 * chunks/track-<release>.js: collection, loaded by the loader once the config is in; no Preact. It takes
 * over the `nudge(...)` queue: ('event', name, props), ('set', attributes), ('identify', id | {…}),
 * ('playerinfo'), and ('show', id) through the loader's `show`. It records the session (30 minutes idle),
 * page views (SPA navigations included), scroll quarters and the device, and sends them in batches to
 * POST /api/sdk/track through the outbox (sdk/outbox.ts).
 */

/** The key under which the last session that was reported is kept: a different current one is a new session. */
const REPORTED_SESSION = 'nudge_ts';

/**
 * The key under which the device facts the server last took are kept, with the session they went with
 * (`<session>|<facts as JSON>`): a batch carries the facts only when they differ from these, so once a session, and
 * again when they change (another language, a new timezone offset). They are kept after an answer of 200 only, so
 * a batch that was refused or lost is followed by one that carries them again. A player deleted meanwhile (in the
 * console, or on the shopper's request) comes back without them until the next session.
 */
const SENT_DEVICE = 'nudge_d';

/** Whether this browser can take web push at all: where it cannot, the push chunk is not loaded. */
export const pushSupported = (): boolean => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** What the loader hands over. */
export interface CollectOptions {
  ctx: WidgetContext;
  config: PublicConfig;
  queue: NudgeQueue;
  /** Shows a widget now, whatever its rules (`nudge('show', id)`). */
  show: (id: number) => void;
  /** Imports chunks/<name>-<release>.js. */
  load: (name: string) => Promise<unknown>;
}

/** The track chunk's export. */
export interface TrackModule {
  collect(options: CollectOptions): () => void;
}

/** Starts collection on this page; returns what stops it (the page's end does that in a browser; tests call it). */
export function collect({ ctx, config, queue, show, load }: CollectOptions): () => void {
  // The page's one store, as the widgets' calls use (send.ts): one visitor id on the page even where storage throws.
  const store = pageStore();
  const visitor = visitorId(store);
  const device = deviceFacts(ctx.mobile, parseUserAgent(navigator.userAgent));
  const endpoint = `${ctx.api}/api/sdk/track`;

  const facts = JSON.stringify(device);

  const send = async (items: TrackItem[], final: boolean): Promise<SendResult> => {
    const sent = `${currentSession(store)}|${facts}`;
    const withDevice = store.getItem(SENT_DEVICE) !== sent;
    const body = JSON.stringify({ key: ctx.key, visitor_id: visitor, ...(withDevice && { device }), items });
    if (final) {
      try {
        // text/plain: a "simple" request, as every SDK post.
        return navigator.sendBeacon(endpoint, body) ? 'ok' : 'retry';
      } catch {
        return 'retry';
      }
    }
    try {
      const res = await fetch(endpoint, { method: 'POST', body, keepalive: body.length < 60_000, credentials: 'omit' });
      if (res.ok) {
        if (withDevice) store.setItem(SENT_DEVICE, sent);
        return 'ok';
      }
      // A refused batch would be refused forever; a busy or limited server is asked again later, when it said.
      return res.status === 400 || res.status === 404 || res.status === 413 ? 'drop' : +(res.headers.get('retry-after') ?? '') * 1000 || 'retry';
    } catch {
      return 'retry';
    }
  };
  const outbox = createOutbox({ store, send });

  let session = '';
  /** Activity: keeps the session alive, and reports a new one with its landing page's UTM and referrer. */
  const touch = (now: number) => {
    session = touchSession(store, now);
    if (store.getItem(REPORTED_SESSION) === session) return;
    store.setItem(REPORTED_SESSION, session);
    const item: TrackItem = { type: 'session', id: itemId(), at: now, session_id: session, utm: utmOf(location.href) };
    const referrer = document.referrer;
    if (referrer && new URL(referrer).host !== location.host) item.referrer = referrer.slice(0, 2000);
    outbox.add(item);
  };

  let page = '';
  let quarters: number[] = [];
  const pageView = () => {
    if (location.href === page) return;
    page = location.href;
    quarters = [];
    const now = Date.now();
    touch(now);
    outbox.add({ type: 'page', id: itemId(), at: now, session_id: session, url: page.slice(0, 2000), title: document.title.slice(0, 300) });
  };

  // Scrolling to a new quarter is activity, as a page view or an event: a visitor reading a long page stays in
  // the session, and one coming back to it after 30 idle minutes starts a new one.
  const scrolled = () => {
    const fraction = scrollFraction(scrollY, innerHeight, document.documentElement.scrollHeight);
    for (const depth of newQuarters(fraction, quarters)) {
      const now = Date.now();
      touch(now);
      quarters.push(depth);
      outbox.add({ type: 'scroll', id: itemId(), at: now, session_id: session, url: page.slice(0, 2000), depth });
    }
  };

  // What earlier pages could not send goes first, at once; what their beacons carried, with this page's view.
  if (outbox.unsent().length) void outbox.flush();
  pageView();
  // Single-page shops change the URL without loading a page: each change is a page view.
  const pushState = history.pushState;
  history.pushState = function (...args: Parameters<History['pushState']>) {
    pushState.apply(this, args);
    pageView();
  };
  const leave = () => void outbox.flush(true);
  const hidden = () => document.visibilityState === 'hidden' && leave();
  addEventListener('scroll', scrolled, { passive: true });
  addEventListener('popstate', pageView);
  addEventListener('pagehide', leave);
  document.addEventListener('visibilitychange', hidden);

  const run = (args: ArrayLike<unknown>) => {
    if (args[0] === 'show') return show(Number(args[1]));
    if (args[0] === 'playerinfo') {
      open(`${ctx.api}/application/${encodeURIComponent(config.application_id)}/playerinfo?device=${visitor}`, '_blank', 'noopener');
      return;
    }
    const now = Date.now();
    if (args[0] === 'event') touch(now);
    const item = itemOfCall(args, session, now);
    if (item) outbox.add(item);
  };
  // Queued calls run now; later ones go straight through, since the snippet pushes into `nudge.q` whatever it is.
  const pending = queue.q as ArrayLike<unknown>[] | undefined;
  queue.q = { push: run };
  if (Array.isArray(pending)) pending.forEach(run);

  const push = config.push;
  if (push && pushSupported()) (load('push') as Promise<PushModule>).then((m) => m.startPush({ ctx, push, store, visitor, device, load })).catch(() => 0);
  return () => {
    history.pushState = pushState;
    removeEventListener('scroll', scrolled);
    removeEventListener('popstate', pageView);
    removeEventListener('pagehide', leave);
    document.removeEventListener('visibilitychange', hidden);
  };
}
