import type { Kysely } from 'kysely';
import { isOtp } from '../../shared/validation';
import { isoIn, nowIso, type Ctx, type Services } from '../context';
import type { Database, LinkPurpose, OtpPurpose, User } from '../db/schema';
import { AppError } from '../errors';
import { composeMail } from '../mail';
import { takeSlot } from '../security/throttle';
import { hashOtp, hashToken, randomOtp, randomToken, sameHash } from '../security/tokens';

const MINUTE = 60_000;
export const OTP_TTL_MS = 10 * MINUTE;
/** After this many wrong tries a code is dead, even within its 10 minutes. */
export const OTP_MAX_ATTEMPTS = 5;
export const LINK_TTL_MS: Record<LinkPurpose, number> = { verify: 24 * 60 * MINUTE, reset: 60 * MINUTE };

/**
 * Emails a fresh 6-digit code for `purpose`; it replaces the user's earlier codes of that purpose.
 * RATE_LIMITED when too many were sent lately, so nobody can flood an inbox through this.
 */
export async function sendOtp(ctx: Ctx, user: User, purpose: OtpPurpose): Promise<void> {
  const { s } = ctx;
  const allowed = await takeSlot(s.db, s.clock(), [{ bucket: `otp:${purpose}:${user.id}`, rule: s.limits.otpSendPerUser }]);
  if (!allowed) throw new AppError('RATE_LIMITED');
  const code = randomOtp();
  await s.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('otp_codes').where('user_id', '=', user.id).where('purpose', '=', purpose).execute();
    await trx
      .insertInto('otp_codes')
      .values({
        user_id: user.id,
        purpose,
        code_hash: hashOtp(s.config.secretKey, user.id, purpose, code),
        attempts: 0,
        created_at: nowIso(s),
        expires_at: isoIn(s, OTP_TTL_MS),
        used_at: null,
      })
      .execute();
  });
  const kind = purpose === 'login' ? 'loginOtp' : 'changePasswordOtp';
  ctx.s.mailer.dispatch(composeMail(ctx.lang, user.email, { kind, name: user.name ?? user.email, code }));
}

/** Uses the user's current code of `purpose`: true once for the right code; a wrong one spends a try. */
export async function consumeOtp(s: Services, userId: number, purpose: OtpPurpose, code: string): Promise<boolean> {
  const now = nowIso(s);
  const row = await s.db
    .selectFrom('otp_codes')
    .selectAll()
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row || row.expires_at <= now || row.attempts >= OTP_MAX_ATTEMPTS) return false;
  const candidate = code.trim();
  if (isOtp(candidate) && sameHash(hashOtp(s.config.secretKey, userId, purpose, candidate), row.code_hash)) {
    // The conditional update makes two concurrent uses of one code succeed only once.
    const result = await s.db
      .updateTable('otp_codes')
      .set({ used_at: now })
      .where('id', '=', row.id)
      .where('used_at', 'is', null)
      .where('attempts', '<', OTP_MAX_ATTEMPTS)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
  await s.db
    .updateTable('otp_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', row.id)
    .execute();
  return false;
}

/** Creates a one-time link token (replacing the user's unused ones of that purpose); only its hash is kept. */
export async function issueLink(
  db: Kysely<Database>,
  s: Services,
  userId: number,
  purpose: LinkPurpose,
  payload: string | null = null,
): Promise<string> {
  const token = randomToken();
  await db
    .deleteFrom('email_links')
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
  await db
    .insertInto('email_links')
    .values({
      user_id: userId,
      purpose,
      token_hash: hashToken(token),
      payload,
      created_at: nowIso(s),
      expires_at: isoIn(s, LINK_TTL_MS[purpose]),
      used_at: null,
    })
    .execute();
  return token;
}

/** The console page that receives emailed links and calls POST /user/verify with the hash. */
export function authRedirectLink(s: Services, token: string): string {
  return `${s.config.publicUrl}/auth-redirect?hash=${encodeURIComponent(token)}`;
}
