import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Delivery } from '../../../shared/contract';
import { ApplicationScope } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { renderInConsole } from '../../test-utils';
import { type Call, fakeApi, message, pageOf } from '../notifications/fixtures';
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
    'GET /api/application/shop_one/message': () => pageOf(deliveries),
    'GET /api/application/shop_one/notification/12': () => message(),
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(path = '/application/shop_one/message') {
  return renderInConsole(
    <Route path="/application/:application_id" nest>
      <ApplicationScope>
        <Route path="/message" component={MessagesPage} />
      </ApplicationScope>
    </Route>,
    { path },
  );
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

  it('says so when nothing matches', async () => {
    deliveries = [];
    open('/application/shop_one/message?status=failed');
    expect(await screen.findByText('No recipients match')).toBeTruthy();
    expect(logCalls()[0].query.get('status')).toBe('failed');
  });
});

describe('the log filters in the address', () => {
  it('read back what they wrote, and drop what is not a filter', () => {
    const filters = { notificationId: 12, status: 'failed' as const, q: 'x', page: 3 };
    expect(logFiltersFrom(logSearchOf(filters))).toEqual(filters);
    expect(logFiltersFrom('notification_id=abc&status=lost&page=0')).toEqual({ notificationId: null, status: 'all', q: '', page: 1 });
  });
});
