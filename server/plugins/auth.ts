import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalFromSessionToken } from '../../embed/server/session-auth';
import { bearerToken } from '../../embed/server/session-token';
import { EMBEDDED_TOKEN_PLACEHOLDER } from '../../shared/contract';
import { AREA_ROLES, canAccessRoute, type Area, isViewerWriteBlocked, type MemberRole, type Role } from '../../shared/permissions';
import type { ApplicationContext, Ctx, Principal } from '../context';
import { resolveSession } from '../domain/sessions';
import { AppError } from '../errors';

/** The token of a request: the X-Token header, else the access_token query parameter. */
export function requestToken(request: FastifyRequest): string | null {
  const header = request.headers['x-token'];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader && fromHeader.trim()) return fromHeader.trim();
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.access_token;
  return typeof fromQuery === 'string' && fromQuery.trim() ? fromQuery.trim() : null;
}

/** The context a domain function gets for this request. */
export function ctxOf(request: FastifyRequest): Ctx {
  return {
    s: request.server.services,
    lang: request.lang,
    ip: request.ip,
    userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
    log: request.log,
  };
}

/** The signed-in user of a route that requires one (the auth hook has already refused anonymous calls). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('NOT_AUTHORIZED');
  return request.principal;
}

export function applicationOf(request: FastifyRequest): ApplicationContext {
  if (!request.application) throw new AppError('NO_PERMISSION');
  return request.application;
}

/**
 * Resolves `request.principal` from the shop platform's session token (`Authorization: Bearer`) when one is
 * sent, else from the X-Token. Runs on onRequest, before the body is read, so an anonymous call is refused
 * with NOT_AUTHORIZED whatever it sends; routes marked `config.public` let it through. The embedded console's
 * placeholder X-Token stands for nobody: without a valid session token it is an anonymous call.
 *
 * A call with neither token (the storefront's and the apps' calls, thousands a second) is settled at once, without
 * a promise: the hooks every request runs take a callback (see server/app.ts).
 */
export function installAuth(api: FastifyInstance): void {
  api.addHook('onRequest', (request, reply, done) => {
    if (requestToken(request) === null && bearerToken(request.headers.authorization) === null) return settle(request, null, done);
    principalOfTokens(api, request, reply).then((principal) => settle(request, principal, done), done);
  });
}

/**
 * Sets the request's principal; anonymous on a route that is not public: NOT_AUTHORIZED. A function of the module,
 * not a closure made for every request: under tsx (how the server runs) each closure is also named at creation
 * (esbuild's keepNames, `__name`), which was 1.3% of a CPU profile of single-event ingestion on SQLite.
 */
function settle(request: FastifyRequest, principal: Principal | null, done: (error?: Error) => void): void {
  request.principal = principal;
  done(!principal && !request.routeOptions.config.public ? new AppError('NOT_AUTHORIZED') : undefined);
}

/** Who the request's session token (embedded console) or X-Token (hosted console) stands for; null for nobody. */
async function principalOfTokens(api: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<Principal | null> {
  const embedded = await principalFromSessionToken(request, reply);
  const token = requestToken(request);
  return embedded ?? (token && token !== EMBEDDED_TOKEN_PLACEHOLDER ? await resolveSession(api.services, token) : null);
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The one permission check of spec §6, from the table the console reads: a route declares its area; the
 * caller's roles in the application named by the URL must overlap it. No membership means no roles, and no
 * roles means no access (the console's "admin by default" is only for its own menu). Viewers send no writes;
 * an application being deleted takes none.
 */
export function installPermissions(api: FastifyInstance): void {
  api.addHook('onRequest', (request, _reply, done) => {
    // Routes of no application (sign-in, the storefront's and the apps' calls) pass at once, without a promise.
    const area = request.routeOptions.config.area;
    if (!area) return done();
    standing(api, request, area).then(() => done(), done);
  });
}

/** Sets `request.application`: the caller's standing in the application the URL names; NO_PERMISSION when it does not reach `area`. */
async function standing(api: FastifyInstance, request: FastifyRequest, area: Area | 'member'): Promise<void> {
  const principal = principalOf(request);
  const applicationId = (request.params as Record<string, unknown>).application_id;
  if (typeof applicationId !== 'string' || applicationId.length > 64) throw new AppError('NO_PERMISSION');
  // A shop's session token acts on that shop's application only.
  if (principal.shop && principal.shop.applicationId !== applicationId) throw new AppError('NO_PERMISSION');

  const { db } = api.services;
  const application = await db
    .selectFrom('applications')
    .selectAll()
    .where('application_id', '=', applicationId)
    .executeTakeFirst();
  // Outsiders hear NO_PERMISSION whether or not the application exists, so ids cannot be probed.
  if (!application) throw new AppError(principal.isAdmin ? 'NOT_FOUND' : 'NO_PERMISSION');
  const membership =
    (await db
      .selectFrom('memberships')
      .selectAll()
      .where('application_id', '=', application.application_id)
      .where('user_id', '=', principal.userId)
      .executeTakeFirst()) ?? null;

  const roles: Role[] = [];
  if (membership) roles.push(membership.role as MemberRole);
  if (principal.isAdmin) roles.push('admin');
  if (roles.length === 0) throw new AppError('NO_PERMISSION');
  if (area !== 'member' && !canAccessRoute(roles, { roles: AREA_ROLES[area] })) throw new AppError('NO_PERMISSION');
  const path = request.url.split('?')[0];
  if (isViewerWriteBlocked(roles, request.method, path)) throw new AppError('NO_PERMISSION');
  if (application.deleting_at && !READS.has(request.method)) throw new AppError('APPLICATION_DELETING');

  request.application = { application, membership, roles };
}
