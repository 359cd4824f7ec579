import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { type LeaveSlice, createLeaveSlice } from './leave-slice';
import { type SessionSlice, createSessionSlice } from './session-slice';
import { type SettingsSlice, createSettingsSlice } from './settings-slice';
import { type PersistedState, createSessionStorage } from './session-storage';
import { type ToastSlice, createToastSlice } from './toast-slice';
import { type VisitedViewsSlice, createVisitedViewsSlice } from './visited-views-slice';

/** The console's client state: session, settings, visited views, toasts and unsaved changes, in one store. */
export type AppState = SessionSlice & SettingsSlice & VisitedViewsSlice & ToastSlice & LeaveSlice;

/** localStorage key of the persisted settings. */
export const STORE_KEY = 'nudge-console';

/**
 * Builds the store. Only the token, the user and the settings outlive the page; roles are fetched again
 * after a reload, so a role changed on the server is never served stale.
 */
export function createAppStore() {
  return create<AppState>()(
    persist(
      (...args) => ({
        ...createSessionSlice(...args),
        ...createSettingsSlice(...args),
        ...createVisitedViewsSlice(...args),
        ...createToastSlice(...args),
        ...createLeaveSlice(...args),
      }),
      {
        name: STORE_KEY,
        storage: createSessionStorage(),
        partialize: (state): PersistedState => ({
          token: state.token,
          user: state.user,
          language: state.language,
          size: state.size,
          sidebarOpen: state.sidebarOpen,
          appName: state.appName,
        }),
        // The token in localStorage is the truth; a missing one means signed out, whatever else was saved.
        merge: (persisted, current) => {
          const saved = (persisted ?? {}) as Partial<PersistedState>;
          return { ...current, ...saved, token: saved.token ?? null, user: saved.token ? (saved.user ?? null) : null };
        },
      },
    ),
  );
}

export type AppStore = ReturnType<typeof createAppStore>;

/** The console's one store. */
export const useAppStore = createAppStore();
