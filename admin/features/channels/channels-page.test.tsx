import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Dashboard, MessageStats } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, renderInApplication } from '../../test-utils';
import { webApplication } from '../notifications/fixtures';
import { ChannelsPage } from './channels-page';

const zero = { sent: 0, delivered: 0, clicked: 0, failed: 0 };
let calls: Call[];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'] });
  const dashboard: Partial<Dashboard> = {
    by_channel: [
      { channel: 'web_push', players: 4900 },
      { channel: 'mobile_push', players: 320 },
      { channel: 'sms', players: 15 },
      { channel: 'facebook', players: 0 },
    ],
    by_platform: [],
    days: [],
    top_events: [],
  };
  const stats: Partial<MessageStats> = {
    totals: { sent: 5200, delivered: 4000, clicked: 400, failed: 30, ctr: 10 },
    by_channel: [
      { platform: 'web', sent: 5000, delivered: 3800, clicked: 380, failed: 20 },
      { platform: 'ios', sent: 120, delivered: 120, clicked: 12, failed: 0 },
      { platform: 'android', sent: 80, delivered: 80, clicked: 8, failed: 10 },
      { platform: 'sms', ...zero },
      { platform: 'facebook', ...zero },
    ],
    days: [],
    top_messages: [],
  };
  calls = fakeApi(
    {
      'GET /api/application/shop_one/dashboard': () => ({ from: '2025-03-01', to: '2025-03-30', utc_offset: 420, players: 6000, subscribers: 5200, ...dashboard }),
      'GET /api/application/shop_one/dashboard/messages': () => ({ from: '2025-03-01', to: '2025-03-30', utc_offset: 420, ...stats }),
    },
    { ...webApplication, platforms: ['ios', 'web'] },
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  renderInApplication(<Route path="/channel" component={ChannelsPage} />, '/application/shop_one/channel');
}

const card = (name: string) => screen.getByRole('heading', { name }).closest('.Polaris-ShadowBevel') as HTMLElement;

describe('the channels', () => {
  it("show each channel's status, reach and last 30 days, mobile push adding up iOS and Android", async () => {
    open();
    await screen.findByText('4.9k');
    const web = card('Web push');
    expect(within(web).getByText('Active')).toBeTruthy();
    expect(within(web).getByText('5k')).toBeTruthy();
    const mobile = card('Mobile push');
    expect(within(mobile).getByText('iOS: Active · Android: Not set up')).toBeTruthy();
    expect(within(mobile).getByText('200')).toBeTruthy();
    expect(within(mobile).getByText('10 failed')).toBeTruthy();
    // A click-through rate where something was sent (20 of 200 delivered); none, rather than 0%, where nothing was.
    expect(within(mobile).getByText('10%')).toBeTruthy();
    const sms = card('SMS');
    expect(within(sms).queryByText('0%')).toBeNull();
    expect(within(sms).getByText('—')).toBeTruthy();
    expect(calls.find((call) => call.path.endsWith('/dashboard/messages'))?.query.get('days')).toBe('30');
  });

  it('lead to sending on an active channel and to Settings for the others', async () => {
    open();
    await screen.findByText('4.9k');
    const sms = card('SMS');
    expect(within(sms).getByText('Not set up')).toBeTruthy();
    // Not a link while the channel can't send.
    expect(within(sms).queryByRole('link', { name: 'Send a message' })).toBeNull();
    expect(within(sms).getByText('Send a message').closest('a')?.hasAttribute('href')).toBe(false);
    expect(within(sms).getByRole('link', { name: 'Set up' }).getAttribute('href')).toBe('/application/shop_one/platform');
    expect(within(card('Web push')).getByRole('link', { name: 'Send a message' }).getAttribute('href')).toBe('/application/shop_one/notification/web_push');
  });
});
