import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { ErrorEnvelope } from '../../shared/contract';

/** Every route documents its failures as the one envelope. */
export const failures = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope } as const;

/** OpenAPI security of the routes that need a signed-in user: X-Token header or access_token query. */
export const signedIn: { [scheme: string]: string[] }[] = [{ token: [] }, { accessToken: [] }];

/**
 * Bodies sent as text/plain are parsed as JSON, as application/json is: the storefront's scripts post so (a "simple"
 * request, no preflight; sendBeacon sends them so too). Every /api/sdk surface, and the ingestion benchmark's floor
 * route (tests/bench/ingest.ts), which must parse as ingestion does.
 */
export function parseTextAsJson(app: Pick<FastifyInstance, 'getDefaultJsonParser' | 'removeContentTypeParser' | 'addContentTypeParser'>): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, body, done) => parseJson(request, body.toString(), done));
}

/**
 * The storefront's calls are open to any shop's origin (never with credentials). An onRequest hook, so the header is
 * set before anything can fail and a browser can read the error envelopes too (a 429 from the limiter included); a
 * callback, not a promise, as every request's hooks (server/app.ts).
 */
export const allowAnyOrigin: onRequestHookHandler = (_request, reply, done) => {
  reply.header('access-control-allow-origin', '*');
  done();
};
