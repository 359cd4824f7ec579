import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Language } from '../shared/i18n';
import type { Role } from '../shared/permissions';
import type { Config } from './config';
import type { Dialect } from './db';
import type { ApplicationRow, Database, MembershipRow } from './db/schema';
import type { Mailer } from './mail';
import type { Random } from './security/random';
import type { ThrottleLimits } from './security/throttle';

/** Where "now" comes from; tests move it forward to expire codes and links. */
export type Clock = () => Date;

/** What the domain functions work with. Routes, the scheduler and workers build it the same way. */
export interface Services {
  config: Config;
  db: Kysely<Database>;
  dialect: Dialect;
  mailer: Mailer;
  clock: Clock;
  log: FastifyBaseLogger;
  limits: ThrottleLimits;
  /** Uniform numbers for prize draws: crypto in production, seeded in tests. */
  random: Random;
  /** Verifying against this hash keeps unknown accounts as slow as wrong passwords. */
  dummyHash: () => Promise<string>;
  /** The package version, shown by GET /api/info and the OpenAPI document. */
  version: string;
}

/** The signed-in user behind a request: from an X-Token session, or from the shop platform's session token. */
export interface Principal {
  userId: number;
  /** The X-Token session; null for a shop-platform session token, which is stateless. */
  sessionId: number | null;
  email: string;
  name: string;
  isAdmin: boolean;
  agency: string | null;
  created: string;
  /** Set for a shop-platform session token: the shop, and the one application that token may act on. */
  shop?: { domain: string; applicationId: string };
}

/** The caller's standing in the application a request names, set by the permission check. */
export interface ApplicationContext {
  application: ApplicationRow;
  membership: MembershipRow | null;
  roles: Role[];
}

/** One call's context for a domain function. */
export interface Ctx {
  s: Services;
  lang: Language;
  ip: string;
  userAgent: string | null;
  log: FastifyBaseLogger;
}

export function nowIso(s: Pick<Services, 'clock'>): string {
  return s.clock().toISOString();
}

export function isoIn(s: Pick<Services, 'clock'>, ms: number): string {
  return new Date(s.clock().getTime() + ms).toISOString();
}
