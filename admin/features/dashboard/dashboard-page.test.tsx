import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Dashboard } from '../../../shared/contract';
import { ApplicationScope } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { answer, renderInConsole } from '../../test-utils';
import { application } from '../players/fixtures';
import { DashboardPage, installSnippet, periodOf, periodRange } from './dashboard-page';

let dashboard: Dashboard;
let asked: URL[] = [];

const day = (n: number) => ({ day: `2025-03-0${n}`, new_players: n, active_players: 10 * n, sessions: 20 * n, page_views: 50 * n });

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['viewer'] });
  asked = [];
  dashboard = {
    from: '2025-03-01',
    to: '2025-03-03',
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
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const parsed = new URL(url);
      if (parsed.pathname === '/api/application/shop_one') return answer({ success: true, data: application });
      if (parsed.pathname === '/api/application/shop_one/dashboard') {
        asked.push(parsed);
        return answer({ success: true, data: dashboard });
      }
      return answer({ success: false, error: 'NOT_FOUND', message: 'Not found.' }, 404);
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(path = '/application/shop_one') {
  return renderInConsole(
    <Route path="/application/:application_id" nest>
      <ApplicationScope>
        <Route path="/" component={DashboardPage} />
      </ApplicationScope>
    </Route>,
    { path },
  );
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
  });

  it('asks for the last 30 days by default and for 7 once chosen, keeping the choice in the address', async () => {
    const view = open();
    await screen.findByText('12.5k');
    expect(asked[0].searchParams.get('from')).toBe(periodRange(30).from);
    fireEvent.click(screen.getByRole('button', { name: '7 days' }));
    await waitFor(() => expect(asked.at(-1)?.searchParams.get('from')).toBe(periodRange(7).from));
    expect(view.location()).toBe('/application/shop_one/?period=7');
  });

  it('shows a new application how to install the script, with its own client key', async () => {
    dashboard = { ...dashboard, players: 0, subscribers: 0, by_platform: [], by_channel: [], top_events: [] };
    open();
    expect(await screen.findByText('Add the script to your site')).toBeTruthy();
    expect(screen.getByText(installSnippet(window.location.origin, 'ck_0123456789'))).toBeTruthy();
  });
});

describe('the period', () => {
  it('covers the given number of UTC days, today included', () => {
    expect(periodRange(7, new Date('2025-03-10T23:30:00Z'))).toEqual({ from: '2025-03-04', to: '2025-03-10' });
    expect(periodRange(30, new Date('2025-03-01T00:10:00Z'))).toEqual({ from: '2025-01-31', to: '2025-03-01' });
  });

  it('reads 7, 30 or 90 from the address and falls back to 30', () => {
    expect(periodOf('period=90')).toBe(90);
    expect(periodOf('period=12')).toBe(30);
    expect(periodOf('')).toBe(30);
  });
});
