import { Modal, Text } from '@shopify/polaris';
import { useCallback, useEffect, useLayoutEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import type { AroundNavHandler } from 'wouter';
import { navigate as browserNavigate } from 'wouter/use-browser-location';
import { useAppStore } from '../stores/store';

/** The page's address as the browser shows it (path and query), to compare a navigation's target with. */
function currentAddress(): string {
  return `${window.location.pathname}${window.location.search}`;
}

/**
 * Every navigation inside the console passes here (the routers' `aroundNav`: links, the menu, the tabs, a
 * page's own navigate): while an editor on screen holds unsaved changes, the user is asked first, and the
 * navigation goes ahead only if they choose to leave. A navigation to the page already shown goes ahead.
 */
export const guardNavigation: AroundNavHandler = (navigate, to, options) => {
  const state = useAppStore.getState();
  if (state.unsavedEditors.length === 0 || to === currentAddress()) {
    navigate(to, options);
    return;
  }
  state.askToLeave(() => navigate(to, options));
};

/** The address of the page on screen, as LeaveGuard last rendered it. */
let shownAddress = '';

/**
 * Back and forward change the address before anyone can ask. While changes are unsaved, the page's address is
 * put back, and the move is made again if the user chooses to leave. Listening from the start, before the
 * router does: between two listeners React renders what the first one changed, which would be the next page.
 */
function holdBackAndForward(): void {
  const state = useAppStore.getState();
  const address = currentAddress();
  if (state.unsavedEditors.length === 0 || address === shownAddress) return;
  const target = `${address}${window.location.hash}`;
  browserNavigate(shownAddress);
  state.askToLeave(() => browserNavigate(target));
}

if (typeof window !== 'undefined') window.addEventListener('popstate', holdBackAndForward);

/**
 * An editor tells the console whether it holds changes not saved yet: while it does, leaving the page (a link,
 * the back button, closing or reloading the tab) asks first. The function returned lets the editor leave at
 * once, without asking, after it saved or deleted what it held (before its own navigate).
 */
export function useUnsavedChanges(unsaved: boolean): () => void {
  const [editor] = useState(() => Symbol('editor'));
  useEffect(() => {
    useAppStore.getState().markUnsaved(editor, unsaved);
  }, [editor, unsaved]);
  useEffect(() => () => useAppStore.getState().markUnsaved(editor, false), [editor]);
  return useCallback(() => useAppStore.getState().markUnsaved(editor, false), [editor]);
}

/**
 * An editor's form (any JSON value), compared with the one loaded or last saved (`markSaved`): while they differ,
 * leaving the page asks first (useUnsavedChanges), so a change undone is no change. `ignore` for a form the user
 * cannot change (a viewer, a message already sent).
 */
export function useUnsavedForm<T>(form: T, { ignore = false }: { ignore?: boolean } = {}): { markSaved(form: T): void; leaveFreely(): void } {
  const [saved, setSaved] = useState(() => JSON.stringify(form));
  const leaveFreely = useUnsavedChanges(!ignore && JSON.stringify(form) !== saved);
  const markSaved = useCallback((next: T) => setSaved(JSON.stringify(next)), []);
  return { markSaved, leaveFreely };
}

/**
 * The question "leave with unsaved changes?" (Polaris' wording), and, while changes are unsaved, the browser's
 * own question before the tab is closed or reloaded. Rendered once, inside the router.
 */
export function LeaveGuard() {
  const { t } = useTranslation();
  const unsaved = useAppStore((state) => state.unsavedEditors.length > 0);
  const asking = useAppStore((state) => state.pendingLeave !== null);
  const answerLeave = useAppStore((state) => state.answerLeave);
  // Rendered again on every navigation, so the address shown is known when the back button changes it.
  useLocation();
  useSearch();
  useLayoutEffect(() => {
    shownAddress = currentAddress();
  });

  useEffect(() => {
    if (!unsaved) return undefined;
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => window.removeEventListener('beforeunload', beforeUnload);
  }, [unsaved]);

  return (
    <Modal
      open={asking}
      onClose={() => answerLeave(false)}
      title={t('layout.leave.title')}
      primaryAction={{ content: t('layout.leave.leave'), destructive: true, onAction: () => answerLeave(true) }}
      secondaryActions={[{ content: t('layout.leave.stay'), onAction: () => answerLeave(false) }]}
    >
      <Modal.Section>
        <Text as="p">{t('layout.leave.body')}</Text>
      </Modal.Section>
    </Modal>
  );
}
