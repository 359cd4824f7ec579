import type { Language } from '../shared/i18n';
import type { Area } from '../shared/permissions';
import type { ApplicationContext, Principal, Services } from './context';
import type { KeyApplication } from './domain/ingest';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyRequest {
    /** The language of this request's messages (Accept-Language, default vi). */
    lang: Language;
    /** The signed-in user; null on public routes when no valid token came. */
    principal: Principal | null;
    /** The caller's standing in the application the route names; set on routes that declare an area. */
    application: ApplicationContext | null;
    /** The application of the client key, on the REST device API's routes: found before the body is read. */
    clientKeyApplication: KeyApplication | null;
  }
  interface FastifyContextConfig {
    /** Reachable without signing in. */
    public?: boolean;
    /** The spec §6 area of a per-application route, or 'member' for any member of the application. */
    area?: Area | 'member';
    /**
     * No "incoming request" / "request completed" lines for this route's requests (QuietRoutes in server/app.ts):
     * ingestion's thousands a second would drown the log. A 5xx is still logged by the error handler, a broken
     * response by QuietRoutes.
     */
    quietRequestLog?: boolean;
  }
}
