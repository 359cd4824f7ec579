import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Widget } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { fakeApi, pageOf, renderInConsole, type Call } from '../../test-utils';
import { WidgetTable } from './widget-table';

const rules = {
  pages: [],
  devices: ['desktop', 'mobile'] as Array<'desktop' | 'mobile'>,
  delay_seconds: 0,
  scroll: 'none' as const,
  exit_intent: false,
  frequency: 'every_page' as const,
  start_at: null,
  end_at: null,
};

const wheel: Widget = {
  id: 4,
  type: 'spin',
  name: 'Lucky wheel',
  status: 'inactive',
  settings: {},
  rules,
  views: 1520,
  clicks: 230,
  leads: 41,
  created: '2025-03-01T08:00:00.000Z',
  updated: '2025-03-02T08:00:00.000Z',
};

let calls: Call[] = [];
let widgets: Widget[] = [];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['user'] });
  widgets = [wheel];
  calls = fakeApi(
    {
      'GET /api/application/shop_one/widget': () => pageOf(widgets),
      'POST /api/application/shop_one/widget/4/status': (call) => {
        widgets = widgets.map((w) => ({ ...w, status: (call.body as { status: Widget['status'] }).status }));
        return widgets[0];
      },
      'DELETE /api/application/shop_one/widget/4': () => {
        widgets = [];
        return {};
      },
    },
    {},
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  renderInConsole(
    <WidgetTable
      applicationId="shop_one"
      types={['schedule', 'banner', 'contact', 'spin']}
      showType
      editUrl={(widget) => `/banner/create?id=${widget.id}`}
      createUrl="/banner/create"
      emptyTitleKey="banners.list.emptyTitle"
      emptyBodyKey="banners.list.emptyBody"
      createLabelKey="banners.list.create"
    />,
  );
}

describe('the widget list', () => {
  it('asks only for the types it shows and lists each with its type and counters', async () => {
    open();
    expect(await screen.findByText('Lucky wheel')).toBeTruthy();
    expect(screen.getByText('Spin wheel')).toBeTruthy();
    expect(screen.getByText('1.5k')).toBeTruthy();
    expect(calls[0].query.get('types')).toBe('schedule,banner,contact,spin');
  });

  describe('when a widget is switched on', () => {
    it('sends the new status and shows it', async () => {
      open();
      const toggle = await screen.findByRole('switch', { name: 'Show Lucky wheel on the shop' });
      expect(toggle.getAttribute('aria-checked')).toBe('false');
      await act(async () => {
        fireEvent.click(toggle);
      });
      await waitFor(() => expect(screen.getByRole('switch', { name: 'Show Lucky wheel on the shop' }).getAttribute('aria-checked')).toBe('true'));
      expect(calls.find((call) => call.method === 'POST')).toMatchObject({ path: '/api/application/shop_one/widget/4/status', body: { status: 'active' } });
      expect(screen.getByText('Lucky wheel is on')).toBeTruthy();
    });
  });

  describe('when a widget is deleted', () => {
    it('asks first, then deletes it and shows the empty state', async () => {
      open();
      fireEvent.click(await screen.findByRole('button', { name: 'Delete Lucky wheel' }));
      const dialog = await screen.findByRole('dialog');
      expect(within(dialog).getByText(/The leads it collected stay in the report/)).toBeTruthy();
      expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
      await act(async () => {
        fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
      });
      await waitFor(() => expect(screen.getByText('No banner yet')).toBeTruthy());
      expect(calls.find((call) => call.method === 'DELETE')?.path).toBe('/api/application/shop_one/widget/4');
    });
  });

  describe('when the user is a viewer', () => {
    it('can neither switch nor delete', async () => {
      useAppStore.setState({ roles: ['viewer'] });
      open();
      const toggle = await screen.findByRole('switch', { name: 'Show Lucky wheel on the shop' });
      expect(toggle.hasAttribute('disabled')).toBe(true);
      const remove = screen.getByRole('button', { name: 'Delete Lucky wheel' });
      expect(remove.hasAttribute('disabled') || remove.getAttribute('aria-disabled') === 'true').toBe(true);
      expect(screen.getByRole('button', { name: 'View Lucky wheel' })).toBeTruthy();
    });
  });
});
