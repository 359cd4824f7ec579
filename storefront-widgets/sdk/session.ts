import type { KeyValueStore } from './storage';

/** A visit ends after 30 minutes without activity: a page view, a scroll or an event (spec §9: "once a session (30m)"). */
export const SESSION_IDLE_MS = 30 * 60_000;
const SESSION_KEY = 'nudge_s';

/** A random id of 24 letters and digits (about 120 bits) from the browser's CSPRNG. */
export function randomId(): string {
  let id = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(24))) id += (byte % 36).toString(36);
  return id;
}

/** A session only has to differ from this browser's previous one: time plus a little randomness does. */
const sessionId = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 8);

/**
 * The current session's id: the stored one while the last activity is under 30 minutes old, a new one
 * otherwise. Each call counts as activity, so the session lasts while the visitor keeps browsing.
 */
export function touchSession(store: KeyValueStore, now: number, newId: () => string = sessionId): string {
  const [id, last] = (store.getItem(SESSION_KEY) || '').split('|');
  const idle = now - Number(last);
  const current = id && idle >= 0 && idle < SESSION_IDLE_MS ? id : newId();
  store.setItem(SESSION_KEY, `${current}|${now}`);
  return current;
}

/** The id of the session the loader touched on this page view ('' before any). */
export const currentSession = (store: KeyValueStore): string => (store.getItem(SESSION_KEY) || '').split('|')[0];
