import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOrder } from '../fakes/shop-platform';
import { createApplication, createUser, db } from './helpers';
import { installByPageLoad, startEmbedStack, withSessionToken, type EmbedStack } from './embed-helpers';

/**
 * Fake-buyer notices from a shop's real recent orders: read through the Admin API, anonymised (first name or
 * "Someone", city, product, minutes ago; never a last name, an email, a phone or an address line), cached
 * per shop, and off when there is nothing to show or the platform can't be read.
 */
const SHOP = 'orders-shop.myshopify.com';
let stack: EmbedStack;
let applicationId: string;
let clientKey: string;

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

const ORDERS: FakeOrder[] = [
  {
    createdAt: minutesAgo(5.5),
    email: 'ann.nguyen@example.com',
    phone: '+84901234567',
    customer: { firstName: 'Ann', lastName: 'Nguyenlastname', email: 'ann.nguyen@example.com' },
    shippingAddress: { firstName: 'Ann Marie', lastName: 'Nguyenlastname', address1: '12 Hang Bac Street', address2: 'Floor 3', city: 'Hanoi', zip: '100000', phone: '+84901234567' },
    billingAddress: { firstName: 'Ann', lastName: 'Nguyenlastname', address1: '12 Hang Bac Street', city: 'Hanoi' },
    lineItems: { nodes: [{ title: 'Silk scarf', image: { url: 'https://cdn.example.com/scarf.jpg' } }, { title: 'Gift box' }] },
  },
  {
    createdAt: minutesAgo(90.2),
    email: 'guest@example.com',
    shippingAddress: null,
    billingAddress: { firstName: null, lastName: 'Guestsurname', address1: '1 Le Loi', city: 'Da Nang', zip: '550000' },
    lineItems: { nodes: [{ title: 'Coffee beans' }] },
  },
  {
    createdAt: minutesAgo(60 * 24 * 45),
    billingAddress: { firstName: 'Old', lastName: 'Order', city: 'Hue' },
    lineItems: { nodes: [{ title: 'Too old to be recent' }] },
  },
];

beforeAll(async () => {
  stack = await startEmbedStack();
  stack.platform.setOrders(SHOP, ORDERS);
  applicationId = (await installByPageLoad(stack, SHOP)).application_id;
  const token = await stack.platform.sessionToken(SHOP);
  const created = await stack.server.call('POST', `/api/application/${applicationId}/widget`, {
    headers: withSessionToken(token),
    body: { type: 'fake_noti', name: 'Real orders', status: 'active', settings: { source: 'shop_orders' } },
  });
  if (created.status !== 200) throw new Error(JSON.stringify(created.body));
  const application = await db(stack.server).selectFrom('applications').select('client_key').where('application_id', '=', applicationId).executeTakeFirstOrThrow();
  clientKey = application.client_key;
});
afterAll(async () => stack?.close());

const graphqlCalls = (shop: string) => stack.platform.requests().filter((r) => r.path.startsWith(`/shops/${shop}/admin/api/`)).length;

async function storefrontConfig(key: string, lang = 'en') {
  const answer = await stack.server.call('GET', `/api/sdk/config?key=${key}`, { lang });
  expect(answer.status).toBe(200);
  return answer;
}

describe('a fake-buyer notice widget whose source is the shop’s orders', () => {
  it('shows each recent order as first name (or Someone), city, product and minutes ago', async () => {
    const answer = await storefrontConfig(clientKey);
    const widget = answer.body.data.widgets.find((w: { type: string }) => w.type === 'fake_noti');
    expect(widget.settings.items).toEqual([
      { name: 'Ann', city: 'Hanoi', product: 'Silk scarf', url: '', image_url: 'https://cdn.example.com/scarf.jpg', minutes_ago: 5 },
      { name: 'Someone', city: 'Da Nang', product: 'Coffee beans', url: '', image_url: '', minutes_ago: 90 },
    ]);
  });

  it('never carries a last name, an email, a phone or an address line', async () => {
    const text = JSON.stringify((await storefrontConfig(clientKey)).body);
    for (const secret of ['Nguyenlastname', 'Guestsurname', 'Marie', 'ann.nguyen@example.com', 'guest@example.com', '84901234567', 'Hang Bac', 'Floor 3', 'Le Loi', '100000', '550000']) {
      expect(text, secret).not.toContain(secret);
    }
  });

  it('asks the platform only for first names and cities, never the rest', async () => {
    // The fake answers exactly the fields a query selects, as GraphQL does: what was never asked for never arrived.
    const cached = await db(stack.server).selectFrom('shop_orders').select('orders').where('shop', '=', SHOP).executeTakeFirstOrThrow();
    expect(cached.orders).not.toMatch(/lastname|surname|address1|Hang Bac|@example\.com|zip/i);
  });

  it('speaks the visitor’s language for a buyer without a name', async () => {
    const answer = await storefrontConfig(clientKey, 'vi');
    const widget = answer.body.data.widgets.find((w: { type: string }) => w.type === 'fake_noti');
    expect(widget.settings.items[1].name).toBe('Một người');
  });

  it('reads the orders once for many storefront hits (cached per shop)', async () => {
    const before = graphqlCalls(SHOP);
    await storefrontConfig(clientKey);
    await storefrontConfig(clientKey);
    expect(graphqlCalls(SHOP)).toBe(before);
  });

  it('reads them again once the cache is a few minutes old', async () => {
    const before = graphqlCalls(SHOP);
    stack.server.clock.advance(6 * 60_000);
    try {
      await storefrontConfig(clientKey);
    } finally {
      // Back in step with the platform's clock, which signs the session tokens.
      stack.server.clock.advance(-6 * 60_000);
    }
    expect(graphqlCalls(SHOP)).toBe(before + 1);
  });

  it('is left out of the config when the platform fails, and the platform is not asked again at once', async () => {
    const shop = 'failing-orders.myshopify.com';
    const id = (await installByPageLoad(stack, shop)).application_id;
    stack.platform.setOrders(shop, ORDERS);
    stack.platform.failAdminApi(shop, 500);
    const token = await stack.platform.sessionToken(shop);
    await stack.server.call('POST', `/api/application/${id}/widget`, {
      headers: withSessionToken(token),
      body: { type: 'fake_noti', name: 'Orders', status: 'active', settings: { source: 'shop_orders' } },
    });
    const key = (await db(stack.server).selectFrom('applications').select('client_key').where('application_id', '=', id).executeTakeFirstOrThrow()).client_key;
    expect((await storefrontConfig(key)).body.data.widgets).toEqual([]);
    const calls = graphqlCalls(shop);
    expect((await storefrontConfig(key)).body.data.widgets).toEqual([]);
    expect(graphqlCalls(shop)).toBe(calls);
  });

  it('is left out for an application that is not an installed shop', async () => {
    const owner = await createUser(stack.server);
    await createApplication(stack.server, owner, 'plain_site');
    const created = await stack.server.call('POST', '/api/application/plain_site/widget', {
      token: owner.token,
      body: { type: 'fake_noti', name: 'Orders', status: 'active', settings: { source: 'shop_orders' } },
    });
    expect(created.status).toBe(200);
    const key = (await db(stack.server).selectFrom('applications').select('client_key').where('application_id', '=', 'plain_site').executeTakeFirstOrThrow()).client_key;
    expect((await storefrontConfig(key)).body.data.widgets).toEqual([]);
  });
});

describe('the fake_noti settings', () => {
  it('require at least one notice for the manual source', async () => {
    const token = await stack.platform.sessionToken(SHOP);
    const answer = await stack.server.call('POST', `/api/application/${applicationId}/widget`, {
      headers: withSessionToken(token),
      lang: 'en',
      body: { type: 'fake_noti', name: 'Manual', settings: { items: [] } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INVALID_PARAM');
    expect(answer.body.fields).toContainEqual({ path: 'settings.items', message: expect.any(String) });
  });

  it('default to the manual source', async () => {
    const token = await stack.platform.sessionToken(SHOP);
    const answer = await stack.server.call('POST', `/api/application/${applicationId}/widget`, {
      headers: withSessionToken(token),
      body: { type: 'fake_noti', name: 'Manual', settings: { items: [{ product: 'Tea', name: 'Lan', city: 'Hue' }] } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.settings.source).toBe('manual');
  });
});
