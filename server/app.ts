import { jsonParser } from './routes/common';
import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import pkg from '../package.json';
import { pickLanguage } from '../shared/i18n';
import type { Config } from './config';
import type { Clock, Services } from './context';
import { openDatabase, type Db } from './db';
import { AppError } from './errors';
import { createMailer } from './mail';
import { installAuth, installPermissions } from './plugins/auth';
import { registerConsole } from './plugins/console';
import { registerDocs } from './plugins/docs';
import { registerSdkFiles } from './plugins/sdk-files';
import { embedApiRoutes, registerShopPlatform } from '../embed/server';
import { installErrorHandler } from './plugins/errors';
import { applicationRoutes } from './routes/application';
import { attributeRoutes } from './routes/attribute';
import { dashboardRoutes } from './routes/dashboard';
import { eventRoutes } from './routes/event';
import { infoRoutes } from './routes/info';
import { leadRoutes } from './routes/lead';
import { apiKeyRoutes } from './routes/api-key';
import { campaignRoutes } from './routes/campaign';
import { messageRoutes } from './routes/message';
import { notificationRoutes } from './routes/notification';
import { sendApiRoutes } from './routes/send-api';
import { templateRoutes } from './routes/template';
import { messageStatsRoutes } from './routes/message-stats';
import { platformRoutes } from './routes/platform';
import { playerRoutes } from './routes/player';
import { pushSdkRoutes } from './routes/push';
import { reportRoutes } from './routes/report';
import { sdkRoutes } from './routes/sdk';
import { segmentRoutes } from './routes/segment';
import { teamRoutes } from './routes/team';
import { trackRoutes } from './routes/track';
import { userRoutes } from './routes/user';
import { widgetRoutes } from './routes/widget';
import { webhookRoutes } from './routes/webhook';
import { webhookDispatcher } from './webhooks/dispatcher';
import { createDummyHash } from './security/passwords';
import { cryptoRandom, type Random } from './security/random';
import { DEFAULT_LIMITS, type ThrottleLimits } from './security/throttle';

/** What a caller may swap in; production passes nothing. */
export interface AppDeps {
  /** An already-open database (tests open one per file). */
  db?: Db;
  /** Where "now" comes from (tests move it to expire codes and links). */
  clock?: Clock;
  /** Throttle rules overriding the defaults. */
  limits?: Partial<ThrottleLimits>;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: NodeJS.WritableStream;
  /** The prize draws' randomness (tests pass a seeded generator so their statistics are reproducible). */
  random?: Random;
}

/** The URL as it may be logged: a token in the query string is a password and stays out of the logs. */
export function redactUrl(url: string): string {
  return url.replace(/([?&])access_token=[^&#]*/gi, '$1access_token=[redacted]');
}

function loggerOptions(config: Config, deps: AppDeps): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    ...(deps.logStream ? { stream: deps.logStream } : {}),
    serializers: {
      req(request: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        };
      },
    },
  };
}

/**
 * Fastify's request lines ("incoming request", "request completed"), except for routes marked
 * `config.quietRequestLog` (ingestion: thousands a second would drown the log and cost a fifth of its throughput).
 * What fails there is still logged: a 5xx by the error handler (server/plugins/errors.ts), a broken response here.
 * Not a route `logLevel: 'warn'`, as before: a route's own level makes pino rebuild every log method of each
 * request's child logger, and silenced the route's own info lines too.
 */
class QuietRoutes extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (request.routeOptions.config.quietRequestLog) return;
    super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!error && request.routeOptions.config.quietRequestLog) return;
    super.requestCompleted(error, request, reply);
  }
}

/** The logger of a process without an HTTP server (the worker), configured as the API's. */
export function createLogger(config: Config, deps: Pick<AppDeps, 'logStream'> = {}): FastifyBaseLogger {
  return Fastify({ logger: loggerOptions(config, deps) }).log;
}

/**
 * The services every process works with, the API and the worker alike: the database (deps.db, or the one the
 * configuration names), mail, the clock, limits and randomness. closeServices releases them.
 */
export function buildServices(config: Config, deps: AppDeps & { log: FastifyBaseLogger }): Services {
  const db = deps.db ?? openDatabase(config.database);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, db: db.kysely, log: deps.log });
  return {
    config,
    db: db.kysely,
    dialect: db.dialect,
    mailer,
    clock: deps.clock ?? (() => new Date()),
    log: deps.log,
    limits: { ...DEFAULT_LIMITS, ...deps.limits },
    random: deps.random ?? cryptoRandom,
    dummyHash: createDummyHash(),
    version: pkg.version,
  };
}

export async function closeServices(s: Services): Promise<void> {
  await s.mailer.close();
  await s.db.destroy();
}

/**
 * Builds the server: external plugins (database, mail, rate limit, OpenAPI), then the app's own (language,
 * auth → `request.principal`, permissions), then the routes under /api, then the storefront scripts (/sdk)
 * and the console's files.
 * Nothing listens and no migration runs until the caller says so.
 */
export function buildApp(config: Config, deps: AppDeps = {}) {
  const app = Fastify({
    logger: loggerOptions(config, deps),
    // A hop count means "trust that many proxies in front of us".
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    genReqId: () => randomUUID(),
    logController: new QuietRoutes(),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Clients often send `content-type: application/json` with no body on calls that take none (logout);
  // that is no body, not malformed JSON. Anything else goes through Fastify's own, poisoning-safe parser, without
  // NUL characters (jsonParser).
  const parseJson = jsonParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, done);
  });

  // External: database and mail.
  const services = buildServices(config, { ...deps, log: app.log });
  app.decorate('services', services);
  // Computed before the first request, so the first login for an unknown email is not the slow one.
  app.addHook('onReady', async () => {
    await services.dummyHash();
  });
  app.addHook('onClose', async () => {
    await closeServices(services);
  });

  app.decorateRequest('lang', 'vi');
  app.decorateRequest('principal', null);
  app.decorateRequest('application', null);
  app.decorateRequest('clientKeyApplication', null);
  // Hooks every request runs take a callback, not a promise: an async hook costs every request a promise and its
  // ticks (tests/bench/ingest.ts).
  app.addHook('onRequest', (request, _reply, done) => {
    request.lang = pickLanguage(request.headers['accept-language']);
    done();
  });
  installErrorHandler(app);

  // External: the generous global limit; the strict ones for login, codes and emails live in the database.
  app.register(rateLimit, {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    errorResponseBuilder: () => new AppError('RATE_LIMITED'),
  });
  registerDocs(app, pkg.version);

  // App: auth and permissions, then the routes, all under /api.
  app.register(
    async (api) => {
      installAuth(api);
      installPermissions(api);
      await api.register(infoRoutes);
      await api.register(userRoutes);
      await api.register(applicationRoutes);
      await api.register(teamRoutes);
      await api.register(widgetRoutes);
      await api.register(leadRoutes);
      await api.register(sdkRoutes);
      await api.register(trackRoutes);
      await api.register(playerRoutes);
      await api.register(eventRoutes);
      await api.register(attributeRoutes);
      await api.register(segmentRoutes);
      await api.register(dashboardRoutes);
      await api.register(messageStatsRoutes);
      await api.register(platformRoutes);
      await api.register(pushSdkRoutes);
      await api.register(reportRoutes);
      await api.register(embedApiRoutes);
      await api.register(webhookRoutes);
      await api.register(notificationRoutes);
      await api.register(templateRoutes);
      await api.register(campaignRoutes);
      await api.register(messageRoutes);
      await api.register(apiKeyRoutes);
      await api.register(sendApiRoutes);
    },
    { prefix: '/api' },
  );
  // The shop platform's pages, install and webhooks (404 unless SHOPIFY_API_KEY and SHOPIFY_API_SECRET are set).
  registerShopPlatform(app);
  // Outbound webhooks: a send pass every second from onReady; a child plugin, so it stops before the database closes.
  app.register(webhookDispatcher());

  registerSdkFiles(app, config.sdkDir);
  registerConsole(app, config.staticDir);
  return app;
}

export type App = ReturnType<typeof buildApp>;
