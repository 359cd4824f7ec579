/**
 * Roles, the route table and the access rules of spec §2 and §6. The console's guard and menu, its API
 * client and the server's permission check all read this one file.
 */

export const ROLES = ['super_user', 'manager', 'user', 'viewer', 'ads_manager', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Roles a member of an application can hold; `admin` is a platform-wide role, never a membership. */
export const MEMBER_ROLES = ['super_user', 'manager', 'user', 'viewer', 'ads_manager'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** i18n keys of the role labels (Super User, Manager, User, Viewer, Ads Manager). */
export const ROLE_LABEL_KEYS: Record<MemberRole, string> = {
  super_user: 'roles.super_user',
  manager: 'roles.manager',
  user: 'roles.user',
  viewer: 'roles.viewer',
  ads_manager: 'roles.ads_manager',
};

/** Feature flags that gate menu entries. */
export const FEATURES = ['push', 'banner', 'recommendation', 'maxlead', 'channel', 'detail'] as const;
export type Feature = (typeof FEATURES)[number];

/** Agency (agent) types that some entries ignore. */
export type Agency = string;

/** The role lists of spec §6, one per area. */
export const AREA_ROLES = {
  triggers: ['super_user', 'manager', 'viewer'],
  events: ['super_user', 'manager', 'viewer'],
  notifications: ['super_user', 'manager', 'user', 'viewer'],
  team: ['super_user', 'manager'],
  voucher: ['super_user', 'manager'],
  dangerzone: ['super_user'],
  webhook: ['super_user'],
  attributes: ['super_user', 'manager'],
  segments: ['super_user', 'manager', 'ads_manager'],
  platform: ['super_user', 'ads_manager'],
  admin: ['admin'],
} as const satisfies Record<string, readonly Role[]>;
export type Area = keyof typeof AREA_ROLES;

/** Route meta of spec §3, plus what the console needs to place the entry. */
export interface RouteMeta {
  /** wouter pattern; per-application paths are relative to /application/:application_id. */
  path: string;
  /** Roles allowed; none means every signed-in member. */
  roles?: readonly Role[];
  /** Agency types for which the menu entry is hidden. */
  ignoredAgents?: readonly Agency[];
  /** Feature flag: the entry is hidden when the user's permissions list names it. */
  feature?: Feature;
  /** i18n key of the title (menu, breadcrumb, visited-view tab). */
  title: string;
  /** The visited view is not kept alive when it is left. */
  noCache?: boolean;
  /** Where the entry appears: the sidebar menu of an application, or nowhere. */
  menu?: 'sidebar';
  /** A page off the menu: the sidebar entry (its path) it belongs to, marked while the page is shown. */
  section?: string;
  /** Whether its screen exists yet. Entries whose screens later issues build stay out of menus and lead to /404. */
  built: boolean;
}

export const PUBLIC_PATHS = [
  '/login',
  '/register',
  '/forgot-password',
  '/auth-redirect',
  '/shopify-maxlead',
  '/shopify-banner',
  '/404',
  '/401',
  '/redirect/*',
] as const;

/** Per-application routes (spec §2), relative to /application/:application_id. */
export const APPLICATION_ROUTES: readonly RouteMeta[] = [
  { path: '/', title: 'menu.dashboard', menu: 'sidebar', built: true },
  { path: '/maxlead_report', title: 'menu.maxleadReport', roles: AREA_ROLES.notifications, feature: 'maxlead', section: '/maxlead', built: true },
  { path: '/trigger', title: 'menu.triggers', roles: AREA_ROLES.triggers, feature: 'push', menu: 'sidebar', built: false },
  { path: '/event', title: 'menu.events', roles: AREA_ROLES.events, menu: 'sidebar', built: true },
  { path: '/campaign/:campaign_id', title: 'menu.campaign', roles: AREA_ROLES.notifications, feature: 'push', noCache: true, section: '/notification', built: true },
  { path: '/ab_test/:ab_id', title: 'menu.abTest', roles: AREA_ROLES.notifications, feature: 'push', noCache: true, built: false },
  { path: '/automation/:notification_id', title: 'menu.automation', roles: AREA_ROLES.notifications, feature: 'push', noCache: true, built: false },
  { path: '/trigger/:notification_id', title: 'menu.triggerMessage', roles: AREA_ROLES.triggers, feature: 'push', noCache: true, built: false },
  { path: '/notification', title: 'menu.notifications', roles: AREA_ROLES.notifications, feature: 'push', menu: 'sidebar', built: true },
  // Serves the list's tabs (basic, campaign, template) as well as the create forms, so it is titled as the list.
  { path: '/notification/:notification_type', title: 'menu.notifications', roles: AREA_ROLES.notifications, feature: 'push', noCache: true, built: true },
  { path: '/notification/:notification_id/detail', title: 'menu.notificationDetail', roles: AREA_ROLES.notifications, feature: 'detail', noCache: true, built: true },
  { path: '/banner', title: 'menu.banners', roles: AREA_ROLES.notifications, feature: 'banner', menu: 'sidebar', built: true },
  { path: '/banner/create', title: 'menu.bannerCreate', roles: AREA_ROLES.notifications, feature: 'banner', noCache: true, built: true },
  { path: '/suggestion', title: 'menu.suggestions', roles: AREA_ROLES.notifications, feature: 'recommendation', menu: 'sidebar', built: true },
  { path: '/fake_noti', title: 'menu.fakeNoti', roles: AREA_ROLES.notifications, feature: 'banner', menu: 'sidebar', built: true },
  { path: '/permission', title: 'menu.permission', roles: AREA_ROLES.team, menu: 'sidebar', built: true },
  { path: '/voucher', title: 'menu.voucher', roles: AREA_ROLES.voucher, built: false },
  { path: '/feature', title: 'menu.feature', roles: AREA_ROLES.notifications, feature: 'maxlead', section: '/maxlead', built: true },
  { path: '/channel', title: 'menu.channels', roles: AREA_ROLES.notifications, feature: 'channel', menu: 'sidebar', built: true },
  { path: '/message', title: 'menu.messages', roles: AREA_ROLES.notifications, feature: 'channel', section: '/notification', built: true },
  { path: '/dangerzone', title: 'menu.dangerzone', roles: AREA_ROLES.dangerzone, menu: 'sidebar', built: false },
  { path: '/webhook', title: 'menu.webhooks', roles: AREA_ROLES.webhook, menu: 'sidebar', built: true },
  { path: '/maxlead', title: 'menu.maxlead', roles: AREA_ROLES.notifications, feature: 'maxlead', menu: 'sidebar', built: true },
  { path: '/player', title: 'menu.players', menu: 'sidebar', built: true },
  { path: '/player/:player_id', title: 'menu.player', noCache: true, built: true },
  { path: '/attribute', title: 'menu.attributes', roles: AREA_ROLES.attributes, menu: 'sidebar', built: true },
  { path: '/segment', title: 'menu.segments', roles: AREA_ROLES.segments, menu: 'sidebar', built: true },
  { path: '/segment/:segment_id', title: 'menu.segment', roles: AREA_ROLES.segments, noCache: true, built: true },
  { path: '/platform', title: 'menu.settings', roles: AREA_ROLES.platform, menu: 'sidebar', built: true },
];

/** Top-level signed-in routes. */
export const ACCOUNT_ROUTES: readonly RouteMeta[] = [
  { path: '/application', title: 'menu.applications', built: true },
  { path: '/change-password', title: 'menu.changePassword', built: true },
  { path: '/billing', title: 'menu.billing', roles: AREA_ROLES.admin, built: false },
  { path: '/test', title: 'menu.test', roles: AREA_ROLES.admin, built: false },
];

/** The user's standing for access decisions: roles, agency and the permissions (restricted features) list. */
export interface Access {
  roles: readonly Role[];
  agency?: Agency | null;
  permissions?: readonly string[];
}

/** Route access: the admin role, or an overlap with the route's roles, or a route with none. */
export function canAccessRoute(roles: readonly Role[], route: Pick<RouteMeta, 'roles'>): boolean {
  if (roles.includes('admin')) return true;
  if (!route.roles || route.roles.length === 0) return true;
  return route.roles.some((role) => roles.includes(role));
}

/**
 * Menu visibility: hidden when the route ignores the user's agency, when its feature is in the user's
 * permissions list, or when it has roles and the user holds none of them (the admin role sees everything).
 */
export function isMenuVisible(access: Access, route: RouteMeta): boolean {
  if (!route.built) return false;
  if (access.agency && route.ignoredAgents?.includes(access.agency)) return false;
  if (route.feature && access.permissions?.includes(route.feature)) return false;
  return canAccessRoute(access.roles, route);
}

/** The sidebar entries of an application for this user, in table order. */
export function sidebarRoutes(access: Access): RouteMeta[] {
  return APPLICATION_ROUTES.filter((route) => route.menu === 'sidebar' && isMenuVisible(access, route));
}

export type SidebarSectionKey = 'overview' | 'audience' | 'messaging' | 'onsite' | 'manage';

/**
 * How the sidebar groups an application's entries, in the order a merchant works: who the audience is, what
 * is sent to it, what shoppers see on the shop, then the team and settings. The route table keeps the spec's
 * order; every sidebar entry of it is in exactly one section (tested).
 */
export const SIDEBAR_SECTIONS: readonly { key: SidebarSectionKey; paths: readonly string[] }[] = [
  { key: 'overview', paths: ['/'] },
  { key: 'audience', paths: ['/player', '/segment', '/event', '/attribute'] },
  { key: 'messaging', paths: ['/notification', '/trigger', '/channel', '/webhook'] },
  { key: 'onsite', paths: ['/banner', '/suggestion', '/fake_noti', '/maxlead'] },
  { key: 'manage', paths: ['/permission', '/platform', '/dangerzone'] },
];

/** The sidebar entries this user may see, grouped by SIDEBAR_SECTIONS; sections left empty are dropped. */
export function sidebarSections(access: Access): { key: SidebarSectionKey; routes: RouteMeta[] }[] {
  const visible = new Map(sidebarRoutes(access).map((route) => [route.path, route]));
  return SIDEBAR_SECTIONS.map((section) => ({
    key: section.key,
    routes: section.paths.flatMap((path) => visible.get(path) ?? []),
  })).filter((section) => section.routes.length > 0);
}

/** True when the only standing is viewer: such a user sends no write. */
export function isViewerOnly(roles: readonly Role[]): boolean {
  return roles.includes('viewer') && roles.every((role) => role === 'viewer');
}

/**
 * A viewer cannot send any non-GET request to an application, except those whose URL contains /list
 * (spec §6). Account calls (logout, password, security) are the user's own and stay allowed: blocking
 * them would lock a viewer out of signing out.
 */
export function isViewerWriteBlocked(roles: readonly Role[], method: string, url: string): boolean {
  if (!isViewerOnly(roles)) return false;
  if (method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD' || method.toUpperCase() === 'OPTIONS') return false;
  if (url.includes('/list')) return false;
  return /(^|\/)application\/[^/?]+/.test(url);
}

/** Which member roles a member may hand out; nobody hands out more than they hold. */
export function assignableRoles(roles: readonly Role[]): MemberRole[] {
  if (roles.includes('admin') || roles.includes('super_user')) return [...MEMBER_ROLES];
  if (roles.includes('manager')) return ['manager', 'user', 'viewer', 'ads_manager'];
  return [];
}

/** Doc links (integration guide, REST API) are hidden for shop-platform applications. */
export const SHOP_PLATFORM_SPECIAL_APPLICATION_ID = 'shopify_app';
export function isShopPlatformApplication(applicationId: string | null | undefined): boolean {
  if (!applicationId) return false;
  return applicationId.includes('myshopify') || applicationId === SHOP_PLATFORM_SPECIAL_APPLICATION_ID;
}

/** Find the per-application route meta matching a path relative to the application root. */
export function matchApplicationRoute(relativePath: string): RouteMeta | undefined {
  const clean = relativePath === '' ? '/' : relativePath.replace(/\/+$/, '') || '/';
  return APPLICATION_ROUTES.find((route) => patternMatches(route.path, clean));
}

/** Minimal wouter-compatible matcher for `:param` segments. */
export function patternMatches(pattern: string, path: string): boolean {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return false;
  return p.every((seg, i) => seg.startsWith(':') || seg === s[i]);
}
