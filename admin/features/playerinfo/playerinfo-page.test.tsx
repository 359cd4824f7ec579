import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { OwnPlayer } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, answer, fakeApi, renderInConsole, writesOf } from '../../test-utils';
import { player } from '../players/fixtures';
import { PlayerInfoPage } from './playerinfo-page';
import { VISITOR_LANGUAGE_KEY } from './visitor-language';

const UNSUBSCRIBE = '/api/public/application/shop_one/playerinfo/v_8f2c1a9e77/unsubscribe';

let record: OwnPlayer;
let calls: Call[] = [];
/** The unsubscribes the page sent. */
const unsubscribes = () => writesOf(calls).filter((call) => call.method === 'POST' && call.path === UNSUBSCRIBE);

/** The browser's languages (navigator.languages), as a shopper set them. */
function browserSpeaks(...languages: string[]) {
  vi.spyOn(navigator, 'languages', 'get').mockReturnValue(languages);
  vi.spyOn(navigator, 'language', 'get').mockReturnValue(languages[0] ?? '');
}

/** The headers of the page's calls to the API. */
const headersSent = () => vi.mocked(fetch).mock.calls.map(([, init]) => (init?.headers ?? {}) as Record<string, string>);

beforeEach(() => {
  useAppStore.setState({ token: null, roles: [] });
  localStorage.removeItem(VISITOR_LANGUAGE_KEY);
  browserSpeaks('en-US', 'en');
  // A record as a server that still sent the whole player would (tags included): the page shows none of them.
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
  vi.restoreAllMocks();
});

function open(search: string) {
  renderInConsole(<Route path="/application/:application_id/playerinfo" component={PlayerInfoPage} />, { path: `/application/shop_one/playerinfo${search}` });
}

describe("a visitor's own record", () => {
  it("shows the device, place and subscription, signed out, and none of the merchant's tags or identities", async () => {
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('Android 14 · Chrome')).toBeTruthy();
    // Which shop this page speaks for: the visitor came to it from that shop's page.
    expect(screen.getByText('Your device and notification settings at Trà Mộc Shop.')).toBeTruthy();
    expect(screen.getByText(/Hà Nội/)).toBeTruthy();
    expect(screen.getByText('Subscribed')).toBeTruthy();
    // The tags are the merchant's labels for its segments, not the visitor's interests.
    expect(screen.queryByText('tea-lover')).toBeNull();
    expect(screen.queryByText('vip')).toBeNull();
    expect(screen.queryByText('Interests')).toBeNull();
    expect(screen.queryByText('lan@example.vn')).toBeNull();
    expect(screen.queryByText(/cust-1001|tet-sale/)).toBeNull();
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
    expect(screen.getByText('Your device and notification settings at Trà Mộc Shop.')).toBeTruthy();
    expect(screen.queryByText('Your device and notification settings on this site.')).toBeNull();
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

describe('the language of the page', () => {
  const twoHoursAgo = () => new Date(Date.now() - 2 * 3_600_000).toISOString();

  it("speaks English to a browser set to English, whatever the console's language, and asks the server in English", async () => {
    record = { ...record, last_seen_at: twoHoursAgo() };
    useAppStore.setState({ token: 'tok', roles: ['viewer'] });
    open('?device=v_8f2c1a9e77');
    // The console's own setting stays Vietnamese, its default (selectLanguage): the page does not follow it.
    act(() => useAppStore.getState().setLanguage('vi'));
    expect(await screen.findByText('Hà Nội, Vietnam (VN)')).toBeTruthy();
    expect(screen.getByText('Your notification settings')).toBeTruthy();
    expect(screen.getByText('Mobile')).toBeTruthy();
    expect(screen.getByText('2 hours ago')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Unsubscribe' })).toBeTruthy();
    expect(screen.queryByText('Cài đặt thông báo của bạn')).toBeNull();
    // The console writes its language on the document at every change of its store; the page's stays.
    expect(document.documentElement.lang).toBe('en');
    act(() => useAppStore.getState().showToast('Something else'));
    expect(document.documentElement.lang).toBe('en');
    expect(document.title).toBe('Your notification settings · Nudge');
    expect(useAppStore.getState().language).toBe('vi');
    // The server's messages in the page's language; a signed-in member's token is not the visitor's business.
    expect(headersSent()[0]).toMatchObject({ 'Accept-Language': 'en' });
    expect(headersSent()[0]).not.toHaveProperty('X-Token');
  });

  it('speaks Vietnamese to a browser set to Vietnamese, dates and place names included, with the console in English', async () => {
    browserSpeaks('vi-VN', 'vi', 'en-US', 'en');
    record = { ...record, last_seen_at: twoHoursAgo() };
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('Hà Nội, Việt Nam (VN)')).toBeTruthy();
    expect(screen.getByText('Cài đặt thông báo của bạn')).toBeTruthy();
    expect(screen.getByText('Thiết bị và cài đặt thông báo của bạn tại Trà Mộc Shop.')).toBeTruthy();
    expect(screen.getByText('Di động')).toBeTruthy();
    expect(screen.getByText('2 giờ trước')).toBeTruthy();
    expect(screen.getByText('Đã đăng ký')).toBeTruthy();
    expect(screen.queryByText('Sở thích')).toBeNull();
    expect(screen.queryByText('tea-lover')).toBeNull();
    // Polaris' own words too: the dialog's close button.
    fireEvent.click(screen.getByRole('button', { name: 'Hủy đăng ký' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('button', { name: 'Đóng' })).toBeTruthy();
    // And the frame's link to the content, which the console draws around the page.
    expect(screen.getByRole('link', { name: 'Chuyển đến nội dung' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Skip to content' })).toBeNull();
    expect(document.documentElement.lang).toBe('vi');
    expect(headersSent()[0]).toMatchObject({ 'Accept-Language': 'vi' });
    // renderInConsole set the console to English; the page left it so.
    expect(useAppStore.getState().language).toBe('en');
  });

  it("speaks the record's language to a browser that asks only for others, and English when the record names neither", async () => {
    browserSpeaks('fr-FR', 'fr');
    record = { ...record, language: 'vi' };
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('Thiết bị và cài đặt thông báo của bạn tại Trà Mộc Shop.')).toBeTruthy();
    cleanup();
    record = { ...record, language: 'de' };
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('Your device and notification settings at Trà Mộc Shop.')).toBeTruthy();
  });

  it("switches on the page's own switch, leaving the console's language setting as it was", async () => {
    open('?device=v_8f2c1a9e77');
    act(() => useAppStore.getState().setLanguage('en'));
    expect(await screen.findByText('Your device and notification settings at Trà Mộc Shop.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'English' }).getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Tiếng Việt' }));
    expect(await screen.findByText('Thiết bị và cài đặt thông báo của bạn tại Trà Mộc Shop.')).toBeTruthy();
    expect(screen.getByText('Chuyển ngôn ngữ thành công')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Tiếng Việt' }).getAttribute('aria-disabled')).toBe('true');
    expect(document.documentElement.lang).toBe('vi');
    expect(useAppStore.getState().language).toBe('en');
    // The pick holds over the record's reload after unsubscribing, and the server answers in it.
    fireEvent.click(screen.getByRole('button', { name: 'Hủy đăng ký' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Hủy đăng ký' }));
    expect(await screen.findByText('Bạn không nhận thông báo từ Trà Mộc Shop.')).toBeTruthy();
    expect(headersSent().at(-1)).toMatchObject({ 'Accept-Language': 'vi' });
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    expect(await screen.findByText('You do not receive notifications from Trà Mộc Shop.')).toBeTruthy();
    expect(useAppStore.getState().language).toBe('en');
    // Once the page is left, Polaris speaks the console's language again.
    cleanup();
    expect(useAppStore.getState().pageLanguage).toBeNull();
  });

  it('keeps the language picked when the page is opened again on the device, over the browser and the console', async () => {
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('Your device and notification settings at Trà Mộc Shop.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Tiếng Việt' }));
    expect(await screen.findByText('Thiết bị và cài đặt thông báo của bạn tại Trà Mộc Shop.')).toBeTruthy();
    // Opened again (a reload, the link tapped later): the browser still says English, the console is in English.
    cleanup();
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('Thiết bị và cài đặt thông báo của bạn tại Trà Mộc Shop.')).toBeTruthy();
    expect(headersSent().at(-1)).toMatchObject({ 'Accept-Language': 'vi' });
    expect(useAppStore.getState().language).toBe('en');
    // Picked back, English is what is kept.
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    cleanup();
    open('?device=v_8f2c1a9e77');
    expect(await screen.findByText('Your device and notification settings at Trà Mộc Shop.')).toBeTruthy();
  });
});
