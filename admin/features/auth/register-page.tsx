import { BlockStack, Button, Form, FormLayout, Link, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RegisterAnswer, RegisterBody } from '../../../shared/contract';
import { api } from '../../api';
import { useFormFields, useFormSubmit } from '../../components/form-modal';
import { AuthLayout, CheckEmail } from './auth-layout';

/** Register (spec §3, §7): name, email, password, mobile number; then the emailed link verifies the account. */
export function RegisterPage() {
  const { t } = useTranslation();
  const [registered, setRegistered] = useState<string | null>(null);
  const form = useFormSubmit(RegisterBody, async (body) => {
    const { data } = await api.post('/user/register', body, RegisterAnswer, { quiet: true });
    setRegistered(data.email);
  });
  const { values, field } = useFormFields({ name: '', email: '', password: '', mobile_number: '' }, form.errors);

  const footer = (
    <Text as="p" tone="subdued">
      {t('auth.register.haveAccount')} <Link url="/login">{t('auth.register.login')}</Link>
    </Text>
  );

  if (registered) return <CheckEmail title="auth.register.doneTitle" body={t('auth.register.doneBody', { email: registered })} footer={footer} />;

  return (
    <AuthLayout
      title="auth.register.title"
      subtitle={t('auth.register.subtitle')}
      footer={footer}
      form={form}
    >
      <Form onSubmit={() => void form.submit(values)} noValidate>
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
            <Button submit variant="primary" size="large" fullWidth loading={form.saving}>
              {t('auth.register.submit')}
            </Button>
          </BlockStack>
        </FormLayout>
      </Form>
    </AuthLayout>
  );
}
