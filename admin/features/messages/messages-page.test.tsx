import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Delivery } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, pageOf, renderInApplication } from '../../test-utils';
import { message, webApplication } from '../notifications/fixtures';
import { MessagesPage, logFiltersFrom, logSearchOf } from './messages-page';

const delivery = (fields: Partial<Delivery> = {}): Delivery => ({
  id: 900,
  notification_id: 12,
  notification_name: 'Tết sale',
  player_id: 42,
  device_id: 'v_8f2c1a9e77',
  platform: 'web',
  status: 'clicked',
  reason: null,
  attempts: 1,
  sent_at: '2025-03-01T08:00:02.000Z',
  delivered_at: '2025-03-01T08:00:05.000Z',
  clicked_at: '2025-03-01T09:10:00.000Z',
  created_at: '2025-03-01T08:00:01.000Z',
  ...fields,
});

let calls: Call[];
let deliveries: Delivery[];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['viewer'] });
  deliveries = [delivery(), delivery({ id: 901, device_id: 'v_0001', player_id: 43, status: 'failed', reason: 'unsubscribed', attempts: 2, delivered_at: null, clicked_at: null })];
  calls = fakeApi({
    'GET /api/application/shop_one/message': () => ({ ...pageOf(deliveries), total_capped: false, next_before_id: null }),
    'GET /api/application/shop_one/notification/12': () => message(),
  }, webApplication);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(path = '/application/shop_one/message') {
  return renderInApplication(<Route path="/message" component={MessagesPage} />, path);
}

const logCalls = () => calls.filter((call) => call.path === '/api/application/shop_one/message');

describe("the recipients' log", () => {
  it('lists each recipient with its platform, status, reason, attempts and message', async () => {
    open();
    const failed = (await screen.findByText('v_0001')).closest('tr') as HTMLElement;
    expect(within(failed).getByText('Failed')).toBeTruthy();
    expect(within(failed).getByText('Unsubscribed')).toBeTruthy();
    expect(within(failed).getByText('2')).toBeTruthy();
    expect(within(failed).getByRole('link', { name: 'Tết sale' }).getAttribute('href')).toBe('/application/shop_one/notification/12/detail');
    const clicked = screen.getByText('v_8f2c1a9e77').closest('tr') as HTMLElement;
    expect(within(clicked).getByText('Clicked')).toBeTruthy();
    expect(within(clicked).getByText('Web push')).toBeTruthy();
  });

  it("takes the message from the address, names it, and searches within it", async () => {
    const view = open('/application/shop_one/message?notification_id=12');
    expect(await screen.findByText('Message: Tết sale')).toBeTruthy();
    expect(logCalls()[0].query.get('notification_id')).toBe('12');
    fireEvent.change(screen.getByPlaceholderText('Search by device ID, user ID, email or phone'), { target: { value: 'lan@example.vn' } });
    await waitFor(() => expect(logCalls().at(-1)?.query.get('q')).toBe('lan@example.vn'), { timeout: 2000 });
    expect(logCalls().at(-1)?.query.get('notification_id')).toBe('12');
    expect(view.location()).toBe('/application/shop_one/message?notification_id=12&q=lan%40example.vn');
  });

  it('says in place of the list, not by a toast over the rows before, that a search is too broad, and lists again once narrowed', async () => {
    const tooBroad = 'More than 500 players begin with “c”: type more of the ID, email or phone number';
    calls = fakeApi(
      {
        'GET /api/application/shop_one/message': (call) =>
          call.query.get('q') === 'c'
            ? answer({ success: false, error: 'INVALID_PARAM', message: tooBroad }, 400)
            : { ...pageOf(call.query.get('q') ? deliveries.slice(1) : deliveries), total_capped: false, next_before_id: null },
      },
      webApplication,
    );
    useAppStore.setState({ toasts: [] });
    open();
    await screen.findByText('v_8f2c1a9e77');
    const field = screen.getByPlaceholderText('Search by device ID, user ID, email or phone');
    fireEvent.change(field, { target: { value: 'c' } });
    expect(await screen.findByText(tooBroad, {}, { timeout: 2000 })).toBeTruthy();
    expect(screen.getByText('Type more to search')).toBeTruthy();
    expect(screen.queryByText('v_8f2c1a9e77')).toBeNull();
    expect(useAppStore.getState().toasts).toHaveLength(0);
    fireEvent.change(field, { target: { value: 'v_0001' } });
    expect(await screen.findByText('v_0001', {}, { timeout: 2000 })).toBeTruthy();
    expect(screen.queryByText(tooBroad)).toBeNull();
  });

  it('says so when nothing matches', async () => {
    deliveries = [];
    open('/application/shop_one/message?status=failed');
    expect(await screen.findByText('No recipients match')).toBeTruthy();
    expect(logCalls()[0].query.get('status')).toBe('failed');
  });
});

describe('paging through a long log', () => {
  /** 120 recipients, ids 1120 down to 1001, served by cursor as the API does (50 a page). */
  function serveByCursor(counted?: { total: number; capped: boolean }) {
    const all = Array.from({ length: 120 }, (_, i) => delivery({ id: 1120 - i, device_id: `v_${1120 - i}` }));
    calls = fakeApi({
      'GET /api/application/shop_one/message': (call) => {
        const before = Number(call.query.get('before_id') ?? Infinity);
        const limit = Number(call.query.get('limit'));
        const rest = all.filter((row) => row.id < before);
        const items = rest.slice(0, limit);
        const total_capped = counted?.capped ?? false;
        return { items, total: counted?.total ?? all.length, total_capped, page: 1, limit, next_before_id: rest.length > limit ? items[items.length - 1].id : null };
      },
    }, webApplication);
  }

  it('goes forward by the cursor the server gives and back by the ones it kept, keeping the total', async () => {
    serveByCursor();
    open();
    expect(await screen.findByText('v_1120')).toBeTruthy();
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();
    expect(logCalls()[0].query.get('before_id')).toBeNull();
    expect(logCalls()[0].query.get('page')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('v_1070')).toBeTruthy();
    expect(logCalls().at(-1)?.query.get('before_id')).toBe('1071');
    expect(screen.queryByText('v_1120')).toBeNull();
    expect(screen.getByText('Page 2 of 3')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('v_1001')).toBeTruthy();
    expect(logCalls().at(-1)?.query.get('before_id')).toBe('1021');
    expect(screen.getByText('Page 3 of 3')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Next page' }).getAttribute('aria-disabled')).toBe('true');

    fireEvent.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('v_1070')).toBeTruthy();
    expect(logCalls().at(-1)?.query.get('before_id')).toBe('1071');
    fireEvent.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('v_1120')).toBeTruthy();
    expect(logCalls().at(-1)?.query.get('before_id')).toBeNull();
    expect(screen.getByRole('button', { name: 'Previous page' }).getAttribute('aria-disabled')).toBe('true');
  });

  it("says 'more than' when the server counted only up to its cap", async () => {
    serveByCursor({ total: 100, capped: true });
    open();
    expect(await screen.findByText('v_1120')).toBeTruthy();
    expect(screen.getByText('Page 1 of more than 2')).toBeTruthy();
  });

  it('starts again from the newest when a filter changes', async () => {
    serveByCursor();
    open();
    await screen.findByText('v_1120');
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('v_1070');
    fireEvent.change(screen.getByPlaceholderText('Search by device ID, user ID, email or phone'), { target: { value: 'lan@example.vn' } });
    await waitFor(() => expect(logCalls().at(-1)?.query.get('q')).toBe('lan@example.vn'), { timeout: 2000 });
    expect(logCalls().at(-1)?.query.get('before_id')).toBeNull();
  });
});

describe('the log filters in the address', () => {
  it('read back what they wrote, and drop what is not a filter', () => {
    const filters = { notificationId: 12, status: 'failed' as const, q: 'x' };
    expect(logFiltersFrom(logSearchOf(filters))).toEqual(filters);
    expect(logFiltersFrom('notification_id=abc&status=lost&page=3')).toEqual({ notificationId: null, status: 'all', q: '' });
  });
});
