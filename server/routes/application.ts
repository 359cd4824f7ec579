import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  Application,
  ApplicationAccess,
  ApplicationListQuery,
  ApplicationParams,
  CreateApplicationBody,
  UpdateApplicationBody,
  ok,
  page,
} from '../../shared/contract';
import {
  createApplication,
  getApplication,
  getApplicationAccess,
  listApplications,
  updateApplication,
} from '../domain/applications';
import { applicationOf, ctxOf, principalOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['applications'];

/** Applications: list, create, read, rename, and the caller's access in one of them. */
export const applicationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application',
    {
      schema: {
        description:
          'The applications the caller is a member of (a platform admin: all), newest first, with total users and platform kinds. `q` searches name and id.',
        tags,
        security: signedIn,
        querystring: ApplicationListQuery,
        response: { 200: ok(page(Application)), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listApplications(ctxOf(request), principalOf(request), request.query),
    }),
  );

  app.post(
    '/application',
    {
      schema: {
        description: "Creates an application with a fresh public client key; the caller becomes its Super User. Its timezone (`utc_offset`, minutes east of UTC) is UTC+07:00 unless given: the days of its dashboard and statistics, and the local time of players whose timezone is unknown. Its country for phone numbers (`phone_country`, ISO 3166-1 alpha-2) is VN unless given: a mobile number its devices, storefront visitors or spin wheel give without a country code (0912 345 678) is read as that country's and kept in international form (+84912345678).",
        tags,
        security: signedIn,
        body: CreateApplicationBody,
        response: { 200: ok(Application), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await createApplication(ctxOf(request), principalOf(request), request.body),
    }),
  );

  app.get(
    '/application/:application_id',
    {
      config: { area: 'member' },
      schema: {
        description: 'One application (any member).',
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(Application), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getApplication(ctxOf(request), applicationOf(request)) }),
  );

  app.put(
    '/application/:application_id',
    {
      config: { area: 'platform' },
      schema: {
        description:
          'Renames an application and changes its timezone and its country for phone numbers (Super User, Ads Manager). A timezone or country left out is kept; activity already counted keeps the days it was counted on, and numbers already kept stay in the international form they were read into.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: UpdateApplicationBody,
        response: { 200: ok(Application), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateApplication(ctxOf(request), applicationOf(request), request.body),
    }),
  );

  app.get(
    '/application/:application_id/access',
    {
      config: { area: 'member' },
      schema: {
        description:
          "The caller's roles, agency and restricted features in this application: what the console's guard and menu read.",
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(ApplicationAccess), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: getApplicationAccess(principalOf(request), applicationOf(request)),
    }),
  );
};
