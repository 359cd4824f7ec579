import type { StateCreator } from 'zustand';
import { DEFAULT_LANGUAGE, EMBEDDED_DEFAULT_LANGUAGE, type Language } from '../../shared/i18n';
import type { AppState } from './store';

/** Control density (spec §3 keeps it with the settings; medium by default). */
export type Size = 'large' | 'medium' | 'small';

export interface SettingsSlice {
  /** The language the user chose; null until they choose, then the default applies. */
  language: Language | null;
  size: Size;
  /** Whether the sidebar is expanded (desktop) or its drawer is open (mobile). */
  sidebarOpen: boolean;
  /**
   * The application last worked on, by id with its name: shown in the top bar, the sidebar and the breadcrumb
   * while that application's page loads it again. Kept with its id so that another application's page never
   * shows it (see `selectAppName`).
   */
  appName: AppName | null;
  /**
   * The language of a page that speaks its reader's rather than the console's (the public playerinfo page speaks
   * the visitor's), while it is shown: Polaris' own words around it follow it. Not kept.
   */
  pageLanguage: Language | null;
  setLanguage(language: Language): void;
  setPageLanguage(language: Language | null): void;
  setSize(size: Size): void;
  setSidebarOpen(open: boolean): void;
  toggleSidebar(): void;
  setAppName(name: AppName | null): void;
}

export interface AppName {
  id: string;
  name: string;
}

export const createSettingsSlice: StateCreator<AppState, [], [], SettingsSlice> = (set) => ({
  language: null,
  size: 'medium',
  sidebarOpen: true,
  appName: null,
  pageLanguage: null,
  setLanguage: (language) => set({ language }),
  setPageLanguage: (pageLanguage) => set({ pageLanguage }),
  setSize: (size) => set({ size }),
  setSidebarOpen: (sidebarOpen) => set({ sidebarOpen }),
  toggleSidebar: () => set((state) => ({ sidebarOpen: !state.sidebarOpen })),
  setAppName: (appName) => set({ appName }),
});

/**
 * The name of this application as last loaded, or undefined while it loads for the first time. Never another
 * application's: after a switch, the old name would label the new application's pages until it loaded, and its
 * id (the fallback until 2026-12-06) flashed before the name on every first visit.
 */
export function selectAppName(state: Pick<SettingsSlice, 'appName'>, applicationId: string | null | undefined): string | undefined {
  const known = state.appName;
  return applicationId && known && typeof known === 'object' && known.id === applicationId ? known.name : undefined;
}

/** True when the console runs inside another page's frame (the shop platform's admin). */
export function isInFrame(): boolean {
  if (typeof window === 'undefined') return false;
  try {
    return window.top !== window.self;
  } catch {
    // A cross-origin parent refuses the comparison: that is a frame too.
    return true;
  }
}

/** The language in effect: the user's choice, else English inside a frame, else Vietnamese (spec §1). */
export function selectLanguage(state: Pick<SettingsSlice, 'language'>): Language {
  return state.language ?? (isInFrame() ? EMBEDDED_DEFAULT_LANGUAGE : DEFAULT_LANGUAGE);
}

/** The language of the page on screen: its own (see pageLanguage), else the console's. Polaris and the document speak it. */
export function selectPageLanguage(state: Pick<SettingsSlice, 'language' | 'pageLanguage'>): Language {
  return state.pageLanguage ?? selectLanguage(state);
}
