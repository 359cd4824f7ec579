import { Banner, BlockStack, Button, InlineStack, Modal, Text, TextField } from '@shopify/polaris';
import { ClipboardIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WebhookWithSecret, type Webhook } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { copyText } from '../../components/clipboard';
import { useAppStore } from '../../stores/store';
import { FailureBanner } from '../../components/failure-banner';

export interface SecretModalProps {
  /** The webhook just added or rotated, with its whole secret. */
  webhook: WebhookWithSecret;
  onClose(): void;
}

/** The signing secret, whole, this once: after an add or a rotation. It can be copied; closing forgets it. */
export function SecretModal({ webhook, onClose }: SecretModalProps) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);

  async function copy() {
    const copied = await copyText(webhook.signing_secret);
    showToast(copied ? t('common.copied') : t('common.unknownError'), { error: !copied });
  }

  return (
    <Modal open onClose={onClose} title={t('webhook.secret.title')} primaryAction={{ content: t('webhook.secret.done'), onAction: onClose }}>
      <Modal.Section>
        <BlockStack gap="400">
          <Banner tone="warning">
            <p>{t('webhook.secret.once')}</p>
          </Banner>
          <Text as="p" breakWord>
            {t('webhook.secret.for', { url: webhook.url })}
          </Text>
          <TextField label={t('webhook.secret.label')} value={webhook.signing_secret} readOnly autoComplete="off" monospaced selectTextOnFocus />
          <InlineStack>
            <Button icon={ClipboardIcon} onClick={() => void copy()}>
              {t('webhook.secret.copy')}
            </Button>
          </InlineStack>
          <Text as="p" tone="subdued">
            {t('webhook.secret.howTo')}
          </Text>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

export interface RotateSecretModalProps {
  /** The webhook's path (`/application/{id}/webhook/{webhook_id}`). */
  path: string;
  webhook: Webhook;
  onClose(): void;
  onRotated(webhook: WebhookWithSecret): void;
}

/** The confirmation before a new signing secret replaces the current one. */
export function RotateSecretModal({ path, webhook, onClose, onRotated }: RotateSecretModalProps) {
  const { t } = useTranslation();
  const [failure, setFailure] = useState<string | null>(null);
  const [rotating, setRotating] = useState(false);

  async function rotate() {
    setFailure(null);
    setRotating(true);
    try {
      onRotated((await api.post(`${path}/rotate_secret`, {}, WebhookWithSecret, { quiet: true })).data);
    } catch (cause) {
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
      setRotating(false);
    }
  }

  return (
    <Modal
      open
      onClose={onClose}
      title={t('webhook.rotate.title')}
      primaryAction={{ content: t('webhook.rotate.confirm'), onAction: () => void rotate(), loading: rotating }}
      secondaryActions={[{ content: t('common.cancel'), onAction: onClose, disabled: rotating }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
          <Text as="p" breakWord>
            {t('webhook.rotate.body', { url: webhook.url, hint: webhook.secret_hint })}
          </Text>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
