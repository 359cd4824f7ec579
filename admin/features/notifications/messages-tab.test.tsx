import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Notification } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, pageOf, renderInApplication } from '../../test-utils';
import { message, webApplication } from './fixtures';
import { NotificationTypeRoute } from './notification-routes';

const LIST = 'GET /api/application/shop_one/notification';
let messages: Notification[];
let calls: Call[];

function start(extra: Record<string, (call: Call) => unknown> = {}, app: object = webApplication) {
  calls = fakeApi({ [LIST]: () => pageOf(messages), ...extra }, app);
}

function open(path = '/application/shop_one/notification/basic') {
  return renderInApplication(<Route path="/notification/:notification_type" component={NotificationTypeRoute} />, path);
}

const listCalls = () => calls.filter((call) => call.method === 'GET' && call.path === '/api/application/shop_one/notification');

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['manager'] });
  messages = [
    message(),
    message({ id: 13, name: 'Weekend reminder', status: 'waiting', send_at: '2030-03-08T02:00:00.000Z', started_at: null, finished_at: null, stats: { targeted: 0, sent: 0, delivered: 0, failed: 0, clicked: 0 } }),
    message({ id: 14, name: 'Draft idea', status: 'new', send_at: null, started_at: null, finished_at: null, source: 'api' }),
  ];
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the message list', () => {
  it('asks for the filters in the address, with the page and its size', async () => {
    start();
    open('/application/shop_one/notification/basic?status=waiting&type=sms&source=api&q=sale&page=2');
    await screen.findByText('Tết sale');
    const query = listCalls()[0].query;
    expect(Object.fromEntries(query)).toEqual({ status: 'waiting', type: 'sms', source: 'api', q: 'sale', page: '2', limit: '20' });
  });

  it('leaves "all" and an empty search out of the query', async () => {
    start();
    open();
    await screen.findByText('Tết sale');
    expect(Object.fromEntries(listCalls()[0].query)).toEqual({ page: '1', limit: '20' });
  });

  it('searches once typing pauses, from the first page, and keeps the search in the address', async () => {
    start();
    const view = open('/application/shop_one/notification/basic?page=3');
    await screen.findByText('Tết sale');
    fireEvent.change(screen.getByPlaceholderText('Search by name, heading or content'), { target: { value: 'weekend' } });
    await waitFor(() => expect(listCalls().at(-1)?.query.get('q')).toBe('weekend'), { timeout: 2000 });
    expect(listCalls().at(-1)?.query.get('page')).toBe('1');
    expect(view.location()).toBe('/application/shop_one/notification/basic?q=weekend');
  });

  it('shows each message with its status, source, counters and click-through rate', async () => {
    start();
    open();
    const row = (await screen.findByRole('link', { name: 'Tết sale' })).closest('tr') as HTMLElement;
    expect(row.querySelector('a')?.getAttribute('href')).toBe('/application/shop_one/notification/12/detail');
    expect(within(row).getByText('Executed')).toBeTruthy();
    expect(within(row).getByText('Dashboard')).toBeTruthy();
    expect(within(row).getByText('1.15k / 1.2k')).toBeTruthy();
    expect(within(row).getByText('12%')).toBeTruthy();
    const draft = screen.getByRole('link', { name: 'Draft idea' }).closest('tr') as HTMLElement;
    expect(within(draft).getByText('New (draft)')).toBeTruthy();
    expect(within(draft).getByText('API')).toBeTruthy();
  });

  it('offers only the actions a status allows, and cancels a scheduled message once confirmed', async () => {
    start({ 'POST /api/application/shop_one/notification/13/cancel': () => message({ id: 13, status: 'canceled' }) });
    open();
    fireEvent.click(await screen.findByRole('button', { name: 'Actions for Weekend reminder' }));
    const menu = await screen.findByRole('menu');
    const labels = within(menu).getAllByRole('menuitem').map((item) => item.textContent);
    expect(labels).toEqual(['Edit', 'Back to draft', 'Cancel message', 'Duplicate']);
    fireEvent.click(within(menu).getByRole('menuitem', { name: 'Cancel message' }));
    const dialog = await screen.findByRole('dialog');
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel message' }));
    });
    await waitFor(() => expect(calls.some((call) => call.method === 'POST' && call.path.endsWith('/13/cancel'))).toBe(true));
    expect(await screen.findByText('Weekend reminder was canceled')).toBeTruthy();
  });

  it('refreshes by itself while a listed message is waiting or running', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    start();
    open();
    await screen.findByText('Tết sale');
    const before = listCalls().length;
    await act(async () => {
      vi.advanceTimersByTime(5100);
    });
    await waitFor(() => expect(listCalls().length).toBeGreaterThan(before));
  });

  it('invites the first message when there is none, with the type picker', async () => {
    messages = [];
    useAppStore.setState({ roles: ['super_user'] });
    start({}, { ...webApplication, platforms: ['web', 'sms'] });
    const view = open();
    expect(await screen.findByText('Send your first message')).toBeTruthy();
    fireEvent.click(screen.getAllByRole('button', { name: 'Create message' })[0]);
    const dialog = await screen.findByRole('dialog');
    // Mobile push and Facebook are not set up: no way to create them, a way to Settings instead.
    expect(within(dialog).getAllByText('Not set up')).toHaveLength(2);
    expect(within(dialog).queryByRole('button', { name: 'New Mobile push' })).toBeNull();
    expect(within(dialog).getAllByRole('link', { name: 'Configure in Settings' })[0].getAttribute('href')).toBe('/application/shop_one/platform');
    fireEvent.click(within(dialog).getByRole('button', { name: 'New SMS' }));
    expect(view.location()).toBe('/application/shop_one/notification/sms');
  });
});
