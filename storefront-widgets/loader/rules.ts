import type { DisplayRules, PageRule } from '../../shared/contract/widget';

/**
 * The display rules of a widget (issue 3, spec §9), as pure functions of the page's facts, so the loader
 * can decide without loading a widget's code whether it will ever show.
 */

export type Device = 'desktop' | 'mobile';

const DAY_MS = 864e5;

const trimSlash = (s: string) => s.replace(/\/+$/, '');

/**
 * Whether the page's URL passes the page rules: no `excludes` value appears in it, and when there are
 * `contains`/`equals` rules, at least one of them matches. Letters are compared without case; `equals`
 * takes a full URL or a path (with or without its query), and ignores a trailing slash and the #fragment.
 */
export function pageAllowed(rules: PageRule[], href: string): boolean {
  const url = new URL(href.toLowerCase());
  const { origin, pathname, search } = url;
  const here = [origin + pathname + search, origin + pathname, pathname + search, pathname].map(trimSlash);
  let positive = false;
  let matched = false;
  for (const { match, value } of rules) {
    const wanted = value.trim().toLowerCase();
    const hit = match === 'equals' ? here.includes(trimSlash(wanted)) : url.href.includes(wanted);
    if (match === 'excludes') {
      if (hit) return false;
    } else {
      positive = true;
      matched ||= hit;
    }
  }
  return !positive || matched;
}

/** Phones by their user agent, or any window narrower than a tablet. Tablets count as desktop. */
export function deviceOf(viewportWidth: number, userAgent: string): Device {
  return viewportWidth < 768 || /Mobi|iPhone|iPod/i.test(userAgent) ? 'mobile' : 'desktop';
}

/** Within the widget's start and end dates (either may be absent; an unreadable date constrains nothing). */
export function inDates(rules: Pick<DisplayRules, 'start_at' | 'end_at'>, now: number): boolean {
  return !(rules.start_at && now < Date.parse(rules.start_at)) && !(rules.end_at && now >= Date.parse(rules.end_at));
}

/** What the loader knows of the page when it reads the config. */
export interface PageFacts {
  href: string;
  device: Device;
  now: number;
}

/** Whether the page, the device and today's date allow the widget at all (the triggers come after). */
export function eligible(rules: DisplayRules, page: PageFacts): boolean {
  return pageAllowed(rules.pages, page.href) && rules.devices.includes(page.device) && inDates(rules, page.now);
}

/** How far down the page the visitor has scrolled, from 0 (top) to 1 (end); a page that doesn't scroll counts as read. */
export function scrollFraction(scrollY: number, viewportHeight: number, documentHeight: number): number {
  const room = documentHeight - viewportHeight;
  return room <= 1 ? 1 : scrollY / room;
}

/** Whether the scroll rule (25, 50, 75 or 100 %) is met, within 2 % (the end of a page is rarely reached to the pixel). */
export function scrollReached(rule: DisplayRules['scroll'], fraction: number): boolean {
  return rule === 'none' || fraction >= Number(rule) * 0.0098;
}

/** The pointer left the window through its top edge: heading for the tabs or the address bar. */
export function isExitIntent(event: { clientY: number; relatedTarget: EventTarget | null }): boolean {
  return !event.relatedTarget && event.clientY <= 0;
}

/** A showing as it is stored: the session it happened in and when. */
export const showingRecord = (session: string, now: number): string => `${session}|${now}`;

/**
 * Whether the frequency rule lets the widget show again, given the stored record of its last showing:
 * every page; once a session (30 minutes idle); once a day (24 hours since the last showing); once ever.
 */
export function frequencyAllows(frequency: DisplayRules['frequency'], record: string | null, session: string, now: number): boolean {
  if (!record || frequency === 'every_page') return true;
  const [lastSession, at] = record.split('|');
  if (frequency === 'once_session') return lastSession !== session;
  if (frequency === 'once_day') return !(now - Number(at) < DAY_MS);
  return false;
}
