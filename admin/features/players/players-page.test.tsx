import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Player } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, pageOf, renderInApplication } from '../../test-utils';
import { application, player, tagList } from './fixtures';
import { PlayersPage } from './players-page';

let calls: Call[] = [];
let players: Player[] = [player];
/** Searches fail with a 500, as a server in trouble answers. */
let searchesFail = false;
/** The queries of the player list the screen asked for (not those for the players a search names whole). */
const listCalls = () => calls.filter((call) => call.path === '/api/application/shop_one/player' && call.query.get('match') !== 'whole').map((call) => call.query);

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['viewer'] });
  players = [player];
  searchesFail = false;
  calls = fakeApi(
    {
      'GET /api/application/shop_one/tag': () => tagList,
      'GET /api/application/shop_one/player': (call) => {
        if (searchesFail && call.query.get('q')) return answer({ success: false, error: 'INTERNAL', message: 'Something went wrong.' }, 500);
        return { ...pageOf(call.query.get('country') === 'FR' ? [] : players), total_capped: false };
      },
    },
    application,
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(path = '/application/shop_one/player') {
  return renderInApplication(<Route path="/player" component={PlayersPage} />, path);
}

describe('the player list', () => {
  it('shows each player with platform, country, software, subscription, sessions and tags, linking to the player', async () => {
    open();
    const link = await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
    expect(link.getAttribute('href')).toBe('/application/shop_one/player/42');
    const row = link.closest('tr') as HTMLElement;
    expect(within(row).getByText('cust-1001')).toBeTruthy();
    expect(within(row).getByText('Web')).toBeTruthy();
    expect(within(row).getByText('VN')).toBeTruthy();
    expect(within(row).getByText('Mobile')).toBeTruthy();
    expect(within(row).getByText('Android 14 · Chrome')).toBeTruthy();
    expect(within(row).getByText('Subscribed')).toBeTruthy();
    expect(within(row).getByText('7')).toBeTruthy();
    expect(within(row).getByText('vip')).toBeTruthy();
  });

  it('asks with the filters the address holds, so a reload shows the same list', async () => {
    open('/application/shop_one/player?country=VN&platform=web&seen_within_days=7&sort=session_count&order=asc');
    await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
    const last = listCalls().at(-1) as URLSearchParams;
    expect(Object.fromEntries(last)).toMatchObject({ country: 'VN', platform: 'web', seen_within_days: '7', sort: 'session_count', order: 'asc' });
    expect(screen.getByText('Country: Vietnam (VN)')).toBeTruthy();
    expect(screen.getByText('Seen in the last 7 days')).toBeTruthy();
  });

  describe('its country filter', () => {
    /** Opens the country filter from "Add filter" and answers its search field, once it has the keyboard. */
    async function openCountryFilter() {
      fireEvent.click(screen.getByRole('button', { name: /Add filter/ }));
      fireEvent.click(await screen.findByRole('menuitem', { name: 'Country' }));
      const field = await screen.findByRole('textbox', { name: 'Search countries' });
      await waitFor(() => expect(document.activeElement).toBe(field));
      return field;
    }
    const countries = () => screen.getAllByRole('radio').map((radio) => radio.closest('label')?.textContent);

    it("finds a country by the name typed, in the console's language, and asks the list by its code", async () => {
      const view = open();
      await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
      const field = await openCountryFilter();
      fireEvent.change(field, { target: { value: 'vietnam' } });
      // A name is never cut to its first two letters: "VI" is the US Virgin Islands.
      expect(countries()).toEqual(['Vietnam (VN)']);
      fireEvent.click(screen.getByRole('radio', { name: 'Vietnam (VN)' }));
      await waitFor(() => expect(listCalls().at(-1)?.get('country')).toBe('VN'));
      expect(view.location()).toBe('/application/shop_one/player?country=VN');
      expect(await screen.findByText('Country: Vietnam (VN)')).toBeTruthy();
    });

    it('takes the best match on Enter, the country of a code first, and says when nothing matches', async () => {
      open();
      await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
      const field = await openCountryFilter();
      fireEvent.change(field, { target: { value: 'vi' } });
      expect(countries().slice(0, 2)).toEqual(['U.S. Virgin Islands (VI)', 'Vietnam (VN)']);
      fireEvent.change(field, { target: { value: 'germ' } });
      fireEvent.keyDown(field, { key: 'Enter' });
      await waitFor(() => expect(listCalls().at(-1)?.get('country')).toBe('DE'));
      fireEvent.change(field, { target: { value: 'atlantis' } });
      expect(screen.getByText('No country matches “atlantis”')).toBeTruthy();
      expect(screen.queryAllByRole('radio')).toHaveLength(0);
    });

    it('shows the country of the address chosen, first, and lets it be cleared', async () => {
      const view = open('/application/shop_one/player?country=FR');
      await screen.findByText('Country: France (FR)');
      fireEvent.click(screen.getByRole('button', { name: 'Country: France (FR)' }));
      await screen.findByRole('textbox', { name: 'Search countries' });
      expect(countries()[0]).toBe('France (FR)');
      expect((screen.getByRole('radio', { name: 'France (FR)' }) as HTMLInputElement).checked).toBe(true);
      fireEvent.click(within(screen.getByRole('button', { name: 'Country: France (FR)' }).parentElement as HTMLElement).getByRole('button', { name: 'Clear' }));
      await waitFor(() => expect(view.location()).toBe('/application/shop_one/player'));
    });
  });

  it("lists the application's tags in the tag filter, narrowed to those holding what is typed in any case, and filters by the one chosen", async () => {
    const view = open();
    await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
    // The tags are asked for when the filter opens, not with the list.
    const tagCalls = () => calls.filter((call) => call.path === '/api/application/shop_one/tag');
    expect(tagCalls()).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: /Add filter/ }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Tag' }));
    const field = await screen.findByRole('textbox', { name: 'Tag' });
    await waitFor(() => expect(tagCalls()).toHaveLength(1));
    const listed = () => screen.getAllByRole('radio').map((radio) => radio.closest('label')?.textContent);
    await waitFor(() => expect(listed()).toEqual(['buyer · 4,000 players', 'vip · 1,200 players', 'VIP-2024 · 3 players']));
    fireEvent.change(field, { target: { value: 'VI' } });
    expect(listed()).toEqual(['vip · 1,200 players', 'VIP-2024 · 3 players']);
    fireEvent.click(screen.getByRole('radio', { name: 'vip · 1,200 players' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/player?tag=vip'));
    await waitFor(() => expect(listCalls().at(-1)?.get('tag')).toBe('vip'));
    expect(await screen.findByText('Tag: vip')).toBeTruthy();
  });

  it('shows in the empty OS filter what to type, as devices name their systems, and filters by what is typed', async () => {
    const view = open();
    await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
    fireEvent.click(screen.getByRole('button', { name: /Add filter/ }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'OS' }));
    const field = (await screen.findByRole('textbox', { name: 'OS' })) as HTMLInputElement;
    expect(field.placeholder).toBe('OS name, e.g. iOS, Android, Windows');
    fireEvent.change(field, { target: { value: 'iOS' } });
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/player?os=iOS'));
  });

  it('gives its search field the magnifier and the height of the sort menu beside it, on a phone too', async () => {
    (window as unknown as { happyDOM: { setViewport(viewport: { width: number; height: number }): void } }).happyDOM.setViewport({ width: 375, height: 812 });
    try {
      open();
      await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
      const field = screen.getByRole('textbox', { name: 'Search device ID, user ID, email or phone' }).closest('.Polaris-TextField') as HTMLElement;
      // Polaris' own Filters field is slim (28 px) and shows no icon under 768 px.
      expect(field.className).not.toContain('Polaris-TextField--slim');
      expect(field.querySelector('.Polaris-TextField__Prefix svg')).toBeTruthy();
    } finally {
      (window as unknown as { happyDOM: { setViewport(viewport: { width: number; height: number }): void } }).happyDOM.setViewport({ width: 1024, height: 768 });
    }
  });

  it('writes a search into the address and asks the server once typing pauses', async () => {
    const view = open();
    await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
    fireEvent.change(screen.getByPlaceholderText('Search device ID, user ID, email or phone'), { target: { value: 'lan@example.vn' } });
    await waitFor(() => expect(listCalls().at(-1)?.get('q')).toBe('lan@example.vn'));
    expect(view.location()).toBe('/application/shop_one/player?q=lan%40example.vn');
  });

  it('names above the list the player a search names whole, wherever the order puts them among those it begins', async () => {
    const customer = (id: number, last: string): Player => ({ ...player, id, device_id: `v_${id}`, external_user_id: `cust-${id}`, last_seen_at: last });
    players = [customer(10, '2025-03-03T00:00:00.000Z'), customer(11, '2025-03-02T00:00:00.000Z'), customer(1, '2025-03-01T00:00:00.000Z')];
    const one = players[2];
    calls = fakeApi({ 'GET /api/application/shop_one/player': (call) => ({ ...pageOf(call.query.get('match') === 'whole' ? [one] : players), total_capped: false }) }, application);
    open('/application/shop_one/player?q=cust-1&country=VN');
    const link = await screen.findByRole('link', { name: 'cust-1' });
    expect(link.getAttribute('href')).toBe('/application/shop_one/player/1');
    expect(screen.getByText('Exactly “cust-1”:')).toBeTruthy();
    // Asked with the list's filters, the names whole.
    const asked = calls.find((call) => call.query.get('match') === 'whole')?.query;
    expect(asked && Object.fromEntries(asked)).toMatchObject({ q: 'cust-1', country: 'VN', match: 'whole', page: '1' });
    cleanup();

    // When the search finds only the player it names whole, the list says it already.
    players = [one];
    open('/application/shop_one/player?q=cust-1');
    await screen.findByRole('link', { name: 'v_1' });
    expect(screen.queryByText('Exactly “cust-1”:')).toBeNull();
  });

  it('keeps the players on screen and says so in a toast when a search fails; a first load that fails says it in place of the list', async () => {
    searchesFail = true;
    open();
    await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
    fireEvent.change(screen.getByPlaceholderText('Search device ID, user ID, email or phone'), { target: { value: 'lan' } });
    await waitFor(() => expect(useAppStore.getState().toasts.map((toast) => toast.message)).toEqual(['Something went wrong.']));
    expect(screen.getByRole('link', { name: 'v_8f2c1a9e77' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();

    cleanup();
    useAppStore.setState({ toasts: [] });
    open('/application/shop_one/player?q=lan');
    expect(await screen.findByRole('button', { name: 'Try again' })).toBeTruthy();
    expect(screen.getByText('Something went wrong.')).toBeTruthy();
    expect(useAppStore.getState().toasts).toHaveLength(0);
  });

  it('removes a filter with its pill and goes back to page 1', async () => {
    const view = open('/application/shop_one/player?tag=vip&page=2');
    const pill = await screen.findByRole('button', { name: 'Tag: vip' });
    fireEvent.click(within(pill.parentElement as HTMLElement).getByRole('button', { name: 'Clear' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/player'));
    expect(listCalls().at(-1)?.get('tag')).toBeNull();
    expect(listCalls().at(-1)?.get('page')).toBe('1');
  });

  it('sorts by sessions when its heading is clicked', async () => {
    const view = open();
    await screen.findByRole('link', { name: 'v_8f2c1a9e77' });
    // IndexTable draws its heading twice (the sticky copy); either sorts.
    fireEvent.click(screen.getAllByRole('button', { name: /Sessions/ })[0]);
    await waitFor(() => expect(view.location()).toContain('sort=session_count'));
    expect(listCalls().at(-1)?.get('sort')).toBe('session_count');
  });

  it('sorts by any of its orders from the sort menu, also those without a column, back to the first page', async () => {
    // Three pages of players: the second is a real page to leave.
    players = Array.from({ length: 45 }, (_, index) => ({ ...player, id: index + 1, device_id: `v_${String(index + 1).padStart(3, '0')}` }));
    const view = open('/application/shop_one/player?page=2');
    await screen.findByRole('link', { name: 'v_001' });
    expect(listCalls().at(-1)?.get('page')).toBe('2');
    const menu = screen.getByRole('combobox', { name: 'Sort by' }) as HTMLSelectElement;
    expect(menu.value).toBe('last_seen_at:desc');
    expect([...menu.options].map((option) => option.text)).toContain('First seen, oldest first');
    fireEvent.change(menu, { target: { value: 'page_views:desc' } });
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/player?sort=page_views'));
    expect(Object.fromEntries(listCalls().at(-1) as URLSearchParams)).toMatchObject({ sort: 'page_views', order: 'desc', page: '1' });
    // Page views have no column of their own: sorted by them, the table shows them, beside the sessions.
    const row = (await screen.findByRole('link', { name: 'v_001' })).closest('tr') as HTMLElement;
    await waitFor(() => expect(screen.getAllByRole('button', { name: /Page views/ }).length).toBeGreaterThan(0));
    expect(within(row).getByText('31')).toBeTruthy();
    // The menu follows a sort chosen by a column's heading.
    fireEvent.click(screen.getAllByRole('button', { name: /Sessions/ })[0]);
    await waitFor(() => expect(view.location()).toContain('sort=session_count'));
    expect((screen.getByRole('combobox', { name: 'Sort by' }) as HTMLSelectElement).value).toMatch(/^session_count:/);
  });

  it('opens the last page when the address names a page past the end, not an empty list', async () => {
    // 25 players: two pages of 20. An old link asks for page 9.
    players = Array.from({ length: 25 }, (_, index) => ({ ...player, id: index + 1, device_id: `v_${String(index + 1).padStart(3, '0')}` }));
    calls = fakeApi(
      {
        'GET /api/application/shop_one/player': (call) => {
          const page = Number(call.query.get('page') ?? 1);
          const limit = Number(call.query.get('limit') ?? 20);
          return { items: players.slice((page - 1) * limit, page * limit), total: players.length, total_capped: false, page, limit };
        },
      },
      application,
    );
    open('/application/shop_one/player?page=9');
    expect(await screen.findByRole('link', { name: 'v_021' })).toBeTruthy();
    expect(screen.getByText('Page 2 of 2')).toBeTruthy();
    expect(listCalls().map((query) => query.get('page'))).toEqual(['9', '2']);
  });

  it('says "more than" the count of a search the server counted only up to its cap, and pages on to the cap', async () => {
    calls = fakeApi(
      {
        'GET /api/application/shop_one/player': (call) => {
          const page = Number(call.query.get('page') ?? 1);
          const limit = Number(call.query.get('limit') ?? 20);
          const items = Array.from({ length: limit }, (_, index) => ({ ...player, id: (page - 1) * limit + index + 1, device_id: `v_${(page - 1) * limit + index + 1}` }));
          return { items, total: 10_000, total_capped: true, page, limit };
        },
      },
      application,
    );
    const view = open('/application/shop_one/player?q=customer');
    expect(await screen.findByText('More than 10,000 players')).toBeTruthy();
    expect(screen.getByText('Page 1 of more than 500')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(view.location()).toContain('page=2'));
    expect(await screen.findByText('Page 2 of more than 500')).toBeTruthy();
    act(() => useAppStore.getState().setLanguage('vi'));
    expect(await screen.findByText('Hơn 10.000 người dùng')).toBeTruthy();
    expect(screen.getByText('Trang 2/hơn 500')).toBeTruthy();
  });

  it('says no player matches when the filters leave none', async () => {
    open('/application/shop_one/player?country=FR');
    expect(await screen.findByText('No players match')).toBeTruthy();
  });

  it('says what a search matches when it finds nobody', async () => {
    players = [];
    open('/application/shop_one/player?q=customer-15');
    expect(await screen.findByText('No player matches this search')).toBeTruthy();
    expect(screen.getByText(/a device ID typed whole, and user IDs, emails and phone numbers that begin with what you type/)).toBeTruthy();
    expect(screen.queryByText('No players yet')).toBeNull();
  });

  it('explains where players come from when the application has none', async () => {
    players = [];
    open();
    expect(await screen.findByText('No players yet')).toBeTruthy();
  });
});
