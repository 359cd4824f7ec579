import type { StateCreator } from 'zustand';
import type { AppState } from './store';

/** One tab of the visited-views bar. */
export interface VisitedView {
  /** The full path, search included: the tab leads back to exactly this page. */
  path: string;
  /** i18n key of the page title. */
  title: string;
  /** The application the page belongs to, for tabs with the same title in different applications. */
  applicationId?: string;
  /** The page's own name (text, not a key: a record's name), shown instead of its title. */
  label?: string;
}

/** A page's own name (see usePageLabel), for the page at `path` only. */
export interface PageLabel {
  path: string;
  label: string;
}

export interface VisitedViewsSlice {
  visitedViews: VisitedView[];
  /** Adds the view, or updates the tab already open for the same page. */
  addVisitedView(view: VisitedView): void;
  removeVisitedView(path: string): void;
  /** Keeps only the view at `path`. */
  removeOtherVisitedViews(path: string): void;
  removeAllVisitedViews(): void;
  /**
   * The page on screen's own name, when it has one (a segment's name, "New segment"): the breadcrumb, the window's
   * title and the tab say it instead of the route's title, which names every page of the route alike.
   */
  pageLabel: PageLabel | null;
  setPageLabel(label: PageLabel | null): void;
}

/** Two paths are the same page when they differ only by their query or a trailing slash. */
export function samePage(a: string, b: string): boolean {
  return pageOf(a) === pageOf(b);
}

/**
 * The page at `path` as the user left it: its open tab's path, with the query it had then (a search, filters, a
 * page of the list), or `path` itself when no tab holds it. A record's page leads back to its list so.
 */
export function asLeft(views: readonly VisitedView[], path: string): string {
  return views.find((view) => samePage(view.path, path))?.path ?? path;
}

/** The path without its query and trailing slashes (`/` stays `/`). */
const pageOf = (path: string) => path.split('?')[0].replace(/(.)\/+$/, '$1');

export const createVisitedViewsSlice: StateCreator<AppState, [], [], VisitedViewsSlice> = (set) => ({
  visitedViews: [],
  addVisitedView: (view) =>
    set((state) => {
      const at = state.visitedViews.findIndex((existing) => samePage(existing.path, view.path));
      if (at < 0) return { visitedViews: [...state.visitedViews, view] };
      const current = state.visitedViews[at];
      if (current.path === view.path && current.title === view.title && current.label === view.label) return state;
      const next = [...state.visitedViews];
      next[at] = view;
      return { visitedViews: next };
    }),
  removeVisitedView: (path) =>
    set((state) => ({ visitedViews: state.visitedViews.filter((view) => !samePage(view.path, path)) })),
  removeOtherVisitedViews: (path) =>
    set((state) => ({ visitedViews: state.visitedViews.filter((view) => samePage(view.path, path)) })),
  removeAllVisitedViews: () => set({ visitedViews: [] }),
  pageLabel: null,
  setPageLabel: (pageLabel) => set({ pageLabel }),
});
