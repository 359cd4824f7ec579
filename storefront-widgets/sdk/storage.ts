/** The little of Storage the widgets use. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * First-party localStorage, backed by a map that lives as long as the page: where storage throws
 * (Safari's private mode, blocked site data, a full quota) the rules still hold for this page view.
 * What this page wrote is read back from the map first, so a failed write never shows a stale value.
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
      memory[key] = value;
      try {
        localStorage.setItem(key, value);
      } catch {
        // kept in memory only
      }
    },
  };
}

let shared: KeyValueStore | undefined;
/** The page's one store, opened on first use (widgets share it through the runtime chunk). */
export const store = (): KeyValueStore => (shared ??= safeStorage());
