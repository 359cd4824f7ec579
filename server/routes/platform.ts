import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApplicationParams, WebPushPlatform, WebPushSettings, ok } from '../../shared/contract';
import { getWebPush, saveWebPush } from '../domain/web-push';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['platform'];
/** Spec §6: platform settings belong to super users and ads managers. */
const config = { area: 'platform' } as const;

/** The application's sending platforms (spec §3 "Platform setting"); issue 5 has web push, issue 6 adds the others. */
export const platformRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/platform/web_push',
    {
      config,
      schema: {
        description:
          "Web push: the settings (null until first saved) and the application's VAPID public key, made on the first read and kept. The private key never leaves the server.",
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(WebPushPlatform), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getWebPush(ctxOf(request), applicationOf(request)) }),
  );

  app.put(
    '/application/:application_id/platform/web_push',
    {
      config,
      schema: {
        description:
          'Saves the web push settings: on or off (`enabled`), the HTTPS site URL and icon URL (spec §5: "Site Url must be HTTPS", "Icon Url must be HTTPS"), the service worker path on the shop (default /nudge-sw.js) and the subscription box. When on, the storefront config carries the public key, the path and the box.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: WebPushSettings,
        response: { 200: ok(WebPushPlatform), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await saveWebPush(ctxOf(request), applicationOf(request), request.body) }),
  );
};
