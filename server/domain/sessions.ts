import type { Role } from '../../shared/permissions';
import type { LoginAnswer } from '../../shared/contract';
import { isoIn, nowIso, type Ctx, type Principal, type Services } from '../context';
import type { User } from '../db/schema';
import { hashToken, randomToken } from '../security/tokens';

/** Sessions live 30 days from their last use. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Sliding the expiry on every request would write on every read; once a minute is plenty. */
const TOUCH_EVERY_MS = 60_000;

/** The platform-wide roles of a user; application roles come from GET /application/{id}/access. */
export function globalRoles(user: Pick<User, 'is_admin'>): Role[] {
  return user.is_admin ? ['admin'] : [];
}

/** Opens a session for the user and answers as login and verify do: the token and the user. */
export async function startSession(ctx: Ctx, user: User): Promise<LoginAnswer> {
  const token = randomToken();
  const now = nowIso(ctx.s);
  await ctx.s.db
    .insertInto('sessions')
    .values({
      user_id: user.id,
      token_hash: hashToken(token),
      created_at: now,
      last_used_at: now,
      expires_at: isoIn(ctx.s, SESSION_TTL_MS),
      revoked_at: null,
      ip: ctx.ip,
      user_agent: ctx.userAgent?.slice(0, 300) ?? null,
    })
    .execute();
  return {
    auth_token: token,
    id: user.id,
    name: user.name ?? '',
    email: user.email,
    roles: globalRoles(user),
    created: user.created_at,
  };
}

/** The principal a token stands for, or null when it is unknown, revoked or expired. */
export async function resolveSession(s: Services, token: string): Promise<Principal | null> {
  if (token.length < 20 || token.length > 200) return null;
  const now = s.clock();
  const row = await s.db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id as session_id',
      'sessions.last_used_at',
      'sessions.expires_at',
      'sessions.revoked_at',
      'users.id as user_id',
      'users.email',
      'users.name',
      'users.is_admin',
      'users.agency',
      'users.created_at',
      'users.password_hash',
    ])
    .where('sessions.token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (!row || row.revoked_at !== null || row.expires_at <= now.toISOString() || row.password_hash === null) return null;
  if (now.getTime() - Date.parse(row.last_used_at) > TOUCH_EVERY_MS) {
    await s.db
      .updateTable('sessions')
      .set({ last_used_at: now.toISOString(), expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString() })
      .where('id', '=', row.session_id)
      .execute();
  }
  return {
    userId: row.user_id,
    sessionId: row.session_id,
    email: row.email,
    name: row.name ?? '',
    isAdmin: row.is_admin === 1,
    agency: row.agency,
    created: row.created_at,
  };
}

export async function revokeSession(s: Services, sessionId: number): Promise<void> {
  await s.db
    .updateTable('sessions')
    .set({ revoked_at: nowIso(s) })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Signs the user out everywhere, or everywhere but the session given. */
export async function revokeUserSessions(s: Services, userId: number, exceptSessionId?: number): Promise<void> {
  let query = s.db
    .updateTable('sessions')
    .set({ revoked_at: nowIso(s) })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (exceptSessionId !== undefined) query = query.where('id', '!=', exceptSessionId);
  await query.execute();
}
