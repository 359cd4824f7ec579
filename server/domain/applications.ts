import { sql } from 'kysely';
import {
  DEFAULT_LOCAL_OFFSET_MINUTES,
  type Application,
  type ApplicationAccess,
  type ApplicationListQuery,
  type CreateApplicationBody,
  type UpdateApplicationBody,
} from '../../shared/contract';
import type { MemberRole } from '../../shared/permissions';
import { nowIso, type ApplicationContext, type Ctx, type Principal } from '../context';
import { toCount, unlessTaken } from '../db';
import type { ApplicationRow } from '../db/schema';
import { AppError } from '../errors';
import { randomClientKey } from '../security/tokens';
import { planOf } from './widgets';
import { DEFAULT_PHONE_COUNTRY } from '../../shared/validation/phone-countries';

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

/** A LIKE pattern matching `text` anywhere, with the wildcards in it taken literally. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Total users and platform kinds of several applications, in two grouped queries. */
async function usageOf(ctx: Ctx, ids: string[]): Promise<Map<string, { total_users: number; platforms: string[] }>> {
  const usage = new Map(ids.map((id) => [id, { total_users: 0, platforms: [] as string[] }]));
  if (ids.length === 0) return usage;
  const players = await ctx.s.db
    .selectFrom('players')
    .select(['application_id', (eb) => eb.fn.countAll().as('n')])
    .where('application_id', 'in', ids)
    .groupBy('application_id')
    .execute();
  for (const row of players) usage.get(row.application_id)!.total_users = toCount(row.n);
  const platforms = await ctx.s.db
    .selectFrom('platforms')
    .select(['application_id', 'kind'])
    .distinct()
    .where('application_id', 'in', ids)
    // A platform whose keys exist but which the merchant has not switched on is not one they send through.
    .where('status', '=', 'active')
    .orderBy('kind')
    .execute();
  for (const row of platforms) usage.get(row.application_id)!.platforms.push(row.kind);
  return usage;
}

function toApplication(
  row: ApplicationRow,
  role: MemberRole | null,
  usage: { total_users: number; platforms: string[] } = { total_users: 0, platforms: [] },
): Application {
  return {
    application_id: row.application_id,
    name: row.name,
    client_key: row.client_key,
    total_users: usage.total_users,
    platforms: usage.platforms,
    created: row.created_at,
    deleting_at: row.deleting_at,
    role,
    plan: planOf(row),
    utc_offset: row.utc_offset,
    phone_country: row.phone_country,
  };
}

/** The applications the user is a member of (a platform admin: all of them), newest first. */
export async function listApplications(ctx: Ctx, principal: Principal, query: ApplicationListQuery): Promise<Page<Application>> {
  const { db } = ctx.s;
  let base = db
    .selectFrom('applications as a')
    .leftJoin('memberships as m', (join) =>
      join.onRef('m.application_id', '=', 'a.application_id').on('m.user_id', '=', principal.userId),
    );
  if (!principal.isAdmin) base = base.where('m.id', 'is not', null);
  if (query.q) {
    const pattern = containsPattern(query.q);
    base = base.where((eb) =>
      eb.or([
        eb(sql`lower(a.name)`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(a.application_id)`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll('a')
    .select('m.role')
    .orderBy('a.created_at', 'desc')
    .orderBy('a.application_id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  const usage = await usageOf(ctx, rows.map((row) => row.application_id));
  return {
    items: rows.map((row) => toApplication(row, (row.role as MemberRole | null) ?? null, usage.get(row.application_id))),
    total: toCount(count?.n),
    page: query.page,
    limit: query.limit,
  };
}

const applicationIdTaken = () =>
  new AppError('CONFLICT', 'errors.applicationIdTaken', {
    fields: [{ path: 'application_id', message: 'errors.applicationIdTaken' }],
  });

/** Creates an application with a fresh client key; its creator becomes its super_user. */
export async function createApplication(ctx: Ctx, principal: Principal, body: CreateApplicationBody): Promise<Application> {
  const { db } = ctx.s;
  const taken = await db
    .selectFrom('applications')
    .select('application_id')
    .where(sql`lower(application_id)`, '=', body.application_id.toLowerCase())
    .executeTakeFirst();
  if (taken) throw applicationIdTaken();
  const now = nowIso(ctx.s);
  // Two creators racing for one id: the loser hears what the check above would have said.
  const row = await unlessTaken(
    () =>
      db.transaction().execute(async (trx) => {
        const created = await trx
          .insertInto('applications')
          .values({
            application_id: body.application_id,
            name: body.name,
            client_key: randomClientKey(),
            created_by: principal.userId,
            created_at: now,
            updated_at: now,
            deleting_at: null,
            utc_offset: body.utc_offset ?? DEFAULT_LOCAL_OFFSET_MINUTES,
            phone_country: body.phone_country ?? DEFAULT_PHONE_COUNTRY,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('memberships')
          .values({
            application_id: created.application_id,
            user_id: principal.userId,
            role: 'super_user',
            organization: null,
            permissions: '[]',
            invited_by: null,
            created_at: now,
          })
          .execute();
        return created;
      }),
    applicationIdTaken,
  );
  return toApplication(row, 'super_user');
}

export async function getApplication(ctx: Ctx, access: ApplicationContext): Promise<Application> {
  const usage = await usageOf(ctx, [access.application.application_id]);
  return toApplication(
    access.application,
    (access.membership?.role as MemberRole | undefined) ?? null,
    usage.get(access.application.application_id),
  );
}

export async function updateApplication(
  ctx: Ctx,
  access: ApplicationContext,
  body: UpdateApplicationBody,
): Promise<Application> {
  const row = await ctx.s.db
    .updateTable('applications')
    .set({
      name: body.name,
      ...(body.utc_offset === undefined ? {} : { utc_offset: body.utc_offset }),
      ...(body.phone_country === undefined ? {} : { phone_country: body.phone_country }),
      updated_at: nowIso(ctx.s),
    })
    .where('application_id', '=', access.application.application_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return getApplication(ctx, { ...access, application: row });
}

function parsePermissions(value: string | undefined): string[] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** The caller's roles, agency and restricted features in one application (what the console's guard loads). */
export function getApplicationAccess(principal: Principal, access: ApplicationContext): ApplicationAccess {
  return {
    roles: access.roles,
    agency: principal.agency,
    permissions: parsePermissions(access.membership?.permissions),
  };
}
