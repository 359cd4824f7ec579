import { describe, expect, it } from 'vitest';
import type { Role } from '../../shared/permissions';
import { type GuardInput, decideNavigation, isPublicPath, resolveRoute } from './guard';

const signedIn = (patch: Partial<GuardInput> = {}): GuardInput => ({
  path: '/application',
  search: '',
  loggedIn: true,
  roles: ['super_user'],
  lastApplicationId: 'shop_one',
  ...patch,
});
const signedOut = (path: string, search = ''): GuardInput => ({
  path,
  search,
  loggedIn: false,
  roles: [],
  lastApplicationId: null,
});

describe('the navigation guard (spec §2)', () => {
  describe('when a path ends in /playerinfo', () => {
    it('lets a signed-out visitor through', () => {
      expect(decideNavigation(signedOut('/application/shop_one/playerinfo'))).toEqual({ kind: 'allow' });
    });
    it('lets a signed-in user through without loading roles for that application', () => {
      const input = signedIn({ path: '/application/other_app/playerinfo', lastApplicationId: null, roles: [] });
      expect(decideNavigation(input)).toEqual({ kind: 'allow' });
    });
  });

  describe('when the root path is opened', () => {
    it('goes to the application list', () => {
      expect(decideNavigation(signedIn({ path: '/' }))).toEqual({ kind: 'redirect', to: '/application', replace: true });
    });
  });

  describe('when a signed-in user goes to /login', () => {
    it('sends them to /', () => {
      expect(decideNavigation(signedIn({ path: '/login' }))).toEqual({ kind: 'redirect', to: '/', replace: true });
    });
  });

  describe('when nobody is signed in', () => {
    it('sends a private path to /login with the path to come back to', () => {
      expect(decideNavigation(signedOut('/application/shop_one/permission'))).toEqual({
        kind: 'redirect',
        to: '/login?redirect=%2Fapplication%2Fshop_one%2Fpermission',
        replace: true,
      });
    });
    it('keeps the query of the path in the redirect', () => {
      const decision = decideNavigation(signedOut('/application', 'q=shop&page=2'));
      expect(decision).toEqual({ kind: 'redirect', to: '/login?redirect=%2Fapplication%3Fq%3Dshop%26page%3D2', replace: true });
    });
    it('sends an unknown path to /login too, not to /404', () => {
      expect(decideNavigation(signedOut('/no/such/page'))).toMatchObject({ kind: 'redirect', to: '/login?redirect=%2Fno%2Fsuch%2Fpage' });
    });
    it.each(['/login', '/register', '/forgot-password', '/auth-redirect', '/shopify-maxlead', '/shopify-banner', '/404', '/401', '/redirect/application'])(
      'opens the public page %s',
      (path) => {
        expect(decideNavigation(signedOut(path))).toEqual({ kind: 'allow' });
      },
    );
  });

  describe('when the route names an application other than the last one seen', () => {
    it('loads the roles, agency and permissions for it first', () => {
      const input = signedIn({ path: '/application/shop_two/permission', lastApplicationId: 'shop_one' });
      expect(decideNavigation(input)).toEqual({ kind: 'load-access', applicationId: 'shop_two' });
    });
    it('loads them when no application was seen yet', () => {
      const input = signedIn({ path: '/application/shop_one/permission', lastApplicationId: null, roles: [] });
      expect(decideNavigation(input)).toEqual({ kind: 'load-access', applicationId: 'shop_one' });
    });
    it('does not load them again for the same application', () => {
      const input = signedIn({ path: '/application/shop_one/permission', lastApplicationId: 'shop_one' });
      expect(decideNavigation(input)).toMatchObject({ kind: 'allow' });
    });
    it('reads an encoded application id as the id itself', () => {
      const input = signedIn({ path: '/application/shop%5Fthree/permission' });
      expect(decideNavigation(input)).toEqual({ kind: 'load-access', applicationId: 'shop_three' });
    });
  });

  describe('when no roles are loaded', () => {
    it('gives the admin role on a page without an application', () => {
      expect(decideNavigation(signedIn({ roles: [], lastApplicationId: null }))).toEqual({ kind: 'assume-admin' });
    });
    it('opens account pages once the admin role is given', () => {
      expect(decideNavigation(signedIn({ roles: ['admin'], lastApplicationId: null }))).toMatchObject({ kind: 'allow' });
    });
  });

  describe("when the user's roles don't match the route's roles", () => {
    it.each<Role[]>([['viewer'], ['user'], ['ads_manager']])('sends %s to /401 with no way back', (role) => {
      const input = signedIn({ path: '/application/shop_one/permission', roles: [role] });
      expect(decideNavigation(input)).toEqual({ kind: 'redirect', to: '/401', replace: true });
    });
  });

  describe("when the user's roles match", () => {
    it.each<Role[]>([['super_user'], ['manager'], ['admin'], ['viewer', 'manager']])('opens the team page for %s', (...roles) => {
      const input = signedIn({ path: '/application/shop_one/permission', roles });
      expect(decideNavigation(input)).toEqual({
        kind: 'allow',
        route: { route: expect.objectContaining({ path: '/permission' }), applicationId: 'shop_one' },
      });
    });
    it('opens pages without roles (the list, change password) for any role', () => {
      expect(decideNavigation(signedIn({ roles: ['viewer'] }))).toMatchObject({ kind: 'allow' });
      expect(decideNavigation(signedIn({ path: '/change-password', roles: ['viewer'] }))).toMatchObject({ kind: 'allow' });
    });
  });

  describe('when the route is an audience screen (issue 5)', () => {
    it.each<Role>(['viewer', 'user', 'ads_manager'])('opens the dashboard and a player page for %s', (role) => {
      expect(decideNavigation(signedIn({ path: '/application/shop_one', roles: [role] }))).toMatchObject({
        kind: 'allow',
        route: { route: expect.objectContaining({ path: '/' }) },
      });
      expect(decideNavigation(signedIn({ path: '/application/shop_one/player/42', roles: [role] }))).toMatchObject({
        kind: 'allow',
        route: { route: expect.objectContaining({ path: '/player/:player_id' }) },
      });
    });
    it('opens a segment for an ads_manager and sends a user to /401', () => {
      expect(decideNavigation(signedIn({ path: '/application/shop_one/segment/new', roles: ['ads_manager'] }))).toMatchObject({ kind: 'allow' });
      expect(decideNavigation(signedIn({ path: '/application/shop_one/segment/7', roles: ['user'] }))).toEqual({ kind: 'redirect', to: '/401', replace: true });
    });
  });

  describe('when a screen does not exist yet or the path is unknown', () => {
    it.each(['/application/shop_one/trigger', '/application/shop_one/voucher', '/application/shop_one/ab_test/3', '/billing', '/nowhere'])(
      'sends %s to /404',
      (path) => {
        expect(decideNavigation(signedIn({ path, roles: ['admin'] }))).toEqual({ kind: 'redirect', to: '/404', replace: true });
      },
    );
  });
});

describe('route resolution', () => {
  it('finds per-application routes relative to the application and ignores a trailing slash', () => {
    expect(resolveRoute('/application/shop_one/permission/')).toMatchObject({ route: { path: '/permission' }, applicationId: 'shop_one' });
  });
  it('treats /redirect/… as public and /redirect itself as not', () => {
    expect(isPublicPath('/redirect/application/x/permission')).toBe(true);
    expect(isPublicPath('/redirect')).toBe(false);
  });
});
