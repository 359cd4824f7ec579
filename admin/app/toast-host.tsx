import { Toast } from '@shopify/polaris';
import { useAppStore } from '../stores/store';
import { TOAST_DURATION_MS } from '../stores/toast-slice';

/** Shows the store's toasts with Polaris, each for 5 s (spec §8, §9). */
export function ToastHost() {
  const toasts = useAppStore((state) => state.toasts);
  const dismiss = useAppStore((state) => state.dismissToast);
  return (
    <>
      {toasts.map((toast) => (
        <Toast
          key={toast.id}
          content={toast.message}
          error={toast.error}
          duration={TOAST_DURATION_MS}
          onDismiss={() => dismiss(toast.id)}
        />
      ))}
    </>
  );
}
