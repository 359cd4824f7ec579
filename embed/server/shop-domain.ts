import { createHash } from 'node:crypto';
import type { ShopifyConfig } from '../../server/config';

/*
 * Shops, hosts and the platform's URLs. A shop is named by its permanent `name.myshopify.com` domain; every
 * URL of the platform is built from configuration, so tests can point them all at a local fake.
 */

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** A shop's permanent domain, lower-cased, or null when `value` is not one (the platform's own check). */
export function sanitizeShop(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 255) return null;
  const shop = value.trim().toLowerCase();
  return SHOP_DOMAIN.test(shop) ? shop : null;
}

/** `path` on the shop's own host: `https://{shop}{path}` in production. */
export function shopUrl(config: ShopifyConfig, shop: string, path = ''): string {
  return `${config.shopBaseUrl.replace('{shop}', shop)}${path}`;
}

/** The origin of the shop's admin, allowed to frame the embedded pages. */
export function shopOrigin(config: ShopifyConfig, shop: string): string {
  return new URL(shopUrl(config, shop)).origin;
}

/** The origin of the platform's unified admin (admin.shopify.com). */
export function adminOrigin(config: ShopifyConfig): string {
  return new URL(config.adminUrl).origin;
}

/**
 * Where the admin shows this app: the `host` parameter is base64 of `admin.shopify.com/store/{name}` (the
 * unified admin) or `{shop}/admin` (the shop's own admin). Null when it is neither, or names another shop.
 */
export function embeddedAdminUrl(config: ShopifyConfig, host: unknown, shop: string): string | null {
  if (typeof host !== 'string' || host.length > 300 || !/^[0-9a-zA-Z+/_-]+={0,2}$/.test(host)) return null;
  const decoded = Buffer.from(host, 'base64').toString('utf8');
  const unified = /^admin\.shopify\.com\/store\/([a-zA-Z0-9][a-zA-Z0-9-_]*)$/.exec(decoded);
  if (unified) {
    if (`${unified[1].toLowerCase()}.myshopify.com` !== shop) return null;
    return `${config.adminUrl}/store/${unified[1]}/apps/${encodeURIComponent(config.apiKey)}`;
  }
  const own = /^([^/]+)\/admin$/.exec(decoded);
  if (own && sanitizeShop(own[1]) === shop) return shopUrl(config, shop, `/admin/apps/${encodeURIComponent(config.apiKey)}`);
  return null;
}

/**
 * The application id of a shop: its domain with the dots as underscores (`demo_myshopify_com`), which is
 * what isShopPlatformApplication recognises. A domain too long for an id keeps its start and a hash.
 */
export function applicationIdForShop(shop: string): string {
  const id = shop.replace(/[^A-Za-z0-9_]/g, '_');
  if (id.length <= 64) return id;
  const hash = createHash('sha256').update(shop).digest('hex').slice(0, 8);
  return `${id.slice(0, 64 - '_myshopify_com'.length - hash.length - 1)}_${hash}_myshopify_com`;
}
