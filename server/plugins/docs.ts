import fastifySwagger, { type SwaggerTransformObject } from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { API_DOCS_PATH } from '../routes/info';

/** The parts of an OpenAPI document this file reads: the operations' request bodies. */
interface DocumentBodies {
  paths?: Record<string, Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: { nullable?: boolean } }> } } | undefined> | undefined>;
}

/**
 * @fastify/swagger marks every request body required. A route whose body schema takes null (no body at all, as
 * the device API's "a session started" takes) is documented as one that may be left out.
 */
export function optionalBodies<T extends object>(document: T): T {
  for (const operations of Object.values((document as DocumentBodies).paths ?? {})) {
    for (const operation of Object.values(operations ?? {})) {
      const body = operation?.requestBody;
      if (body?.content && Object.values(body.content).some((media) => media.schema?.nullable === true)) body.required = false;
    }
  }
  return document;
}

/** The OpenAPI document, generated from the routes' zod schemas, at /api/docs/json, with Swagger UI at /api/docs. */
export function registerDocs(app: FastifyInstance, version: string): void {
  // Registered on the root instance so its onRoute hook sees every route, /api included.
  app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Nudge API',
        description:
          'Every answer is `{ success, data?, error?, message?, fields? }`; `error` is a stable code and `message` is translated by Accept-Language (vi by default, en). Sign in with POST /api/user/login and send the token as the X-Token header (or the access_token query parameter).',
        version,
      },
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'X-Token' },
          accessToken: { type: 'apiKey', in: 'query', name: 'access_token' },
          shopSessionToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "The shop platform's session token (App Bridge idToken())" },
          clientKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: "`Key <client_key>`: the application's public client key; it can only write device data" },
          restApiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Key <REST API key>`: a secret key made under Settings for your own servers (the send API); never ship it in an app or a page' },
        },
      },
      tags: [
        { name: 'accounts', description: 'Registration, sign-in, password and security settings' },
        { name: 'applications', description: 'Applications and the caller’s access to them' },
        { name: 'team', description: 'Members of an application and their roles' },
        { name: 'widgets', description: 'Storefront widgets: banners, flash sales, contact forms, spin wheels, suggestions, fake-buyer notices, contact buttons' },
        { name: 'leads', description: 'Leads the widgets collected, their CSV export and contact-button clicks' },
        { name: 'storefront', description: 'The public API the widgets call from shoppers’ browsers, keyed by the application’s client key (no token)' },
        { name: 'devices', description: 'The REST device API for mobile apps and servers: register devices, record sessions, events, attributes and identity, with the client key' },
        { name: 'platform', description: 'Sending platforms of an application: web push settings and VAPID key' },
        { name: 'players', description: 'Players (one per browser or app install): the list, a player with attributes and events, tags; and the public playerinfo page' },
        { name: 'events', description: 'Events the players sent: counts, when seen, property types' },
        { name: 'attributes', description: 'Attribute definitions used by segments and templates' },
        { name: 'segments', description: 'Segments of players (OR of AND groups), their live count and size over time' },
        { name: 'dashboard', description: "The application's audience figures per day" },
        { name: 'notifications', description: 'Messages over four channels (mobile push, web push, SMS, Facebook): create, schedule, send, cancel, and their reports' },
        { name: 'templates', description: 'Saved message contents per type' },
        { name: 'campaigns', description: 'Named groups of messages with their totals' },
        { name: 'messages', description: 'The recipients’ log: one row per message and device' },
        { name: 'send api', description: 'The REST send API for your servers, keyed by a REST API key: create a message, read its status' },
        { name: 'server', description: 'Facts about this server' },
        { name: 'embed', description: 'The console embedded in the shop platform’s admin, authenticated by the platform’s session token' },
      ],
    },
    transform: jsonSchemaTransform,
    // Only an OpenAPI document is made here (the `openapi` option), never a Swagger 2 one.
    transformObject: (document) => optionalBodies('openapiObject' in document ? document.openapiObject : document.swaggerObject) as ReturnType<SwaggerTransformObject>,
  });
  app.register(fastifySwaggerUi, { routePrefix: API_DOCS_PATH });
}
