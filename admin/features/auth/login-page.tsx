import { Banner, BlockStack, Button, Form, FormLayout, InlineStack, Link, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { LoginAnswer, LoginBody, ResendAnswer } from '../../../shared/contract';
import { V, isOtp } from '../../../shared/validation';
import { api, isApiError } from '../../api';
import { type FieldErrors, apiFieldErrors, zodFieldErrors } from '../../components/form-errors';
import { useAppStore } from '../../stores/store';
import { AuthLayout } from './auth-layout';
import { safeRedirect } from './safe-redirect';

type Notice =
  | { kind: 'error'; message: string; unverified?: boolean }
  | { kind: 'sent'; message: string };

/**
 * Sign-in (spec §2, §7, §8): email and password; when the account has email OTP on, the server answers
 * OTP_REQUIRED and mails a code, and the form asks for it. Nothing is stored unless a token comes back.
 */
export function LoginPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const search = useSearch();
  const signIn = useAppStore((state) => state.signIn);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [otpStep, setOtpStep] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<Notice | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [resending, setResending] = useState(false);

  async function submit() {
    // The last answer is about the last try: a new one replaces it, also when the form's own check stops it, so
    // "wrong password" never stands beside "enter your email".
    setNotice(null);
    const parsed = LoginBody.safeParse({ username, password, otp: otpStep ? otp : undefined });
    const found = parsed.success ? {} : zodFieldErrors(parsed.error);
    if (otpStep && !isOtp(otp.trim())) found.otp = V.otp;
    setErrors(found);
    if (!parsed.success || Object.keys(found).length > 0) return;

    setSubmitting(true);
    try {
      const { data } = await api.post('/user/login', parsed.data, LoginAnswer, { quiet: true });
      if (!data.auth_token) {
        setNotice({ kind: 'error', message: t('common.unknownError') });
        return;
      }
      signIn(data);
      navigate(safeRedirect(new URLSearchParams(search).get('redirect')), { replace: true });
    } catch (cause) {
      if (!isApiError(cause)) {
        setNotice({ kind: 'error', message: t('common.unknownError') });
        return;
      }
      if (cause.code === 'OTP_REQUIRED') {
        setOtpStep(true);
        setOtp('');
        return;
      }
      if (cause.code === 'OTP_INVALID') {
        setErrors({ otp: cause.message });
        return;
      }
      if (cause.fields.length > 0) setErrors(apiFieldErrors(cause.fields));
      setNotice({ kind: 'error', message: cause.message, unverified: cause.code === 'EMAIL_NOT_VERIFIED' });
    } finally {
      setSubmitting(false);
    }
  }

  async function resendVerification() {
    setResending(true);
    try {
      await api.post('/user/resend', { email: username.trim() }, ResendAnswer, { quiet: true });
      setNotice({ kind: 'sent', message: t('auth.checkEmail') });
    } catch (cause) {
      setNotice({ kind: 'error', message: isApiError(cause) ? cause.message : t('common.unknownError') });
    } finally {
      setResending(false);
    }
  }

  /** A field's change, which also takes away the server's refusal of what the fields held before. */
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    setNotice((current) => (current?.kind === 'error' ? null : current));
  };

  function backToPassword() {
    setOtpStep(false);
    setOtp('');
    setErrors({});
    setNotice(null);
  }

  const footer = (
    <Text as="p" tone="subdued">
      {t('auth.login.noAccount')} <Link url="/register">{t('auth.login.createAccount')}</Link>
    </Text>
  );

  return (
    <AuthLayout title="auth.login.title" subtitle={t('auth.login.subtitle')} footer={footer}>
      {notice ? (
        <Banner
          tone={notice.kind === 'sent' ? 'success' : 'critical'}
          onDismiss={() => setNotice(null)}
          action={
            notice.kind === 'error' && notice.unverified
              ? { content: t('auth.login.resendVerification'), onAction: resendVerification, loading: resending }
              : undefined
          }
        >
          <p>{notice.message}</p>
        </Banner>
      ) : null}
      <Form onSubmit={submit} noValidate>
        <FormLayout>
          {otpStep ? (
            <BlockStack gap="400">
              <Banner tone="info">
                <p>{t('auth.login.otpSent', { email: username.trim() })}</p>
              </Banner>
              <TextField
                label={t('auth.fields.otp')}
                value={otp}
                onChange={edit(setOtp)}
                autoComplete="one-time-code"
                inputMode="numeric"
                maxLength={6}
                autoFocus
                error={errors.otp ? t(errors.otp) : undefined}
                helpText={t('auth.login.otpHelp')}
              />
            </BlockStack>
          ) : (
            <>
              <TextField
                label={t('auth.fields.email')}
                type="email"
                value={username}
                onChange={edit(setUsername)}
                autoComplete="username"
                error={errors.username ? t(errors.username) : undefined}
              />
              <TextField
                label={t('auth.fields.password')}
                type="password"
                value={password}
                onChange={edit(setPassword)}
                autoComplete="current-password"
                error={errors.password ? t(errors.password) : undefined}
                labelAction={{ content: t('auth.login.forgot'), url: '/forgot-password' }}
              />
            </>
          )}
          <Button submit variant="primary" size="large" fullWidth loading={submitting}>
            {otpStep ? t('auth.login.verify') : t('auth.login.submit')}
          </Button>
          {otpStep ? (
            <InlineStack align="center">
              <Button variant="plain" onClick={backToPassword}>
                {t('auth.login.back')}
              </Button>
            </InlineStack>
          ) : null}
        </FormLayout>
      </Form>
    </AuthLayout>
  );
}
