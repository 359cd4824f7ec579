import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApplicationParams, DELIVERY_LOG_MAX_ROWS, DeliveryListQuery, DeliveryPage, ok } from '../../shared/contract';
import { listDeliveries } from '../domain/deliveries';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

/** Spec §6: /message is in the Notifications area; a viewer reads it. */
const config = { area: 'notifications' } as const;

/** The recipients' log (spec §2 /message): one row per message and device, as the delivery engine recorded it. */
export const messageRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/message',
    {
      config,
      schema: {
        description: `Recipients of the application's messages, newest first: the device, channel, status (queued, sent, delivered, clicked, failed with its reason), attempts and times. Filter by message (\`notification_id\`) and status; \`q\` finds a player by exact device id, external user id, email or mobile number. \`page\` reaches the first ${DELIVERY_LOG_MAX_ROWS} rows (deeper is INVALID_PARAM); \`before_id\` pages to any depth: the rows with a smaller id, newest first, \`page\` ignored. Each page answers \`next_before_id\`, the cursor of the next one (null on the last page), and \`total\`, every matching row.`,
        tags: ['messages'],
        security: signedIn,
        params: ApplicationParams,
        querystring: DeliveryListQuery,
        response: { 200: ok(DeliveryPage), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listDeliveries(ctxOf(request), applicationOf(request), request.query) }),
  );
};
