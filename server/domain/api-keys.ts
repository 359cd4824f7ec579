import type { Selectable } from 'kysely';
import { API_KEYS_MAX, type ApiKey, type ApiKeyCreated } from '../../shared/contract';
import { nowIso, type ApplicationContext, type Ctx, type Services } from '../context';
import { toCount } from '../db';
import type { ApiKeysTable, ApplicationRow } from '../db/schema';
import { AppError } from '../errors';
import { hashToken, randomToken } from '../security/tokens';

/*
 * REST API keys: what an application's server sends as `Authorization: Key <key>` to the send API. A key is
 * `nk_` + 32 random bytes (base64url), stored as SHA-256 like session tokens, shown whole only when made; the
 * console tells keys apart by their first characters. Revoking keeps the row (revoked_at) and refuses the key.
 */

const KEY_PREFIX = 'nk_';
/** The characters of a key kept in clear: `nk_` and the first 8 of the secret. */
const SHOWN = KEY_PREFIX.length + 8;
/** The last-used time is written at most this often per key, not on every call. */
const LAST_USED_EVERY_MS = 60_000;

type ApiKeyRow = Selectable<ApiKeysTable>;

function toApiKey(row: ApiKeyRow): ApiKey {
  return { id: Number(row.id), prefix: row.prefix, created_at: row.created_at, last_used_at: row.last_used_at };
}

/** The application's keys in use, newest first. */
export async function listApiKeys(ctx: Ctx, access: ApplicationContext): Promise<ApiKey[]> {
  const rows = await ctx.s.db
    .selectFrom('api_keys')
    .selectAll()
    .where('application_id', '=', access.application.application_id)
    .where('revoked_at', 'is', null)
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toApiKey);
}

/** Makes a key and answers it whole, the only time it is ever shown. */
export async function createApiKey(ctx: Ctx, access: ApplicationContext, userId: number): Promise<ApiKeyCreated> {
  const applicationId = access.application.application_id;
  const active = await ctx.s.db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('application_id', '=', applicationId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (toCount(active?.n) >= API_KEYS_MAX) throw new AppError('CONFLICT', 'apiKey.tooMany', { params: { number: API_KEYS_MAX } });
  const key = KEY_PREFIX + randomToken();
  const row = await ctx.s.db
    .insertInto('api_keys')
    .values({ application_id: applicationId, key_hash: hashToken(key), prefix: key.slice(0, SHOWN), created_by: userId, created_at: nowIso(ctx.s) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...toApiKey(row), key };
}

/** Revokes a key: from now on it is refused (NOT_AUTHORIZED). */
export async function revokeApiKey(ctx: Ctx, access: ApplicationContext, id: number): Promise<void> {
  const result = await ctx.s.db
    .updateTable('api_keys')
    .set({ revoked_at: nowIso(ctx.s) })
    .where('application_id', '=', access.application.application_id)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new AppError('NOT_FOUND');
}

/**
 * The application of `Authorization: Key <REST API key>`. A missing, malformed, unknown or revoked key is
 * NOT_AUTHORIZED, with a message for an API client (not the console's "session expired").
 */
export async function applicationOfApiKey(s: Pick<Services, 'db' | 'clock'>, authorization: string | undefined): Promise<ApplicationRow> {
  const match = typeof authorization === 'string' ? /^Key\s+(nk_[A-Za-z0-9_-]{43})\s*$/.exec(authorization) : null;
  if (!match) throw new AppError('NOT_AUTHORIZED', 'apiKey.invalid');
  const found = await s.db
    .selectFrom('api_keys as k')
    .innerJoin('applications as a', 'a.application_id', 'k.application_id')
    .selectAll('a')
    .select(['k.id as key_id', 'k.last_used_at'])
    .where('k.key_hash', '=', hashToken(match[1]))
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!found) throw new AppError('NOT_AUTHORIZED', 'apiKey.invalid');
  const now = s.clock();
  if (!found.last_used_at || Date.parse(found.last_used_at) < now.getTime() - LAST_USED_EVERY_MS) {
    await s.db.updateTable('api_keys').set({ last_used_at: now.toISOString() }).where('id', '=', found.key_id).execute();
  }
  const { key_id: _keyId, last_used_at: _lastUsed, ...application } = found;
  return application;
}
