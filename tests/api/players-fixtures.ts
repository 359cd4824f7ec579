import type { Insertable, Kysely } from 'kysely';
import type { Database, PlayersTable } from '../../server/db/schema';
import { db, type TestServer } from './helpers';

/**
 * Audience rows written straight into the test database: the query side's tests (players, segments, events,
 * attributes, dashboard, playerinfo) need players with known fields, whatever ingestion does to get them there.
 */

export const DAY_MS = 86_400_000;

/** An ISO time `days` days before the server's clock (fractions allowed). */
export function daysAgo(server: TestServer, days: number): string {
  return new Date(server.clock.now().getTime() - days * DAY_MS).toISOString();
}

export type PlayerFields = Partial<Omit<Insertable<PlayersTable>, 'application_id' | 'device_id'>>;

/** Inserts one player; unset fields are empty and the player is a desktop web visitor created now. */
export async function insertPlayer(server: TestServer, applicationId: string, deviceId: string, fields: PlayerFields = {}): Promise<number> {
  const now = server.clock.now().toISOString();
  const row = await db(server)
    .insertInto('players')
    .values({ platform: 'web', device_type: 'desktop', created_at: now, updated_at: now, ...fields, application_id: applicationId, device_id: deviceId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/**
 * Inserts one subscribed desktop browser per web push subscription, 500 rows a statement: device ids are
 * `${prefix}-0`, `${prefix}-1`…, in the subscriptions' order. For the engine's large-audience tests and
 * benchmarks, which need far more players than insertPlayer writes in reasonable time.
 */
export async function insertWebSubscribers(
  database: Kysely<Database>,
  applicationId: string,
  subscriptions: readonly { endpoint: string; keys: { p256dh: string; auth: string } }[],
  options: { prefix: string; now: string },
): Promise<void> {
  const { prefix, now } = options;
  for (let from = 0; from < subscriptions.length; from += 500) {
    await database
      .insertInto('players')
      .values(
        subscriptions.slice(from, from + 500).map((sub, i) => ({
          application_id: applicationId,
          device_id: `${prefix}-${from + i}`,
          platform: 'web',
          device_type: 'desktop',
          subscribed: 1 as const,
          push_endpoint: sub.endpoint,
          push_p256dh: sub.keys.p256dh,
          push_auth: sub.keys.auth,
          subscribed_at: now,
          last_seen_at: now,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  }
}

export async function insertTags(server: TestServer, applicationId: string, playerId: number, tags: string[]): Promise<void> {
  await db(server)
    .insertInto('player_tags')
    .values(tags.map((tag) => ({ player_id: playerId, application_id: applicationId, tag })))
    .execute();
}

/** Stores an attribute value the way ingestion does: text in `value`, numbers, dates (epoch ms) and booleans (0/1) also in `number_value`. */
export async function insertAttribute(
  server: TestServer,
  applicationId: string,
  playerId: number,
  name: string,
  value: string | number | boolean,
): Promise<void> {
  let text: string;
  let numberValue: number | null = null;
  if (typeof value === 'boolean') {
    text = String(value);
    numberValue = value ? 1 : 0;
  } else if (typeof value === 'number') {
    text = String(value);
    numberValue = value;
  } else {
    text = value;
    if (name.endsWith('.date')) numberValue = Date.parse(value);
  }
  await db(server)
    .insertInto('player_attributes')
    .values({ player_id: playerId, application_id: applicationId, name, value: text, number_value: numberValue, updated_at: server.clock.now().toISOString() })
    .execute();
}

let eventCounter = 0;
/** Inserts one event occurrence. */
export async function insertEvent(
  server: TestServer,
  applicationId: string,
  playerId: number,
  name: string,
  occurredAt: string,
  properties: Record<string, unknown> | null = null,
): Promise<number> {
  eventCounter += 1;
  const row = await db(server)
    .insertInto('events')
    .values({
      application_id: applicationId,
      player_id: playerId,
      name,
      properties: properties ? JSON.stringify(properties) : null,
      client_event_id: `fixture-${eventCounter}-${Math.random().toString(36).slice(2, 10)}`,
      session_id: null,
      occurred_at: occurredAt,
      received_at: occurredAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
