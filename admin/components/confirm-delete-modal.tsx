import { BlockStack, Modal, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { api, isApiError } from '../api';
import { FailureBanner } from './failure-banner';

export interface ConfirmDeleteModalProps {
  /** The API path the DELETE goes to. */
  path: string;
  title: string;
  /** What goes, and what stays, in the user's words. */
  body: string;
  /** The destructive button's label; "Delete" unless the screen says more. */
  confirmLabel?: string;
  /**
   * A deletion that needs a name typed first (spec §5): the button stays disabled until the field holds
   * `expected` exactly, and `body` makes the DELETE's body from what was typed.
   */
  typedConfirmation?: { label: string; expected: string; body(typed: string): unknown };
  onClose(): void;
  /** Called once the server has deleted it. */
  onDone(): void;
}

/**
 * The one confirmation before something is deleted: nothing is sent until the user confirms; a refusal shows
 * in the dialog, which stays open so the user can retry or cancel.
 */
export function ConfirmDeleteModal({ path, title, body, confirmLabel, typedConfirmation, onClose, onDone }: ConfirmDeleteModalProps) {
  const { t } = useTranslation();
  const [failure, setFailure] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [typed, setTyped] = useState('');
  const confirmed = !typedConfirmation || typed === typedConfirmation.expected;

  async function remove() {
    if (!confirmed) return;
    setFailure(null);
    setDeleting(true);
    try {
      await api.delete(path, z.unknown(), { quiet: true, body: typedConfirmation?.body(typed) });
      onDone();
    } catch (cause) {
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
      setDeleting(false);
    }
  }

  return (
    <Modal
      open
      onClose={onClose}
      title={title}
      primaryAction={{ content: confirmLabel ?? t('common.delete'), onAction: remove, loading: deleting, destructive: true, disabled: !confirmed }}
      secondaryActions={[{ content: t('common.cancel'), onAction: onClose, disabled: deleting }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
          <Text as="p">{body}</Text>
          {typedConfirmation ? (
            <TextField label={typedConfirmation.label} value={typed} onChange={setTyped} autoComplete="off" disabled={deleting} />
          ) : null}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
