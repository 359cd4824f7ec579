import type { Kysely } from 'kysely';
import { toCount } from '../db';
import type { Database } from '../db/schema';

export interface ThrottleRule {
  max: number;
  windowMs: number;
}

const MINUTE = 60_000;

/**
 * The database-backed limits, shared by every API process. Each counts events in a sliding window:
 * failures for login and password checks, requests for the calls that send email.
 */
export const DEFAULT_LIMITS = {
  /** Failed logins per email address. */
  loginPerEmail: { max: 10, windowMs: 15 * MINUTE },
  /** Failed logins per IP: higher, because an office or a carrier NAT shares one address. */
  loginPerIp: { max: 50, windowMs: 15 * MINUTE },
  /** One-time codes emailed per user and purpose. */
  otpSendPerUser: { max: 5, windowMs: 15 * MINUTE },
  resendPerEmail: { max: 3, windowMs: 15 * MINUTE },
  resendPerIp: { max: 20, windowMs: 15 * MINUTE },
  resetPerEmail: { max: 5, windowMs: 15 * MINUTE },
  resetPerIp: { max: 20, windowMs: 15 * MINUTE },
  registerPerIp: { max: 20, windowMs: 60 * MINUTE },
  /** Wrong old passwords on the change-password form, per user. */
  passwordCheckPerUser: { max: 10, windowMs: 15 * MINUTE },
  /*
   * The public storefront API (/api/sdk), counted in fixed windows (rate-windows.ts). Per visitor id, per
   * address, and per application: a visitor id is the caller's own choice, so the address and the
   * application bound what rotating ids can do. Addresses are generous because mobile carriers put many
   * shoppers behind one.
   */
  sdkLeadPerVisitor: { max: 10, windowMs: 10 * MINUTE },
  sdkLeadPerIp: { max: 60, windowMs: 10 * MINUTE },
  sdkLeadPerApplication: { max: 600, windowMs: MINUTE },
  sdkSpinPerVisitor: { max: 10, windowMs: 10 * MINUTE },
  sdkSpinPerIp: { max: 60, windowMs: 10 * MINUTE },
  sdkSpinPerApplication: { max: 600, windowMs: MINUTE },
  /** Views and clicks: a page with several widgets sends a few per page view. */
  sdkEventPerVisitor: { max: 120, windowMs: MINUTE },
  sdkEventPerApplication: { max: 30_000, windowMs: MINUTE },
  /*
   * Ingestion (POST /api/sdk/track, the REST device API): token buckets kept in each process's memory
   * (server/domain/ingest-limits.ts), not in the database: a write per request would cost more than the
   * ingestion itself. `max` is the burst, refilled evenly over the window. Per visitor or device, and per
   * address (generous: a carrier's NAT or an app's backend puts many devices behind one).
   */
  sdkTrackPerVisitor: { max: 120, windowMs: MINUTE },
  sdkTrackPerIp: { max: 12_000, windowMs: MINUTE },
  /** The public playerinfo page (a player's own record by device id): reads and unsubscribes together. */
  playerInfoPerIp: { max: 30, windowMs: MINUTE },
  playerInfoPerApplication: { max: 600, windowMs: MINUTE },
} satisfies Record<string, ThrottleRule>;
export type ThrottleLimits = Record<keyof typeof DEFAULT_LIMITS, ThrottleRule>;

/** Events older than this are of no use to any rule. */
const RETENTION_MS = 24 * 60 * MINUTE;

export async function countEvents(db: Kysely<Database>, bucket: string, rule: ThrottleRule, now: Date): Promise<number> {
  const since = new Date(now.getTime() - rule.windowMs).toISOString();
  const row = await db
    .selectFrom('throttle_events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('bucket', '=', bucket)
    .where('created_at', '>', since)
    .executeTakeFirst();
  return toCount(row?.n);
}

export async function isThrottled(db: Kysely<Database>, bucket: string, rule: ThrottleRule, now: Date): Promise<boolean> {
  return (await countEvents(db, bucket, rule, now)) >= rule.max;
}

export async function recordEvent(db: Kysely<Database>, bucket: string, now: Date): Promise<void> {
  await db.insertInto('throttle_events').values({ bucket, created_at: now.toISOString() }).execute();
  // Housekeeping rides on writes: this bucket's stale rows now, everybody's now and then.
  const stale = new Date(now.getTime() - RETENTION_MS).toISOString();
  await db.deleteFrom('throttle_events').where('bucket', '=', bucket).where('created_at', '<', stale).execute();
  if (Math.random() < 0.01) await db.deleteFrom('throttle_events').where('created_at', '<', stale).execute();
}

export async function clearBucket(db: Kysely<Database>, bucket: string): Promise<void> {
  await db.deleteFrom('throttle_events').where('bucket', '=', bucket).execute();
}

/** Counts one request against every rule given; true when any rule is already spent (the request is not counted then). */
export async function takeSlot(
  db: Kysely<Database>,
  now: Date,
  checks: readonly { bucket: string; rule: ThrottleRule }[],
): Promise<boolean> {
  for (const { bucket, rule } of checks) {
    if (await isThrottled(db, bucket, rule, now)) return false;
  }
  for (const { bucket } of checks) await recordEvent(db, bucket, now);
  return true;
}
