import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Empty, PushReportBody, PushSubscribeBody, PushSubscribeResult, PushUnsubscribeBody, ok } from '../../shared/contract';
import { reportPush, subscribePush, unsubscribePush } from '../domain/push-subscriptions';
import { ctxOf } from '../plugins/auth';
import { allowAnyOrigin, failures, parseTextAsJson } from './common';
import { SDK_BODY_LIMIT } from './sdk';

const tags = ['storefront'];
const config = { public: true } as const;

/**
 * Web push calls from shoppers' browsers and the shop's service worker (/api/sdk/push/*), public like the rest
 * of /api/sdk: open CORS without credentials, JSON accepted as text/plain (no preflight; sendBeacon sends so).
 * The preflight answer for /api/sdk/* is sdkRoutes'.
 */
export const pushSdkRoutes: FastifyPluginAsyncZod = async (app) => {
  parseTextAsJson(app);
  app.addHook('onRequest', allowAnyOrigin);

  app.post(
    '/sdk/push/subscribe',
    {
      config,
      bodyLimit: SDK_BODY_LIMIT,
      schema: {
        description:
          "Stores a browser's push subscription (PushSubscription.toJSON()) on its visitor's player, created if needed: subscribed from now. An endpoint another visitor held is taken from it. A visitor who unsubscribed on their playerinfo page stays unsubscribed (the call changes nothing) unless `opt_in` says they said yes in the subscription box just now. A subscription the push service refused for good (404 or 410 to a message, or 400) is not stored again: the answer's `renew` asks for a new one. NOT_FOUND when web push is off. Rate limited per visitor and application.",
        tags,
        body: PushSubscribeBody,
        response: { 200: ok(PushSubscribeResult), ...failures },
      },
    },
    async (request, reply) => {
      const data = await subscribePush(ctxOf(request), request.body);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data };
    },
  );

  app.post(
    '/sdk/push/unsubscribe',
    {
      config,
      bodyLimit: SDK_BODY_LIMIT,
      schema: {
        description:
          "The visitor's browser no longer takes pushes (permission withdrawn, subscription gone): subscribed becomes false, unsubscribed_at is set and the endpoint is cleared. With `endpoint`, only that subscription ends.",
        tags,
        body: PushUnsubscribeBody,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request, reply) => {
      await unsubscribePush(ctxOf(request), request.body);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: {} };
    },
  );

  app.post(
    '/sdk/push/report',
    {
      config,
      bodyLimit: SDK_BODY_LIMIT,
      schema: {
        description:
          "From the service worker: a notification was shown (`delivered`) or clicked (`clicked`, with the button's `action`). Recorded as the `$push_delivered` / `$push_clicked` event of the player holding `endpoint`, once per message_id; a report for an unknown endpoint is accepted and dropped.",
        tags,
        body: PushReportBody,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request, reply) => {
      await reportPush(ctxOf(request), request.body);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: {} };
    },
  );
};
