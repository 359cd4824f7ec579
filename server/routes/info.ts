import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ServerInfo, ok } from '../../shared/contract';
import { failures } from './common';

export const API_DOCS_PATH = '/api/docs';

/** Public facts about this server that the console shows (the guide link only when one is configured). */
export const infoRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/info',
    {
      config: { public: true },
      schema: {
        description: 'Links the console shows in its menus: the integration guide (when configured) and these API docs.',
        tags: ['server'],
        response: { 200: ok(ServerInfo), ...failures },
      },
    },
    async () => ({
      success: true as const,
      data: { guide_url: app.services.config.guideUrl, api_docs_url: API_DOCS_PATH, version: app.services.version },
    }),
  );
};
