import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useUnsavedChanges } from '../../app/leave-guard';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, renderInConsole } from '../../test-utils';
import { useSignOut } from './use-sign-out';

let calls: Call[] = [];

/** A page with a sign-out button, whose editor holds changes not saved when `editing`. */
function Page({ editing }: { editing: boolean }) {
  useUnsavedChanges(editing);
  const signOut = useSignOut();
  return (
    <button type="button" onClick={() => void signOut()}>
      Sign out
    </button>
  );
}

const loggedOut = () => calls.filter((call) => call.method === 'POST' && call.path === '/api/user/logout');

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['manager'] });
  calls = fakeApi({ 'POST /api/user/logout': () => ({}) });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('signing out', () => {
  it('asks first when changes are not saved: Stay keeps the user signed in, Leave page signs out', async () => {
    renderInConsole(<Page editing />);
    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave page with unsaved changes?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(loggedOut()).toHaveLength(0);
    expect(useAppStore.getState().token).toBe('tok');

    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await act(async () => {
      fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Leave page' }));
    });
    await waitFor(() => expect(useAppStore.getState().token).toBeNull());
    expect(loggedOut()).toHaveLength(1);
  });

  it('signs out at once when nothing is unsaved', async () => {
    renderInConsole(<Page editing={false} />);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    });
    await waitFor(() => expect(useAppStore.getState().token).toBeNull());
    expect(loggedOut()).toHaveLength(1);
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
