import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiKey } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, renderInConsole, writesOf } from '../../test-utils';
import { ApiKeysCard } from './api-keys-card';

const NEW_KEY = 'nk_Q2hhbmdlIG1lIGJlZm9yZSB0aGUgbGF1bmNoIQ_abcdefghijklmn';

let keys: ApiKey[];
let calls: Call[] = [];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'] });
  keys = [];
  calls = fakeApi({
    'GET /api/application/shop_one/api_key': () => keys,
    'POST /api/application/shop_one/api_key': () => {
      const made = { id: 7, prefix: NEW_KEY.slice(0, 11), created_at: '2025-03-02T08:00:00.000Z', last_used_at: null };
      keys = [made, ...keys];
      return { ...made, key: NEW_KEY };
    },
    'DELETE /api/application/shop_one/api_key/3': () => {
      keys = keys.filter((key) => key.id !== 3);
      return {};
    },
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(applicationId = 'shop_one') {
  renderInConsole(<ApiKeysCard applicationId={applicationId} />);
}

describe('the REST API keys card', () => {
  it('says there is no key yet, and links to the API documentation', async () => {
    open();
    expect(await screen.findByText('No API keys yet')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'REST API documentation' }).getAttribute('href')).toBe('/api/docs');
  });

  it('hides the documentation link for a shop-platform application', async () => {
    open('demo.myshopify.com');
    await screen.findByText('REST API keys');
    expect(screen.queryByRole('link', { name: 'REST API documentation' })).toBeNull();
  });

  it('shows a new key whole, once, with the warning, then only its start in the list', async () => {
    open();
    await screen.findByText('No API keys yet');
    fireEvent.click(screen.getAllByRole('button', { name: 'Create key' })[0]);
    const dialog = within(await screen.findByRole('dialog'));
    expect(dialog.getByTestId('new-api-key').textContent).toBe(NEW_KEY);
    expect(dialog.getByText('Copy the key now: it will not be shown again.')).toBeTruthy();
    expect(dialog.getByRole('button', { name: 'Copy the key' })).toBeTruthy();
    fireEvent.click(dialog.getByRole('button', { name: 'I have copied it' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await screen.findByText('nk_Q2hhbmdl…')).toBeTruthy();
    expect(screen.getByText('Never')).toBeTruthy();
    expect(screen.queryByText(NEW_KEY)).toBeNull();
  });

  it('revokes a key only after the confirmation, and the list loses it', async () => {
    keys = [
      { id: 3, prefix: 'nk_AAAAAAAA', created_at: '2025-01-05T10:00:00.000Z', last_used_at: '2025-03-01T09:30:00.000Z' },
      { id: 2, prefix: 'nk_BBBBBBBB', created_at: '2025-01-04T10:00:00.000Z', last_used_at: null },
    ];
    open();
    await screen.findByText('nk_AAAAAAAA…');
    fireEvent.click(screen.getByRole('button', { name: 'Revoke the key nk_AAAAAAAA' }));
    const dialog = within(await screen.findByRole('dialog'));
    expect(dialog.getByText(/Servers using the key nk_AAAAAAAA will be refused/)).toBeTruthy();
    expect(writesOf(calls)).toEqual([]);
    fireEvent.click(dialog.getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(screen.queryByText('nk_AAAAAAAA…')).toBeNull());
    expect(writesOf(calls)).toEqual([{ method: 'DELETE', path: '/api/application/shop_one/api_key/3', body: undefined }]);
    expect(screen.getByText('nk_BBBBBBBB…')).toBeTruthy();
    expect(await screen.findByText('The key has been revoked')).toBeTruthy();
  });
});
