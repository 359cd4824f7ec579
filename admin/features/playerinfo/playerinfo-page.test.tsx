import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { OwnPlayer } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, answer, fakeApi, renderInConsole, writesOf } from '../../test-utils';
import { player } from '../players/fixtures';
import { PlayerInfoPage } from './playerinfo-page';

const UNSUBSCRIBE = '/api/public/application/shop_one/playerinfo/v_8f2c1a9e77/unsubscribe';

let record: OwnPlayer;
let calls: Call[] = [];
/** The unsubscribes the page sent. */
const unsubscribes = () => writesOf(calls).filter((call) => call.method === 'POST' && call.path === UNSUBSCRIBE);

beforeEach(() => {
  useAppStore.setState({ token: null, roles: [] });
  record = { ...player, application_name: 'Trà Mộc Shop' };
  // A public page: the visitor's record, outside any application the console loads.
  calls = fakeApi({
    'GET /api/public/application/shop_one/playerinfo/v_8f2c1a9e77': () => record,
    [`POST ${UNSUBSCRIBE}`]: () => {
      record = { ...record, subscribed: false, channels: [], opted_out_at: '2025-03-02T10:00:00.000Z' };
      return {};
    },
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(search: string) {
  renderInConsole(<Route path="/application/:application_id/playerinfo" component={PlayerInfoPage} />, { path: `/application/shop_one/playerinfo${search}` });
}

describe("a visitor's own record", () => {
  it('shows the device, place, subscription and tags, signed out', async () => {
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('Android 14 · Chrome')).toBeTruthy();
    // Which shop this page speaks for: the visitor came to it from that shop's page.
    expect(screen.getByText('What Trà Mộc Shop knows about your device.')).toBeTruthy();
    expect(screen.getByText(/Hà Nội/)).toBeTruthy();
    expect(screen.getByText('Subscribed')).toBeTruthy();
    expect(screen.getByText('tea-lover')).toBeTruthy();
    expect(screen.queryByText('lan@example.vn')).toBeNull();
  });

  it('unsubscribes after the confirmation', async () => {
    open('?device=v_8f2c1a9e77');
    fireEvent.click(await screen.findByRole('button', { name: 'Unsubscribe' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('You will no longer receive notifications from Trà Mộc Shop on this device.')).toBeTruthy();
    expect(unsubscribes()).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Unsubscribe' }));
    expect(await screen.findByText('You are unsubscribed. You will not receive notifications from Trà Mộc Shop any more.')).toBeTruthy();
    expect(unsubscribes()).toHaveLength(1);
    await waitFor(() => expect(screen.getByText('Not subscribed')).toBeTruthy());
    expect(screen.getByText('You do not receive notifications from Trà Mộc Shop.')).toBeTruthy();
    // What brings them back, since the browser renewing its subscription no longer does: the shop's box, offered
    // again a month later (storefront-widgets/sdk/push.ts).
    expect(screen.getByText("To receive them again, allow them when Trà Mộc Shop's site offers them, a month from now at the earliest.")).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Unsubscribe' })).toBeNull();
  });

  it("tells an app's user who unsubscribed here to turn notifications on in the app, and says nothing of it to one who never subscribed", async () => {
    record = { ...record, platform: 'ios', browser: null, subscribed: false, channels: [], opted_out_at: '2025-03-02T10:00:00.000Z' };
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText("To receive them again, turn notifications on in Trà Mộc Shop's app.")).toBeTruthy();
    cleanup();
    record = { ...record, opted_out_at: null };
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('You do not receive notifications from Trà Mộc Shop.')).toBeTruthy();
    expect(screen.queryByText(/To receive them again/)).toBeNull();
  });

  it('keeps naming the shop while the record loads again after unsubscribing', async () => {
    let release = () => {};
    let loads = 0;
    calls = fakeApi({
      'GET /api/public/application/shop_one/playerinfo/v_8f2c1a9e77': async () => {
        loads += 1;
        if (loads > 1) await new Promise<void>((resolve) => (release = resolve));
        return record;
      },
      [`POST ${UNSUBSCRIBE}`]: () => {
        record = { ...record, subscribed: false, channels: [] };
        return {};
      },
    });
    open('?device=v_8f2c1a9e77');
    fireEvent.click(await screen.findByRole('button', { name: 'Unsubscribe' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Unsubscribe' }));
    await waitFor(() => expect(loads).toBe(2));
    expect(screen.getByText('What Trà Mộc Shop knows about your device.')).toBeTruthy();
    expect(screen.queryByText('What this site knows about your device.')).toBeNull();
    act(() => release());
    expect(await screen.findByText('You do not receive notifications from Trà Mộc Shop.')).toBeTruthy();
  });

  it('lets a visitor who is also a signed-in viewer unsubscribe their own device', async () => {
    useAppStore.setState({ token: 'tok', roles: ['viewer'] });
    open('?device=v_8f2c1a9e77');
    fireEvent.click(await screen.findByRole('button', { name: 'Unsubscribe' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Unsubscribe' }));
    await waitFor(() => expect(unsubscribes()).toHaveLength(1));
  });

  it('says the link is incomplete without a device id', async () => {
    open('');
    expect(await screen.findByText('This link is incomplete')).toBeTruthy();
  });

  it('says the device is unknown when the server has no record of it', async () => {
    open('?device=nobody_123');
    expect(await screen.findByText('Device not found')).toBeTruthy();
  });

  it('says the device is unknown, not that loading failed, for a device id the server refuses as malformed', async () => {
    calls = fakeApi({
      'GET /api/public/application/shop_one/playerinfo/x': () => answer({ success: false, error: 'INVALID_PARAM', message: 'This value is too short' }, 400),
    });
    open('?device=x');
    expect(await screen.findByText('Device not found')).toBeTruthy();
    expect(screen.queryByText('This value is too short')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });
});
