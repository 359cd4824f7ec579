import { Banner, BlockStack, Button, Form, FormLayout, InlineStack, TextField } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ChangePasswordForm } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { type FieldErrors, apiFieldErrors, zodFieldErrors } from '../../components/form-errors';
import { useAppStore } from '../../stores/store';

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
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [codeSent, setCodeSent] = useState(false);
  const [sending, setSending] = useState(false);
  const [saving, setSaving] = useState(false);
  const [cooldown, setCooldown] = useState(0);

  useEffect(() => {
    if (cooldown <= 0) return;
    const timer = setTimeout(() => setCooldown((seconds) => seconds - 1), 1000);
    return () => clearTimeout(timer);
  }, [cooldown]);

  const field = (name: keyof typeof EMPTY) => ({
    value: form[name],
    onChange: (value: string) => setForm((current) => ({ ...current, [name]: value })),
    error: errors[name] ? t(errors[name]) : undefined,
  });

  async function sendCode() {
    setSending(true);
    setFailure(null);
    try {
      const { message } = await api.post('/user/password/change', { init: true }, z.unknown(), { quiet: true });
      setCodeSent(true);
      setCooldown(RESEND_COOLDOWN_SECONDS);
      showToast(message ?? t('account.codeSent'));
    } catch (cause) {
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSending(false);
    }
  }

  async function submit() {
    const parsed = ChangePasswordForm.safeParse(form);
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setFailure(null);
    setSaving(true);
    try {
      await api.post('/user/password/change', parsed.data, z.unknown(), { quiet: true });
      showToast(t('account.passwordChanged'));
      setForm(EMPTY);
      setCodeSent(false);
      onChanged?.();
    } catch (cause) {
      if (isApiError(cause) && cause.fields.length > 0) setErrors(apiFieldErrors(cause.fields));
      if (isApiError(cause) && cause.code === 'OTP_INVALID') setErrors({ otp: cause.message });
      else setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSaving(false);
    }
  }

  return (
    <Form onSubmit={submit} noValidate>
      <FormLayout>
        {failure ? (
          <Banner tone="critical" onDismiss={() => setFailure(null)}>
            <p>{failure}</p>
          </Banner>
        ) : null}
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
          <Button submit variant="primary" loading={saving}>
            {t('account.changePassword')}
          </Button>
        </InlineStack>
      </FormLayout>
    </Form>
  );
}
