import type { ShopifyGlobal } from '@shopify/app-bridge-react';
import { APPLICATION_ROUTES, type Role, type RouteMeta, canAccessRoute } from '../../shared/permissions';

/** What the embedded admin uses of the platform's `shopify` global (App Bridge). */
export type AppBridge = Pick<ShopifyGlobal, 'idToken' | 'loading'> & {
  toast: Pick<ShopifyGlobal['toast'], 'show'>;
  config?: Partial<Pick<ShopifyGlobal['config'], 'shop' | 'host' | 'apiKey'>>;
};

/** The two embedded apps (spec §2): each is its own app in the platform, opening its own screens. */
export type EmbedAppName = 'banner' | 'maxlead';

/** One entry of an embedded app's menu: a per-application route and its label. */
export interface EmbedNavItem {
  /** The route's path in APPLICATION_ROUTES, relative to /application/:application_id. */
  path: string;
  /** i18n key of the menu label. */
  labelKey: string;
}

export interface EmbedApp {
  name: EmbedAppName;
  /** Where the platform opens it; every deeper path is one of its screens. */
  base: '/shopify-banner' | '/shopify-maxlead';
  /** i18n key of what the app is for, on the page shown outside the frame. */
  titleKey: string;
  /** Its menu in the platform's navigation, first entry first; Team follows where the role has it. */
  nav: readonly EmbedNavItem[];
}

const TEAM: EmbedNavItem = { path: '/permission', labelKey: 'embed.nav.team' };

export const EMBED_APPS: Record<EmbedAppName, EmbedApp> = {
  banner: {
    name: 'banner',
    base: '/shopify-banner',
    titleKey: 'embed.apps.banner',
    nav: [
      { path: '/banner', labelKey: 'embed.nav.banners' },
      { path: '/suggestion', labelKey: 'embed.nav.suggestions' },
      { path: '/fake_noti', labelKey: 'embed.nav.fakeNoti' },
    ],
  },
  maxlead: {
    name: 'maxlead',
    base: '/shopify-maxlead',
    titleKey: 'embed.apps.maxlead',
    nav: [
      { path: '/maxlead', labelKey: 'embed.nav.contactButtons' },
      { path: '/feature', labelKey: 'embed.nav.hotlines' },
      { path: '/maxlead_report', labelKey: 'embed.nav.leads' },
    ],
  },
};

/** The embedded app a page path belongs to: /shopify-banner… or /shopify-maxlead…. */
export function embedAppAt(pathname: string): EmbedApp | undefined {
  return Object.values(EMBED_APPS).find((app) => pathname === app.base || pathname.startsWith(`${app.base}/`));
}

function routeOf(path: string): RouteMeta | undefined {
  return APPLICATION_ROUTES.find((route) => route.path === path);
}

/** The app's menu for these roles: its own entries, then Team, each only where a screen exists and the role may open it. */
export function navFor(app: EmbedApp, roles: readonly Role[]): EmbedNavItem[] {
  return [...app.nav, TEAM].filter((item) => {
    const route = routeOf(item.path);
    return route !== undefined && route.built && canAccessRoute(roles, route);
  });
}

/** The screen the app opens on: the first menu entry the role may open, or none at all. */
export function homeOf(app: EmbedApp, roles: readonly Role[]): EmbedNavItem | undefined {
  return navFor(app, roles)[0];
}

/** A shop's own domain, as the platform names it (`name.myshopify.com`); anything else is not trusted in a link. */
export function isShopDomain(value: string | null | undefined): value is string {
  return typeof value === 'string' && /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/i.test(value);
}

/** The page of the app in the shop's admin (Apps → Nudge); the apps list when the app's key is unknown. */
export function shopAdminUrl(shop: string, apiKey: string | null | undefined): string {
  const key = apiKey && /^[A-Za-z0-9_-]+$/.test(apiKey) ? apiKey : null;
  return key ? `https://${shop}/admin/apps/${key}` : `https://${shop}/admin/apps`;
}

/** Where and how the entry page was opened. */
export type EmbedContext =
  /** Opened on its own (no frame, or no shop/host): the page explains how to open the app from the admin. */
  | { kind: 'outside'; app: EmbedApp | undefined; shop: string | null; apiKey: string | null }
  /** In the platform's frame, but its App Bridge script did not load: nothing can be authenticated. */
  | { kind: 'no-bridge'; app: EmbedApp }
  | { kind: 'embedded'; app: EmbedApp; bridge: AppBridge };

/** The parts of `window` the entry looks at (a test hands in its own). */
export interface EntryWindow {
  location: Pick<Location, 'pathname' | 'search'>;
  top: unknown;
  self: unknown;
  shopify?: AppBridge;
  document?: Pick<Document, 'querySelector'>;
}

function inFrame(win: EntryWindow): boolean {
  try {
    return win.top !== win.self;
  } catch {
    // A cross-origin parent refuses the comparison: that is a frame too.
    return true;
  }
}

/** The app's key from the page's `<meta name="shopify-api-key">`, when the server filled it in. */
function apiKeyOf(win: EntryWindow): string | null {
  const content = win.document?.querySelector('meta[name="shopify-api-key"]')?.getAttribute('content') ?? null;
  return content && !content.includes('%') ? content : null;
}

/**
 * Decides what the entry shows: the embedded admin only inside a frame that names a shop (by `shop` or `host`
 * in the URL, or, after a reload that dropped the query, by App Bridge's own config).
 */
export function readEmbedContext(win: EntryWindow): EmbedContext {
  const app = embedAppAt(win.location.pathname);
  const params = new URLSearchParams(win.location.search);
  const shopParam = params.get('shop');
  const shop = isShopDomain(shopParam) ? shopParam : null;
  const host = params.get('host');
  const bridge = win.shopify ?? null;
  const namesShop = Boolean(shop || host || bridge?.config?.shop);
  if (!app || !inFrame(win) || !namesShop) return { kind: 'outside', app, shop, apiKey: apiKeyOf(win) };
  if (!bridge || typeof bridge.idToken !== 'function') return { kind: 'no-bridge', app };
  return { kind: 'embedded', app, bridge };
}
