import { useCallback } from 'react';
import { z } from 'zod';
import { api } from '../../api';
import { useAppStore } from '../../stores/store';

/**
 * Signs out: the server revokes the token, then the console forgets it. The guard then sends the page to
 * /login?redirect=… so signing in again returns here. A server that can't be reached doesn't keep the
 * user signed in on this device.
 */
export function useSignOut(): () => Promise<void> {
  return useCallback(async () => {
    try {
      await api.post('/user/logout', {}, z.unknown(), { quiet: true });
    } catch {
      // The local session ends anyway.
    }
    useAppStore.getState().signOut();
  }, []);
}
