import { Modal, Text } from '@shopify/polaris';
import type { ActionListItemDescriptor } from '@shopify/polaris';
import { DeleteIcon, DuplicateIcon, EditIcon, SendIcon, UndoIcon, XCircleIcon } from '@shopify/polaris-icons';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { Notification } from '../../../shared/contract';
import { isViewerOnly } from '../../../shared/permissions';
import { api, isApiError } from '../../api';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { useAppStore } from '../../stores/store';
import { type NotificationAction, allowedActions, titleOf } from './notification-bits';

const ICONS = { edit: EditIcon, send: SendIcon, cancel: XCircleIcon, draft: UndoIcon, duplicate: DuplicateIcon, delete: DeleteIcon } as const;
/** The actions that write: a viewer sees them disabled. */
const WRITES: readonly NotificationAction[] = ['edit', 'send', 'cancel', 'draft', 'duplicate', 'delete'];

export interface NotificationActions {
  /** The action list of a message, by its status. */
  items(message: Notification): ActionListItemDescriptor[];
  run(action: NotificationAction, message: Notification): void;
  /** The message an action is being carried out on. */
  busy: number | null;
  /** The confirmations (cancel, delete), to render once on the screen. */
  dialogs: ReactNode;
}

/**
 * The actions a message's status allows (send a draft, cancel, back to draft, delete, edit, duplicate), each
 * through the API; cancel and delete are confirmed first. `onChanged` runs after a change (the screen reloads);
 * `onDeleted` after a delete, when the screen showed that message alone.
 */
export function useNotificationActions(applicationId: string, onChanged: (message: Notification) => void, onDeleted?: () => void): NotificationActions {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  const showToast = useAppStore((state) => state.showToast);
  const [busy, setBusy] = useState<number | null>(null);
  const [removing, setRemoving] = useState<Notification | null>(null);
  const [canceling, setCanceling] = useState<Notification | null>(null);
  const base = `/application/${encodeURIComponent(applicationId)}/notification`;

  async function transition(action: 'send' | 'cancel' | 'draft', message: Notification) {
    setBusy(message.id);
    try {
      const { data } = await api.post(`${base}/${message.id}/${action}`, {}, Notification, { quiet: true });
      showToast(t(`notificationUi.actions.done.${action}`, { name: titleOf(message) }));
      onChanged(data);
    } catch (cause) {
      const reason = isApiError(cause) ? cause.message : t('common.unknownError');
      showToast(action === 'send' ? `${t('notificationUi.form.sendFailed')}: ${reason}` : reason, { error: true });
    } finally {
      setBusy(null);
      setCanceling(null);
    }
  }

  function run(action: NotificationAction, message: Notification) {
    switch (action) {
      case 'edit':
        navigate(`/notification/${message.type}?id=${message.id}`);
        return;
      case 'duplicate':
        navigate(`/notification/${message.type}?copy=${message.id}`);
        return;
      case 'delete':
        setRemoving(message);
        return;
      case 'cancel':
        setCanceling(message);
        return;
      default:
        void transition(action, message);
    }
  }

  function items(message: Notification): ActionListItemDescriptor[] {
    return allowedActions(message.status).map((action) => ({
      id: action,
      content: t(`notificationUi.actions.${action}`),
      icon: ICONS[action],
      destructive: action === 'delete' || action === 'cancel',
      disabled: busy === message.id || (readOnly && WRITES.includes(action)),
      onAction: () => run(action, message),
    }));
  }

  const dialogs = (
    <>
      {removing ? (
        <ConfirmDeleteModal
          path={`${base}/${removing.id}`}
          title={t('notificationUi.delete.title', { name: titleOf(removing) })}
          body={t('notificationUi.delete.body')}
          onClose={() => setRemoving(null)}
          onDone={() => {
            showToast(t('notificationUi.delete.done', { name: titleOf(removing) }));
            setRemoving(null);
            if (onDeleted) onDeleted();
            else onChanged(removing);
          }}
        />
      ) : null}
      {canceling ? (
        <Modal
          open
          onClose={() => setCanceling(null)}
          title={t('notificationUi.cancel.title', { name: titleOf(canceling) })}
          primaryAction={{
            content: t('notificationUi.actions.cancel'),
            destructive: true,
            loading: busy === canceling.id,
            onAction: () => void transition('cancel', canceling),
          }}
          secondaryActions={[{ content: t('notificationUi.cancel.keep'), onAction: () => setCanceling(null), disabled: busy === canceling.id }]}
        >
          <Modal.Section>
            <Text as="p">{t('notificationUi.cancel.body')}</Text>
          </Modal.Section>
        </Modal>
      ) : null}
    </>
  );

  return { items, run, busy, dialogs };
}
