import { i18n } from '../app/i18n';
import { selectLanguage } from '../stores/settings-slice';
import { useAppStore } from '../stores/store';
import { createApiClient } from './client';

export { ApiError, isApiError } from './api-error';
export type { ApiClient, ApiResult, CallOptions } from './client';

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
});
