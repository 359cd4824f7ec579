import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { API_KEYS_MAX, ApiKey, ApiKeyCreated, ApiKeyParams, ApplicationParams, Empty, ok } from '../../shared/contract';
import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/api-keys';
import { applicationOf, ctxOf, principalOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['platform'];
/** REST API keys are credentials: the platform settings' roles (spec §6: super users and ads managers). */
const config = { area: 'platform' } as const;

/** The application's REST API keys, for the send API (POST /api/v1/notifications). */
export const apiKeyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/api_key',
    {
      config,
      schema: {
        description: 'The REST API keys in use, newest first: their first characters (`prefix`), when made and last used. The whole key is never shown again.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(z.array(ApiKey)), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listApiKeys(ctxOf(request), applicationOf(request)) }),
  );

  app.post(
    '/application/:application_id/api_key',
    {
      config,
      schema: {
        description: `Makes a REST API key and answers it whole (\`key\`): the only time it is shown, keep it secret. The send API takes it as \`Authorization: Key <key>\`. At most ${API_KEYS_MAX} keys at once (CONFLICT).`,
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(ApiKeyCreated), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await createApiKey(ctxOf(request), applicationOf(request), principalOf(request).userId) }),
  );

  app.delete(
    '/application/:application_id/api_key/:id',
    {
      config,
      schema: {
        description: 'Revokes a REST API key: calls with it are refused from now on (NOT_AUTHORIZED).',
        tags,
        security: signedIn,
        params: ApiKeyParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await revokeApiKey(ctxOf(request), applicationOf(request), request.params.id);
      return { success: true as const, data: {} };
    },
  );
};
