import {
  ACCOUNT_ROUTES,
  APPLICATION_ROUTES,
  PUBLIC_PATHS,
  type Role,
  type RouteMeta,
  canAccessRoute,
  patternMatches,
} from '../../shared/permissions';

/** The routes the guard decides over: per-application pages, account pages and public paths. */
export interface RouteTable {
  application: readonly RouteMeta[];
  account: readonly RouteMeta[];
  /** Exact paths, or prefixes written `/prefix/*`. */
  publicPaths: readonly string[];
}

export const ROUTE_TABLE: RouteTable = {
  application: APPLICATION_ROUTES,
  account: ACCOUNT_ROUTES,
  publicPaths: PUBLIC_PATHS,
};

export const HOME_PATH = '/application';
export const LOGIN_PATH = '/login';
export const NOT_FOUND_PATH = '/404';
export const UNAUTHORIZED_PATH = '/401';

/** What the guard looks at for one navigation. */
export interface GuardInput {
  /** The pathname, without the query. */
  path: string;
  /** The query, without the leading `?`. */
  search: string;
  loggedIn: boolean;
  roles: readonly Role[];
  /** The application whose roles are loaded. */
  lastApplicationId: string | null;
}

/** The route found for a path, with the application it belongs to. */
export interface ResolvedRoute {
  route: RouteMeta;
  applicationId?: string;
}

export type GuardDecision =
  /** Render the page. `route` is absent for public pages. */
  | { kind: 'allow'; route?: ResolvedRoute }
  | { kind: 'redirect'; to: string; replace: boolean }
  /** Fetch the user's roles, agency and permissions for this application, then decide again. */
  | { kind: 'load-access'; applicationId: string }
  /** Give the admin role (client side only), then decide again. */
  | { kind: 'assume-admin' };

const APPLICATION_PATH = /^\/application\/([^/]+)(\/.*)?$/;

/** The application_id a path carries, if any. */
export function applicationIdOf(path: string): string | undefined {
  const match = APPLICATION_PATH.exec(path);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/** Spec §2: a path ending in /playerinfo is always allowed. */
export function isPlayerInfoPath(path: string): boolean {
  return /\/playerinfo\/?$/.test(path);
}

export function isPublicPath(path: string, table: RouteTable = ROUTE_TABLE): boolean {
  if (isPlayerInfoPath(path)) return true;
  return table.publicPaths.some((pattern) =>
    pattern.endsWith('/*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern,
  );
}

/** Finds the route meta of a signed-in path: an account page or a page of one application. */
export function resolveRoute(path: string, table: RouteTable = ROUTE_TABLE): ResolvedRoute | undefined {
  const clean = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const match = APPLICATION_PATH.exec(clean);
  if (match) {
    const relative = match[2] ?? '/';
    const route = table.application.find((candidate) => patternMatches(candidate.path, relative));
    return route ? { route, applicationId: applicationIdOf(clean) } : undefined;
  }
  const route = table.account.find((candidate) => patternMatches(candidate.path, clean));
  return route ? { route } : undefined;
}

/** The login page that brings the user back to `path` (query included) once signed in. */
export function loginRedirect(path: string, search: string): string {
  const target = search ? `${path}?${search}` : path;
  return `${LOGIN_PATH}?redirect=${encodeURIComponent(target)}`;
}

/**
 * The navigation guard of spec §2, as a pure function: the hook around it carries out the decision and
 * asks again once roles are loaded.
 */
export function decideNavigation(input: GuardInput, table: RouteTable = ROUTE_TABLE): GuardDecision {
  const { path, search, loggedIn, roles, lastApplicationId } = input;

  if (isPlayerInfoPath(path)) return { kind: 'allow' };
  // The root path redirects to the application list, for everyone (spec §2).
  if (path === '/' || path === '') return { kind: 'redirect', to: HOME_PATH, replace: true };

  if (!loggedIn) {
    if (isPublicPath(path, table)) return { kind: 'allow' };
    return { kind: 'redirect', to: loginRedirect(path, search), replace: true };
  }

  if (path === LOGIN_PATH) return { kind: 'redirect', to: '/', replace: true };
  if (isPublicPath(path, table)) return { kind: 'allow' };

  const applicationId = applicationIdOf(path);
  if (applicationId !== undefined && applicationId !== lastApplicationId) {
    return { kind: 'load-access', applicationId };
  }
  if (roles.length === 0) {
    return applicationId === undefined ? { kind: 'assume-admin' } : { kind: 'load-access', applicationId };
  }

  const resolved = resolveRoute(path, table);
  // Screens later issues build lead to /404 until they exist: never a placeholder page.
  if (!resolved || !resolved.route.built) return { kind: 'redirect', to: NOT_FOUND_PATH, replace: true };
  // Replace, so that Back does not return to the page that was refused.
  if (!canAccessRoute(roles, resolved.route)) return { kind: 'redirect', to: UNAUTHORIZED_PATH, replace: true };
  return { kind: 'allow', route: resolved };
}
