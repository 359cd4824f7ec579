import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_ROUTES,
  APPLICATION_ROUTES,
  AREA_ROLES,
  MEMBER_ROLES,
  ROLES,
  type Access,
  type Role,
  type RouteMeta,
  assignableRoles,
  canAccessRoute,
  isMenuVisible,
  isShopPlatformApplication,
  isViewerOnly,
  isViewerWriteBlocked,
  matchApplicationRoute,
  patternMatches,
  SIDEBAR_SECTIONS,
  sidebarRoutes,
  sidebarSections,
} from './index';

const route = (path: string): RouteMeta => {
  const found = APPLICATION_ROUTES.find((entry) => entry.path === path);
  if (!found) throw new Error(`no route ${path}`);
  return found;
};
const sorted = (roles: readonly string[]) => [...roles].sort();

describe('the roles of spec §6', () => {
  it('are exactly super_user, manager, user, viewer, ads_manager and admin', () => {
    expect(sorted(ROLES)).toEqual(sorted(['super_user', 'manager', 'user', 'viewer', 'ads_manager', 'admin']));
  });

  it('never make admin a role one can hold in an application', () => {
    expect(MEMBER_ROLES).not.toContain('admin');
    expect(sorted(MEMBER_ROLES)).toEqual(sorted(ROLES.filter((role) => role !== 'admin')));
  });
});

describe('the area table', () => {
  // Written out from the table of spec §6, not copied from the code.
  const SPEC_TABLE: Record<string, readonly Role[]> = {
    'Triggers, Events': ['super_user', 'manager', 'viewer'],
    'Notifications, details, banner, suggestion, fake_noti, feature, channel, message, maxlead, notification create': [
      'super_user',
      'manager',
      'user',
      'viewer',
    ],
    'Permission, Voucher': ['super_user', 'manager'],
    'Dangerzone, Webhook': ['super_user'],
    Attributes: ['super_user', 'manager'],
    Segments: ['super_user', 'manager', 'ads_manager'],
    'Platform settings': ['super_user', 'ads_manager'],
    'Billing, test': ['admin'],
  };
  const AREAS_OF_ROW: Record<string, readonly (keyof typeof AREA_ROLES)[]> = {
    'Triggers, Events': ['triggers', 'events'],
    'Notifications, details, banner, suggestion, fake_noti, feature, channel, message, maxlead, notification create': [
      'notifications',
    ],
    'Permission, Voucher': ['team', 'voucher'],
    'Dangerzone, Webhook': ['dangerzone', 'webhook'],
    Attributes: ['attributes'],
    Segments: ['segments'],
    'Platform settings': ['platform'],
    'Billing, test': ['admin'],
  };

  it.each(Object.keys(SPEC_TABLE))('gives "%s" the roles the spec lists', (row) => {
    for (const area of AREAS_OF_ROW[row]) expect(sorted(AREA_ROLES[area]), area).toEqual(sorted(SPEC_TABLE[row]));
  });

  it('has no area the spec does not list', () => {
    expect(sorted(Object.keys(AREA_ROLES))).toEqual(sorted(Object.values(AREAS_OF_ROW).flat()));
  });
});

describe('the route table', () => {
  // spec §2, per application, with the roles of spec §6 for each. Screens the table does not name
  // (campaign, A/B test, automation, contact report) belong to the notification family; the trigger
  // message belongs to triggers; the dashboard and players carry no roles. A player's page and a segment's
  // editor are the detail screens of their lists and carry the list's roles.
  const n = AREA_ROLES.notifications;
  const SPEC_ROUTES: Record<string, readonly Role[] | undefined> = {
    '/': undefined,
    '/maxlead_report': n,
    '/trigger': AREA_ROLES.triggers,
    '/event': AREA_ROLES.events,
    '/campaign/:campaign_id': n,
    '/ab_test/:ab_id': n,
    '/automation/:notification_id': n,
    '/trigger/:notification_id': AREA_ROLES.triggers,
    '/notification': n,
    '/notification/:notification_type': n,
    '/notification/:notification_id/detail': n,
    '/banner': n,
    '/banner/create': n,
    '/suggestion': n,
    '/fake_noti': n,
    '/permission': ['super_user', 'manager'],
    '/voucher': ['super_user', 'manager'],
    '/feature': n,
    '/channel': n,
    '/message': n,
    '/dangerzone': ['super_user'],
    '/webhook': ['super_user'],
    '/maxlead': n,
    '/player': undefined,
    '/player/:player_id': undefined,
    '/attribute': ['super_user', 'manager'],
    '/segment': ['super_user', 'manager', 'ads_manager'],
    '/segment/:segment_id': ['super_user', 'manager', 'ads_manager'],
    '/platform': ['super_user', 'ads_manager'],
  };

  it('holds every per-application route of spec §2, once', () => {
    const paths = APPLICATION_ROUTES.map((entry) => entry.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(sorted(paths)).toEqual(sorted(Object.keys(SPEC_ROUTES)));
  });

  it.each(Object.entries(SPEC_ROUTES))('gives %s the roles of spec §6', (path, roles) => {
    const meta = route(path);
    if (roles === undefined) expect(meta.roles ?? []).toEqual([]);
    else expect(sorted(meta.roles ?? [])).toEqual(sorted(roles));
  });

  it('keeps billing and test for the admin role', () => {
    for (const path of ['/billing', '/test']) {
      const meta = ACCOUNT_ROUTES.find((entry) => entry.path === path);
      expect(meta?.roles, path).toEqual(['admin']);
    }
  });

  it('gives every route a title key under menu.', () => {
    for (const meta of [...APPLICATION_ROUTES, ...ACCOUNT_ROUTES]) expect(meta.title, meta.path).toMatch(/^menu\.\w+$/);
  });

  it('gates entries only with the feature flags of spec §6', () => {
    const flags = new Set(APPLICATION_ROUTES.flatMap((entry) => (entry.feature ? [entry.feature] : [])));
    for (const flag of flags) expect(['push', 'banner', 'recommendation', 'maxlead', 'channel', 'detail']).toContain(flag);
  });
});

describe('canAccessRoute', () => {
  const team = route('/permission');

  it('lets the admin role in everywhere', () => {
    for (const meta of [...APPLICATION_ROUTES, ...ACCOUNT_ROUTES]) expect(canAccessRoute(['admin'], meta), meta.path).toBe(true);
  });

  it('lets in a user who holds one of the route’s roles', () => {
    expect(canAccessRoute(['manager'], team)).toBe(true);
    expect(canAccessRoute(['viewer', 'manager'], team)).toBe(true);
  });

  it('keeps out a user who holds none of them', () => {
    expect(canAccessRoute(['viewer'], team)).toBe(false);
    expect(canAccessRoute(['user', 'ads_manager'], team)).toBe(false);
  });

  it('keeps a user with no roles out of a route that has roles', () => {
    expect(canAccessRoute([], team)).toBe(false);
  });

  it('lets anyone into a route with no roles, or an empty list', () => {
    expect(canAccessRoute([], route('/player'))).toBe(true);
    expect(canAccessRoute(['viewer'], { roles: [] })).toBe(true);
    expect(canAccessRoute([], {})).toBe(true);
  });
});

describe('isMenuVisible', () => {
  const built = (path: string, extra: Partial<RouteMeta> = {}): RouteMeta => ({ ...route(path), built: true, ...extra });

  it('hides an entry whose screen is not built, even from the admin role', () => {
    expect(isMenuVisible({ roles: ['admin'] }, { ...route('/permission'), built: false })).toBe(false);
  });

  it('hides an entry that ignores the user’s agency, and only that agency', () => {
    const entry = built('/segment', { ignoredAgents: ['ipush'] });
    expect(isMenuVisible({ roles: ['manager'], agency: 'ipush' }, entry)).toBe(false);
    expect(isMenuVisible({ roles: ['manager'], agency: 'other' }, entry)).toBe(true);
    expect(isMenuVisible({ roles: ['manager'], agency: null }, entry)).toBe(true);
    expect(isMenuVisible({ roles: ['manager'] }, entry)).toBe(true);
  });

  it('hides an entry whose feature is in the user’s permissions list', () => {
    const notifications = built('/notification');
    expect(isMenuVisible({ roles: ['manager'], permissions: ['push'] }, notifications)).toBe(false);
    expect(isMenuVisible({ roles: ['manager'], permissions: ['banner', 'channel'] }, notifications)).toBe(true);
    expect(isMenuVisible({ roles: ['manager'], permissions: [] }, notifications)).toBe(true);
  });

  it('hides an entry with roles from a user who holds none of them', () => {
    expect(isMenuVisible({ roles: ['user'] }, built('/attribute'))).toBe(false);
    expect(isMenuVisible({ roles: [] }, built('/attribute'))).toBe(false);
    expect(isMenuVisible({ roles: ['manager'] }, built('/attribute'))).toBe(true);
  });

  it('shows an entry without roles to every member', () => {
    expect(isMenuVisible({ roles: ['viewer'] }, built('/player'))).toBe(true);
  });

  it('shows entries with roles to the admin role', () => {
    expect(isMenuVisible({ roles: ['admin'] }, built('/dangerzone'))).toBe(true);
  });
});

describe('sidebarRoutes', () => {
  // What each role would find in the sidebar once every screen exists (spec §6).
  const everyone = ['/', '/player'];
  const notificationFamily = ['/notification', '/banner', '/suggestion', '/fake_noti', '/channel', '/maxlead'];
  const superUser = [
    ...everyone,
    ...notificationFamily,
    '/trigger',
    '/event',
    '/permission',
    '/dangerzone',
    '/webhook',
    '/attribute',
    '/segment',
    '/platform',
  ];
  const ONCE_BUILT: Record<Role, string[]> = {
    super_user: superUser,
    manager: [...everyone, ...notificationFamily, '/trigger', '/event', '/permission', '/attribute', '/segment'],
    user: [...everyone, ...notificationFamily],
    viewer: [...everyone, ...notificationFamily, '/trigger', '/event'],
    ads_manager: [...everyone, '/segment', '/platform'],
    admin: superUser,
  };

  const sidebarPaths = (access: Access) => sidebarRoutes(access).map((entry) => entry.path);
  const builtPaths = new Set(APPLICATION_ROUTES.filter((entry) => entry.built).map((entry) => entry.path));

  describe.each(ROLES)('for %s', (role) => {
    it('lists the entries of spec §6 whose screens exist, in table order', () => {
      const expected = APPLICATION_ROUTES.map((entry) => entry.path).filter(
        (path) => ONCE_BUILT[role].includes(path) && builtPaths.has(path),
      );
      expect(sidebarPaths({ roles: [role] })).toEqual(expected);
    });

    it('would list exactly the spec §6 entries once every screen exists', () => {
      const visible = APPLICATION_ROUTES.filter(
        (entry) => entry.menu === 'sidebar' && isMenuVisible({ roles: [role] }, { ...entry, built: true }),
      ).map((entry) => entry.path);
      expect(sorted(visible)).toEqual(sorted(ONCE_BUILT[role]));
    });
  });

  it('shows a viewer no Team entry, and a manager one', () => {
    expect(sidebarPaths({ roles: ['viewer'] })).not.toContain('/permission');
    expect(sidebarPaths({ roles: ['manager'] })).toContain('/permission');
  });

  it('shows an ads_manager no Segments or Settings entry while those screens do not exist', () => {
    for (const path of ['/segment', '/platform']) {
      if (!builtPaths.has(path)) expect(sidebarPaths({ roles: ['ads_manager'] })).not.toContain(path);
    }
  });

  it('shows nothing that has no screen yet, whoever asks', () => {
    for (const role of ROLES) {
      for (const path of sidebarPaths({ roles: [role] })) expect(builtPaths.has(path), path).toBe(true);
    }
  });

  it('shows the union of the entries of several roles', () => {
    const union = new Set([...sidebarPaths({ roles: ['viewer'] }), ...sidebarPaths({ roles: ['ads_manager'] })]);
    expect(sorted(sidebarPaths({ roles: ['viewer', 'ads_manager'] }))).toEqual(sorted([...union]));
  });

  it('puts no detail screen (a path with a parameter) in the sidebar', () => {
    const all = APPLICATION_ROUTES.filter((entry) => entry.menu === 'sidebar').map((entry) => entry.path);
    for (const path of all) expect(path).not.toMatch(/:/);
  });
});

describe('sidebarSections', () => {
  it('puts every sidebar entry of the route table in exactly one section', () => {
    const grouped = SIDEBAR_SECTIONS.flatMap((section) => section.paths);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect(sorted(grouped)).toEqual(sorted(APPLICATION_ROUTES.filter((entry) => entry.menu === 'sidebar').map((entry) => entry.path)));
  });

  it('groups what a user sees: the dashboard, the audience, messaging and the shop widgets, with no empty Manage section', () => {
    const sections = sidebarSections({ roles: ['user'] }).map((section) => [section.key, section.routes.map((entry) => entry.path)]);
    expect(sections).toEqual([
      ['overview', ['/']],
      ['audience', ['/player']],
      ['messaging', ['/notification', '/channel']],
      ['onsite', ['/banner', '/suggestion', '/fake_noti', '/maxlead']],
    ]);
  });

  it.each(ROLES)('shows %s the same entries as the flat list, each once', (role) => {
    const grouped = sidebarSections({ roles: [role] }).flatMap((section) => section.routes.map((entry) => entry.path));
    expect(sorted(grouped)).toEqual(sorted(sidebarRoutes({ roles: [role] }).map((entry) => entry.path)));
    expect(new Set(grouped).size).toBe(grouped.length);
  });
});

describe('isViewerWriteBlocked', () => {
  const viewer: Role[] = ['viewer'];

  describe('when the viewer sends a GET', () => {
    it('lets it through', () => {
      expect(isViewerWriteBlocked(viewer, 'GET', '/application/shop_1/user')).toBe(false);
      expect(isViewerWriteBlocked(viewer, 'get', '/application/shop_1/user')).toBe(false);
      expect(isViewerWriteBlocked(viewer, 'HEAD', '/application/shop_1')).toBe(false);
    });
  });

  describe('when the viewer sends a POST, PUT or DELETE to an application', () => {
    it('blocks it', () => {
      expect(isViewerWriteBlocked(viewer, 'POST', '/application/shop_1/user')).toBe(true);
      expect(isViewerWriteBlocked(viewer, 'post', '/application/shop_1/user')).toBe(true);
      expect(isViewerWriteBlocked(viewer, 'PUT', '/application/shop_1/user/7')).toBe(true);
      expect(isViewerWriteBlocked(viewer, 'DELETE', '/application/shop_1/user/7')).toBe(true);
      expect(isViewerWriteBlocked(viewer, 'PATCH', '/application/shop_1')).toBe(true);
    });

    it('blocks it whatever the base URL in front', () => {
      expect(isViewerWriteBlocked(viewer, 'POST', '/api/application/shop_1/user')).toBe(true);
      expect(isViewerWriteBlocked(viewer, 'POST', 'https://nudge.example.com/api/application/shop_1/user')).toBe(true);
      expect(isViewerWriteBlocked(viewer, 'PUT', 'application/shop_1')).toBe(true);
    });

    it('lets through a URL that contains /list', () => {
      expect(isViewerWriteBlocked(viewer, 'POST', '/application/shop_1/notification/list')).toBe(false);
      expect(isViewerWriteBlocked(viewer, 'POST', '/api/application/shop_1/player/list?page=2')).toBe(false);
    });
  });

  describe('when the viewer makes an account call', () => {
    it('lets it through, so a viewer can still log out and manage their own security', () => {
      for (const url of ['/user/logout', '/user/password/change', '/api/user/logout', '/user/login']) {
        expect(isViewerWriteBlocked(viewer, 'POST', url), url).toBe(false);
      }
    });
  });

  describe('when the caller is not only a viewer', () => {
    it('never blocks', () => {
      for (const roles of [['manager'], ['super_user'], ['user'], ['ads_manager'], ['admin'], ['viewer', 'manager'], []] as Role[][]) {
        expect(isViewerWriteBlocked(roles, 'DELETE', '/application/shop_1/user/7'), roles.join(',')).toBe(false);
      }
    });
  });

  it('counts only pure viewers as viewers', () => {
    expect(isViewerOnly(['viewer'])).toBe(true);
    expect(isViewerOnly(['viewer', 'viewer'])).toBe(true);
    expect(isViewerOnly(['viewer', 'user'])).toBe(false);
    expect(isViewerOnly([])).toBe(false);
  });
});

describe('assignableRoles', () => {
  it('lets a super user and the admin role hand out every member role', () => {
    expect(sorted(assignableRoles(['super_user']))).toEqual(sorted(MEMBER_ROLES));
    expect(sorted(assignableRoles(['admin']))).toEqual(sorted(MEMBER_ROLES));
  });

  it('never lets a manager hand out super_user', () => {
    expect(assignableRoles(['manager'])).not.toContain('super_user');
    expect(sorted(assignableRoles(['manager']))).toEqual(sorted(['manager', 'user', 'viewer', 'ads_manager']));
  });

  it('lets nobody else hand out anything', () => {
    for (const role of ['user', 'viewer', 'ads_manager'] as Role[]) expect(assignableRoles([role]), role).toEqual([]);
    expect(assignableRoles([])).toEqual([]);
  });

  it('never offers admin', () => {
    for (const role of ROLES) expect(assignableRoles([role])).not.toContain('admin');
  });
});

describe('isShopPlatformApplication', () => {
  it('recognises ids containing myshopify and the special id', () => {
    expect(isShopPlatformApplication('demo_myshopify_com')).toBe(true);
    expect(isShopPlatformApplication('shop.myshopify.com')).toBe(true);
    expect(isShopPlatformApplication('shopify_app')).toBe(true);
  });

  it('treats every other application as hosted', () => {
    expect(isShopPlatformApplication('my_shop')).toBe(false);
    expect(isShopPlatformApplication('shopify')).toBe(false);
    expect(isShopPlatformApplication('shopify_app_2')).toBe(false);
    expect(isShopPlatformApplication('')).toBe(false);
    expect(isShopPlatformApplication(null)).toBe(false);
    expect(isShopPlatformApplication(undefined)).toBe(false);
  });
});

describe('matchApplicationRoute', () => {
  it('finds the dashboard for the application root, with or without a slash', () => {
    expect(matchApplicationRoute('')?.title).toBe('menu.dashboard');
    expect(matchApplicationRoute('/')?.title).toBe('menu.dashboard');
  });

  it('finds fixed paths and ignores a trailing slash', () => {
    expect(matchApplicationRoute('/permission')?.path).toBe('/permission');
    expect(matchApplicationRoute('/permission/')?.path).toBe('/permission');
    expect(matchApplicationRoute('/banner/create')?.path).toBe('/banner/create');
  });

  it('fills parameters', () => {
    expect(matchApplicationRoute('/campaign/42')?.path).toBe('/campaign/:campaign_id');
    expect(matchApplicationRoute('/trigger/9')?.path).toBe('/trigger/:notification_id');
    expect(matchApplicationRoute('/notification/basic')?.path).toBe('/notification/:notification_type');
    expect(matchApplicationRoute('/notification/12/detail/')?.path).toBe('/notification/:notification_id/detail');
  });

  it('tells /trigger from /trigger/:id and /banner from /banner/create', () => {
    expect(matchApplicationRoute('/trigger')?.path).toBe('/trigger');
    expect(matchApplicationRoute('/banner')?.path).toBe('/banner');
  });

  it('finds nothing for unknown paths', () => {
    expect(matchApplicationRoute('/nope')).toBeUndefined();
    expect(matchApplicationRoute('/permission/extra')).toBeUndefined();
    expect(matchApplicationRoute('/notification/12/detail/more')).toBeUndefined();
  });

  it('matches segment by segment, never partially', () => {
    expect(patternMatches('/banner', '/banners')).toBe(false);
    expect(patternMatches('/campaign/:id', '/campaign')).toBe(false);
    expect(patternMatches('/campaign/:id', '/campaign/7')).toBe(true);
  });
});
