import { z } from 'zod';
import { Role } from '../permissions/schema';
import {
  EMAIL_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  V,
  isEmail,
  isMobileNumber,
  isOtp,
  normalizeEmail,
} from '../validation';
import { Timestamp } from './common';

/** An email address, trimmed and lower-cased. */
export const Email = z
  .string()
  .trim()
  // abort: a too-long address would otherwise fail the pattern too and show the same message twice.
  .max(EMAIL_MAX_LENGTH, { message: V.email, abort: true })
  .refine(isEmail, { message: V.email })
  .transform(normalizeEmail);

/** A new password: at least 6 characters. */
export const NewPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, { message: V.passwordLength })
  .max(PASSWORD_MAX_LENGTH, { message: V.passwordTooLong });

export const Otp = z.string().trim().refine(isOtp, { message: V.otp });

/** The signed-in user as the console keeps it (spec §3). */
export const SessionUser = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  roles: z.array(Role),
  created: Timestamp,
});
export type SessionUser = z.infer<typeof SessionUser>;

/** POST /user/login (spec §7). The username is the account's email; it is trimmed. */
export const LoginBody = z.object({
  username: z.string().trim().min(1, { message: V.email }).max(EMAIL_MAX_LENGTH, { message: V.email }),
  password: z.string().min(1, { message: V.required }).max(PASSWORD_MAX_LENGTH, { message: V.passwordTooLong }),
  otp: z.string().trim().optional().or(z.literal('')),
});
export type LoginBody = z.infer<typeof LoginBody>;

/** What login, verify and the shop-platform flow answer: the token and the user. */
export const LoginAnswer = SessionUser.extend({ auth_token: z.string() });
export type LoginAnswer = z.infer<typeof LoginAnswer>;

/** POST /user/register (spec §7). */
export const RegisterBody = z.object({
  name: z.string().trim().min(1, { message: V.name }).max(100, { message: V.tooLong }),
  email: Email,
  password: NewPassword,
  mobile_number: z
    .string()
    .trim()
    .refine((value) => value === '' || isMobileNumber(value), { message: V.mobileNumber })
    .optional(),
});
export type RegisterBody = z.infer<typeof RegisterBody>;

export const RegisterAnswer = z.object({ id: z.number().int(), name: z.string(), email: z.string() });
export type RegisterAnswer = z.infer<typeof RegisterAnswer>;

/** POST /user/verify: the one-time hash from an emailed link (email verification or password reset). */
export const VerifyBody = z.object({ hash: z.string().trim().min(16).max(200) });
export type VerifyBody = z.infer<typeof VerifyBody>;

/** POST /user/resend. */
export const ResendBody = z.object({ email: Email });
export type ResendBody = z.infer<typeof ResendBody>;
export const ResendAnswer = z.object({ email: z.string() });

/** POST /user/resetPassword: the new password takes effect when the emailed link is opened. */
export const ResetPasswordBody = z.object({ email: Email, password: NewPassword });
export type ResetPasswordBody = z.infer<typeof ResetPasswordBody>;
export const ResetPasswordAnswer = z.object({ email: z.string() });

/** The rule of a form's `confirm_password`: the same as its `field`, else "the passwords differ" under it. */
function confirms<F extends string>(field: F) {
  const check = (form: Record<F | 'confirm_password', unknown>) => form[field] === form.confirm_password;
  return [check, { message: V.confirmPassword, path: ['confirm_password'] as PropertyKey[] }] as const;
}

/**
 * The forgot-password form: the body and the new password typed twice, since a typo only shows once the
 * emailed link has been opened.
 */
export const ResetPasswordForm = ResetPasswordBody.extend({ confirm_password: z.string() }).refine(...confirms('password'));
export type ResetPasswordForm = z.infer<typeof ResetPasswordForm>;

/** The change-password form (spec §3): old, new, confirm and the emailed OTP. */
export const ChangePasswordForm = z
  .object({
    old_password: z.string().min(1, { message: V.required }).max(PASSWORD_MAX_LENGTH),
    new_password: NewPassword,
    confirm_password: z.string(),
    otp: Otp,
  })
  .refine(...confirms('new_password'));
export type ChangePasswordForm = z.infer<typeof ChangePasswordForm>;

/** POST /user/password/change takes one of three bodies (spec §7). */
export const PasswordChangeBody = z.union([
  z.object({ init: z.literal(true) }).strict(),
  z.object({ otp_enabled: z.boolean() }).strict(),
  ChangePasswordForm,
]);
export type PasswordChangeBody = z.infer<typeof PasswordChangeBody>;

/** GET /user/security: the security settings the dialog loads. */
export const SecuritySettings = z.object({ otp_enabled: z.boolean() });
export type SecuritySettings = z.infer<typeof SecuritySettings>;

/** GET /user/me: the signed-in user's profile. */
export const Profile = SessionUser.extend({
  agency: z.string().nullable(),
  otp_enabled: z.boolean(),
  mobile_number: z.string().nullable(),
});
export type Profile = z.infer<typeof Profile>;
