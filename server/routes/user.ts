import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  Empty,
  LoginAnswer,
  LoginBody,
  PasswordChangeBody,
  Profile,
  RegisterAnswer,
  RegisterBody,
  ResendAnswer,
  ResendBody,
  ResetPasswordAnswer,
  ResetPasswordBody,
  SecuritySettings,
  VerifyBody,
  ok,
} from '../../shared/contract';
import { translate } from '../../shared/i18n';
import {
  changePassword,
  getProfile,
  getSecuritySettings,
  loginUser,
  logoutUser,
  registerUser,
  requestPasswordReset,
  resendVerification,
  verifyUser,
} from '../domain/accounts';
import { ctxOf, principalOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['accounts'];
const PASSWORD_CHANGE_MESSAGES = {
  codeSent: 'mail.codeSent',
  otpSwitched: 'common.changed',
  passwordChanged: 'mail.passwordChanged',
} as const;

/** Accounts (spec §7): register, verify, resend, login, reset, logout, profile, security, password change. */
export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/user/register',
    {
      config: { public: true },
      schema: {
        description:
          'Creates an account and emails a verification link (`/auth-redirect?hash=…`). An address invited to an application takes its invitations with it.',
        tags,
        body: RegisterBody,
        response: { 200: ok(RegisterAnswer), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await registerUser(ctxOf(request), request.body),
      message: translate(request.lang, 'mail.checkInbox'),
    }),
  );

  app.post(
    '/user/verify',
    {
      config: { public: true },
      schema: {
        description:
          'Uses the one-time hash of an emailed link: verifies the email, or applies a requested password reset (signing out every session). Then signs in.',
        tags,
        body: VerifyBody,
        response: { 200: ok(LoginAnswer), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await verifyUser(ctxOf(request), request.body) }),
  );

  app.post(
    '/user/resend',
    {
      config: { public: true },
      schema: {
        description: 'Sends the verification email again if that account is waiting for it. Same answer in every case.',
        tags,
        body: ResendBody,
        response: { 200: ok(ResendAnswer), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await resendVerification(ctxOf(request), request.body),
      message: translate(request.lang, 'mail.checkInbox'),
    }),
  );

  app.post(
    '/user/login',
    {
      config: { public: true },
      schema: {
        description:
          'Signs in with the email as username. With email OTP on, a call without `otp` emails a code and answers OTP_REQUIRED. Failures are throttled per email and per IP.',
        tags,
        body: LoginBody,
        response: { 200: ok(LoginAnswer), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await loginUser(ctxOf(request), request.body) }),
  );

  app.post(
    '/user/resetPassword',
    {
      config: { public: true },
      schema: {
        description:
          'Asks for a new password; it takes effect only when the emailed link (1 hour) is opened. Same answer whether the account exists or not.',
        tags,
        body: ResetPasswordBody,
        response: { 200: ok(ResetPasswordAnswer), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await requestPasswordReset(ctxOf(request), request.body),
      message: translate(request.lang, 'mail.resetSent'),
    }),
  );

  app.post(
    '/user/logout',
    {
      schema: {
        description: 'Revokes the token of this call on the server.',
        tags,
        security: signedIn,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await logoutUser(ctxOf(request), principalOf(request));
      return { success: true as const, data: {} };
    },
  );

  app.get(
    '/user/me',
    {
      schema: {
        description: 'The signed-in user.',
        tags,
        security: signedIn,
        response: { 200: ok(Profile), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getProfile(ctxOf(request), principalOf(request)) }),
  );

  app.get(
    '/user/security',
    {
      schema: {
        description: 'The security settings the Security dialog loads.',
        tags,
        security: signedIn,
        response: { 200: ok(SecuritySettings), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getSecuritySettings(ctxOf(request), principalOf(request)) }),
  );

  app.post(
    '/user/password/change',
    {
      schema: {
        description:
          '`{init:true}` emails a code; `{otp_enabled}` switches email-OTP sign-in; `{old_password, new_password, confirm_password, otp}` changes the password and signs out the other sessions.',
        tags,
        security: signedIn,
        body: PasswordChangeBody,
        response: { 200: ok(SecuritySettings), ...failures },
      },
    },
    async (request) => {
      const { settings, outcome } = await changePassword(ctxOf(request), principalOf(request), request.body);
      return { success: true as const, data: settings, message: translate(request.lang, PASSWORD_CHANGE_MESSAGES[outcome]) };
    },
  );
};
