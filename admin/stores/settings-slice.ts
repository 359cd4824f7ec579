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
  /** The name of the application being worked on, shown in the top bar and the breadcrumb. */
  appName: string | null;
  setLanguage(language: Language): void;
  setSize(size: Size): void;
  setSidebarOpen(open: boolean): void;
  toggleSidebar(): void;
  setAppName(name: string | null): void;
}

export const createSettingsSlice: StateCreator<AppState, [], [], SettingsSlice> = (set) => ({
  language: null,
  size: 'medium',
  sidebarOpen: true,
  appName: null,
  setLanguage: (language) => set({ language }),
  setSize: (size) => set({ size }),
  setSidebarOpen: (sidebarOpen) => set({ sidebarOpen }),
  toggleSidebar: () => set((state) => ({ sidebarOpen: !state.sidebarOpen })),
  setAppName: (appName) => set({ appName }),
});

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
