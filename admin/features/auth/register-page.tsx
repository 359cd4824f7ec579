import { Banner, BlockStack, Button, Form, FormLayout, Link, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RegisterAnswer, RegisterBody } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { type FieldErrors, apiFieldErrors, zodFieldErrors } from '../../components/form-errors';
import { AuthLayout } from './auth-layout';

/** Register (spec §3, §7): name, email, password, mobile number; then the emailed link verifies the account. */
export function RegisterPage() {
  const { t } = useTranslation();
  const [form, setForm] = useState({ name: '', email: '', password: '', mobile_number: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [registered, setRegistered] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const field = (name: keyof typeof form) => ({
    value: form[name],
    onChange: (value: string) => setForm((current) => ({ ...current, [name]: value })),
    error: errors[name] ? t(errors[name]) : undefined,
  });

  async function submit() {
    const parsed = RegisterBody.safeParse(form);
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setFailure(null);
    setSubmitting(true);
    try {
      const { data } = await api.post('/user/register', parsed.data, RegisterAnswer, { quiet: true });
      setRegistered(data.email);
    } catch (cause) {
      if (isApiError(cause) && cause.fields.length > 0) setErrors(apiFieldErrors(cause.fields));
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSubmitting(false);
    }
  }

  const footer = (
    <Text as="p" tone="subdued">
      {t('auth.register.haveAccount')} <Link url="/login">{t('auth.register.login')}</Link>
    </Text>
  );

  if (registered) {
    return (
      <AuthLayout title="auth.register.doneTitle" footer={footer}>
        <Banner tone="success" title={t('auth.checkEmail')}>
          <p>{t('auth.register.doneBody', { email: registered })}</p>
        </Banner>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title="auth.register.title" subtitle={t('auth.register.subtitle')} footer={footer}>
      {failure ? (
        <Banner tone="critical" onDismiss={() => setFailure(null)}>
          <p>{failure}</p>
        </Banner>
      ) : null}
      <Form onSubmit={submit} noValidate>
        <FormLayout>
          <TextField label={t('auth.fields.name')} autoComplete="name" {...field('name')} />
          <TextField label={t('auth.fields.email')} type="email" autoComplete="email" {...field('email')} />
          <TextField
            label={t('auth.fields.password')}
            type="password"
            autoComplete="new-password"
            helpText={t('auth.passwordHelp')}
            {...field('password')}
          />
          <TextField
            label={t('auth.fields.mobileNumber')}
            type="tel"
            autoComplete="tel"
            helpText={t('auth.register.mobileHelp')}
            {...field('mobile_number')}
          />
          <BlockStack gap="200">
            <Button submit variant="primary" size="large" fullWidth loading={submitting}>
              {t('auth.register.submit')}
            </Button>
          </BlockStack>
        </FormLayout>
      </Form>
    </AuthLayout>
  );
}
