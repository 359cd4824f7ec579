import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, fill, renderInConsole, writesOf } from '../../test-utils';
import { CreateApplicationModal } from './create-application-modal';

const created = {
  application_id: 'shop_one',
  name: 'Shop One',
  client_key: 'ck_0123456789',
  total_users: 0,
  platforms: [],
  created: '2025-01-01T00:00:00.000Z',
  deleting_at: null,
  role: 'super_user',
  plan: 'free',
};

let calls: Call[] = [];

async function create() {
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
  });
}

function open() {
  const onCreated = vi.fn();
  const onClose = vi.fn();
  renderInConsole(<CreateApplicationModal onCreated={onCreated} onClose={onClose} />, { path: '/application' });
  return { onCreated, onClose };
}

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['admin'] });
  // Until a test says how the server takes the new application, every call answers NOT_FOUND.
  calls = fakeApi({});
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the create application form', () => {
  describe('when it is sent empty', () => {
    it('says what each field needs and sends nothing', async () => {
      open();
      await create();
      expect(screen.getByText('Application ID must be 3 to 64 letters, digits or underscores')).toBeTruthy();
      expect(screen.getByText('Application name must not be blank')).toBeTruthy();
      expect(calls).toEqual([]);
    });
  });

  describe('when the application ID has other characters or is too short', () => {
    it.each(['my shop', 'shop-1', 'ab', 'cửa_hàng'])('refuses %j', async (id) => {
      open();
      fill('Application ID', id);
      fill('Application name', 'My shop');
      await create();
      expect(screen.getByText('Application ID must be 3 to 64 letters, digits or underscores')).toBeTruthy();
      expect(screen.queryByText('Application name must not be blank')).toBeNull();
      expect(calls).toEqual([]);
    });
  });

  describe('when the name is only spaces', () => {
    it('refuses it', async () => {
      open();
      fill('Application ID', 'shop_one');
      fill('Application name', '   ');
      await create();
      expect(screen.getByText('Application name must not be blank')).toBeTruthy();
      expect(calls).toEqual([]);
    });
  });

  describe('when the fields are valid', () => {
    it('creates the application with the trimmed values', async () => {
      calls = fakeApi({ 'POST /api/application': () => created });
      const { onCreated } = open();
      fill('Application ID', ' shop_one ');
      fill('Application name', '  Shop One ');
      await create();
      await waitFor(() => expect(onCreated).toHaveBeenCalledWith(created));
      expect(writesOf(calls)).toEqual([{ method: 'POST', path: '/api/application', body: { application_id: 'shop_one', name: 'Shop One' } }]);
    });
  });

  describe('when the server says the ID is taken', () => {
    it('shows its message under the ID field and keeps the form open', async () => {
      calls = fakeApi({
        'POST /api/application': () => answer({ success: false, error: 'CONFLICT', message: 'This application ID is already taken' }, 409),
      });
      const { onCreated } = open();
      fill('Application ID', 'shop_one');
      fill('Application name', 'Shop One');
      await create();
      expect(await screen.findByText('This application ID is already taken')).toBeTruthy();
      expect(onCreated).not.toHaveBeenCalled();
    });
  });
});
