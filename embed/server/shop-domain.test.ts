import { describe, expect, it } from 'vitest';
import type { ShopifyConfig } from '../../server/config';
import { isShopPlatformApplication } from '../../shared/permissions';
import { isApplicationId } from '../../shared/validation';
import { openSecret, sealSecret } from '../../server/security/secret-box';
import { applicationIdForShop, embeddedAdminUrl, sanitizeShop } from './shop-domain';

const config: ShopifyConfig = {
  apiKey: 'key1',
  apiSecret: 'secret',
  scopes: ['read_orders'],
  appUrl: 'https://nudge.example.com',
  apiVersion: '2025-10',
  shopBaseUrl: 'https://{shop}',
  adminUrl: 'https://admin.shopify.com',
  appBridgeUrl: 'https://cdn.shopify.com/shopifycloud/app-bridge.js',
};
const b64 = (text: string) => Buffer.from(text).toString('base64').replace(/=+$/, '');

describe('sanitizeShop', () => {
  it('takes a shop’s permanent domain, lower-cased', () => {
    expect(sanitizeShop('demo-shop.myshopify.com')).toBe('demo-shop.myshopify.com');
    expect(sanitizeShop('Demo.MyShopify.com')).toBe('demo.myshopify.com');
  });

  it('refuses anything else', () => {
    for (const value of ['evil.com', 'demo.myshopify.com.evil.com', 'https://demo.myshopify.com', 'demo.myshopify.com/', '-x.myshopify.com', 'a b.myshopify.com', '', null, 42]) {
      expect(sanitizeShop(value), String(value)).toBeNull();
    }
  });
});

describe('embeddedAdminUrl', () => {
  it('leads into the unified admin or the shop’s own admin, for that shop only', () => {
    expect(embeddedAdminUrl(config, b64('admin.shopify.com/store/demo'), 'demo.myshopify.com')).toBe('https://admin.shopify.com/store/demo/apps/key1');
    expect(embeddedAdminUrl(config, b64('demo.myshopify.com/admin'), 'demo.myshopify.com')).toBe('https://demo.myshopify.com/admin/apps/key1');
    expect(embeddedAdminUrl(config, b64('admin.shopify.com/store/other'), 'demo.myshopify.com')).toBeNull();
    expect(embeddedAdminUrl(config, b64('evil.example.com/admin'), 'demo.myshopify.com')).toBeNull();
    expect(embeddedAdminUrl(config, 'not base64!', 'demo.myshopify.com')).toBeNull();
  });
});

describe('applicationIdForShop', () => {
  it('is the domain with underscores, a valid application id that reads as a shop application', () => {
    expect(applicationIdForShop('demo-shop.myshopify.com')).toBe('demo_shop_myshopify_com');
    const long = applicationIdForShop(`${'a'.repeat(70)}.myshopify.com`);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(isApplicationId(long)).toBe(true);
    expect(isShopPlatformApplication(long)).toBe(true);
    expect(applicationIdForShop(`${'a'.repeat(70)}.myshopify.com`)).not.toBe(applicationIdForShop(`${'a'.repeat(71)}.myshopify.com`));
  });
});

describe('sealSecret', () => {
  it('opens only under the same key and purpose, and never when a byte changed', () => {
    const sealed = sealSecret('key-a', 'shop-offline-token', 'shpat_123');
    expect(sealed).not.toContain('shpat_123');
    expect(sealSecret('key-a', 'shop-offline-token', 'shpat_123')).not.toBe(sealed);
    expect(openSecret('key-a', 'shop-offline-token', sealed)).toBe('shpat_123');
    expect(openSecret('key-b', 'shop-offline-token', sealed)).toBeNull();
    expect(openSecret('key-a', 'another-purpose', sealed)).toBeNull();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3], 'base64url');
    flipped[0] ^= 1;
    expect(openSecret('key-a', 'shop-offline-token', [...parts.slice(0, 3), flipped.toString('base64url')].join('.'))).toBeNull();
  });
});
