import { BlockStack, Button, Form, FormLayout, InlineStack, TextField } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ChangePasswordForm } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { useFormFields, useFormSubmit } from '../../components/form-modal';
import { useAppStore } from '../../stores/store';
import { FailureBanner } from '../../components/failure-banner';

/** How long before another code can be asked for: the first email is usually on its way. */
export const RESEND_COOLDOWN_SECONDS = 60;

const EMPTY = { old_password: '', new_password: '', confirm_password: '', otp: '' };

export interface PasswordChangeFormProps {
  /** Called once the password has changed. */
  onChanged?(): void;
}

/**
 * Old, new and confirm password plus the code emailed by "Send code" (spec §3, §7). Used by the Security
 * dialog and the /change-password screen.
 */
export function PasswordChangeForm({ onChanged }: PasswordChangeFormProps) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const [codeSent, setCodeSent] = useState(false);
  const [sending, setSending] = useState(false);
  const [cooldown, setCooldown] = useState(0);
  // A wrong or expired code comes back as INVALID_PARAM-style `fields` on `otp`, so it lands on the code's field.
  const form = useFormSubmit(ChangePasswordForm, async (body) => {
    await api.post('/user/password/change', body, z.unknown(), { quiet: true });
    showToast(t('account.passwordChanged'));
    setValues(EMPTY);
    setCodeSent(false);
    onChanged?.();
  });
  const { values, setValues, field } = useFormFields(EMPTY, form.errors);

  useEffect(() => {
    if (cooldown <= 0) return;
    const timer = setTimeout(() => setCooldown((seconds) => seconds - 1), 1000);
    return () => clearTimeout(timer);
  }, [cooldown]);

  async function sendCode() {
    setSending(true);
    form.dismissFailure();
    try {
      const { message } = await api.post('/user/password/change', { init: true }, z.unknown(), { quiet: true });
      setCodeSent(true);
      setCooldown(RESEND_COOLDOWN_SECONDS);
      showToast(message ?? t('account.codeSent'));
    } catch (cause) {
      form.fail(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSending(false);
    }
  }

  return (
    <Form onSubmit={() => void form.submit(values)} noValidate>
      <FormLayout>
        <FailureBanner message={form.failure} onDismiss={form.dismissFailure} />
        <TextField label={t('account.fields.oldPassword')} type="password" autoComplete="current-password" {...field('old_password')} />
        <TextField
          label={t('account.fields.newPassword')}
          type="password"
          autoComplete="new-password"
          helpText={t('auth.passwordHelp')}
          {...field('new_password')}
        />
        <TextField label={t('account.fields.confirmPassword')} type="password" autoComplete="new-password" {...field('confirm_password')} />
        <BlockStack gap="200">
          <TextField
            label={t('account.fields.otp')}
            autoComplete="one-time-code"
            inputMode="numeric"
            maxLength={6}
            helpText={codeSent ? t('account.codeSentHelp') : t('account.codeHelp')}
            connectedRight={
              <Button onClick={sendCode} loading={sending} disabled={cooldown > 0}>
                {cooldown > 0 ? t('account.resendIn', { seconds: cooldown }) : codeSent ? t('account.resendCode') : t('account.sendCode')}
              </Button>
            }
            {...field('otp')}
          />
        </BlockStack>
        <InlineStack align="end">
          <Button submit variant="primary" loading={form.saving}>
            {t('account.changePassword')}
          </Button>
        </InlineStack>
      </FormLayout>
    </Form>
  );
}
