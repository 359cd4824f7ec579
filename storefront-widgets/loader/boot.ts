import type { PublicConfig, PublicWidget } from '../../shared/contract/widget';
import { touchSession } from '../sdk/session';
import { safeStorage } from '../sdk/storage';
import type { TrackModule } from '../sdk/track';
import type { WidgetContext, WidgetModule } from '../types';
import { deviceOf, eligible, frequencyAllows, isExitIntent, scrollFraction, scrollReached, showingRecord } from './rules';

/** `window.nudge`: the queue the shop may call before the loader has run, as in the snippet. */
export type NudgeQueue = ((...args: unknown[]) => void) & { q?: { push(args: ArrayLike<unknown>): unknown }; l?: 1 };

declare global {
  interface Window {
    nudge?: NudgeQueue;
  }
}

/**
 * Starts Nudge on a shop's page: defines the call queue, reads the application's public config, loads the
 * collection chunk (chunks/track-<release>.js, which takes over the queue), and for each widget the page,
 * device and dates allow, waits for its triggers (delay, then scroll depth, then exit intent on desktop),
 * checks its frequency, and only then loads its chunk (once per chunk) and mounts it.
 *
 * `script` is the loader's own tag (document.currentScript): its data-app is the client key, its URL gives
 * the API's origin and the chunks' folder. `release` names this build's chunks (chunks/<type>-<release>.js
 * and chunks/runtime-<release>.js, next to the loader). `importer` is `import()`.
 */
export function boot(
  script: HTMLScriptElement | null,
  release: string,
  importer: (url: string) => Promise<unknown>,
): void {
  const queue: NudgeQueue =
    window.nudge ||
    (window.nudge = function () {
      // The snippet's shape: the raw arguments object, replayed once the config is in.
      (queue.q ||= [] as ArrayLike<unknown>[]).push(arguments);
    });
  if (queue.l) return;
  queue.l = 1;

  const doc = document;
  const key = script?.dataset.app;
  if (!key) return;
  const base = script!.src;
  const api = new URL(base).origin;
  const store = safeStorage();
  const session = touchSession(store, Date.now());
  const device = deviceOf(innerWidth, navigator.userAgent);
  const ctx: WidgetContext = { api, key, lang: /^vi\b/i.test(navigator.language) ? 'vi' : 'en', mobile: device === 'mobile' };
  const modules: Record<string, Promise<unknown>> = {};
  const load = (name: string) => (modules[name] ||= importer(new URL(`chunks/${name}-${release}.js`, base).href));
  const shown: Record<number, 1> = {};

  const show = (widget: PublicWidget, forced?: boolean) => {
    const record = 'nudge_f' + widget.id;
    if (shown[widget.id] || !(forced || frequencyAllows(widget.rules.frequency, store.getItem(record), session, Date.now()))) return;
    shown[widget.id] = 1;
    // Fetched beside the widget's chunk rather than after it, once the chunk's own import is parsed.
    load('runtime').catch(() => 0);
    (load(widget.type) as Promise<WidgetModule>).then(
      (module) => module.mount(widget, ctx) && store.setItem(record, showingRecord(session, Date.now())),
      () => delete shown[widget.id],
    );
  };

  const afterScroll = (rule: PublicWidget['rules']['scroll'], next: () => void) => {
    if (rule === 'none') return next();
    const check = () => {
      if (!scrollReached(rule, scrollFraction(scrollY, innerHeight, doc.documentElement.scrollHeight))) return;
      removeEventListener('scroll', check);
      next();
    };
    addEventListener('scroll', check, { passive: true });
    // The page's height means little before it has loaded: a half-parsed page would count as read.
    if (doc.readyState === 'complete') check();
    else addEventListener('load', check);
  };

  const arm = (widget: PublicWidget) => {
    const { rules } = widget;
    const go = () => show(widget);
    const leave = (event: MouseEvent) => {
      if (!isExitIntent(event)) return;
      doc.removeEventListener('mouseout', leave);
      go();
    };
    setTimeout(
      () => afterScroll(rules.scroll, () => (rules.exit_intent && device === 'desktop' ? doc.addEventListener('mouseout', leave) : go())),
      rules.delay_seconds * 1000,
    );
  };

  const start = (config: PublicConfig) => {
    const widgets = config.widgets || [];
    const page = { href: location.href, device, now: Date.now() };
    widgets.forEach((widget) => eligible(widget.rules, page) && arm(widget));
    // Collection (sdk/track.ts) takes over the `nudge(...)` queue; `nudge('show', id)` comes back here and
    // shows a widget now, whatever its rules.
    (load('track') as Promise<TrackModule>).then((track) =>
      track.collect({
        ctx,
        config,
        queue,
        load,
        show: (id) => {
          const widget = widgets.find((w) => w.id === id);
          if (widget) show(widget, true);
        },
      }),
    );
  };

  // A cross-origin fetch carries no cookies; the config is public and cacheable (ETag).
  fetch(`${api}/api/sdk/config?key=${encodeURIComponent(key)}`)
    .then((res) => res.json())
    .then(({ success, data }: { success: boolean; data: PublicConfig }) => success && start(data))
    .catch(() => 0);
}
