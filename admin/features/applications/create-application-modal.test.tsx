import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, fill, renderInConsole, writesOf } from '../../test-utils';
import { application as created } from '../players/fixtures';
import { CreateApplicationModal } from './create-application-modal';

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
  vi.restoreAllMocks();
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
    it("creates the application with the trimmed values, in this computer's timezone and its browser's country for phone numbers", async () => {
      // A computer in Vietnam (UTC+07:00), its browser in Vietnamese.
      vi.spyOn(Date.prototype, 'getTimezoneOffset').mockReturnValue(-420);
      vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['vi-VN', 'en-US']);
      calls = fakeApi({ 'POST /api/application': () => created });
      const { onCreated } = open();
      expect((screen.getByLabelText('Timezone') as HTMLSelectElement).value).toBe('420');
      expect(screen.getByRole('option', { name: 'UTC+07:00 (this computer)' })).toBeTruthy();
      expect((screen.getByLabelText('Country for phone numbers') as HTMLSelectElement).value).toBe('VN');
      expect(screen.getByText(/Numbers your customers write without a country code are read as numbers of Vietnam \(VN\) and kept in international form, with \+84 in front/)).toBeTruthy();
      fill('Application ID', ' shop_one ');
      fill('Application name', '  Shop One ');
      await create();
      await waitFor(() => expect(onCreated).toHaveBeenCalledWith(created));
      expect(writesOf(calls)).toEqual([{ method: 'POST', path: '/api/application', body: { application_id: 'shop_one', name: 'Shop One', utc_offset: 420, phone_country: 'VN' } }]);
    });

    it('creates it in the timezone and with the country for phone numbers chosen', async () => {
      vi.spyOn(Date.prototype, 'getTimezoneOffset').mockReturnValue(0);
      // A browser whose language names no country: Vietnam to begin with.
      vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['en']);
      calls = fakeApi({ 'POST /api/application': () => ({ ...created, utc_offset: -210 }) });
      open();
      fill('Application ID', 'shop_one');
      fill('Application name', 'Shop One');
      fireEvent.change(screen.getByLabelText('Timezone'), { target: { value: '-210' } });
      expect((screen.getByLabelText('Country for phone numbers') as HTMLSelectElement).value).toBe('VN');
      expect(screen.getByRole('option', { name: 'United Kingdom (GB) +44' })).toBeTruthy();
      fireEvent.change(screen.getByLabelText('Country for phone numbers'), { target: { value: 'GB' } });
      // What the choice does is said for the country chosen.
      expect(screen.getByText(/are read as numbers of United Kingdom \(GB\) and kept in international form, with \+44 in front/)).toBeTruthy();
      expect(screen.queryByText(/with \+84 in front/)).toBeNull();
      await create();
      await waitFor(() =>
        expect(writesOf(calls)).toEqual([{ method: 'POST', path: '/api/application', body: { application_id: 'shop_one', name: 'Shop One', utc_offset: -210, phone_country: 'GB' } }]),
      );
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
