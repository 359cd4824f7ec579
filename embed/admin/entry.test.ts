import { describe, expect, it, vi } from 'vitest';
import { EMBED_APPS, type EntryWindow, embedAppAt, homeOf, isShopDomain, navFor, readEmbedContext, shopAdminUrl } from './entry';
import { sessionTokenAuthorization } from './session-token';

const bridge = { idToken: async () => 'jwt', loading: () => undefined, toast: { show: () => '' } };

function win(url: string, { framed = true, shopify, apiKey }: { framed?: boolean; shopify?: EntryWindow['shopify']; apiKey?: string } = {}): EntryWindow {
  const { pathname, search } = new URL(url, 'https://nudge.example');
  const self = {};
  return {
    location: { pathname, search },
    self,
    top: framed ? {} : self,
    shopify,
    document: { querySelector: () => (apiKey === undefined ? null : ({ getAttribute: () => apiKey } as unknown as Element)) },
  };
}

describe('which embedded app a path opens', () => {
  it('is the banner app under /shopify-banner and the contact-button app under /shopify-maxlead, deep paths included', () => {
    expect(embedAppAt('/shopify-banner')?.name).toBe('banner');
    expect(embedAppAt('/shopify-banner/application/a/suggestion')?.name).toBe('banner');
    expect(embedAppAt('/shopify-maxlead/application/a/maxlead_report')?.name).toBe('maxlead');
    expect(embedAppAt('/shopify-bannerx')).toBeUndefined();
    expect(embedAppAt('/application/a/banner')).toBeUndefined();
  });
});

describe("an embedded app's menu", () => {
  it('lists its own screens, then Team for those who may manage the team', () => {
    expect(navFor(EMBED_APPS.banner, ['super_user']).map((item) => item.path)).toEqual(['/banner', '/suggestion', '/fake_noti', '/permission']);
    expect(navFor(EMBED_APPS.maxlead, ['manager']).map((item) => item.path)).toEqual(['/maxlead', '/feature', '/maxlead_report', '/permission']);
    expect(navFor(EMBED_APPS.maxlead, ['user']).map((item) => item.path)).toEqual(['/maxlead', '/feature', '/maxlead_report']);
  });

  it('has no home for a role that may open none of its screens', () => {
    expect(navFor(EMBED_APPS.banner, ['ads_manager'])).toEqual([]);
    expect(homeOf(EMBED_APPS.banner, ['ads_manager'])).toBeUndefined();
    expect(homeOf(EMBED_APPS.banner, ['viewer'])?.path).toBe('/banner');
  });
});

describe('the shop admin link', () => {
  it('trusts only shop domains', () => {
    expect(isShopDomain('demo-shop.myshopify.com')).toBe(true);
    expect(isShopDomain('evil.com')).toBe(false);
    expect(isShopDomain('demo.myshopify.com.evil.com')).toBe(false);
    expect(isShopDomain('javascript:alert(1)//.myshopify.com')).toBe(false);
    expect(isShopDomain(null)).toBe(false);
  });

  it("leads to the app in the shop's admin, or to its apps when the app's key is unknown", () => {
    expect(shopAdminUrl('demo.myshopify.com', 'abc123')).toBe('https://demo.myshopify.com/admin/apps/abc123');
    expect(shopAdminUrl('demo.myshopify.com', null)).toBe('https://demo.myshopify.com/admin/apps');
    expect(shopAdminUrl('demo.myshopify.com', 'a/../b')).toBe('https://demo.myshopify.com/admin/apps');
  });
});

describe('what the entry shows', () => {
  it('is the explanation at the top level, even with shop and host', () => {
    const context = readEmbedContext(win('/shopify-banner?shop=demo.myshopify.com&host=eA', { framed: false, shopify: bridge, apiKey: 'k1' }));
    expect(context).toEqual({ kind: 'outside', app: EMBED_APPS.banner, shop: 'demo.myshopify.com', apiKey: 'k1' });
  });

  it('is the explanation in a frame that names no shop', () => {
    expect(readEmbedContext(win('/shopify-maxlead', { shopify: bridge })).kind).toBe('outside');
  });

  it('ignores the server placeholder left in the api key meta tag', () => {
    const context = readEmbedContext(win('/shopify-banner', { framed: false, apiKey: '%SHOPIFY_API_KEY%' }));
    expect(context).toMatchObject({ kind: 'outside', apiKey: null });
  });

  it('is the embedded admin in a frame that names a shop by shop, by host, or by App Bridge after a reload', () => {
    expect(readEmbedContext(win('/shopify-banner?shop=demo.myshopify.com', { shopify: bridge })).kind).toBe('embedded');
    expect(readEmbedContext(win('/shopify-banner/application/a/banner?host=eA', { shopify: bridge })).kind).toBe('embedded');
    const reloaded = readEmbedContext(win('/shopify-maxlead/application/a/feature', { shopify: { ...bridge, config: { shop: 'demo.myshopify.com' } } }));
    expect(reloaded).toMatchObject({ kind: 'embedded', app: EMBED_APPS.maxlead });
  });

  it('says App Bridge is missing when the frame has no `shopify` global', () => {
    expect(readEmbedContext(win('/shopify-banner?shop=demo.myshopify.com')).kind).toBe('no-bridge');
  });

  it('counts a parent that refuses the comparison as a frame', () => {
    const w = win('/shopify-banner?shop=demo.myshopify.com', { shopify: bridge });
    Object.defineProperty(w, 'top', {
      get() {
        throw new DOMException('Blocked a frame', 'SecurityError');
      },
    });
    expect(readEmbedContext(w).kind).toBe('embedded');
  });
});

describe('the session-token authorization', () => {
  it('asks App Bridge for a token on every call and sends it as Bearer with the placeholder X-Token', async () => {
    let n = 0;
    const idToken = vi.fn(async () => `jwt-${++n}`);
    const authorize = sessionTokenAuthorization({ idToken });
    expect(await authorize()).toEqual({ Authorization: 'Bearer jwt-1', 'X-Token': 'shopify-embedded' });
    expect(await authorize()).toEqual({ Authorization: 'Bearer jwt-2', 'X-Token': 'shopify-embedded' });
    expect(idToken).toHaveBeenCalledTimes(2);
  });
});
