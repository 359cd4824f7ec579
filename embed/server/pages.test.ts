import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { frameAncestors } from './pages';

describe('who may frame the embedded pages', () => {
  const shopify = loadConfig({ DATA_DIR: '/tmp/nudge-pages-test', SECRET_KEY: 'k', SHOPIFY_API_KEY: 'key', SHOPIFY_API_SECRET: 'secret' }).shopify!;

  it('is the shop and the unified admin, with the real hosts', () => {
    expect(frameAncestors(shopify, 'hoa-mai.myshopify.com')).toBe('frame-ancestors https://hoa-mai.myshopify.com https://admin.shopify.com');
  });

  it('is the unified admin alone when no shop is named', () => {
    expect(frameAncestors(shopify, null)).toBe('frame-ancestors https://admin.shopify.com');
  });
});
