import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Delivery, DeliveryPage, PlayerDetail, PlayerEvent, PlayerEventsPage, TagCount } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, renderInApplication } from '../../test-utils';
import { application, player } from './fixtures';
import { PlayerPage } from './player-page';

let calls: Call[] = [];
/** The player itself fails to load with a 500 while this is on. */
let detailFails = false;
let detail: PlayerDetail;
let log: DeliveryPage;
/** The pages GET …/player/42/events answers, in turn. */
let older: PlayerEventsPage[];
/** The application's tags as GET …/tag answers them now. */
let tags: TagCount[];

const delivery = (id: number, name: string, fields: Partial<Delivery> = {}): Delivery => ({
  id,
  notification_id: 100 + id,
  notification_name: name,
  player_id: 42,
  device_id: 'v_8f2c1a9e77',
  platform: 'web',
  status: 'sent',
  reason: null,
  attempts: 1,
  sent_at: '2025-03-02T09:00:00.000Z',
  delivered_at: null,
  clicked_at: null,
  created_at: '2025-03-02T08:59:00.000Z',
  ...fields,
});

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['manager'], pageLabel: null });
  detailFails = false;
  detail = {
    player,
    attributes: [
      { name: 'vip', type: 'boolean', value: true, text: 'true', updated_at: '2025-03-01T08:00:00.000Z' },
      { name: 'birthday.date', type: 'date', value: '1990-05-04T00:00:00.000Z', text: '1990-05-04T00:00:00.000Z', updated_at: '2025-03-01T08:00:00.000Z' },
    ],
    events: { items: [{ id: 1, name: 'purchase', properties: { value: 250000 }, session_id: 's1', occurred_at: '2025-03-01T08:10:00.000Z' }], more: false },
  };
  older = [];
  tags = [
    { tag: 'tea-lover', players: 300 },
    { tag: 'returning', players: 12 },
  ];
  log = { items: [], total: 0, total_capped: false, page: 1, limit: 5, next_before_id: null };
  calls = fakeApi(
    {
      'GET /api/application/shop_one/message': () => log,
      'GET /api/application/shop_one/player/42': () =>
        detailFails ? answer({ success: false, error: 'INTERNAL', message: 'Something went wrong.' }, 500) : detail,
      'POST /api/application/shop_one/player/42/tags': (call) => {
        const { tags } = call.body as { tags: string[] };
        detail = { ...detail, player: { ...detail.player, tags: [...detail.player.tags, ...tags] } };
        return {};
      },
      'GET /api/application/shop_one/player/42/events': () => older.shift(),
      'DELETE /api/application/shop_one/player/42/tags/tea-lover': () => {
        detail = { ...detail, player: { ...detail.player, tags: detail.player.tags.filter((tag) => tag !== 'tea-lover') } };
        tags = tags.map((entry) => (entry.tag === 'tea-lover' ? { ...entry, players: entry.players - 1 } : entry));
        return {};
      },
      'GET /api/application/shop_one/tag': () => ({ items: tags, more: false }),
      'DELETE /api/application/shop_one/player/42': () => ({}),
    },
    application,
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(id = '42') {
  return renderInApplication(
    <>
      <Route path="/player/:player_id" component={PlayerPage} />
      <Route path="/player">the list</Route>
    </>,
    `/application/shop_one/player/${id}`,
  );
}

describe("a player's page", () => {
  it('shows the fields of spec §3 in their groups, attributes with types and recent events', async () => {
    open();
    expect(await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 })).toBeTruthy();
    const identity = screen.getByRole('region', { name: 'Identity' });
    expect(within(identity).getByText('lan@example.vn')).toBeTruthy();
    const location = screen.getByRole('region', { name: 'Location' });
    expect(within(location).getByText('Hà Nội')).toBeTruthy();
    expect(within(location).getByText('UTC+07:00')).toBeTruthy();
    // Codes by their names, as the merchant reads them.
    expect(screen.getByText('Vietnamese (vi)')).toBeTruthy();
    expect(within(location).getByText('Vietnam (VN)')).toBeTruthy();
    // A date of weeks ago is said once, not followed by its own day in brackets.
    expect(screen.getAllByText(/^2025-0[23]-0\d \d\d:\d\d$/).length).toBeGreaterThan(0);
    expect(screen.queryByText(/\(\d{4}-\d{2}-\d{2}\)/)).toBeNull();
    const utm = screen.getByRole('region', { name: 'UTM (first visit)' });
    expect(within(utm).getByText('tet-sale')).toBeTruthy();
    const attributes = screen.getByRole('region', { name: 'Attributes' });
    expect(within(attributes).getByText('1990-05-04')).toBeTruthy();
    expect(within(attributes).getByText('Date')).toBeTruthy();
    expect(within(attributes).getByText('True/false')).toBeTruthy();
    expect(screen.getByText('value: 250,000')).toBeTruthy();
    // Every value here is of its type: nothing is flagged.
    expect(within(attributes).queryByText(/segments skip it/)).toBeNull();
  });

  it('says when the person unsubscribed themselves on their own page, and says nothing of it for the others', async () => {
    const { unmount } = open();
    const subscription = await screen.findByRole('region', { name: 'Subscription' });
    expect(within(subscription).queryByText('Unsubscribed themselves on')).toBeNull();
    unmount();
    const at = '2025-03-02T10:00:00.000Z';
    detail = { ...detail, player: { ...player, subscribed: false, unsubscribed_at: at, opted_out_at: at, channels: [] } };
    open();
    const after = await screen.findByRole('region', { name: 'Subscription' });
    const line = within(after).getByText('Unsubscribed themselves on').closest('div')!;
    expect(within(line as HTMLElement).getByText(/^2025-03-02 \d\d:\d\d$/)).toBeTruthy();
  });

  it('flags a value that is not of its attribute\'s type, which segments skip, and shows it as it came', async () => {
    detail = {
      ...detail,
      attributes: [
        { name: 'orders', type: 'number', value: '12 đơn', text: '12 đơn', updated_at: '2025-03-01T08:00:00.000Z' },
        { name: 'spent', type: 'number', value: 120.5, text: '120.50', updated_at: '2025-03-01T08:00:00.000Z' },
        { name: 'vip', type: 'boolean', value: 'yes', text: 'yes', updated_at: '2025-03-01T08:00:00.000Z' },
        { name: 'renewal.date', type: 'date', value: 'soon', text: 'soon', updated_at: '2025-03-01T08:00:00.000Z' },
      ],
    };
    open();
    const attributes = await screen.findByRole('region', { name: 'Attributes' });
    expect(within(attributes).getByText('12 đơn')).toBeTruthy();
    expect(within(attributes).getByText('yes')).toBeTruthy();
    expect(within(attributes).getByText('soon')).toBeTruthy();
    expect(within(attributes).getAllByText('Not a number, so segments skip it')).toHaveLength(1);
    expect(within(attributes).getByText('Not true or false, so segments skip it')).toBeTruthy();
    expect(within(attributes).getByText('Not a date, so segments skip it')).toBeTruthy();
  });

  it("lists the messages the player received, newest first, with their status, and leads to the rest in the recipients' log", async () => {
    log = {
      ...log,
      items: [delivery(7, 'Tết sale', { status: 'clicked', clicked_at: '2025-03-02T10:00:00.000Z' }), delivery(6, 'Welcome', { status: 'failed', reason: 'unsubscribed', sent_at: null })],
      total: 7,
    };
    open();
    const sale = await screen.findByRole('link', { name: 'Tết sale' });
    expect(sale.getAttribute('href')).toBe('/application/shop_one/notification/107/detail');
    expect(screen.getByText('Clicked')).toBeTruthy();
    expect(screen.getByText('Failed')).toBeTruthy();
    expect(screen.getByText('Unsubscribed')).toBeTruthy();
    expect(screen.getByText('Web push · sent 2025-03-02 09:00 · clicked 2025-03-02 10:00')).toBeTruthy();
    // Not sent (it failed first): the time it was queued.
    expect(screen.getByText('Web push · 2025-03-02 08:59')).toBeTruthy();
    const all = screen.getByRole('link', { name: "See all 7 messages in the recipients' log" });
    expect(all.getAttribute('href')).toBe('/application/shop_one/message?q=v_8f2c1a9e77');
    const asked = calls.find((call) => call.path === '/api/application/shop_one/message');
    expect(asked?.query.get('player_id')).toBe('42');
    expect(asked?.query.get('limit')).toBe('5');
  });

  it('shows older events on asking, after the last one shown, until there are no more', async () => {
    const event = (id: number, name: string, at: string): PlayerEvent => ({ id, name, properties: null, session_id: null, occurred_at: at });
    detail = { ...detail, events: { items: [event(9, 'purchase', '2025-03-03T08:00:00.000Z'), event(8, 'add_to_cart', '2025-03-02T08:00:00.000Z')], more: true } };
    older = [
      { items: [event(5, 'view_product', '2025-03-01T08:00:00.000Z')], more: true },
      { items: [event(2, 'search', '2025-02-28T08:00:00.000Z')], more: false },
    ];
    open();
    await screen.findByRole('heading', { name: 'Recent events' });
    fireEvent.click(screen.getByRole('button', { name: 'Show older events' }));
    expect(await screen.findByText('view_product')).toBeTruthy();
    const first = calls.filter((call) => call.path === '/api/application/shop_one/player/42/events')[0];
    expect(Object.fromEntries(first.query)).toEqual({ before_at: '2025-03-02T08:00:00.000Z', before_id: '8' });
    // The newest stay above, in order.
    expect(screen.getAllByText(/^(purchase|add_to_cart|view_product)$/).map((node) => node.textContent)).toEqual(['purchase', 'add_to_cart', 'view_product']);
    fireEvent.click(screen.getByRole('button', { name: 'Show older events' }));
    expect(await screen.findByText('search')).toBeTruthy();
    expect(screen.getAllByText(/^(purchase|add_to_cart|view_product|search)$/).map((node) => node.textContent)).toEqual(['purchase', 'add_to_cart', 'view_product', 'search']);
    const second = calls.filter((call) => call.path === '/api/application/shop_one/player/42/events')[1];
    expect(Object.fromEntries(second.query)).toEqual({ before_at: '2025-03-01T08:00:00.000Z', before_id: '5' });
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Show older events' })).toBeNull());
  });

  it('offers no older events when the first page is all there is', async () => {
    open();
    await screen.findByRole('heading', { name: 'Recent events' });
    expect(screen.getByText('purchase')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Show older events' })).toBeNull();
  });

  it('says when no message was sent to the player yet, with no link to the log', async () => {
    open();
    expect(await screen.findByText('No message has been sent to this player yet.')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /recipients' log/ })).toBeNull();
  });

  it("tells a role outside the notifications area that it can't see the messages, and does not ask for them", async () => {
    useAppStore.setState({ roles: ['ads_manager'] });
    open();
    expect(await screen.findByText("Your role can't see the messages sent to players.")).toBeTruthy();
    expect(calls.some((call) => call.path === '/api/application/shop_one/message')).toBe(false);
  });

  it('refuses a tag the contract refuses, with its message, and sends nothing', async () => {
    open();
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    fireEvent.change(screen.getByLabelText('Add a tag'), { target: { value: 'two words' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('Invalid tag value')).toBeTruthy();
    expect(calls.some((call) => call.path.endsWith('/tags'))).toBe(false);
  });

  it('adds a tag and shows it', async () => {
    open();
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    fireEvent.change(screen.getByLabelText('Add a tag'), { target: { value: 'returning' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('returning', undefined, { timeout: 4000 })).toBeTruthy();
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ tags: ['returning'] });
  });

  it("offers the application's tags the player has not as one is typed, in any case, and adds the one picked", async () => {
    open();
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    const field = screen.getByLabelText('Add a tag') as HTMLInputElement;
    fireEvent.focus(field);
    fireEvent.change(field, { target: { value: 'RET' } });
    fireEvent.click(await screen.findByRole('option', { name: 'returning · 12 players' }));
    expect(field.value).toBe('returning');
    // The player's own tags are not offered again.
    fireEvent.change(field, { target: { value: 'tea' } });
    await waitFor(() => expect(screen.queryByRole('option', { name: /^tea-lover/ })).toBeNull());
    fireEvent.change(field, { target: { value: 'returning' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ tags: ['returning'] }));
  });

  it('removes a tag with its ×', async () => {
    open();
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    fireEvent.click(screen.getByRole('button', { name: 'Remove tea-lover' }));
    await waitFor(() => expect(calls.some((call) => call.method === 'DELETE' && call.path.endsWith('/tags/tea-lover'))).toBe(true));
  });

  it('offers a tag just removed again, with its players counted anew', async () => {
    open();
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    fireEvent.click(screen.getByRole('button', { name: 'Remove tea-lover' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Remove tea-lover' })).toBeNull());
    const field = screen.getByLabelText('Add a tag');
    fireEvent.focus(field);
    fireEvent.change(field, { target: { value: 'tea' } });
    expect(await screen.findByRole('option', { name: 'tea-lover · 299 players' })).toBeTruthy();
  });

  it('leads from a tag to the players who have it: the list filtered by that tag', async () => {
    const view = open();
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    const link = screen.getByRole('link', { name: 'Players tagged tea-lover' });
    expect(link.textContent).toBe('tea-lover');
    fireEvent.click(link);
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/player?tag=tea-lover'));
  });

  it('deletes the player only after the confirmation, then returns to the list', async () => {
    const view = open();
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    // The page draws its actions twice (the phone menu and the wide bar); either opens the confirmation.
    fireEvent.click(screen.getAllByRole('button', { name: 'Delete player' })[0]);
    const dialog = await screen.findByRole('dialog');
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete player' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/player'));
    expect(calls.some((call) => call.method === 'DELETE' && call.path === '/api/application/shop_one/player/42')).toBe(true);
  });

  it('returns to the list as it was left, search and page, after a delete and by the back arrow', async () => {
    const list = '/application/shop_one/player?q=customer&page=2';
    useAppStore.setState({ visitedViews: [{ path: list, title: 'menu.players', applicationId: 'shop_one' }] });
    try {
      let view = open();
      await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
      fireEvent.click(screen.getByRole('button', { name: 'Players' }));
      await waitFor(() => expect(view.location()).toBe(list));
      cleanup();

      view = open();
      await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
      fireEvent.click(screen.getAllByRole('button', { name: 'Delete player' })[0]);
      fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete player' }));
      await waitFor(() => expect(view.location()).toBe(list));
    } finally {
      useAppStore.setState({ visitedViews: [] });
    }
  });

  it('gives a viewer no way to change tags or delete', async () => {
    useAppStore.setState({ roles: ['viewer'] });
    open();
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    expect(screen.queryByLabelText('Add a tag')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove vip' })).toBeNull();
    for (const button of screen.getAllByRole('button', { name: 'Delete player' })) {
      expect(button.hasAttribute('disabled') || button.getAttribute('aria-disabled') === 'true').toBe(true);
    }
  });

  it('says so when the player does not exist, with nothing to try again but the way back to the list', async () => {
    open('999');
    expect(await screen.findByText("There's nothing at this address")).toBeTruthy();
    expect(screen.getByText('This player does not exist or was deleted.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(useAppStore.getState().toasts).toHaveLength(0);
    // Nothing names a player that is not there: the tab keeps the route's title.
    expect(useAppStore.getState().pageLabel).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Back to Players' }));
    expect(await screen.findByText('the list')).toBeTruthy();
  });

  it("names the player's tab and window as the player list does: their id in the shop, else their email, else their number, else their device", async () => {
    const page = '/application/shop_one/player/42';
    const { unmount } = open();
    // Before the player loads, which player it is.
    expect(useAppStore.getState().pageLabel).toEqual({ path: page, label: 'Player #42' });
    await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 });
    await waitFor(() => expect(useAppStore.getState().pageLabel).toEqual({ path: page, label: 'cust-1001' }));
    unmount();
    const named = async (player: Partial<PlayerDetail['player']>, label: string) => {
      detail = { ...detail, player: { ...detail.player, ...player } };
      const view = open();
      await waitFor(() => expect(useAppStore.getState().pageLabel?.label).toBe(label));
      view.unmount();
    };
    await named({ external_user_id: null }, 'lan@example.vn');
    await named({ email: null, mobile_number: '+84912345678' }, '+84912345678');
    await named({ mobile_number: null }, 'v_8f2c1a9e77');
  });

  it('lets an email wrap only before its @, never inside its domain', async () => {
    open();
    const identity = await screen.findByRole('region', { name: 'Identity' });
    const email = within(identity).getByText('lan@example.vn');
    expect(email.innerHTML).toBe('lan<wbr>@example.vn');
    // A value breaks inside a word only when that word alone is wider than the column.
    expect((email.closest('dd') as HTMLElement).style.overflowWrap).toBe('break-word');
  });

  it.each(['abc', '0', '4.2'])('says a player address that names none (/player/%s) is not found, without asking the server or offering Try again', async (id) => {
    open(id);
    expect(await screen.findByText('This player does not exist or was deleted.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(calls.filter((call) => call.path.includes('/player/'))).toHaveLength(0);
  });

  it('offers Try again when the player could not be loaded, and shows the player once it can', async () => {
    detailFails = true;
    open();
    const retry = await screen.findByRole('button', { name: 'Try again' });
    // A failure, not a "not found": said as one, once, in the page, with no toast repeating it.
    expect(screen.getByText("Couldn't load this")).toBeTruthy();
    expect(screen.queryByText("There's nothing at this address")).toBeNull();
    expect(screen.getAllByText('Something went wrong.')).toHaveLength(1);
    expect(useAppStore.getState().toasts).toHaveLength(0);
    detailFails = false;
    fireEvent.click(retry);
    expect(await screen.findByRole('heading', { name: 'v_8f2c1a9e77', level: 1 })).toBeTruthy();
  });
});
