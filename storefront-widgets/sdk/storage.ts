/** The little of Storage the widgets use. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * First-party localStorage, read afresh on every call: other tabs of the shop write it too (the session's last
 * activity, the outbox), and a copy kept by this page would miss their writes, so a shopper back in an older tab
 * after browsing in another started a new session. A key whose write throws (Safari's private mode, blocked site
 * data, a full quota) is kept in a map for as long as the page lives and read back from there, so the rules still
 * hold for this page view and a failed write never shows a stale value.
 */
export function safeStorage(): KeyValueStore {
  const memory: Record<string, string> = {};
  return {
    getItem(key) {
      if (key in memory) return memory[key];
      try {
        return localStorage.getItem(key);
      } catch {
        return null;
      }
    },
    setItem(key, value) {
      try {
        localStorage.setItem(key, value);
        delete memory[key];
      } catch {
        memory[key] = value;
      }
    },
  };
}

let shared: KeyValueStore | undefined;
/** The page's one store, opened on first use (widgets share it through the runtime chunk). */
export const store = (): KeyValueStore => (shared ??= safeStorage());
