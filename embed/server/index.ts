import type { FastifyInstance } from 'fastify';
import { oauthRoutes } from './oauth';
import { pageRoutes } from './pages';
import { webhookRoutes } from './webhooks';

export { embedApiRoutes } from './session-route';

/**
 * The shop-platform (Shopify) side of the server, outside /api: the embedded console's pages and assets, the
 * bounce page, the OAuth install and the webhooks. Always registered; every route answers 404 while
 * SHOPIFY_API_KEY or SHOPIFY_API_SECRET is unset. The session-token check of API calls lives in the auth hook
 * (server/plugins/auth.ts → session-auth.ts) and GET /api/embed/session in `embedApiRoutes`.
 */
export function registerShopPlatform(app: FastifyInstance): void {
  app.register(async (embed) => {
    await embed.register(pageRoutes);
    await embed.register(oauthRoutes);
    // Its own scope: webhook bodies are kept as raw bytes for the HMAC, unlike every other route's JSON.
    await embed.register(webhookRoutes);
  });
}
