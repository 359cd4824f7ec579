import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Notification } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, renderInApplication } from '../../test-utils';
import { message, report, webApplication } from './fixtures';
import { NotificationDetailPage } from './notification-detail-page';

let calls: Call[];
let shown: Notification;

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['user'] });
  shown = message();
  calls = fakeApi({
    'GET /api/application/shop_one/notification/12': () => shown,
    'GET /api/application/shop_one/notification/12/report': () => report,
    'POST /api/application/shop_one/notification/12/send': () => ({ ...shown, status: 'waiting' }),
  }, webApplication);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function open() {
  return renderInApplication(<Route path="/notification/:notification_id/detail" component={NotificationDetailPage} />, '/application/shop_one/notification/12/detail');
}

const card = (label: string) => screen.getByRole('heading', { name: label, level: 3 }).parentElement as HTMLElement;

describe("a message's detail", () => {
  it('shows targeted, sent, delivered, failed, clicked and the click-through rate', async () => {
    open();
    expect(await screen.findByRole('heading', { name: 'Tết sale' })).toBeTruthy();
    await screen.findByText('Failures by reason');
    expect(within(card('Targeted')).getByText('1.2k')).toBeTruthy();
    expect(within(card('Sent')).getByText('95.8% of targeted')).toBeTruthy();
    expect(within(card('Delivered')).getByText('1k')).toBeTruthy();
    expect(within(card('Failed')).getByText('50')).toBeTruthy();
    expect(within(card('Clicked')).getByText('120')).toBeTruthy();
    expect(within(card('Click-through rate')).getByText('12%')).toBeTruthy();
  });

  it('breaks the numbers down by platform and the failures by their reason, in words', async () => {
    open();
    const platforms = (await screen.findByRole('heading', { name: 'By platform' })).parentElement as HTMLElement;
    const android = within(platforms).getByText('Android').closest('tr') as HTMLElement;
    expect(within(android).getByText('190')).toBeTruthy();
    expect(within(android).getByText('13.3%')).toBeTruthy(); // 20 of 150 delivered
    expect(screen.getByText('Unsubscribed')).toBeTruthy();
    expect(screen.getByText('The device no longer takes messages; it is not tried again.')).toBeTruthy();
    expect(screen.getByText('Expired')).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Sent, delivered and clicked per hour' })).toBeTruthy();
  });

  it("labels the timeline's hours in the application's timezone, not the browser's, and says which", async () => {
    open();
    const chart = await screen.findByRole('img', { name: 'Sent, delivered and clicked per hour' });
    // 08:00 and 09:00 UTC are 15h and 16h at UTC+07:00 (the test browser runs at UTC).
    expect(within(chart).getByText('01/03 15h')).toBeTruthy();
    expect(within(chart).queryByText('01/03 08h')).toBeNull();
    expect(screen.getByText('Hours in UTC+07:00, the application’s timezone')).toBeTruthy();
  });

  it('leads to its recipients and shows the content as sent', async () => {
    open();
    const link = await screen.findByRole('link', { name: 'See recipients' });
    expect(link.getAttribute('href')).toBe('/application/shop_one/message?notification_id=12');
    expect(within(screen.getByRole('img', { name: /The message as it appears on/ })).getByText('Everything 30% off until Sunday')).toBeTruthy();
  });

  it("names the audience's segment and links to it", async () => {
    shown = message({ audience: { segment_id: 312, filters: null, tags: [] }, audience_segment: { id: 312, name: 'Lapsed VIP buyers' } });
    open();
    const link = await screen.findByRole('link', { name: 'Lapsed VIP buyers' });
    expect(link.getAttribute('href')).toBe('/application/shop_one/segment/312');
    expect(screen.queryByText(/Segment #/)).toBeNull();
  });

  it('says when the segment it was sent to has been deleted since', async () => {
    shown = message({ audience: { segment_id: 313, filters: null, tags: [] }, audience_segment: null });
    open();
    expect(await screen.findByText('Deleted segment (#313)')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /313/ })).toBeNull();
  });

  it('shows no share or rate of a message not yet sent, rather than 0%', async () => {
    const none = { targeted: 0, sent: 0, delivered: 0, failed: 0, clicked: 0 };
    shown = message({ status: 'new', send_at: null, started_at: null, finished_at: null, stats: none });
    calls = fakeApi({
      'GET /api/application/shop_one/notification/12': () => shown,
      'GET /api/application/shop_one/notification/12/report': () => ({ ...report, stats: none, ctr: 0, by_platform: [], failures: [], timeline: [] }),
    }, webApplication);
    open();
    await screen.findByRole('heading', { name: 'Tết sale' });
    expect(within(card('Sent')).getByText('0')).toBeTruthy();
    expect(within(card('Sent')).queryByText(/of targeted/)).toBeNull();
    expect(within(card('Delivered')).queryByText(/of sent/)).toBeNull();
    expect(within(card('Click-through rate')).getByText('—')).toBeTruthy();
    expect(screen.queryByText(/^0%/)).toBeNull();
  });

  it('offers a draft its send, and refreshes by itself once it is waiting', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    shown = message({ status: 'new', send_at: null, started_at: null, finished_at: null });
    open();
    await screen.findByRole('heading', { name: 'Tết sale' });
    shown = { ...shown, status: 'waiting' };
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: 'Send' })[0]);
    });
    await waitFor(() => expect(calls.some((call) => call.method === 'POST' && call.path.endsWith('/12/send'))).toBe(true));
    expect(await screen.findByText('Send message successfully')).toBeTruthy();
    await waitFor(() => expect(screen.getAllByText('Waiting').length).toBeGreaterThan(0));
    const reads = calls.filter((call) => call.path.endsWith('/notification/12')).length;
    await act(async () => {
      vi.advanceTimersByTime(5100);
    });
    await waitFor(() => expect(calls.filter((call) => call.path.endsWith('/notification/12')).length).toBeGreaterThan(reads));
  });
});
