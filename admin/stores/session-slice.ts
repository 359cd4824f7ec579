import type { StateCreator } from 'zustand';
import type { ApplicationAccess, LoginAnswer, SessionUser } from '../../shared/contract';
import type { Role } from '../../shared/permissions';
import type { AppState } from './store';

/** The signed-in user as the cookies keep it (spec §3): id, name, email, created. */
export type SessionUserInfo = Omit<SessionUser, 'roles'>;

export interface SessionSlice {
  /** The X-Token; kept in localStorage under "token". */
  token: string | null;
  user: SessionUserInfo | null;
  /** Roles for the application last seen (or the account's own roles right after signing in). */
  roles: Role[];
  agency: string | null;
  /** Restricted features: a menu entry whose feature is listed here is hidden. */
  permissions: string[];
  /** The application whose roles are loaded; the guard reloads them when the route names another. */
  lastApplicationId: string | null;
  /** Stores what login, verify and the shop-platform flow answer. */
  signIn(answer: LoginAnswer): void;
  setUser(user: SessionUserInfo): void;
  /** Stores the user's standing in one application and remembers it as the last one seen. */
  setAccess(applicationId: string, access: ApplicationAccess): void;
  /** Spec §2: no roles and no application in the route means the admin role, for the console only. */
  assumeDefaultRole(): void;
  /** Clears the token, the user, the roles and the visited views. */
  signOut(): void;
}

export const createSessionSlice: StateCreator<AppState, [], [], SessionSlice> = (set) => ({
  token: null,
  user: null,
  roles: [],
  agency: null,
  permissions: [],
  lastApplicationId: null,
  signIn: (answer) =>
    set({
      token: answer.auth_token,
      user: { id: answer.id, name: answer.name, email: answer.email, created: answer.created },
      roles: [...answer.roles],
      agency: null,
      permissions: [],
      lastApplicationId: null,
    }),
  setUser: (user) => set({ user: { id: user.id, name: user.name, email: user.email, created: user.created } }),
  setAccess: (applicationId, access) =>
    set({
      roles: [...access.roles],
      agency: access.agency,
      permissions: [...access.permissions],
      lastApplicationId: applicationId,
    }),
  assumeDefaultRole: () => set({ roles: ['admin'] }),
  signOut: () =>
    set({
      token: null,
      user: null,
      roles: [],
      agency: null,
      permissions: [],
      lastApplicationId: null,
      visitedViews: [],
      appName: null,
    }),
});
