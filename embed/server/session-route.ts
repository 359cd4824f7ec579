import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { EmbedSession, ok } from '../../shared/contract';
import type { MemberRole, Role } from '../../shared/permissions';
import { AppError } from '../../server/errors';
import { principalOf } from '../../server/plugins/auth';
import { failures } from '../../server/routes/common';
import { refuseSessionToken } from './session-auth';

/** OpenAPI security of the routes that take only the shop platform's session token. */
export const sessionTokenOnly: { [scheme: string]: string[] }[] = [{ shopSessionToken: [] }];

/** GET /api/embed/session: the embedded console asks which application its shop is. */
export const embedApiRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/embed/session',
    {
      config: { public: true },
      schema: {
        description:
          "The shop of the platform's session token (`Authorization: Bearer`), its application and the caller's roles there: what the embedded console opens. A missing or invalid token answers 401 with `X-Shopify-Retry-Invalid-Session-Request: 1`; the shop is installed by token exchange on its first call.",
        tags: ['embed'],
        security: sessionTokenOnly,
        response: { 200: ok(EmbedSession), ...failures },
      },
    },
    async (request, reply) => {
      const { services } = request.server;
      if (!services.config.shopify) throw new AppError('NOT_FOUND');
      const principal = request.principal;
      if (!principal?.shop) throw refuseSessionToken(reply);
      const { applicationId, domain } = principalOf(request).shop!;
      const application = await services.db
        .selectFrom('applications')
        .select(['application_id', 'name'])
        .where('application_id', '=', applicationId)
        .executeTakeFirst();
      if (!application) throw refuseSessionToken(reply);
      const membership = await services.db
        .selectFrom('memberships')
        .select('role')
        .where('application_id', '=', applicationId)
        .where('user_id', '=', principal.userId)
        .executeTakeFirst();
      const roles: Role[] = membership ? [membership.role as MemberRole] : [];
      return { success: true as const, data: { application_id: application.application_id, shop: domain, name: application.name, roles } };
    },
  );
};
