import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { ErrorEnvelope } from '../../shared/contract';

/** Every route documents its failures as the one envelope. */
export const failures = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope } as const;

/** OpenAPI security of the routes that need a signed-in user: X-Token header or access_token query. */
export const signedIn: { [scheme: string]: string[] }[] = [{ token: [] }, { accessToken: [] }];

type JsonParsing = Pick<FastifyInstance, 'getDefaultJsonParser' | 'removeContentTypeParser' | 'addContentTypeParser'>;

/**
 * Text as stored: without NUL (U+0000), in strings and in keys. PostgreSQL's text and jsonb refuse it, so a body
 * carrying one ("\u0000" in its JSON) failed with a 500 on PostgreSQL where SQLite stored it, and a batch of events
 * was lost for one character that means nothing in text.
 */
export function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\0', '');
  if (Array.isArray(value)) return value.map(withoutNul);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key.replaceAll('\0', ''), withoutNul(field)]));
}

/**
 * Fastify's own JSON parsing (its protections against prototype poisoning included), the NULs taken out (withoutNul)
 * of the few bodies whose text escapes one, the others untouched. Every JSON body is parsed so (server/app.ts), and
 * text/plain ones where they are taken (parseTextAsJson).
 */
export function jsonParser(app: JsonParsing) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) =>
    parseJson(request, body, body.includes('\\u0000') ? (error, value) => done(error, error ? undefined : withoutNul(value)) : done);
}

/**
 * Bodies sent as text/plain are parsed as JSON, as application/json is: the storefront's scripts post so (a "simple"
 * request, no preflight; sendBeacon sends them so too). Every /api/sdk surface, and the ingestion benchmark's floor
 * route (tests/bench/ingest.ts), which must parse as ingestion does.
 */
export function parseTextAsJson(app: JsonParsing): void {
  const parseJson = jsonParser(app);
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
