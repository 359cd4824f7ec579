import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Empty, LeadSubmit, PublicConfig, SdkConfigQuery, SpinRequest, SpinResult, WidgetEvent, ok } from '../../shared/contract';
import { getPublicConfig, recordEvent, submitLead } from '../domain/storefront';
import { spinWheel } from '../domain/spin';
import { ctxOf } from '../plugins/auth';
import { allowAnyOrigin, failures, parseTextAsJson } from './common';

const tags = ['storefront'];
const config = { public: true } as const;

/** A visitor sends a few hundred bytes at most; anything bigger is not from our widgets. */
export const SDK_BODY_LIMIT = 16 * 1024;

/** The config's cache lifetime in browsers and CDNs: a merchant's change shows within a minute. */
const CONFIG_MAX_AGE = 60;

/** True when If-None-Match names this ETag (weak or strong, in a list, or `*`). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * The public storefront API, called from shoppers' browsers on any shop's origin with the application's
 * client key. CORS is open (`*`, never credentials: nothing here rides on cookies). The widgets post JSON as
 * text/plain, a "simple" request that needs no preflight, so text/plain bodies are parsed as JSON here, as on the
 * other /api/sdk surfaces (parseTextAsJson).
 */
export const sdkRoutes: FastifyPluginAsyncZod = async (app) => {
  parseTextAsJson(app);
  app.addHook('onRequest', allowAnyOrigin);

  app.options(
    '/sdk/*',
    { config, schema: { hide: true } },
    async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', 'content-type')
        .header('access-control-max-age', '86400')
        .send(),
  );

  app.get(
    '/sdk/config',
    {
      config,
      schema: {
        description: `The widgets a shop's pages may show: active ones whose dates are open or still to come, with their settings and display rules and nothing private (no names, counters, odds or stock). Cacheable for ${CONFIG_MAX_AGE} s with an ETag; answers 304 to a matching If-None-Match. An unknown key is NOT_FOUND.`,
        tags,
        querystring: SdkConfigQuery,
        response: { 200: ok(PublicConfig), ...failures },
      },
    },
    async (request, reply) => {
      const data = await getPublicConfig(ctxOf(request), request.query.key);
      // Serialised once here so the ETag is the hash of the exact bytes sent.
      const body = JSON.stringify({ success: true, data });
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
      // Already-serialised JSON and an empty 304 are not what the typed reply expects; both are what the schema says.
      const raw = reply as FastifyReply;
      raw.header('etag', etag).header('cache-control', `public, max-age=${CONFIG_MAX_AGE}`);
      if (etagMatches(request.headers['if-none-match'], etag)) return raw.code(304).send();
      return raw.type('application/json; charset=utf-8').send(body);
    },
  );

  app.post(
    '/sdk/lead',
    {
      config,
      bodyLimit: SDK_BODY_LIMIT,
      schema: {
        description:
          "A contact form's submission or a contact button's capture, as JSON (text/plain accepted). The widget's own required fields are checked. `website` is a honeypot: when filled the answer is the same success and nothing is stored. Rate limited per visitor, address and application (RATE_LIMITED). A widget that is off, over, or not a form or contact buttons is NOT_FOUND.",
        tags,
        body: LeadSubmit,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request, reply) => {
      await submitLead(ctxOf(request), request.body);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: {} };
    },
  );

  app.post(
    '/sdk/spin',
    {
      config,
      bodyLimit: SDK_BODY_LIMIT,
      schema: {
        description:
          "Spins a wheel: the server draws the slice with the configured odds and stocks, hands a winning slice's one-time code, and records the spin as a lead. The gate's email or phone is required. One spin per browser (visitor_id) and per email or phone: the same visitor asking again gets the first result again; the same email or phone from another visitor is CONFLICT. When every prize is gone and the wheel has no losing slice, CONFLICT. `website` is a honeypot.",
        tags,
        body: SpinRequest,
        response: { 200: ok(SpinResult), ...failures },
      },
    },
    async (request, reply) => {
      const data = await spinWheel(ctxOf(request), request.body);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data };
    },
  );

  app.post(
    '/sdk/event',
    {
      config,
      bodyLimit: SDK_BODY_LIMIT,
      schema: {
        description:
          "A widget's view or click, counted per day; a click on a contact button (`button_type`) also counts for that button. Sent with sendBeacon as text/plain. Rate limited per visitor and application.",
        tags,
        body: WidgetEvent,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request, reply) => {
      await recordEvent(ctxOf(request), request.body);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: {} };
    },
  );
};
