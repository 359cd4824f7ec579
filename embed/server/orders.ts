import { FakeNotiItem, type PublicWidget } from '../../shared/contract';
import { translate } from '../../shared/i18n';
import { nowIso, type Ctx, type Services } from '../../server/context';
import { adminGraphql } from './admin-api';
import { accessTokenOf, isInstalled } from './shops';

/*
 * The "real recent orders" source of fake-buyer notices on shop applications: the shop's latest orders, read
 * through the Admin API with its offline token and anonymised at once. Only a buyer's first name (or
 * "Someone"), the city, the product and the time are asked for and kept: never a last name, an email, a
 * phone or an address line. Each shop's list is cached for a few minutes (in the database, so every process
 * shares it); a storefront never waits more than a moment for the platform, and a failure means no notices.
 */

/** How long a successful read is reused. */
export const ORDERS_FRESH_MS = 5 * 60_000;
/** How long a failed read keeps the platform from being asked again. */
export const ORDERS_RETRY_MS = 60_000;
/** The longest a storefront's config waits for the platform. */
const ORDERS_TIMEOUT_MS = 2_000;
const ORDERS_COUNT = 20;
/** FakeNotiItem's limit on minutes_ago: older orders are not "recent". */
const MAX_AGE_MINUTES = 60 * 24 * 30;

const RECENT_ORDERS = `query RecentOrders($first: Int!) {
  orders(first: $first, sortKey: CREATED_AT, reverse: true) {
    nodes {
      createdAt
      shippingAddress { firstName city }
      billingAddress { firstName city }
      lineItems(first: 1) { nodes { title image { url } } }
    }
  }
}`;

interface OrderNode {
  createdAt?: string | null;
  shippingAddress?: { firstName?: string | null; city?: string | null } | null;
  billingAddress?: { firstName?: string | null; city?: string | null } | null;
  lineItems?: { nodes?: { title?: string | null; image?: { url?: string | null } | null }[] | null } | null;
}

/** One order as the cache keeps it: already anonymised. */
export interface CachedOrder {
  /** The buyer's first name only; '' when the order has none. */
  name: string;
  city: string;
  product: string;
  image_url: string;
  created_at: string;
}

const clip = (value: string | null | undefined, max: number) => (value ?? '').trim().slice(0, max);

/** What of an order the notices may show: the first word of the first name, the city, the first product, the time. */
export function anonymiseOrder(order: OrderNode): CachedOrder | null {
  const product = clip(order.lineItems?.nodes?.[0]?.title, 120);
  const createdAt = order.createdAt && !Number.isNaN(Date.parse(order.createdAt)) ? new Date(order.createdAt).toISOString() : null;
  if (!product || !createdAt) return null;
  const address = order.shippingAddress ?? order.billingAddress ?? null;
  const firstName = clip(address?.firstName ?? order.billingAddress?.firstName, 60).split(/\s+/)[0] ?? '';
  const image = clip(order.lineItems?.nodes?.[0]?.image?.url, 2000);
  return {
    name: firstName,
    city: clip(address?.city ?? order.billingAddress?.city, 60),
    product,
    image_url: /^https:\/\//.test(image) ? image : '',
    created_at: createdAt,
  };
}

/** Reads the shop's recent orders from the platform, anonymised. */
export async function fetchRecentOrders(s: Services, shop: string, accessToken: string, timeoutMs = ORDERS_TIMEOUT_MS): Promise<CachedOrder[]> {
  const data = await adminGraphql<{ orders?: { nodes?: OrderNode[] } }>(
    s.config.shopify!,
    shop,
    accessToken,
    RECENT_ORDERS,
    { first: ORDERS_COUNT },
    timeoutMs,
  );
  return (data.orders?.nodes ?? []).map(anonymiseOrder).filter((order): order is CachedOrder => order !== null);
}

/** One read per shop at a time in this process: a burst of storefront hits shares it. */
const inFlight = new Map<string, Promise<CachedOrder[]>>();

async function refresh(s: Services, shop: string, accessToken: string): Promise<CachedOrder[]> {
  let orders: CachedOrder[] = [];
  let ok: 0 | 1 = 1;
  try {
    orders = await fetchRecentOrders(s, shop, accessToken);
  } catch (error) {
    ok = 0;
    s.log.warn({ shop, err: error }, 'recent orders could not be read; fake-buyer notices from orders are off for now');
  }
  const row = { orders: JSON.stringify(orders), fetched_at: nowIso(s), ok };
  await s.db
    .insertInto('shop_orders')
    .values({ shop, ...row })
    .onConflict((oc) => oc.column('shop').doUpdateSet(row))
    .execute();
  return orders;
}

async function cachedOrders(s: Services, applicationId: string): Promise<CachedOrder[]> {
  if (!s.config.shopify) return [];
  const shop = await s.db.selectFrom('shops').selectAll().where('application_id', '=', applicationId).executeTakeFirst();
  if (!isInstalled(shop)) return [];
  const cached = await s.db.selectFrom('shop_orders').selectAll().where('shop', '=', shop.shop).executeTakeFirst();
  const now = s.clock().getTime();
  if (cached && now - Date.parse(cached.fetched_at) < (cached.ok ? ORDERS_FRESH_MS : ORDERS_RETRY_MS)) {
    return JSON.parse(cached.orders) as CachedOrder[];
  }
  const accessToken = accessTokenOf(s, shop);
  if (!accessToken) return [];
  let pending = inFlight.get(shop.shop);
  if (!pending) {
    pending = refresh(s, shop.shop, accessToken).finally(() => inFlight.delete(shop.shop));
    inFlight.set(shop.shop, pending);
  }
  return pending;
}

/**
 * The notices of a fake_noti widget whose source is the shop's orders, in the visitor's language; empty (the
 * widget stays off) for an application that is not an installed shop, or when the platform can't be read.
 */
export async function shopOrderNotices(ctx: Ctx, applicationId: string): Promise<FakeNotiItem[]> {
  let orders: CachedOrder[];
  try {
    orders = await cachedOrders(ctx.s, applicationId);
  } catch (error) {
    ctx.log.error({ err: error, application_id: applicationId }, 'recent orders failed');
    return [];
  }
  const now = ctx.s.clock().getTime();
  const someone = translate(ctx.lang, 'embed.orders.someone');
  const items: FakeNotiItem[] = [];
  for (const order of orders) {
    const minutes = Math.max(0, Math.floor((now - Date.parse(order.created_at)) / 60_000));
    if (minutes > MAX_AGE_MINUTES) continue;
    const item = FakeNotiItem.safeParse({
      name: order.name || someone,
      city: order.city,
      product: order.product,
      url: '',
      image_url: order.image_url,
      minutes_ago: minutes,
    });
    if (item.success) items.push(item.data);
  }
  return items;
}

/**
 * The public config's widgets with each fake_noti widget of source `shop_orders` given the shop's recent
 * orders as its items; such a widget is left out when there are none. Orders are read at most once per call.
 */
export async function withShopOrders(ctx: Ctx, applicationId: string, widgets: PublicWidget[]): Promise<PublicWidget[]> {
  if (!widgets.some((widget) => widget.type === 'fake_noti' && widget.settings.source === 'shop_orders')) return widgets;
  const items = await shopOrderNotices(ctx, applicationId);
  return widgets.flatMap((widget) => {
    if (widget.type !== 'fake_noti' || widget.settings.source !== 'shop_orders') return [widget];
    return items.length > 0 ? [{ ...widget, settings: { ...widget.settings, items } }] : [];
  });
}
