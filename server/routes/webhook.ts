import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ApplicationParams,
  Empty,
  PageQuery,
  Webhook,
  WebhookAttempt,
  WebhookInput,
  WebhookParams,
  WebhookWithSecret,
  ok,
  page,
} from '../../shared/contract';
import { applicationOf, ctxOf, principalOf } from '../plugins/auth';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookAttempts,
  listWebhooks,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../webhooks/webhooks';
import { failures, signedIn } from './common';

const tags = ['webhooks'];
/** Spec §6: webhooks belong to super users. */
const config = { area: 'webhook' } as const;

const SIGNING =
  'Each request is a JSON POST `{ type, timestamp, application_id, data }` signed the Standard Webhooks way: `webhook-id` (the same on every retry), `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the base64 after `whsec_`.';

/** Outbound webhooks (spec §2 /webhook, §3 "Webhook"). */
export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/webhook',
    {
      config,
      schema: {
        description: "The application's webhooks, oldest first, each with its status, last attempt and a hint of its signing secret.",
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: PageQuery,
        response: { 200: ok(page(Webhook)), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listWebhooks(ctxOf(request), applicationOf(request), request.query) }),
  );

  app.post(
    '/application/:application_id/webhook',
    {
      config,
      schema: {
        description: `Adds a webhook. The payload URL is http or https and must lead to a public address: a host that resolves to a private, loopback, link-local or reserved address is INVALID_PARAM 'Invalid Payload URL'. The answer carries the whole signing secret (\`signing_secret\`), shown this once. ${SIGNING}`,
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: WebhookInput,
        response: { 200: ok(WebhookWithSecret), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await createWebhook(ctxOf(request), applicationOf(request), principalOf(request).userId, request.body),
    }),
  );

  app.get(
    '/application/:application_id/webhook/:webhook_id',
    {
      config,
      schema: {
        description: 'One webhook.',
        tags,
        security: signedIn,
        params: WebhookParams,
        response: { 200: ok(Webhook), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getWebhook(ctxOf(request), applicationOf(request), request.params.webhook_id) }),
  );

  app.put(
    '/application/:application_id/webhook/:webhook_id',
    {
      config,
      schema: {
        description:
          'Changes a webhook. `active: false` switches it off; `active: true` switches a disabled one (off by hand or after repeated failures) back on, and its waiting messages go out at once.',
        tags,
        security: signedIn,
        params: WebhookParams,
        body: WebhookInput,
        response: { 200: ok(Webhook), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateWebhook(ctxOf(request), applicationOf(request), request.params.webhook_id, request.body),
    }),
  );

  app.delete(
    '/application/:application_id/webhook/:webhook_id',
    {
      config,
      schema: {
        description: 'Deletes a webhook with its waiting messages and its attempt log.',
        tags,
        security: signedIn,
        params: WebhookParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await deleteWebhook(ctxOf(request), applicationOf(request), request.params.webhook_id);
      return { success: true as const, data: {} };
    },
  );

  app.post(
    '/application/:application_id/webhook/:webhook_id/rotate_secret',
    {
      config,
      schema: {
        description:
          'Replaces the signing secret and answers the new one whole, this once. For 24 hours the old secret signs too (a second `v1,` signature in `webhook-signature`), so the receiver can switch without losing a message.',
        tags,
        security: signedIn,
        params: WebhookParams,
        response: { 200: ok(WebhookWithSecret), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await rotateWebhookSecret(ctxOf(request), applicationOf(request), request.params.webhook_id),
    }),
  );

  app.post(
    '/application/:application_id/webhook/:webhook_id/test',
    {
      config,
      schema: {
        description:
          "Sends a signed `test` event now (also to a disabled webhook) and answers the attempt: the receiver's status code, or why no answer came. One try, no retry; it does not count toward disabling.",
        tags,
        security: signedIn,
        params: WebhookParams,
        response: { 200: ok(WebhookAttempt), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await sendTestEvent(ctxOf(request), applicationOf(request), request.params.webhook_id) }),
  );

  app.get(
    '/application/:application_id/webhook/:webhook_id/attempts',
    {
      config,
      schema: {
        description: "The webhook's delivery attempts, newest first: event, message id, attempt number, status code or error, and what became of the message.",
        tags,
        security: signedIn,
        params: WebhookParams,
        querystring: PageQuery,
        response: { 200: ok(page(WebhookAttempt)), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listWebhookAttempts(ctxOf(request), applicationOf(request), request.params.webhook_id, request.query),
    }),
  );
};
