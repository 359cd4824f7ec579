import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Dashboard, MessageStats } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, renderInApplication } from '../../test-utils';
import { application } from '../players/fixtures';
import { DashboardPage, installSnippet, periodOf } from './dashboard-page';

let dashboard: Dashboard;
let messages: MessageStats;
let calls: Call[] = [];
/** The queries the screen sent to one route. */
const queriesOf = (route: string) => calls.filter((call) => call.path === `/api/application/shop_one/${route}`).map((call) => call.query);
const asked = () => queriesOf('dashboard');
const askedMessages = () => queriesOf('dashboard/messages');

const day = (n: number) => ({ day: `2025-03-0${n}`, new_players: n, active_players: 10 * n, sessions: 20 * n, page_views: 50 * n });

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['viewer'] });
  messages = {
    from: '2025-03-01',
    to: '2025-03-03',
    utc_offset: 420,
    totals: { sent: 4200, delivered: 3900, clicked: 390, failed: 12, ctr: 10 },
    days: [
      { day: '2025-03-01', sent: 4000, delivered: 3700, clicked: 300 },
      { day: '2025-03-02', sent: 0, delivered: 100, clicked: 60 },
      { day: '2025-03-03', sent: 200, delivered: 100, clicked: 30 },
    ],
    by_channel: [
      { platform: 'web', sent: 4000, delivered: 3800, clicked: 380, failed: 10 },
      { platform: 'ios', sent: 0, delivered: 0, clicked: 0, failed: 0 },
      { platform: 'android', sent: 0, delivered: 0, clicked: 0, failed: 0 },
      { platform: 'sms', sent: 200, delivered: 100, clicked: 10, failed: 2 },
      { platform: 'facebook', sent: 0, delivered: 0, clicked: 0, failed: 0 },
    ],
    top_messages: [
      {
        id: 12,
        title: 'Tết sale',
        type: 'web_push',
        status: 'opened',
        send_at: '2025-03-01T08:00:00.000Z',
        stats: { targeted: 4000, sent: 4000, delivered: 3800, failed: 0, clicked: 380 },
        ctr: 10,
      },
    ],
  };
  dashboard = {
    from: '2025-03-01',
    to: '2025-03-03',
    utc_offset: 420,
    players: 12_500,
    subscribers: 5000,
    by_platform: [
      { platform: 'web', players: 12_000, subscribers: 4900 },
      { platform: 'android', players: 500, subscribers: 100 },
    ],
    by_channel: [{ channel: 'web_push', players: 4900 }],
    days: [day(1), day(2), day(3)],
    top_events: [{ name: 'add_to_cart', count: 3400 }],
  };
  calls = fakeApi({ 'GET /api/application/shop_one/dashboard': () => dashboard, 'GET /api/application/shop_one/dashboard/messages': () => messages }, application);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(path = '/application/shop_one') {
  return renderInApplication(<Route path="/" component={DashboardPage} />, path);
}

describe('the dashboard', () => {
  it('shows players, subscribers, platforms, channels, both charts and the top events', async () => {
    open();
    expect(await screen.findByText('12.5k')).toBeTruthy();
    expect(screen.getByText('40% of players')).toBeTruthy();
    expect(screen.getByText('6')).toBeTruthy(); // new players over the period: 1 + 2 + 3
    expect(screen.getByRole('img', { name: 'New and active players per day' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Sessions and page views per day' })).toBeTruthy();
    const platforms = screen.getByRole('heading', { name: 'Players by platform' }).parentElement as HTMLElement;
    expect(within(platforms).getByText('Android')).toBeTruthy();
    expect(screen.getByText('add_to_cart')).toBeTruthy();
    expect(screen.getByText('3.4k')).toBeTruthy();
    // Whose days these are: the application's timezone, as the server counted them.
    expect(screen.getByText('How Shop One is doing · days in UTC+07:00')).toBeTruthy();
  });

  it("leads a manager from a top event to a new segment of those who performed it in the period, and not a viewer", async () => {
    useAppStore.setState({ roles: ['manager'] });
    open('/application/shop_one?period=7');
    const link = await screen.findByRole('link', { name: 'Players who performed add_to_cart in the last 7 days' });
    expect(link.textContent).toBe('add_to_cart');
    expect(link.getAttribute('href')).toBe('/application/shop_one/segment/new?performed=add_to_cart&within=7');
    cleanup();
    useAppStore.setState({ roles: ['viewer'] });
    open();
    await screen.findByText('add_to_cart');
    expect(screen.queryByRole('link', { name: /^Players who performed/ })).toBeNull();
  });

  it('asks for the last 30 days by default and for 7 once chosen, keeping the choice in the address', async () => {
    const view = open();
    await screen.findByText('12.5k');
    expect(asked()[0].get('days')).toBe('30');
    fireEvent.click(screen.getByRole('button', { name: '7 days' }));
    await waitFor(() => expect(asked().at(-1)?.get('days')).toBe('7'));
    // The application's own address, without a slash added: one page, one tab.
    expect(view.location()).toBe('/application/shop_one?period=7');
    fireEvent.click(screen.getByRole('button', { name: '30 days' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one'));
  });

  it("writes the days of every chart with the month in letters, as the console's language does, not as digits that read two ways", async () => {
    open();
    const days = async (chart: string) => within(await screen.findByRole('table', { name: chart })).getAllByRole('rowheader').map((cell) => cell.textContent);
    // "01/03" is the 1st of March in Vietnam and January 3rd in the United States.
    expect(await days('New and active players per day')).toEqual(['Mar 1', 'Mar 2', 'Mar 3']);
    expect(await days('Sent, delivered and clicked per day')).toEqual(['Mar 1', 'Mar 2', 'Mar 3']);
    const axis = screen.getByRole('img', { name: 'Sessions and page views per day' });
    expect(within(axis).getByText('Mar 1')).toBeTruthy();
    act(() => useAppStore.getState().setLanguage('vi'));
    await waitFor(async () => expect(await days('Người dùng mới và hoạt động theo ngày')).toEqual(['1 thg 3', '2 thg 3', '3 thg 3']));
  });

  it('shows a new application how to install the script, with its own client key', async () => {
    dashboard = { ...dashboard, players: 0, subscribers: 0, by_platform: [], by_channel: [], top_events: [] };
    open();
    expect(await screen.findByText('Add the script to your site')).toBeTruthy();
    expect(screen.getByText(installSnippet(window.location.origin, 'ck_0123456789'))).toBeTruthy();
  });
});

describe("the dashboard's messages", () => {
  it('show sent, delivered, clicked and failed, per day, per channel, and the top messages', async () => {
    open();
    await screen.findByRole('heading', { name: 'Messages' });
    const section = await screen.findByRole('region', { name: 'Messages' });
    await within(section).findByText('4.2k');
    expect(within(section).getByText('4.2k')).toBeTruthy();
    expect(within(section).getByText('10% click-through rate')).toBeTruthy();
    expect(within(section).getByRole('img', { name: 'Sent, delivered and clicked per day' })).toBeTruthy();
    const channels = within(section).getByRole('heading', { name: 'Sent by channel' }).parentElement as HTMLElement;
    expect(within(channels).getByText('SMS')).toBeTruthy();
    expect(within(channels).queryByText('iOS')).toBeNull();
    const top = within(section).getByRole('link', { name: 'Tết sale' });
    expect(top.getAttribute('href')).toBe('/application/shop_one/notification/12/detail');
    expect(within(section).getByText('4k sent · 380 clicked · 10%')).toBeTruthy();
  });

  it('follow the period picker', async () => {
    open('/application/shop_one/?period=90');
    await screen.findByRole('heading', { name: 'Messages' });
    expect(askedMessages()[0].get('days')).toBe('90');
  });

  it('invite a first message when nothing was sent in the period', async () => {
    messages = { ...messages, totals: { sent: 0, delivered: 0, clicked: 0, failed: 0, ctr: 0 }, top_messages: [] };
    open();
    expect(await screen.findByText('No messages in the last 30 days')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Create a message' }).getAttribute('href')).toBe('/application/shop_one/notification/basic');
  });

  it('are not asked for by those who may not see notifications', async () => {
    useAppStore.setState({ roles: ['ads_manager'] });
    open();
    await screen.findByText('12.5k');
    expect(screen.queryByRole('heading', { name: 'Messages' })).toBeNull();
    expect(askedMessages()).toHaveLength(0);
  });
});

describe('the period', () => {
  it('reads 7, 30 or 90 from the address and falls back to 30', () => {
    expect(periodOf('period=90')).toBe(90);
    expect(periodOf('period=12')).toBe(30);
    expect(periodOf('')).toBe(30);
  });
});
