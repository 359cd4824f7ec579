import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApplicationParams, Dashboard, DashboardQuery, ok } from '../../shared/contract';
import { getDashboard } from '../domain/dashboard';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

/** The application's root screen: every member sees it. */
export const dashboardRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/dashboard',
    {
      config: { area: 'member' },
      schema: {
        description:
          "Players and subscribers by platform and channel now; new and active players, sessions and page views for each day of the period, days of the application's timezone (`utc_offset`): from and to, or the last `days` days up to today there (default 30, at most 366, every day present); the most frequent events of all time.",
        tags: ['dashboard'],
        security: signedIn,
        params: ApplicationParams,
        querystring: DashboardQuery,
        response: { 200: ok(Dashboard), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getDashboard(ctxOf(request), applicationOf(request), request.query) }),
  );
};
