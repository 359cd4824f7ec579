import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAppStore } from '../../stores/store';
import { fakeApi, renderInApplication, writesOf, type Call } from '../../test-utils';
import { WidgetEditor } from '../banners/widget-editor';
import { application } from '../players/fixtures';
import { FakeNotiSettingsSection, fakeNotiProblems } from './fake-noti-settings';

let calls: Call[] = [];

function serve(applicationId: string) {
  calls = fakeApi(
    {
      [`POST /api/application/${applicationId}/widget`]: (call) => ({
        id: 9,
        views: 0,
        clicks: 0,
        leads: 0,
        created: '2025-01-01T00:00:00.000Z',
        updated: '2025-01-01T00:00:00.000Z',
        ...(call.body as object),
      }),
    },
    { ...application, application_id: applicationId },
  );
}

function openEditor(applicationId: string) {
  serve(applicationId);
  renderInApplication(
    <WidgetEditor
      applicationId={applicationId}
      type="fake_noti"
      title="New fake-buyer notices"
      renderSettings={(props) => <FakeNotiSettingsSection {...props} />}
      check={fakeNotiProblems}
      onSaved={vi.fn()}
    />,
    `/application/${applicationId}/fake_noti`,
  );
}

beforeEach(() => {
  (window as unknown as { happyDOM: { settings: { handleDisabledFileLoadingAsSuccess: boolean } } }).happyDOM.settings.handleDisabledFileLoadingAsSuccess = true;
  useAppStore.setState({ token: 'tok', roles: ['super_user'] });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the fake-buyer notice settings', () => {
  it('offer a shop application its real recent orders instead of a written list, and save that choice', async () => {
    openEditor('demo_myshopify_com');
    fireEvent.click(await screen.findByLabelText('Your real recent orders'));
    expect(screen.getByText(/never a last name, an email or an address/i)).toBeTruthy();
    expect(screen.queryByText('Add a notice')).toBeNull();
    fireEvent.change(screen.getByLabelText('Widget name'), { target: { value: 'Real orders' } });
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
    });
    await waitFor(() => expect(writesOf(calls)).toHaveLength(1));
    const [{ path, body }] = writesOf(calls) as { path: string; body: { settings: { source: string; items: unknown[] } } }[];
    expect(path).toBe('/api/application/demo_myshopify_com/widget');
    expect(body.settings.source).toBe('shop_orders');
    expect(body.settings.items).toEqual([]);
  });

  it('do not offer orders to an application that is not a shop', async () => {
    openEditor('my_website');
    await screen.findByText('Add a notice');
    expect(screen.queryByText('Where the notices come from')).toBeNull();
  });
});
