import type { PersistStorage, StorageValue } from 'zustand/middleware';
import { getCookie, removeCookie, setCookie } from './cookies';
import type { SessionUserInfo } from './session-slice';
import type { AppName } from './settings-slice';

/** localStorage key of the token (spec §3). */
export const TOKEN_KEY = 'token';
/** Cookie names of the user fields kept for 3 days (spec §3). */
export const USER_COOKIES = { id: 'id', email: 'email', name: 'name', created: 'created' } as const;

/** What the console keeps between visits. */
export interface PersistedState {
  token: string | null;
  user: SessionUserInfo | null;
  language: 'vi' | 'en' | null;
  size: 'large' | 'medium' | 'small';
  sidebarOpen: boolean;
  appName: AppName | null;
}

/** The browser's localStorage, or null where there is none or it is refused. */
export function localStore(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    // Storage can be disabled (private mode, a sandboxed frame): the console still runs, it just forgets.
    return null;
  }
}

function readUser(): SessionUserInfo | null {
  const id = Number(getCookie(USER_COOKIES.id));
  const email = getCookie(USER_COOKIES.email);
  if (!Number.isInteger(id) || id <= 0 || !email) return null;
  return {
    id,
    email,
    name: getCookie(USER_COOKIES.name) ?? '',
    created: getCookie(USER_COOKIES.created) ?? '',
  };
}

function writeUser(user: SessionUserInfo | null): void {
  if (!user) {
    for (const name of Object.values(USER_COOKIES)) removeCookie(name);
    return;
  }
  const values: Record<keyof typeof USER_COOKIES, string> = {
    id: String(user.id),
    email: user.email,
    name: user.name,
    created: user.created,
  };
  for (const [field, name] of Object.entries(USER_COOKIES) as [keyof typeof USER_COOKIES, string][]) {
    // Rewriting an unchanged cookie would push its expiry back; the 3 days count from signing in.
    if (getCookie(name) !== values[field]) setCookie(name, values[field]);
  }
}

/**
 * zustand's persist storage, laid out as spec §3 asks: the token under "token" in localStorage, the user's
 * id, email, name and created date in cookies, and the settings as JSON under the store's own key.
 */
export function createSessionStorage(): PersistStorage<PersistedState> {
  return {
    getItem(name) {
      const store = localStore();
      let saved: StorageValue<Partial<PersistedState>> | null = null;
      try {
        const raw = store?.getItem(name);
        if (raw) saved = JSON.parse(raw) as StorageValue<Partial<PersistedState>>;
      } catch {
        saved = null;
      }
      const token = store?.getItem(TOKEN_KEY) || null;
      const user = token ? readUser() : null;
      return {
        version: saved?.version ?? 0,
        state: { ...(saved?.state ?? {}), token, user } as PersistedState,
      };
    },
    setItem(name, value) {
      const store = localStore();
      const { token, user, ...settings } = value.state;
      if (token) store?.setItem(TOKEN_KEY, token);
      else store?.removeItem(TOKEN_KEY);
      writeUser(token ? user : null);
      store?.setItem(name, JSON.stringify({ version: value.version, state: settings }));
    },
    removeItem(name) {
      const store = localStore();
      store?.removeItem(TOKEN_KEY);
      store?.removeItem(name);
      writeUser(null);
    },
  };
}
