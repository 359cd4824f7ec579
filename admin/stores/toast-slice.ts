import type { StateCreator } from 'zustand';
import type { AppState } from './store';

/** How long a toast stays (spec §9: notifications keep open 5 s). */
export const TOAST_DURATION_MS = 5000;

export interface Toast {
  id: number;
  message: string;
  error: boolean;
}

export interface ToastSlice {
  toasts: Toast[];
  showToast(message: string, options?: { error?: boolean }): void;
  dismissToast(id: number): void;
}

let nextToastId = 1;

export const createToastSlice: StateCreator<AppState, [], [], ToastSlice> = (set) => ({
  toasts: [],
  showToast: (message, options = {}) =>
    set((state) => ({
      // The same message twice in a row (a double click) shows once.
      toasts: state.toasts.some((toast) => toast.message === message)
        ? state.toasts
        : [...state.toasts, { id: nextToastId++, message, error: options.error ?? false }],
    })),
  dismissToast: (id) => set((state) => ({ toasts: state.toasts.filter((toast) => toast.id !== id) })),
});
