import type {
  ChangePasswordForm,
  LoginAnswer,
  LoginBody,
  PasswordChangeBody,
  Profile,
  RegisterAnswer,
  RegisterBody,
  ResendBody,
  ResetPasswordBody,
  SecuritySettings,
  VerifyBody,
} from '../../shared/contract';
import { nowIso, type Ctx, type Principal } from '../context';
import type { User } from '../db/schema';
import { AppError } from '../errors';
import { composeMail } from '../mail';
import { hashPassword, verifyPassword } from '../security/passwords';
import { clearBucket, isThrottled, recordEvent, takeSlot } from '../security/throttle';
import { hashToken } from '../security/tokens';
import { normalizeEmail } from '../../shared/validation';
import { authRedirectLink, consumeOtp, issueLink, sendOtp } from './one-time';
import { globalRoles, revokeSession, revokeUserSessions, startSession } from './sessions';

export async function findUserByEmail(ctx: Ctx, email: string): Promise<User | undefined> {
  return ctx.s.db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

async function getUser(ctx: Ctx, id: number): Promise<User> {
  const user = await ctx.s.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!user) throw new AppError('NOT_AUTHORIZED');
  return user;
}

function sendVerification(ctx: Ctx, user: Pick<User, 'email' | 'name'>, token: string): void {
  ctx.s.mailer.dispatch(
    composeMail(ctx.lang, user.email, { kind: 'verify', name: user.name ?? user.email, link: authRedirectLink(ctx.s, token) }),
  );
}

const emailTaken = () =>
  new AppError('CONFLICT', 'errors.emailTaken', { fields: [{ path: 'email', message: 'errors.emailTaken' }] });

/**
 * Creates an account and emails its verification link. An address that was invited to an application
 * (a user row without a password) is taken up: the row gets the name and password, and its invitations
 * become active memberships.
 */
export async function registerUser(ctx: Ctx, body: RegisterBody): Promise<RegisterAnswer> {
  const { s } = ctx;
  const allowed = await takeSlot(s.db, s.clock(), [{ bucket: `register:ip:${ctx.ip}`, rule: s.limits.registerPerIp }]);
  if (!allowed) throw new AppError('RATE_LIMITED');
  const existing = await findUserByEmail(ctx, body.email);
  if (existing?.password_hash) throw emailTaken();

  const passwordHash = await hashPassword(body.password);
  const now = nowIso(s);
  const mobile = body.mobile_number ? body.mobile_number : null;
  const result = await s.db.transaction().execute(async (trx) => {
    let user: User | undefined;
    if (existing) {
      // Guarded on password_hash so two concurrent registrations cannot both take the invitation.
      user = await trx
        .updateTable('users')
        .set({ name: body.name, password_hash: passwordHash, mobile_number: mobile, language: ctx.lang, updated_at: now })
        .where('id', '=', existing.id)
        .where('password_hash', 'is', null)
        .returningAll()
        .executeTakeFirst();
    } else {
      user = await trx
        .insertInto('users')
        .values({
          email: body.email,
          name: body.name,
          password_hash: passwordHash,
          mobile_number: mobile,
          agency: null,
          language: ctx.lang,
          email_verified_at: null,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.column('email').doNothing())
        .returningAll()
        .executeTakeFirst();
    }
    if (!user) return null;
    const token = await issueLink(trx, s, user.id, 'verify');
    return { user, token };
  });
  if (!result) throw emailTaken();
  sendVerification(ctx, result.user, result.token);
  return { id: result.user.id, name: result.user.name ?? '', email: result.user.email };
}

/**
 * Uses an emailed one-time link: `verify` marks the email verified; `reset` applies the pending password and
 * signs the user out everywhere. Either way the user is then signed in.
 */
export async function verifyUser(ctx: Ctx, body: VerifyBody): Promise<LoginAnswer> {
  const { s } = ctx;
  const now = nowIso(s);
  const user = await s.db.transaction().execute(async (trx) => {
    const link = await trx
      .selectFrom('email_links')
      .selectAll()
      .where('token_hash', '=', hashToken(body.hash))
      .executeTakeFirst();
    if (!link || link.used_at !== null || link.expires_at <= now) return null;
    const used = await trx
      .updateTable('email_links')
      .set({ used_at: now })
      .where('id', '=', link.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) return null;
    const owner = await trx.selectFrom('users').selectAll().where('id', '=', link.user_id).executeTakeFirst();
    if (!owner?.password_hash) return null;

    if (link.purpose === 'verify') {
      return trx
        .updateTable('users')
        .set({ email_verified_at: owner.email_verified_at ?? now, updated_at: now })
        .where('id', '=', owner.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    if (!link.payload) return null;
    // Opening the reset link proves control of the mailbox, so it verifies the email too.
    const updated = await trx
      .updateTable('users')
      .set({ password_hash: link.payload, email_verified_at: owner.email_verified_at ?? now, updated_at: now })
      .where('id', '=', owner.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', owner.id)
      .where('revoked_at', 'is', null)
      .execute();
    await trx
      .updateTable('email_links')
      .set({ used_at: now })
      .where('user_id', '=', owner.id)
      .where('purpose', '=', 'reset')
      .where('used_at', 'is', null)
      .execute();
    return updated;
  });
  if (!user) throw new AppError('LINK_INVALID');
  await clearBucket(s.db, `login:email:${user.email}`);
  return startSession(ctx, user);
}

/** Sends the verification email again when that account exists and is unverified; answers the same either way. */
export async function resendVerification(ctx: Ctx, body: ResendBody): Promise<{ email: string }> {
  const { s } = ctx;
  const allowed = await takeSlot(s.db, s.clock(), [
    { bucket: `resend:email:${body.email}`, rule: s.limits.resendPerEmail },
    { bucket: `resend:ip:${ctx.ip}`, rule: s.limits.resendPerIp },
  ]);
  if (!allowed) throw new AppError('RATE_LIMITED');
  const user = await findUserByEmail(ctx, body.email);
  if (user?.password_hash && !user.email_verified_at) {
    const token = await issueLink(s.db, s, user.id, 'verify');
    sendVerification(ctx, user, token);
  }
  return { email: body.email };
}

const invalidLogin = () => new AppError('INVALID_PARAM', 'errors.invalidLogin');

/**
 * Signs in with email and password, and the emailed code when the account has OTP on. An unknown email and
 * a wrong password get the same answer in about the same time; failures are throttled per email and per IP.
 */
export async function loginUser(ctx: Ctx, body: LoginBody): Promise<LoginAnswer> {
  const { s } = ctx;
  const email = normalizeEmail(body.username);
  const byEmail = `login:email:${email}`;
  const byIp = `login:ip:${ctx.ip}`;
  const now = s.clock();
  if (
    (await isThrottled(s.db, byEmail, s.limits.loginPerEmail, now)) ||
    (await isThrottled(s.db, byIp, s.limits.loginPerIp, now))
  ) {
    throw new AppError('RATE_LIMITED');
  }
  const fail = async (error: AppError): Promise<never> => {
    await recordEvent(s.db, byEmail, now);
    await recordEvent(s.db, byIp, now);
    throw error;
  };

  const user = await findUserByEmail(ctx, email);
  const valid = await verifyPassword(body.password, user?.password_hash ?? (await s.dummyHash()));
  if (!user || !user.password_hash || !valid) return fail(invalidLogin());
  // Told only to someone who knows the password, so it reveals nothing about who has an account.
  if (!user.email_verified_at) throw new AppError('EMAIL_NOT_VERIFIED');
  if (user.otp_enabled) {
    const otp = body.otp?.trim() ?? '';
    if (otp === '') {
      await sendOtp(ctx, user, 'login');
      throw new AppError('OTP_REQUIRED');
    }
    if (!(await consumeOtp(s, user.id, 'login', otp))) return fail(new AppError('OTP_INVALID'));
  }
  await clearBucket(s.db, byEmail);
  return startSession(ctx, user);
}

/**
 * Asks for a new password. It is stored, hashed, with an emailed link (1 hour) and takes effect only when the
 * link is opened. Answers the same whether the account exists or not, after the same work.
 */
export async function requestPasswordReset(ctx: Ctx, body: ResetPasswordBody): Promise<{ email: string }> {
  const { s } = ctx;
  const allowed = await takeSlot(s.db, s.clock(), [
    { bucket: `reset:email:${body.email}`, rule: s.limits.resetPerEmail },
    { bucket: `reset:ip:${ctx.ip}`, rule: s.limits.resetPerIp },
  ]);
  if (!allowed) throw new AppError('RATE_LIMITED');
  const pendingHash = await hashPassword(body.password);
  const user = await findUserByEmail(ctx, body.email);
  if (user?.password_hash) {
    const token = await issueLink(s.db, s, user.id, 'reset', pendingHash);
    s.mailer.dispatch(
      composeMail(ctx.lang, user.email, { kind: 'reset', name: user.name ?? user.email, link: authRedirectLink(s, token) }),
    );
  }
  return { email: body.email };
}

export async function logoutUser(ctx: Ctx, principal: Principal): Promise<void> {
  // A shop-platform session token is stateless and short-lived: there is no session of ours to revoke.
  if (principal.sessionId !== null) await revokeSession(ctx.s, principal.sessionId);
}

export async function getProfile(ctx: Ctx, principal: Principal): Promise<Profile> {
  const user = await getUser(ctx, principal.userId);
  return {
    id: user.id,
    name: user.name ?? '',
    email: user.email,
    roles: globalRoles(user),
    created: user.created_at,
    agency: user.agency,
    otp_enabled: user.otp_enabled === 1,
    mobile_number: user.mobile_number,
  };
}

export async function getSecuritySettings(ctx: Ctx, principal: Principal): Promise<SecuritySettings> {
  const user = await getUser(ctx, principal.userId);
  return { otp_enabled: user.otp_enabled === 1 };
}

export type PasswordChangeOutcome = 'codeSent' | 'otpSwitched' | 'passwordChanged';

/**
 * The three uses of POST /user/password/change: `{init:true}` emails a code; `{otp_enabled}` switches email-OTP
 * sign-in; the form changes the password when the old one and the code are right, then signs out the user's
 * other sessions.
 */
export async function changePassword(
  ctx: Ctx,
  principal: Principal,
  body: PasswordChangeBody,
): Promise<{ settings: SecuritySettings; outcome: PasswordChangeOutcome }> {
  const { s } = ctx;
  const user = await getUser(ctx, principal.userId);
  if ('init' in body) {
    await sendOtp(ctx, user, 'change_password');
    return { settings: { otp_enabled: user.otp_enabled === 1 }, outcome: 'codeSent' };
  }
  if ('otp_enabled' in body) {
    await s.db
      .updateTable('users')
      .set({ otp_enabled: body.otp_enabled ? 1 : 0, updated_at: nowIso(s) })
      .where('id', '=', user.id)
      .execute();
    return { settings: { otp_enabled: body.otp_enabled }, outcome: 'otpSwitched' };
  }
  await applyPasswordChange(ctx, principal, user, body);
  return { settings: { otp_enabled: user.otp_enabled === 1 }, outcome: 'passwordChanged' };
}

async function applyPasswordChange(ctx: Ctx, principal: Principal, user: User, form: ChangePasswordForm): Promise<void> {
  const { s } = ctx;
  const bucket = `password:user:${user.id}`;
  const now = s.clock();
  if (await isThrottled(s.db, bucket, s.limits.passwordCheckPerUser, now)) throw new AppError('RATE_LIMITED');
  const valid = user.password_hash ? await verifyPassword(form.old_password, user.password_hash) : false;
  if (!valid) {
    await recordEvent(s.db, bucket, now);
    throw new AppError('INVALID_PARAM', 'errors.wrongOldPassword', {
      fields: [{ path: 'old_password', message: 'errors.wrongOldPassword' }],
    });
  }
  if (!(await consumeOtp(s, user.id, 'change_password', form.otp))) {
    await recordEvent(s.db, bucket, now);
    throw new AppError('OTP_INVALID', 'errors.OTP_INVALID', { fields: [{ path: 'otp', message: 'errors.OTP_INVALID' }] });
  }
  const passwordHash = await hashPassword(form.new_password);
  await s.db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: nowIso(s) })
    .where('id', '=', user.id)
    .execute();
  await clearBucket(s.db, bucket);
  await revokeUserSessions(s, user.id, principal.sessionId ?? undefined);
}
