import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApplicationParams, ButtonClicks, ClicksQuery, Lead, LeadListQuery, ok, page } from '../../shared/contract';
import { buttonClicks, exportLeadsCsv, listLeads } from '../domain/leads';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['leads'];
const config = { area: 'notifications' } as const;

/** The contact-widget report (/maxlead_report): leads from forms, spins and contact buttons, and button clicks. */
export const leadRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/lead',
    {
      config,
      schema: {
        description:
          "Leads, newest first. `source` is contact, spin or maxlead; `from` and `to` are days (YYYY-MM-DD, days of the application's timezone, `to` inclusive) or ISO 8601 instants.",
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: LeadListQuery,
        response: { 200: ok(page(Lead)), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listLeads(ctxOf(request), applicationOf(request), request.query),
    }),
  );

  app.get(
    '/application/:application_id/lead/export.csv',
    {
      config,
      schema: {
        description:
          'The leads matching the same filters as a CSV file (UTF-8 with a byte-order mark, a header row, every field quoted, newest first). A cell starting with = + - or @ is prefixed with an apostrophe so spreadsheets never run it.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: LeadListQuery.omit({ page: true, limit: true }),
        produces: ['text/csv'],
        response: failures,
      },
    },
    async (request, reply) => {
      const application = applicationOf(request);
      const stream = exportLeadsCsv(ctxOf(request), application, request.query);
      const day = request.server.services.clock().toISOString().slice(0, 10);
      // A stream of CSV, not the JSON envelope the typed reply expects.
      return (reply as FastifyReply)
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="leads-${application.application.application_id}-${day}.csv"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  app.get(
    '/application/:application_id/lead/clicks',
    {
      config,
      schema: {
        description: 'Clicks per contact-button type over all contact-button widgets, most clicked first; `from` and `to` as for leads.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: ClicksQuery,
        response: { 200: ok(ButtonClicks), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await buttonClicks(ctxOf(request), applicationOf(request), request.query),
    }),
  );
};
