import { Banner, BlockStack, Divider, Modal, SkeletonBodyText } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { SecuritySettings } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { useApiQuery } from '../../api/use-api-query';
import { Switch } from '../../components/switch';
import { useAppStore } from '../../stores/store';
import { PasswordChangeForm } from './password-change-form';
import { FailureBanner } from '../../components/failure-banner';

export interface SecurityModalProps {
  onClose(): void;
}

/**
 * The Security dialog (spec §2): the email-OTP login switch, and a change-password switch whose fields
 * appear only when it is on.
 */
export function SecurityModal({ onClose }: SecurityModalProps) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const settings = useApiQuery('/user/security', SecuritySettings, undefined, { showsFailure: true });
  const [otpEnabled, setOtpEnabled] = useState<boolean | null>(null);
  const [savingOtp, setSavingOtp] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [changingPassword, setChangingPassword] = useState(false);
  const otp = otpEnabled ?? settings.data?.otp_enabled ?? false;

  async function toggleOtp(next: boolean) {
    setSavingOtp(true);
    setFailure(null);
    try {
      await api.post('/user/password/change', { otp_enabled: next }, z.unknown(), { quiet: true });
      setOtpEnabled(next);
      showToast(t('common.changed'));
    } catch (cause) {
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSavingOtp(false);
    }
  }

  return (
    <Modal open onClose={onClose} title={t('account.security.title')} secondaryActions={[{ content: t('common.close'), onAction: onClose }]}>
      <Modal.Section>
        {settings.loading && !settings.data ? (
          <SkeletonBodyText lines={4} />
        ) : settings.error && !settings.data ? (
          <Banner tone="critical" action={{ content: t('common.retry'), onAction: settings.reload }}>
            <p>{settings.error.message}</p>
          </Banner>
        ) : (
          <BlockStack gap="400">
            <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
            <Switch
              label={t('account.security.otpLabel')}
              helpText={t('account.security.otpHelp')}
              checked={otp}
              disabled={savingOtp}
              onChange={toggleOtp}
            />
            <Divider />
            <Switch
              label={t('account.security.passwordLabel')}
              helpText={t('account.security.passwordHelp')}
              checked={changingPassword}
              onChange={setChangingPassword}
            />
            {changingPassword ? <PasswordChangeForm onChanged={() => setChangingPassword(false)} /> : null}
          </BlockStack>
        )}
      </Modal.Section>
    </Modal>
  );
}
