import { sql, type Kysely, type Transaction } from 'kysely';
import type { Principal, Services } from '../../server/context';
import { nowIso } from '../../server/context';
import { isUniqueViolation } from '../../server/db';
import type { Database, ShopRow } from '../../server/db/schema';
import { randomClientKey } from '../../server/security/tokens';
import { exchangeSessionToken, readShopDetails, type AccessGrant, type ShopDetails } from './admin-api';
import { openSecret, sealSecret } from '../../server/security/secret-box';
import { applicationIdForShop } from './shop-domain';
import { DEFAULT_LOCAL_OFFSET_MINUTES } from '../../shared/contract';
import { DEFAULT_PHONE_COUNTRY } from '../../shared/validation/phone-countries';

/*
 * The shop store. A shop that installs the app becomes an application (its id from the shop's domain) with an
 * owner user created for it as super_user; every session token of the shop acts as that user. The owner's
 * "email" is the shop's domain: not an address, so nobody can register, invite or sign in as it.
 */

/** The purpose the offline tokens are sealed under (see secret-box.ts). */
const TOKEN_PURPOSE = 'shop-offline-token';

export async function findShop(db: Kysely<Database>, shop: string): Promise<ShopRow | undefined> {
  return db.selectFrom('shops').selectAll().where('shop', '=', shop).executeTakeFirst();
}

/** Installed now: a token, an owner, and no uninstall since. */
export function isInstalled(row: ShopRow | undefined): row is ShopRow & { access_token: string; owner_user_id: number } {
  return !!row && row.uninstalled_at === null && row.access_token !== null && row.owner_user_id !== null;
}

/** The shop's offline Admin API token, or null when it has none (uninstalled) or it can't be opened. */
export function accessTokenOf(s: Pick<Services, 'config'>, row: ShopRow): string | null {
  return row.access_token === null ? null : openSecret(s.config.secretKey, TOKEN_PURPOSE, row.access_token);
}

async function ensureOwner(trx: Transaction<Database>, ownerId: number | null, shop: string, name: string, now: string): Promise<number> {
  if (ownerId !== null) {
    const owner = await trx.selectFrom('users').select('id').where('id', '=', ownerId).executeTakeFirst();
    if (owner) return owner.id;
  }
  const existing = await trx.selectFrom('users').select('id').where('email', '=', shop).executeTakeFirst();
  if (existing) return existing.id;
  const created = await trx
    .insertInto('users')
    .values({
      email: shop,
      name,
      password_hash: null,
      mobile_number: null,
      agency: null,
      language: 'en',
      email_verified_at: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return created.id;
}

async function ensureSuperUser(trx: Transaction<Database>, applicationId: string, userId: number, now: string): Promise<void> {
  const membership = await trx
    .selectFrom('memberships')
    .select(['id', 'role'])
    .where('application_id', '=', applicationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!membership) {
    await trx
      .insertInto('memberships')
      .values({ application_id: applicationId, user_id: userId, role: 'super_user', organization: null, permissions: '[]', invited_by: null, created_at: now })
      .execute();
  } else if (membership.role !== 'super_user') {
    await trx.updateTable('memberships').set({ role: 'super_user' }).where('id', '=', membership.id).execute();
  }
}

/**
 * The application id for a newly installed shop: the one from its domain, or, when someone already made an
 * application with that id by hand, the same with a number, so a shop never lands in an application somebody
 * else controls.
 */
async function freeApplicationId(trx: Transaction<Database>, shop: string): Promise<string> {
  const base = applicationIdForShop(shop);
  const suffix = '_myshopify_com';
  const stem = base.endsWith(suffix) ? base.slice(0, -suffix.length) : base;
  for (let n = 1; n <= 50; n += 1) {
    const tail = n === 1 ? suffix : `_${n}${suffix}`;
    const candidate = n === 1 ? base : `${stem.slice(0, 64 - tail.length)}${tail}`;
    const taken = await trx
      .selectFrom('applications')
      .select('application_id')
      .where(sql`lower(application_id)`, '=', candidate.toLowerCase())
      .executeTakeFirst();
    if (!taken) return candidate;
  }
  throw new Error(`no free application id for ${shop}`);
}

async function installOnce(s: Services, shop: string, grant: AccessGrant, details: ShopDetails): Promise<ShopRow> {
  const now = nowIso(s);
  const sealed = sealSecret(s.config.secretKey, TOKEN_PURPOSE, grant.accessToken);
  const name = details.name.slice(0, 100);
  const fields = { access_token: sealed, scopes: grant.scopes.join(','), email: details.email, name, updated_at: now };
  return s.db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('shops').selectAll().where('shop', '=', shop).executeTakeFirst();
    const ownerId = await ensureOwner(trx, existing?.owner_user_id ?? null, shop, name, now);
    if (existing) {
      // A re-install: the same application and everything in it, with the new token.
      await ensureSuperUser(trx, existing.application_id, ownerId, now);
      return trx
        .updateTable('shops')
        .set({
          ...fields,
          owner_user_id: ownerId,
          installed_at: existing.uninstalled_at !== null ? now : existing.installed_at,
          uninstalled_at: null,
        })
        .where('shop', '=', shop)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    const applicationId = await freeApplicationId(trx, shop);
    await trx
      .insertInto('applications')
      .values({
        application_id: applicationId,
        name,
        client_key: randomClientKey(),
        created_by: ownerId,
        created_at: now,
        updated_at: now,
        deleting_at: null,
        utc_offset: details.utcOffset ?? DEFAULT_LOCAL_OFFSET_MINUTES,
        phone_country: details.phoneCountry ?? DEFAULT_PHONE_COUNTRY,
      })
      .execute();
    await ensureSuperUser(trx, applicationId, ownerId, now);
    return trx
      .insertInto('shops')
      .values({ shop, application_id: applicationId, owner_user_id: ownerId, installed_at: now, uninstalled_at: null, ...fields })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/**
 * Records an install (OAuth or token exchange): the offline token sealed, the shop's application and owner
 * created the first time and kept on a re-install. Two installs racing for one shop: the loser retries and
 * finds the winner's rows.
 */
export async function installShop(s: Services, shop: string, grant: AccessGrant, details: ShopDetails): Promise<ShopRow> {
  try {
    return await installOnce(s, shop, grant, details);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return installOnce(s, shop, grant, details);
  }
}

/** Managed install: the session token buys the offline token, the Admin API names the shop, then installShop. */
export async function installWithSessionToken(s: Services, shop: string, sessionToken: string): Promise<ShopRow> {
  const config = s.config.shopify!;
  const grant = await exchangeSessionToken(config, shop, sessionToken);
  const details = await readShopDetails(config, shop, grant.accessToken);
  const row = await installShop(s, shop, grant, details);
  s.log.info({ shop, application_id: row.application_id }, 'shop installed through token exchange');
  return row;
}

/** The installed shop a valid session token names, installing it first (token exchange) when it is not. */
export async function shopForSessionToken(s: Services, shop: string, sessionToken: string): Promise<ShopRow> {
  const row = await findShop(s.db, shop);
  return isInstalled(row) ? row : installWithSessionToken(s, shop, sessionToken);
}

/** `app/uninstalled`: the token is dropped at once; the application and its data stay, marked by uninstalled_at. */
export async function markUninstalled(db: Kysely<Database>, shop: string, now: string): Promise<void> {
  await db
    .updateTable('shops')
    .set({ access_token: null, uninstalled_at: now, updated_at: now })
    .where('shop', '=', shop)
    .execute();
  await db.deleteFrom('shop_orders').where('shop', '=', shop).execute();
}

/** The principal every session token of the shop stands for: its owner user, confined to its application. */
export async function shopPrincipal(db: Kysely<Database>, row: ShopRow): Promise<Principal | null> {
  if (row.owner_user_id === null) return null;
  const user = await db.selectFrom('users').selectAll().where('id', '=', row.owner_user_id).executeTakeFirst();
  if (!user) return null;
  return {
    userId: user.id,
    sessionId: null,
    email: user.email,
    name: user.name ?? '',
    isAdmin: false,
    agency: user.agency,
    created: user.created_at,
    shop: { domain: row.shop, applicationId: row.application_id },
  };
}
