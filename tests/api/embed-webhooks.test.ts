import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { db } from './helpers';
import { deliverWebhook, installByPageLoad, startEmbedStack, type EmbedStack } from './embed-helpers';

/**
 * The platform's webhooks: the HMAC of the raw body first (401 and nothing changed otherwise), each delivery
 * handled once, and the three privacy topics really finding, exporting and deleting a shop's customer data.
 */
const SHOP = 'hooks-shop.myshopify.com';
const OTHER_SHOP = 'other-hooks.myshopify.com';
const SHOP_EMAIL = 'owner@hooks-shop.example';
const CUSTOMER = { id: 191167, email: 'Ann.Buyer@example.com', phone: '+84 901 234 567' };
let stack: EmbedStack;
let app: string;
let otherApp: string;

beforeAll(async () => {
  stack = await startEmbedStack();
  stack.platform.setShop(SHOP, { name: 'Hooks Shop', email: SHOP_EMAIL });
  app = (await installByPageLoad(stack, SHOP)).application_id;
  otherApp = (await installByPageLoad(stack, OTHER_SHOP)).application_id;
});
afterAll(async () => stack?.close());

const now = () => new Date().toISOString();

async function addLead(applicationId: string, values: { email?: string | null; phone?: string | null; name?: string }) {
  await db(stack.server)
    .insertInto('leads')
    .values({ application_id: applicationId, source: 'contact', name: values.name ?? 'Someone', email: values.email ?? null, phone: values.phone ?? null, created_at: now() })
    .execute();
}

let device = 0;
async function addPlayer(applicationId: string, values: { email?: string | null; mobile_number?: string | null }) {
  device += 1;
  await db(stack.server)
    .insertInto('players')
    .values({
      application_id: applicationId,
      device_id: `device-${device}-${Math.random().toString(36).slice(2, 10)}`,
      platform: 'web',
      device_type: 'desktop',
      email: values.email ?? null,
      mobile_number: values.mobile_number ?? null,
      created_at: now(),
      updated_at: now(),
    } as never)
    .execute();
}

async function addSpin(applicationId: string, contact: string) {
  const widget = await db(stack.server)
    .insertInto('widgets')
    .values({ application_id: applicationId, type: 'spin', name: 'Wheel', status: 'active', settings: '{}', rules: '{}', created_at: now(), updated_at: now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db(stack.server)
    .insertInto('spins')
    .values({ widget_id: widget.id, visitor_id: `v${Math.random().toString(36).slice(2, 12)}`, contact, slice_id: 's1', prize: '10%', lose: 0, code: null, created_at: now() })
    .execute();
}

async function contactsOf(applicationId: string) {
  const leads = await db(stack.server).selectFrom('leads').select(['email', 'phone']).where('application_id', '=', applicationId).orderBy('id').execute();
  const players = await db(stack.server).selectFrom('players').select(['email', 'mobile_number']).where('application_id', '=', applicationId).orderBy('id').execute();
  const spins = await db(stack.server)
    .selectFrom('spins')
    .innerJoin('widgets', 'widgets.id', 'spins.widget_id')
    .select('spins.contact')
    .where('widgets.application_id', '=', applicationId)
    .orderBy('spins.id')
    .execute();
  return { leads, players, spins: spins.map((s) => s.contact) };
}

async function seed() {
  for (const id of [app, otherApp]) {
    await db(stack.server).deleteFrom('leads').where('application_id', '=', id).execute();
    await db(stack.server).deleteFrom('players').where('application_id', '=', id).execute();
    await db(stack.server).deleteFrom('widgets').where('application_id', '=', id).execute();
  }
  await addLead(app, { email: 'ann.buyer@example.com' });
  await addLead(app, { phone: '+84 901-234-567' });
  await addLead(app, { email: 'bob@example.com', phone: '0912345678' });
  // The customer's number written the national way, read in Vietnam (the application's country for phone numbers).
  await addLead(app, { name: 'National form', phone: '0901 234 567' });
  await addPlayer(app, { email: 'ANN.BUYER@example.com' });
  await addPlayer(app, { mobile_number: '+84901234567' });
  await addPlayer(app, { email: 'bob@example.com' });
  await addSpin(app, 'ann.buyer@example.com');
  await addSpin(app, 'bob@example.com');
  // A spin of the phone gate kept before numbers were kept international (0024): without separators only.
  await addSpin(app, '0901234567');
  await addLead(otherApp, { email: 'ann.buyer@example.com' });
  await addPlayer(otherApp, { email: 'ann.buyer@example.com' });
}

describe('a webhook delivery', () => {
  beforeEach(seed);

  it('with one body byte changed after signing answers 401 and changes nothing', async () => {
    const before = await contactsOf(app);
    const answer = await deliverWebhook(stack, 'customers/redact', SHOP, { shop_domain: SHOP, customer: CUSTOMER }, {
      tamper: (body) => body.replace('191167', '191168'),
    });
    expect(answer.status).toBe(401);
    expect(await contactsOf(app)).toEqual(before);
    expect(await db(stack.server).selectFrom('shop_webhooks').selectAll().where('topic', '=', 'customers/redact').execute()).toEqual([]);
  });

  it('without the HMAC header, or signed with another secret, answers 401 and changes nothing', async () => {
    const before = await contactsOf(app);
    const delivery = stack.platform.webhook('shop/redact', SHOP, { shop_domain: SHOP });
    const { 'x-shopify-hmac-sha256': _hmac, ...unsigned } = delivery.headers;
    const bare = await stack.server.app.inject({ method: 'POST', url: '/embed/webhooks', headers: unsigned, payload: delivery.body });
    expect(bare.statusCode).toBe(401);
    const other = stack.platform.webhook('shop/redact', SHOP, { shop_domain: SHOP }, { secret: 'someone-else' });
    const forged = await stack.server.app.inject({ method: 'POST', url: '/embed/webhooks', headers: other.headers, payload: other.body });
    expect(forged.statusCode).toBe(401);
    expect(await contactsOf(app)).toEqual(before);
  });

  it('repeated with the same webhook id is handled once', async () => {
    const payload = { shop_domain: SHOP, customer: CUSTOMER };
    expect((await deliverWebhook(stack, 'customers/redact', SHOP, payload, { id: 'redact-once' })).status).toBe(200);
    // The customer comes back afterwards; the redelivery of the old request must not erase the new records.
    await addLead(app, { email: 'ann.buyer@example.com', name: 'After the request' });
    expect((await deliverWebhook(stack, 'customers/redact', SHOP, payload, { id: 'redact-once' })).status).toBe(200);
    const leads = await db(stack.server).selectFrom('leads').select('name').where('application_id', '=', app).where('email', '=', 'ann.buyer@example.com').execute();
    expect(leads).toEqual([{ name: 'After the request' }]);
  });

  it('acknowledges a topic it does not handle', async () => {
    expect((await deliverWebhook(stack, 'orders/create', SHOP, { id: 1 })).status).toBe(200);
  });
});

describe('the privacy webhooks', () => {
  beforeEach(seed);

  it('customers/redact deletes that customer’s leads, players and spins in that shop only, by email or phone', async () => {
    const answer = await deliverWebhook(stack, 'customers/redact', SHOP, {
      shop_id: 1,
      shop_domain: SHOP,
      customer: CUSTOMER,
      orders_to_redact: [],
    });
    expect(answer.status).toBe(200);
    expect(await contactsOf(app)).toEqual({
      leads: [{ email: 'bob@example.com', phone: '0912345678' }],
      players: [{ email: 'bob@example.com', mobile_number: null }],
      spins: ['bob@example.com'],
    });
    const other = await contactsOf(otherApp);
    expect(other.leads).toEqual([{ email: 'ann.buyer@example.com', phone: null }]);
    expect(other.players).toEqual([{ email: 'ann.buyer@example.com', mobile_number: null }]);
  });

  it('customers/data_request mails that customer’s records to the shop, and nobody else’s', async () => {
    const answer = await deliverWebhook(stack, 'customers/data_request', SHOP, {
      shop_id: 1,
      shop_domain: SHOP,
      customer: CUSTOMER,
      orders_requested: [],
      data_request: { id: 9999 },
    }, { id: 'data-request-1' });
    expect(answer.status).toBe(200);
    const mail = await stack.server.smtp.waitFor(SHOP_EMAIL);
    expect(mail.subject).toBe(`Customer data request 9999 for ${SHOP}`);
    const exported = JSON.parse(mail.text.slice(mail.text.indexOf('{'))) as {
      leads: { email: string | null; phone: string | null }[];
      players: { email: string | null; mobile_number: string | null }[];
      spins: { contact: string }[];
    };
    expect(exported.leads.map((l) => [l.email, l.phone])).toEqual([
      ['ann.buyer@example.com', null],
      [null, '+84 901-234-567'],
      [null, '0901 234 567'],
    ]);
    expect(exported.players.map((p) => [p.email, p.mobile_number])).toEqual([
      ['ANN.BUYER@example.com', null],
      [null, '+84901234567'],
    ]);
    expect(exported.spins.map((s) => s.contact)).toEqual(['ann.buyer@example.com', '0901234567']);
    expect(mail.text).not.toContain('bob@example.com');
    // Finding is not deleting.
    expect((await contactsOf(app)).leads).toHaveLength(4);

    // A redelivery sends nothing more.
    await deliverWebhook(stack, 'customers/data_request', SHOP, { shop_domain: SHOP, customer: CUSTOMER, data_request: { id: 9999 } }, { id: 'data-request-1' });
    await expect(stack.server.smtp.waitFor(SHOP_EMAIL, undefined, 500)).rejects.toThrow();
  });

  it('shop/redact deletes every lead, player and spin of that shop, and nothing of another shop', async () => {
    const answer = await deliverWebhook(stack, 'shop/redact', SHOP, { shop_id: 1, shop_domain: SHOP });
    expect(answer.status).toBe(200);
    expect(await contactsOf(app)).toEqual({ leads: [], players: [], spins: [] });
    expect((await contactsOf(otherApp)).leads).toHaveLength(1);
    expect((await contactsOf(otherApp)).players).toHaveLength(1);
    const row = await db(stack.server).selectFrom('shops').selectAll().where('shop', '=', SHOP).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ access_token: null, email: null });
    // Re-installed for the tests after this one.
    await installByPageLoad(stack, SHOP);
  });
});
