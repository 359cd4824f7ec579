import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MessageStats, MessageStatsParams, MessageStatsQuery, type MessageStatsPeriod, ok } from '../../shared/contract';
import { getMessageStats } from '../domain/message-stats';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

/** The dashboard's message statistics: for those who may see notifications (spec §6). */
export const messageStatsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/dashboard/messages',
    {
      config: { area: 'notifications' },
      schema: {
        description:
          "The application's messages over the last 7, 30 (default) or 90 days of its timezone (`utc_offset`), today included: recipients sent, delivered and clicked on each day (every day present), totals per delivery platform with failures, and the five most clicked messages due in the period with their click-through rate.",
        tags: ['dashboard'],
        security: signedIn,
        params: MessageStatsParams,
        querystring: MessageStatsQuery,
        response: { 200: ok(MessageStats), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getMessageStats(ctxOf(request), applicationOf(request), Number(request.query.days) as MessageStatsPeriod),
    }),
  );
};
