import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ApiNotification,
  ApiNotificationParams,
  ApiSendBody,
  ApiSent,
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_TTL_HOURS,
  ok,
} from '../../shared/contract';
import { applicationOfApiKey } from '../domain/api-keys';
import { apiNotification, sendFromApi } from '../domain/notifications';
import { AppError } from '../errors';
import { failures } from './common';
import type { ApplicationRow } from '../db/schema';

const tags = ['send api'];
const security = [{ restApiKey: [] }];
const keyNote =
  ' Authenticated by `Authorization: Key <REST API key>` (made under Settings; not the public client key): a missing, wrong or revoked key is NOT_AUTHORIZED (401).';

/** The key's application, found before the body is read, so a call without a valid key learns nothing else. */
async function authenticate(request: FastifyRequest): Promise<void> {
  const application = await applicationOfApiKey(request.server.services, request.headers.authorization);
  request.application = { application, membership: null, roles: [] };
}

function applicationOfKey(request: FastifyRequest): ApplicationRow {
  if (!request.application) throw new AppError('NOT_AUTHORIZED', 'apiKey.invalid');
  return request.application.application;
}

/** The REST send API for an application's own servers (source "api"). */
export const sendApiRoutes: FastifyPluginAsyncZod = async (app) => {
  const routeConfig = { public: true } as const;

  app.post(
    '/v1/notifications',
    {
      config: routeConfig,
      onRequest: authenticate,
      schema: {
        description: `Creates a message due at its schedule (status waiting; the delivery engine sends it), with the console's checks: the type's platform configured, the content's rules, the plan's button cap, segment/template/campaign of the application, a schedule not in the past. \`include_device_ids\` / \`include_external_user_ids\` narrow the recipients to those players. With an \`Idempotency-Key\` header (up to 255 characters, remembered ${IDEMPOTENCY_TTL_HOURS} h) a retry of the same request creates nothing and answers the same id with \`duplicate: true\`; the same key with another body is INVALID_PARAM; concurrent requests with one key create one message.${keyNote}`,
        tags,
        security,
        headers: z.looseObject({ [IDEMPOTENCY_HEADER]: z.string().min(1).max(255).optional() }),
        body: ApiSendBody,
        response: { 200: ok(ApiSent), ...failures },
      },
    },
    async (request) => {
      const application = applicationOfKey(request);
      if (application.deleting_at) throw new AppError('APPLICATION_DELETING');
      const header = request.headers[IDEMPOTENCY_HEADER];
      const key = typeof header === 'string' ? header : null;
      return { success: true as const, data: await sendFromApi(request.server.services, application, request.body, key) };
    },
  );

  app.get(
    '/v1/notifications/:notification_id',
    {
      config: routeConfig,
      onRequest: authenticate,
      schema: {
        description: `A message of the key's application: its status, counters (targeted, sent, delivered, failed, clicked), click-through rate and times.${keyNote}`,
        tags,
        security,
        params: ApiNotificationParams,
        response: { 200: ok(ApiNotification), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await apiNotification(request.server.services, applicationOfKey(request).application_id, request.params.notification_id),
    }),
  );
};
