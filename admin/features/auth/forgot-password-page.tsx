import { Button, Form, FormLayout, Link, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ResetPasswordAnswer, ResetPasswordForm } from '../../../shared/contract';
import { api } from '../../api';
import { useFormFields, useFormSubmit } from '../../components/form-modal';
import { AuthLayout, CheckEmail } from './auth-layout';

/**
 * Forgot password (spec §3, §7): email and the new password; it takes effect once the emailed link is
 * opened, so a stranger who knows an address changes nothing.
 */
export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useFormSubmit(ResetPasswordForm, async ({ email, password }) => {
    const { data } = await api.post('/user/resetPassword', { email, password }, ResetPasswordAnswer, { quiet: true });
    setSentTo(data.email);
  });
  const { values, field } = useFormFields({ email: '', password: '', confirm_password: '' }, form.errors);

  const footer = (
    <Text as="p" tone="subdued">
      <Link url="/login">{t('auth.forgot.backToLogin')}</Link>
    </Text>
  );

  if (sentTo) return <CheckEmail title="auth.forgot.doneTitle" body={t('auth.forgot.doneBody', { email: sentTo })} footer={footer} />;

  return (
    <AuthLayout
      title="auth.forgot.title"
      subtitle={t('auth.forgot.subtitle')}
      footer={footer}
      form={form}
    >
      <Form onSubmit={() => void form.submit(values)} noValidate>
        <FormLayout>
          <TextField label={t('auth.fields.email')} type="email" autoComplete="email" {...field('email')} />
          <TextField
            label={t('auth.fields.newPassword')}
            type="password"
            autoComplete="new-password"
            helpText={t('auth.passwordHelp')}
            {...field('password')}
          />
          <TextField label={t('auth.fields.confirmPassword')} type="password" autoComplete="new-password" {...field('confirm_password')} />
          <Button submit variant="primary" size="large" fullWidth loading={form.saving}>
            {t('auth.forgot.submit')}
          </Button>
        </FormLayout>
      </Form>
    </AuthLayout>
  );
}
