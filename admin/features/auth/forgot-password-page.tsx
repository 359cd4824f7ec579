import { Banner, Button, Form, FormLayout, Link, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResetPasswordAnswer, ResetPasswordBody } from '../../../shared/contract';
import { V } from '../../../shared/validation';
import { api, isApiError } from '../../api';
import { type FieldErrors, apiFieldErrors, zodFieldErrors } from '../../components/form-errors';
import { AuthLayout } from './auth-layout';

/**
 * Forgot password (spec §3, §7): email and the new password; it takes effect once the emailed link is
 * opened, so a stranger who knows an address changes nothing.
 */
export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  async function submit() {
    const parsed = ResetPasswordBody.safeParse({ email, password });
    const found = parsed.success ? {} : zodFieldErrors(parsed.error);
    // The new password only shows its typo after the link is opened: ask for it twice.
    if (!found.password && confirm !== password) found.confirm = V.confirmPassword;
    setErrors(found);
    if (!parsed.success || Object.keys(found).length > 0) return;
    setFailure(null);
    setSubmitting(true);
    try {
      const { data } = await api.post('/user/resetPassword', parsed.data, ResetPasswordAnswer, { quiet: true });
      setSentTo(data.email);
    } catch (cause) {
      if (isApiError(cause) && cause.fields.length > 0) setErrors(apiFieldErrors(cause.fields));
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSubmitting(false);
    }
  }

  const footer = (
    <Text as="p" tone="subdued">
      <Link url="/login">{t('auth.forgot.backToLogin')}</Link>
    </Text>
  );

  if (sentTo) {
    return (
      <AuthLayout title="auth.forgot.doneTitle" footer={footer}>
        <Banner tone="success" title={t('auth.checkEmail')}>
          <p>{t('auth.forgot.doneBody', { email: sentTo })}</p>
        </Banner>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title="auth.forgot.title" subtitle={t('auth.forgot.subtitle')} footer={footer}>
      {failure ? (
        <Banner tone="critical" onDismiss={() => setFailure(null)}>
          <p>{failure}</p>
        </Banner>
      ) : null}
      <Form onSubmit={submit} noValidate>
        <FormLayout>
          <TextField
            label={t('auth.fields.email')}
            type="email"
            autoComplete="email"
            value={email}
            onChange={setEmail}
            error={errors.email ? t(errors.email) : undefined}
          />
          <TextField
            label={t('auth.fields.newPassword')}
            type="password"
            autoComplete="new-password"
            helpText={t('auth.passwordHelp')}
            value={password}
            onChange={setPassword}
            error={errors.password ? t(errors.password) : undefined}
          />
          <TextField
            label={t('auth.fields.confirmPassword')}
            type="password"
            autoComplete="new-password"
            value={confirm}
            onChange={setConfirm}
            error={errors.confirm ? t(errors.confirm) : undefined}
          />
          <Button submit variant="primary" size="large" fullWidth loading={submitting}>
            {t('auth.forgot.submit')}
          </Button>
        </FormLayout>
      </Form>
    </AuthLayout>
  );
}
