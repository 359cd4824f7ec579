import { randomId } from './session';
import type { KeyValueStore } from './storage';

const VISITOR_KEY = 'nudge_v';

/** This browser's anonymous visitor id, made once and kept in first-party storage. */
export function visitorId(store: KeyValueStore): string {
  let id = store.getItem(VISITOR_KEY);
  if (!id || !/^[\w-]{8,64}$/.test(id)) {
    id = randomId();
    store.setItem(VISITOR_KEY, id);
  }
  return id;
}
