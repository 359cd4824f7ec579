import { ActionList, BlockStack, Button, IndexTable, InlineStack, Link, Popover, Text, useBreakpoints } from '@shopify/polaris';
import { MenuHorizontalIcon } from '@shopify/polaris-icons';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { type Notification } from '../../../shared/contract';
import { ctrText } from './stat-cards';
import { formatDate, formatNumber } from '../../../shared/format';
import { usePagination } from '../../components/query-state';
import { StatusBadge, TypeBadge, titleOf } from './notification-bits';
import type { NotificationActions } from './use-notification-actions';
import { useLanguage, useAbbreviateNumber } from '../../app/i18n';

export interface NotificationTableProps {
  items: readonly Notification[];
  /** The list's size once loaded, undefined before. */
  total: number | undefined;
  page: number;
  pageSize: number;
  onPage(update: (page: number) => number): void;
  loading: boolean;
  actions: NotificationActions;
  /** Shown when there is no message (a call to action, or "nothing matches"). */
  emptyState: ReactNode;
}

/** One message's menu of the actions its status allows. */
function RowActions({ message, actions }: { message: Notification; actions: NotificationActions }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const name = titleOf(message);
  return (
    // The row opens the message; the menu only does its own thing.
    <div onClick={(event) => event.stopPropagation()}>
      <Popover
        active={open}
        onClose={() => setOpen(false)}
        preferredAlignment="right"
        activator={
          <Button
            variant="tertiary"
            icon={MenuHorizontalIcon}
            loading={actions.busy === message.id}
            accessibilityLabel={t('notificationUi.list.actionsFor', { name })}
            onClick={() => setOpen((value) => !value)}
          />
        }
      >
        <ActionList
          actionRole="menuitem"
          items={actions.items(message).map((item) => ({ ...item, onAction: () => { setOpen(false); item.onAction?.(); } }))}
        />
      </Popover>
    </div>
  );
}

/**
 * Messages in a table: name with type and source, status, recipients sent of targeted, clicks and click-through
 * rate, when it goes (or went), and the actions its status allows. The row opens the message's detail.
 */
export function NotificationTable({ items, total, page, pageSize, onPage, loading, actions, emptyState }: NotificationTableProps) {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const { smDown } = useBreakpoints();
  const [, navigate] = useLocation();
  const lang = useLanguage();
  const pagination = usePagination(t, page, total, pageSize, onPage);
  const date = (value: string | null) => (value ? formatDate(value, '{y}-{m}-{d} {h}:{i}', { lang }) : '');
  const detailUrl = (message: Notification) => `/notification/${message.id}/detail`;

  function name(message: Notification) {
    return (
      <BlockStack gap="100">
        <Link url={detailUrl(message)} dataPrimaryLink removeUnderline monochrome>
          <Text as="span" fontWeight="semibold" truncate>
            {titleOf(message)}
          </Text>
        </Link>
        <InlineStack gap="150" blockAlign="center" wrap={false}>
          <TypeBadge type={message.type} />
          <Text as="span" tone="subdued" variant="bodySm">
            {t(`notificationUi.sources.${message.source}`)}
          </Text>
        </InlineStack>
      </BlockStack>
    );
  }

  function when(message: Notification) {
    const status = message.status;
    const moment = status === 'waiting' ? message.send_at : status === 'new' || status === 'canceled' ? null : message.started_at ?? message.send_at;
    const label = status === 'waiting' ? 'notificationUi.list.scheduledFor' : 'notificationUi.list.sentAt';
    return (
      <BlockStack gap="050">
        {moment ? (
          <Text as="span" variant="bodySm">
            {t(label, { date: date(moment) })}
          </Text>
        ) : null}
        <Text as="span" variant="bodySm" tone="subdued">
          {t('notificationUi.list.createdAt', { date: date(message.created_at) })}
        </Text>
      </BlockStack>
    );
  }

  const recipients = (message: Notification) => t('notificationUi.list.sentOf', { sent: abbreviate(message.stats.sent, 2), targeted: abbreviate(message.stats.targeted, 2) });

  const rows = items.map((message, index) =>
    smDown ? (
      <IndexTable.Row id={String(message.id)} key={message.id} position={index} onClick={() => navigate(detailUrl(message))}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="200">
            <InlineStack align="space-between" blockAlign="start" gap="200" wrap={false}>
              <div style={{ minWidth: 0 }}>{name(message)}</div>
              <RowActions message={message} actions={actions} />
            </InlineStack>
            <InlineStack gap="200" blockAlign="center">
              <StatusBadge status={message.status} />
              <Text as="span" tone="subdued" variant="bodySm">
                {[recipients(message), t('notificationUi.list.clicks', { clicks: abbreviate(message.stats.clicked) }), `${t('notificationUi.list.columns.ctr')} ${ctrText(message.stats, lang)}`].join(' · ')}
              </Text>
            </InlineStack>
            {when(message)}
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(message.id)} key={message.id} position={index} onClick={() => navigate(detailUrl(message))}>
        <IndexTable.Cell>
          <div style={{ maxWidth: 320 }}>{name(message)}</div>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <StatusBadge status={message.status} />
        </IndexTable.Cell>
        <IndexTable.Cell>
          <span title={`${formatNumber(message.stats.sent, lang)} / ${formatNumber(message.stats.targeted, lang)}`}>
            <Text as="span" alignment="end" numeric>
              {recipients(message)}
            </Text>
          </span>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <Text as="span" alignment="end" numeric>
            {abbreviate(message.stats.clicked)}
          </Text>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <Text as="span" alignment="end" numeric>
            {ctrText(message.stats, lang)}
          </Text>
        </IndexTable.Cell>
        <IndexTable.Cell>{when(message)}</IndexTable.Cell>
        <IndexTable.Cell>
          <RowActions message={message} actions={actions} />
        </IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  return (
    <IndexTable
      resourceName={{ singular: t('notificationUi.list.one'), plural: t('notificationUi.list.other') }}
      itemCount={items.length}
      selectable={false}
      condensed={smDown}
      loading={loading}
      emptyState={emptyState}
      headings={[
        { title: t('notificationUi.list.columns.message') },
        { title: t('notificationUi.list.columns.status') },
        { title: t('notificationUi.list.columns.recipients'), alignment: 'end' },
        { title: t('notificationUi.list.columns.clicked'), alignment: 'end' },
        { title: t('notificationUi.list.columns.ctr'), alignment: 'end' },
        { title: t('notificationUi.list.columns.when') },
        { title: t('notificationUi.list.columns.actions'), hidden: true },
      ]}
      pagination={pagination}
    >
      {rows}
    </IndexTable>
  );
}
