import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApplicationParams, AttributeBody, AttributeDefinition, AttributeParams, Empty, PageQuery, ok, page } from '../../shared/contract';
import { createAttribute, deleteAttribute, listAttributes, updateAttribute } from '../domain/attributes';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['attributes'];
/** Spec §6: attributes are for super users and managers. */
const config = { area: 'attributes' } as const;

/** Attribute definitions: what the segment editor and templates offer. */
export const attributeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/attribute',
    {
      config,
      schema: {
        description: 'Attribute definitions by name, each with the number of players holding a value.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: PageQuery,
        response: { 200: ok(page(AttributeDefinition)), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listAttributes(ctxOf(request), applicationOf(request), request.query) }),
  );

  app.post(
    '/application/:application_id/attribute',
    {
      config,
      schema: {
        description: "Defines an attribute. A date's name ends with `.date`, and only a date's does. A name already defined is CONFLICT.",
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: AttributeBody,
        response: { 200: ok(AttributeDefinition), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await createAttribute(ctxOf(request), applicationOf(request), request.body) }),
  );

  app.put(
    '/application/:application_id/attribute/:attribute_id',
    {
      config,
      schema: {
        description:
          "Renames (the players' values follow), retypes or redescribes an attribute. The type changes only while no player holds a value (CONFLICT otherwise); a name in use is CONFLICT.",
        tags,
        security: signedIn,
        params: AttributeParams,
        body: AttributeBody,
        response: { 200: ok(AttributeDefinition), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateAttribute(ctxOf(request), applicationOf(request), request.params.attribute_id, request.body),
    }),
  );

  app.delete(
    '/application/:application_id/attribute/:attribute_id',
    {
      config,
      schema: {
        description: "Deletes an attribute and every player's value of it.",
        tags,
        security: signedIn,
        params: AttributeParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await deleteAttribute(ctxOf(request), applicationOf(request), request.params.attribute_id);
      return { success: true as const, data: {} };
    },
  );
};
