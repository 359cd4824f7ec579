import { useEffect } from 'react';
import { useLocation, useRouter } from 'wouter';
import { useAppStore } from '../../stores/store';

/**
 * Names the page on screen `label` (text in the user's language: a record's name, "New segment") in the breadcrumb,
 * the window's title and its visited-view tab, instead of its route's title; undefined (still loading) keeps the
 * route's. The name is kept for this page's path only, and dropped when the page goes.
 */
export function usePageLabel(label: string | undefined): void {
  const router = useRouter();
  const [location] = useLocation();
  // A nested route's location is relative to it: with its base, the path the shell sees.
  const path = `${router.base}${location}`;
  useEffect(() => {
    if (label === undefined) return;
    const { setPageLabel } = useAppStore.getState();
    setPageLabel({ path, label });
    return () => {
      if (useAppStore.getState().pageLabel?.path === path) setPageLabel(null);
    };
  }, [path, label]);
}
