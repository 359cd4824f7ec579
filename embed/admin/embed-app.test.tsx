import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authorizeApiWith } from '../../admin/api';
import { useAppStore } from '../../admin/stores/store';
import type { Role } from '../../shared/permissions';
import { EmbedApp } from './embed-app';
import { type AppBridge, type EntryWindow, readEmbedContext } from './entry';
import { sessionTokenAuthorization } from './session-token';

const SHOP = 'demo-shop.myshopify.com';
const APPLICATION_ID = 'demo_shop_myshopify_com';

const application = {
  application_id: APPLICATION_ID,
  name: 'Demo Shop',
  client_key: 'ck_demo',
  total_users: 0,
  platforms: [],
  created: '2025-01-01T00:00:00.000Z',
  deleting_at: null,
  role: 'super_user',
  plan: 'free',
};

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

type Call = { path: string; method: string; headers: Record<string, string> };
let calls: Call[] = [];
const fetchMock = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();

/** The API as the embedded admin meets it: its session, the application, and empty widget lists. */
function serve({ roles = ['super_user'], session }: { roles?: Role[]; session?: (n: number) => Response } = {}) {
  let sessionCalls = 0;
  fetchMock.mockImplementation(async (url, init) => {
    const path = new URL(url).pathname;
    calls.push({ path, method: init.method ?? 'GET', headers: { ...(init.headers as Record<string, string>) } });
    if (path === '/api/embed/session') {
      sessionCalls += 1;
      return session?.(sessionCalls) ?? json({ success: true, data: { application_id: APPLICATION_ID, shop: SHOP, name: 'Demo Shop', roles } });
    }
    if (path === `/api/application/${APPLICATION_ID}`) return json({ success: true, data: application });
    if (path.startsWith(`/api/application/${APPLICATION_ID}/widget`)) return json({ success: true, data: { items: [], total: 0, page: 1, limit: 20 } });
    if (path.startsWith(`/api/application/${APPLICATION_ID}/lead`)) return json({ success: true, data: { items: [], total: 0, page: 1, limit: 20 } });
    return json({ success: false, error: 'NOT_FOUND', message: 'Not found.' }, 404);
  });
}

function fakeBridge(): AppBridge & { issued: () => number } {
  let issued = 0;
  return {
    idToken: vi.fn(async () => `session-token-${++issued}`),
    loading: vi.fn(),
    toast: { show: vi.fn() },
    config: { shop: SHOP },
    issued: () => issued,
  };
}

const topDescriptor = Object.getOwnPropertyDescriptor(window, 'top');

/** Puts the page inside a frame, as the platform's admin does; the console then defaults to English. */
function insideFrame() {
  Object.defineProperty(window, 'top', { configurable: true, get: () => ({}) });
  // i18n follows the store: touching it makes the default language be judged again, now inside the frame.
  useAppStore.setState({ language: null });
}

/** Opens the entry at `url` the way main.tsx does, with `bridge` as the platform's App Bridge. */
function openEntry(url: string, bridge?: AppBridge) {
  window.history.replaceState(null, '', url);
  const win: EntryWindow = { location: window.location, top: window.top, self: window, shopify: bridge, document };
  const context = readEmbedContext(win);
  if (context.kind === 'embedded') authorizeApiWith(sessionTokenAuthorization(context.bridge));
  render(<EmbedApp context={context} />);
  return context;
}

const navLinks = () =>
  [...document.querySelectorAll('ui-nav-menu a')].map((link) => [link.textContent, link.getAttribute('href'), link.getAttribute('rel')]);

beforeEach(() => {
  // The contact-button screen's live preview loads the widget code into a frame; the test has no server for it.
  (window as unknown as { happyDOM: { settings: { handleDisabledFileLoadingAsSuccess: boolean } } }).happyDOM.settings.handleDisabledFileLoadingAsSuccess = true;
  calls = [];
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
  localStorage.clear();
  useAppStore.setState({ token: null, user: null, roles: [], lastApplicationId: null, language: null, toasts: [], appName: null });
});

afterEach(() => {
  cleanup();
  authorizeApiWith(null);
  vi.unstubAllGlobals();
  if (topDescriptor) Object.defineProperty(window, 'top', topDescriptor);
  document.head.querySelector('meta[name="shopify-api-key"]')?.remove();
});

describe('the embedded entry opened outside the frame', () => {
  it("explains how to open Nudge from the shop admin and links to that shop's admin", async () => {
    const meta = document.createElement('meta');
    meta.name = 'shopify-api-key';
    meta.content = 'a1b2c3d4';
    document.head.appendChild(meta);
    useAppStore.getState().setLanguage('en');
    const context = openEntry(`/shopify-banner?shop=${SHOP}&host=YWRtaW4`);
    expect(context.kind).toBe('outside');
    expect(await screen.findByRole('heading', { name: 'Open Nudge from your shop admin' })).toBeTruthy();
    expect(screen.getByText('Choose Apps in the admin menu, then Nudge.')).toBeTruthy();
    expect(screen.getByText('Nudge opens with its own menu: Banners, Suggestions, Fake-buyer notices, Team.')).toBeTruthy();
    const link = screen.getByRole('link', { name: `Open Nudge in ${SHOP}` });
    expect(link.getAttribute('href')).toBe(`https://${SHOP}/admin/apps/a1b2c3d4`);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('explains in English inside a frame that names no shop', async () => {
    insideFrame();
    const context = openEntry('/shopify-banner');
    expect(context.kind).toBe('outside');
    expect(await screen.findByRole('heading', { name: 'Open Nudge from your shop admin' })).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('explains in Vietnamese by default at the top level, with no shop link for a shop that is not a shop domain', async () => {
    const context = openEntry('/shopify-maxlead?shop=evil.example.com&host=YWRtaW4');
    expect(context.kind).toBe('outside');
    expect(await screen.findByRole('heading', { name: 'Mở Nudge từ trang quản trị cửa hàng' })).toBeTruthy();
    expect(screen.getByText('Nudge mở ra cùng menu riêng: Nút liên hệ, Số hotline, Khách hàng tiềm năng, Thành viên.')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /Mở Nudge trong/ })).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('switches to English with the language switch', async () => {
    openEntry('/shopify-banner');
    await screen.findByRole('heading', { name: 'Mở Nudge từ trang quản trị cửa hàng' });
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    expect(await screen.findByRole('heading', { name: 'Open Nudge from your shop admin' })).toBeTruthy();
  });
});

describe('the embedded entry inside the frame', () => {
  beforeEach(() => {
    insideFrame();
  });

  it('asks for the session with a fresh Bearer session token and the placeholder X-Token on every call', async () => {
    serve();
    const bridge = fakeBridge();
    openEntry(`/shopify-banner?shop=${SHOP}&host=YWRtaW4`, bridge);
    expect(await screen.findByRole('heading', { name: 'Banners' })).toBeTruthy();
    const sessionCall = calls.find((call) => call.path === '/api/embed/session');
    expect(sessionCall?.headers).toMatchObject({ Authorization: 'Bearer session-token-1', 'X-Token': 'shopify-embedded' });
    await waitFor(() => expect(calls.some((call) => call.path.endsWith('/widget'))).toBe(true));
    const tokens = calls.map((call) => call.headers.Authorization);
    expect(new Set(tokens).size).toBe(calls.length);
    expect(calls.every((call) => call.headers['X-Token'] === 'shopify-embedded')).toBe(true);
    expect(bridge.issued()).toBe(calls.length);
  });

  it('retries the session once with a fresh token when the server asks for it', async () => {
    serve({
      session: (n) =>
        n === 1
          ? json({ success: false, error: 'NOT_AUTHORIZED', message: 'Session expired' }, 401, { 'X-Shopify-Retry-Invalid-Session-Request': '1' })
          : json({ success: true, data: { application_id: APPLICATION_ID, shop: SHOP, name: 'Demo Shop', roles: ['super_user'] } }),
    });
    openEntry(`/shopify-banner?shop=${SHOP}`, fakeBridge());
    expect(await screen.findByRole('heading', { name: 'Banners' })).toBeTruthy();
    const sessionCalls = calls.filter((call) => call.path === '/api/embed/session');
    expect(sessionCalls.map((call) => call.headers.Authorization)).toEqual(['Bearer session-token-1', 'Bearer session-token-2']);
  });

  describe('at /shopify-banner', () => {
    it('opens the banners screen in English, with the banner app’s menu and title', async () => {
      serve();
      openEntry(`/shopify-banner?shop=${SHOP}&host=YWRtaW4`, fakeBridge());
      expect(await screen.findByRole('heading', { name: 'Banners' })).toBeTruthy();
      expect(window.location.pathname).toBe(`/shopify-banner/application/${APPLICATION_ID}/banner`);
      expect(document.documentElement.lang).toBe('en');
      const base = `/shopify-banner/application/${APPLICATION_ID}`;
      expect(navLinks()).toEqual([
        ['Nudge', '/shopify-banner', 'home'],
        ['Banners', `${base}/banner`, null],
        ['Suggestions', `${base}/suggestion`, null],
        ['Fake-buyer notices', `${base}/fake_noti`, null],
        ['Team', `${base}/permission`, null],
      ]);
      expect(document.querySelector('ui-title-bar')?.getAttribute('title')).toBe('Banners');
    });
  });

  describe('at /shopify-maxlead', () => {
    it("opens the contact buttons with the contact-button app's menu, without Team for a viewer", async () => {
      serve({ roles: ['viewer'] });
      openEntry(`/shopify-maxlead?shop=${SHOP}`, fakeBridge());
      await waitFor(() => expect(window.location.pathname).toBe(`/shopify-maxlead/application/${APPLICATION_ID}/maxlead`));
      const base = `/shopify-maxlead/application/${APPLICATION_ID}`;
      expect(navLinks()).toEqual([
        ['Nudge', '/shopify-maxlead', 'home'],
        ['Contact buttons', `${base}/maxlead`, null],
        ['Hotlines', `${base}/feature`, null],
        ['Leads', `${base}/maxlead_report`, null],
      ]);
      await waitFor(() => expect(document.querySelector('ui-title-bar')?.getAttribute('title')).toBe('Contact buttons'));
    });

    it('reloads a deep link into the same screen', async () => {
      serve();
      openEntry(`/shopify-maxlead/application/${APPLICATION_ID}/maxlead_report?shop=${SHOP}`, fakeBridge());
      await waitFor(() => expect(document.querySelector('ui-title-bar')?.getAttribute('title')).toBe('Contact report'));
      expect(window.location.pathname).toBe(`/shopify-maxlead/application/${APPLICATION_ID}/maxlead_report`);
    });

    it('refuses a screen of the route set the role does not have, with a way back', async () => {
      serve({ roles: ['viewer'] });
      openEntry(`/shopify-maxlead/application/${APPLICATION_ID}/permission?shop=${SHOP}`, fakeBridge());
      expect(await screen.findByText("You don't have access to this page")).toBeTruthy();
      expect(screen.getByRole('link', { name: 'Back to Contact buttons' }).getAttribute('href')).toBe(
        `/shopify-maxlead/application/${APPLICATION_ID}/maxlead`,
      );
      expect(document.querySelector('ui-title-bar')).toBeNull();
    });

    it("leads a link to another application back to the shop's own", async () => {
      serve();
      openEntry(`/shopify-maxlead/application/someone_else/feature?shop=${SHOP}`, fakeBridge());
      await waitFor(() => expect(window.location.pathname).toBe(`/shopify-maxlead/application/${APPLICATION_ID}/maxlead`));
      expect(calls.some((call) => call.path.includes('someone_else'))).toBe(false);
    });
  });

  it('shows the platform’s loading bar while the session loads, then a clear error with Try again when it fails', async () => {
    let fail = true;
    serve({
      session: () =>
        fail
          ? json({ success: false, error: 'INTERNAL', message: 'Something went wrong on our side.' }, 500)
          : json({ success: true, data: { application_id: APPLICATION_ID, shop: SHOP, name: 'Demo Shop', roles: ['super_user'] } }),
    });
    const bridge = fakeBridge();
    openEntry(`/shopify-banner?shop=${SHOP}`, bridge);
    expect(bridge.loading).toHaveBeenCalledWith(true);
    expect(await screen.findByText('Nudge could not open your shop')).toBeTruthy();
    expect(bridge.loading).toHaveBeenLastCalledWith(false);
    expect(screen.getByText(/Something went wrong on our side\./)).toBeTruthy();
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Banners' })).toBeTruthy();
  });

  it('switches to Vietnamese without asking for the session again, so the screen keeps its state', async () => {
    serve();
    const bridge = fakeBridge();
    openEntry(`/shopify-banner?shop=${SHOP}`, bridge);
    await screen.findByRole('heading', { name: 'Banners' });
    fireEvent.click(screen.getByRole('button', { name: 'Tiếng Việt' }));
    expect(await screen.findByRole('heading', { name: 'Banner' })).toBeTruthy();
    expect(calls.filter((call) => call.path === '/api/embed/session')).toHaveLength(1);
    expect(bridge.toast.show).toHaveBeenCalledWith('Chuyển ngôn ngữ thành công', { duration: 5000, isError: false });
  });

  it("shows the console's toasts through App Bridge", async () => {
    serve();
    const bridge = fakeBridge();
    openEntry(`/shopify-banner?shop=${SHOP}`, bridge);
    await screen.findByRole('heading', { name: 'Banners' });
    act(() => useAppStore.getState().showToast('Saved', { error: false }));
    expect(bridge.toast.show).toHaveBeenCalledWith('Saved', { duration: 5000, isError: false });
  });

  it('says App Bridge is missing instead of calling the API without a session token', async () => {
    serve();
    const context = openEntry(`/shopify-banner?shop=${SHOP}`);
    expect(context.kind).toBe('no-bridge');
    expect(await screen.findByText(/App Bridge did not load/)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
