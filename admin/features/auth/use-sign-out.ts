import { useCallback } from 'react';
import { z } from 'zod';
import { api } from '../../api';
import { useAppStore } from '../../stores/store';

/** The server revokes the token, then the console forgets it; a server out of reach doesn't keep the user signed in. */
async function signOut(): Promise<void> {
  try {
    await api.post('/user/logout', {}, z.unknown(), { quiet: true });
  } catch {
    // The local session ends anyway.
  }
  useAppStore.getState().signOut();
}

/**
 * Signs out: the server revokes the token, then the console forgets it. The guard then sends the page to
 * /login?redirect=… so signing in again returns here. A server that can't be reached doesn't keep the
 * user signed in on this device. Signing out leaves the page: with changes not saved, the user is asked first
 * (app/leave-guard), and stays signed in if they stay.
 */
export function useSignOut(): () => Promise<void> {
  return useCallback(async () => {
    const { unsavedEditors, askToLeave } = useAppStore.getState();
    if (unsavedEditors.length > 0) {
      askToLeave(() => void signOut());
      return;
    }
    await signOut();
  }, []);
}
