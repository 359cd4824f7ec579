import type { Kysely } from 'kysely';
import type { AssignableRoles, InviteMemberBody, PageQuery, TeamMember, UpdateMemberBody } from '../../shared/contract';
import { isLanguage } from '../../shared/i18n';
import { ROLE_LABEL_KEYS, assignableRoles, type MemberRole } from '../../shared/permissions';
import { nowIso, type ApplicationContext, type Ctx, type Principal } from '../context';
import { toCount, unlessTaken } from '../db';
import type { Database } from '../db/schema';
import { AppError } from '../errors';
import { composeMail } from '../mail';
import type { Page } from './applications';

interface MemberRow {
  user_id: number;
  email: string;
  name: string | null;
  password_hash: string | null;
  role: string;
  organization: string | null;
  created_at: string;
}

function toTeamMember(row: MemberRow): TeamMember {
  return {
    user_id: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role as MemberRole,
    organization: row.organization,
    joined: row.created_at,
    status: row.password_hash ? 'active' : 'invited',
  };
}

function members(db: Kysely<Database>, applicationId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .where('m.application_id', '=', applicationId);
}

const memberColumns = [
  'm.user_id',
  'u.email',
  'u.name',
  'u.password_hash',
  'm.role',
  'm.organization',
  'm.created_at',
] as const;

async function findMember(db: Kysely<Database>, applicationId: string, userId: number): Promise<MemberRow | undefined> {
  return members(db, applicationId).select(memberColumns).where('m.user_id', '=', userId).executeTakeFirst();
}

/** The team of an application, in the order people joined. */
export async function listMembers(ctx: Ctx, access: ApplicationContext, query: PageQuery): Promise<Page<TeamMember>> {
  const id = access.application.application_id;
  const count = await members(ctx.s.db, id)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  const rows = await members(ctx.s.db, id)
    .select(memberColumns)
    .orderBy('m.created_at', 'asc')
    .orderBy('m.id', 'asc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  return { items: rows.map(toTeamMember), total: toCount(count?.n), page: query.page, limit: query.limit };
}

/** The roles the caller may hand out here, with the i18n keys of their labels. */
export function getAssignableRoles(access: ApplicationContext): AssignableRoles {
  return { roles: assignableRoles(access.roles).map((role) => ({ role, label: ROLE_LABEL_KEYS[role] })) };
}

const cannotDoAction = () => new AppError('NO_PERMISSION', 'errors.cannotDoAction');
const alreadyMember = () =>
  new AppError('CONFLICT', 'errors.alreadyMember', { fields: [{ path: 'email', message: 'errors.alreadyMember' }] });

/**
 * Adds someone to the team. An existing account joins at once and gets a notice; an unknown address gets a
 * user row without password (status "invited") and an invitation to register with that address.
 */
export async function inviteMember(
  ctx: Ctx,
  principal: Principal,
  access: ApplicationContext,
  body: InviteMemberBody,
): Promise<TeamMember> {
  const { s } = ctx;
  if (!assignableRoles(access.roles).includes(body.role)) throw cannotDoAction();
  const application = access.application;
  const now = nowIso(s);
  let user = await s.db.selectFrom('users').selectAll().where('email', '=', body.email).executeTakeFirst();
  if (user && (await findMember(s.db, application.application_id, user.id))) throw alreadyMember();

  user = await unlessTaken(
    () =>
      s.db.transaction().execute(async (trx) => {
        const invitee =
          user ??
          (await trx
            .insertInto('users')
            .values({
              email: body.email,
              name: null,
              password_hash: null,
              mobile_number: null,
              agency: null,
              language: ctx.lang,
              email_verified_at: null,
              created_at: now,
              updated_at: now,
            })
            .returningAll()
            .executeTakeFirstOrThrow());
        await trx
          .insertInto('memberships')
          .values({
            application_id: application.application_id,
            user_id: invitee.id,
            role: body.role,
            organization: body.organization ? body.organization : null,
            permissions: '[]',
            invited_by: principal.userId,
            created_at: now,
          })
          .execute();
        return invitee;
      }),
    alreadyMember,
  );

  const inviter = principal.name || principal.email;
  if (user.password_hash) {
    const lang = isLanguage(user.language) ? user.language : ctx.lang;
    s.mailer.dispatch(
      composeMail(lang, user.email, {
        kind: 'added',
        name: user.name ?? user.email,
        inviter,
        application: application.name,
        role: body.role,
        link: `${s.config.publicUrl}/application`,
      }),
    );
  } else {
    s.mailer.dispatch(
      composeMail(ctx.lang, user.email, {
        kind: 'invite',
        inviter,
        application: application.name,
        role: body.role,
        link: `${s.config.publicUrl}/register?email=${encodeURIComponent(user.email)}`,
      }),
    );
  }
  const created = await findMember(s.db, application.application_id, user.id);
  return toTeamMember(created!);
}

/**
 * Runs a team change that may take a super_user away, refusing it when it would leave the application without
 * one. On PostgreSQL the application row is locked so two such changes cannot both pass the count; SQLite
 * serialises writers already.
 */
async function guardLastSuperUser(
  ctx: Ctx,
  applicationId: string,
  losesSuperUser: boolean,
  change: (trx: Kysely<Database>) => Promise<void>,
): Promise<void> {
  await ctx.s.db.transaction().execute(async (trx) => {
    if (losesSuperUser) {
      if (ctx.s.dialect === 'postgres') {
        await trx.selectFrom('applications').select('application_id').where('application_id', '=', applicationId).forUpdate().execute();
      }
      const count = await trx
        .selectFrom('memberships')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('application_id', '=', applicationId)
        .where('role', '=', 'super_user')
        .executeTakeFirst();
      if (toCount(count?.n) <= 1) throw new AppError('CONFLICT', 'errors.lastSuperUser');
    }
    await change(trx);
  });
}

/** Changes a member's role or organization. Nobody changes their own role or touches a role above their own. */
export async function updateMember(
  ctx: Ctx,
  principal: Principal,
  access: ApplicationContext,
  userId: number,
  body: UpdateMemberBody,
): Promise<TeamMember> {
  const applicationId = access.application.application_id;
  const target = await findMember(ctx.s.db, applicationId, userId);
  if (!target) throw new AppError('NOT_FOUND');
  if (userId === principal.userId && body.role !== target.role) throw new AppError('NO_PERMISSION', 'errors.ownRole');
  const allowed = assignableRoles(access.roles);
  if (!allowed.includes(target.role as MemberRole) || !allowed.includes(body.role)) throw cannotDoAction();

  const losesSuperUser = target.role === 'super_user' && body.role !== 'super_user';
  await guardLastSuperUser(ctx, applicationId, losesSuperUser, async (trx) => {
    await trx
      .updateTable('memberships')
      .set({
        role: body.role,
        ...(body.organization !== undefined ? { organization: body.organization || null } : {}),
      })
      .where('application_id', '=', applicationId)
      .where('user_id', '=', userId)
      .execute();
  });
  return toTeamMember((await findMember(ctx.s.db, applicationId, userId))!);
}

/** Removes a member (or lets one leave). A pending invitee left with no application is forgotten entirely. */
export async function removeMember(
  ctx: Ctx,
  access: ApplicationContext,
  userId: number,
): Promise<void> {
  const applicationId = access.application.application_id;
  const target = await findMember(ctx.s.db, applicationId, userId);
  if (!target) throw new AppError('NOT_FOUND');
  if (!assignableRoles(access.roles).includes(target.role as MemberRole)) throw cannotDoAction();

  await guardLastSuperUser(ctx, applicationId, target.role === 'super_user', async (trx) => {
    await trx.deleteFrom('memberships').where('application_id', '=', applicationId).where('user_id', '=', userId).execute();
    if (target.password_hash === null) {
      const rest = await trx
        .selectFrom('memberships')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (toCount(rest?.n) === 0) {
        await trx.deleteFrom('users').where('id', '=', userId).where('password_hash', 'is', null).execute();
      }
    }
  });
}
