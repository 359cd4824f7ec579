import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { ThrottleRule } from './throttle';

/** Windows older than this serve no rule (the longest public window is an hour). */
const RETENTION_MS = 24 * 3600_000;

/**
 * Counts one hit in the fixed window of `rule` that contains `now` and answers the window's total. One
 * upsert on one row, whatever the traffic: the sliding-window log of the login throttle would count
 * thousands of rows per request for a busy shop. A fixed window lets up to twice `max` through around a
 * window's edge; for the storefront that is an acceptable price.
 */
export async function hitWindow(db: Kysely<Database>, bucket: string, rule: ThrottleRule, now: Date): Promise<number> {
  const start = new Date(Math.floor(now.getTime() / rule.windowMs) * rule.windowMs).toISOString();
  const row = await db
    .insertInto('rate_windows')
    .values({ bucket, window_start: start, hits: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql<number>`rate_windows.hits + 1` }))
    .returning('hits')
    .executeTakeFirstOrThrow();
  // Housekeeping rides on the traffic it cleans up after.
  if (Math.random() < 0.001) {
    const stale = new Date(now.getTime() - RETENTION_MS).toISOString();
    await db.deleteFrom('rate_windows').where('window_start', '<', stale).execute();
  }
  return Number(row.hits);
}

/**
 * Counts the request against each rule in turn and answers false at the first one already spent; the rules
 * after it are not counted, so a visitor hammering alone does not eat the application's allowance.
 */
export async function withinWindows(
  db: Kysely<Database>,
  now: Date,
  checks: readonly { bucket: string; rule: ThrottleRule }[],
): Promise<boolean> {
  for (const { bucket, rule } of checks) {
    if ((await hitWindow(db, bucket, rule, now)) > rule.max) return false;
  }
  return true;
}
