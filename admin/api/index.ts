import { i18n } from '../app/i18n';
import { selectLanguage } from '../stores/settings-slice';
import { useAppStore } from '../stores/store';
import { createApiClient } from './client';

export { ApiError, isApiError } from './api-error';
export type { ApiClient, ApiResult, CallOptions } from './client';

/** Gives the headers that authenticate one call, asked for afresh each time. */
export type Authorize = () => Promise<Record<string, string>>;

let authorize: Authorize | null = null;

/**
 * Authenticates every later call with these headers instead of the stored token: the embedded admin's entry
 * sets the platform's session token here once, before anything loads. The hosted console never calls it.
 */
export function authorizeApiWith(next: Authorize | null): void {
  authorize = next;
}

/** The headers the client would add to a call now, for a download that can't go through it; null: the stored token. */
export function apiAuthorization(): Promise<Record<string, string>> | null {
  return authorize ? authorize() : null;
}

/** The console's client, wired to the store (token, roles, language), i18n and the toasts. */
export const api = createApiClient({
  session: () => {
    const state = useAppStore.getState();
    return { token: state.token, roles: state.roles, language: selectLanguage(state) };
  },
  pageUrl: () => window.location.href,
  t: (key, params) => i18n.t(key, params),
  notify: (message) => useAppStore.getState().showToast(message, { error: true }),
  expireSession: () => {
    useAppStore.getState().signOut();
    // The guard sends the reloaded page to /login?redirect=… with this path.
    window.location.reload();
  },
  authorize: apiAuthorization,
});
