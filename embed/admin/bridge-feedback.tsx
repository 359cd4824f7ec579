import { useEffect, useRef } from 'react';
import { PageLoading } from '../../admin/components/page-loading';
import { useAppStore } from '../../admin/stores/store';
import { TOAST_DURATION_MS } from '../../admin/stores/toast-slice';
import type { AppBridge } from './entry';

/**
 * Shows the console's toasts as the platform's own (App Bridge `toast.show`), so they sit in the admin's
 * chrome rather than inside the frame. Each leaves the store when its 5 s are over, so the same message
 * twice in a row still shows once (as in the hosted console).
 */
export function BridgeToasts({ bridge }: { bridge: Pick<AppBridge, 'toast'> }) {
  const toasts = useAppStore((state) => state.toasts);
  const dismiss = useAppStore((state) => state.dismissToast);
  const shown = useRef(new Set<number>());

  useEffect(() => {
    for (const toast of toasts) {
      if (shown.current.has(toast.id)) continue;
      shown.current.add(toast.id);
      bridge.toast.show(toast.message, { duration: TOAST_DURATION_MS, isError: toast.error });
      setTimeout(() => {
        dismiss(toast.id);
        shown.current.delete(toast.id);
      }, TOAST_DURATION_MS);
    }
  }, [toasts, bridge, dismiss]);

  return null;
}

export interface BridgeLoadingProps {
  bridge: Pick<AppBridge, 'loading'>;
  /** Fill the whole frame (before anything else is on screen). */
  fill?: boolean;
}

/** A page or a screen's code loading: the platform's loading bar while it shows, and a spinner in the frame. */
export function BridgeLoading({ bridge, fill }: BridgeLoadingProps) {
  useEffect(() => {
    bridge.loading(true);
    return () => bridge.loading(false);
  }, [bridge]);
  return <PageLoading fill={fill} />;
}
