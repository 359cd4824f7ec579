import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, fill, renderInConsole, writesOf } from '../../test-utils';
import { application } from '../players/fixtures';
import { EditApplicationModal } from './edit-application-modal';

let calls: Call[] = [];

function open() {
  const onSaved = vi.fn();
  renderInConsole(<EditApplicationModal application={application} onSaved={onSaved} onClose={vi.fn()} />, { path: '/application' });
  return { onSaved };
}

async function save() {
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  });
}

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: [] });
  calls = fakeApi({});
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the edit application form', () => {
  it('opens on the name, timezone and country for phone numbers the application has, and saves them', async () => {
    calls = fakeApi({ 'PUT /api/application/shop_one': () => ({ ...application, name: 'Shop Two', utc_offset: -180 }) });
    const { onSaved } = open();
    expect((screen.getByLabelText('Application name') as HTMLInputElement).value).toBe('Shop One');
    expect((screen.getByLabelText('Timezone') as HTMLSelectElement).value).toBe('420');
    // What the choice changes is said before it is made.
    expect(screen.getByText(/The dashboard and statistics count days from midnight in this timezone/)).toBeTruthy();
    fill('Application name', 'Shop Two');
    fireEvent.change(screen.getByLabelText('Timezone'), { target: { value: '-180' } });
    expect((screen.getByLabelText('Country for phone numbers') as HTMLSelectElement).value).toBe('VN');
    fireEvent.change(screen.getByLabelText('Country for phone numbers'), { target: { value: 'TH' } });
    await save();
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ utc_offset: -180 })));
    expect(writesOf(calls)).toEqual([{ method: 'PUT', path: '/api/application/shop_one', body: { name: 'Shop Two', utc_offset: -180, phone_country: 'TH' } }]);
  });

  it("shows the server's refusal of the timezone under it", async () => {
    calls = fakeApi({
      'PUT /api/application/shop_one': () =>
        answer(
          {
            success: false,
            error: 'INVALID_PARAM',
            message: 'Choose a timezone from UTC-12:00 to UTC+13:00',
            fields: [{ path: 'utc_offset', message: 'Choose a timezone from UTC-12:00 to UTC+13:00' }],
          },
          400,
        ),
    });
    const { onSaved } = open();
    await save();
    expect(await screen.findByText('Choose a timezone from UTC-12:00 to UTC+13:00')).toBeTruthy();
    expect(onSaved).not.toHaveBeenCalled();
  });
});
