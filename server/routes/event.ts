import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApplicationParams, EventDefinition, EventParams, PageQuery, ok, page } from '../../shared/contract';
import { getEventDefinition, listEventDefinitions } from '../domain/event-definitions';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['events'];
/** Spec §6: events are for super users, managers and viewers. */
const config = { area: 'events' } as const;

/** The events the application's players sent, as definitions: name, counts, when seen, property types. */
export const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/event',
    {
      config,
      schema: {
        description: 'Events seen, most recently seen first, with their all-time count and property types (`.date` properties are dates).',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: PageQuery,
        response: { 200: ok(page(EventDefinition)), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listEventDefinitions(ctxOf(request), applicationOf(request), request.query) }),
  );

  app.get(
    '/application/:application_id/event/:name',
    {
      config,
      schema: {
        description: 'One event by name (URL-encoded).',
        tags,
        security: signedIn,
        params: EventParams,
        response: { 200: ok(EventDefinition), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getEventDefinition(ctxOf(request), applicationOf(request), request.params.name) }),
  );
};
