import {
  ActionList,
  Badge,
  BlockStack,
  Button,
  ButtonGroup,
  Card,
  EmptyState,
  IndexTable,
  InlineStack,
  Page,
  Popover,
  Text,
  useBreakpoints,
} from '@shopify/polaris';
import { DeleteIcon, EditIcon, MenuHorizontalIcon, PlusIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WEBHOOK_MAX_PER_APPLICATION, Webhook, WebhookAttempt, page, type WebhookWithSecret } from '../../../shared/contract';
import { formatDate, relativeTime } from '../../../shared/format';
import { api } from '../../api';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState, usePagination } from '../../components/query-state';
import { useAppStore } from '../../stores/store';
import { AttemptResult } from './attempt-result';
import { AttemptsModal } from './attempts-modal';
import { RotateSecretModal, SecretModal } from './secret-modals';
import { WebhookModal } from './webhook-modal';
import { useLanguage } from '../../app/i18n';

const PAGE_SIZE = 20;
const WebhookPage = page(Webhook);

type Dialog =
  | { kind: 'create' }
  | { kind: 'edit'; webhook: Webhook }
  | { kind: 'delete'; webhook: Webhook }
  | { kind: 'rotate'; webhook: Webhook }
  | { kind: 'attempts'; webhook: Webhook }
  | { kind: 'secret'; webhook: WebhookWithSecret };

/** The "more" menu of one webhook: test, log, secret, on/off. */
function MoreActions({ label, items }: { label: string; items: { content: string; onAction(): void; disabled?: boolean }[] }) {
  const [open, setOpen] = useState(false);
  return (
    <Popover
      active={open}
      onClose={() => setOpen(false)}
      preferredAlignment="right"
      activator={<Button variant="tertiary" icon={MenuHorizontalIcon} accessibilityLabel={label} onClick={() => setOpen((value) => !value)} />}
    >
      <ActionList
        actionRole="menuitem"
        items={items.map((item) => ({
          ...item,
          onAction: () => {
            setOpen(false);
            item.onAction();
          },
        }))}
      />
    </Popover>
  );
}

/**
 * /webhook (spec §2, §3; super users, spec §6): the application's webhooks with their state, the last
 * attempt and the actions: add, edit, send a test event, read the attempt log, rotate the secret, switch
 * off or back on, delete after a confirmation.
 */
export function WebhooksPage() {
  const { t } = useTranslation();
  const lang = useLanguage();
  const { applicationId } = useCurrentApplication();
  const { smDown } = useBreakpoints();
  const showToast = useAppStore((state) => state.showToast);
  const [pageNumber, setPageNumber] = useState(1);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const base = `/application/${encodeURIComponent(applicationId)}/webhook`;
  const webhooks = useApiQuery(base, WebhookPage, { page: pageNumber, limit: PAGE_SIZE }, { showsFailure: true });
  const items = webhooks.data?.items ?? [];
  const total = webhooks.data?.total ?? 0;
  const pagination = usePagination(t, pageNumber, webhooks.data?.total, PAGE_SIZE, setPageNumber);
  const full = total >= WEBHOOK_MAX_PER_APPLICATION;

  function done(message: string) {
    setDialog(null);
    showToast(message);
    webhooks.reload();
  }

  /** Runs one row action; the API client shows a refusal itself. */
  async function act(webhook: Webhook, run: () => Promise<void>) {
    setBusy(webhook.id);
    try {
      await run();
    } catch {
      // Already shown by the API client.
    } finally {
      setBusy(null);
      webhooks.reload();
    }
  }

  const sendTest = (webhook: Webhook) =>
    act(webhook, async () => {
      const { data } = await api.post(`${base}/${webhook.id}/test`, {}, WebhookAttempt);
      if (data.outcome === 'delivered') showToast(t('webhook.test.delivered', { code: data.status_code ?? '' }));
      else {
        const reason = data.status_code === null ? t(`webhook.attemptErrors.${data.error ?? 'connection'}`) : t('webhook.attempts.status', { code: data.status_code });
        showToast(t('webhook.test.failed', { reason }), { error: true });
      }
    });

  const setActive = (webhook: Webhook, active: boolean) =>
    act(webhook, async () => {
      await api.put(`${base}/${webhook.id}`, { url: webhook.url, event_types: webhook.event_types, tag: webhook.tag, active }, Webhook);
      showToast(active ? t('webhook.enabled') : t('webhook.disabledDone'));
    });

  function statusOf(webhook: Webhook) {
    if (webhook.status === 'active') {
      return (
        <InlineStack>
          {webhook.failing_since ? (
            <Badge tone="warning">{t('webhook.status.failing', { time: relativeTime(webhook.failing_since, Date.now(), t) })}</Badge>
          ) : (
            <Badge tone="success">{t('webhook.status.active')}</Badge>
          )}
        </InlineStack>
      );
    }
    return (
      <BlockStack gap="100" inlineAlign="start">
        <Badge tone="critical">{t('webhook.status.disabled')}</Badge>
        <Text as="span" variant="bodySm" tone="subdued">
          {t(`webhook.disabledReasons.${webhook.disabled_reason ?? 'manual'}`)}
          {webhook.disabled_at ? ` (${formatDate(webhook.disabled_at, '{y}-{m}-{d} {h}:{i}', { lang })})` : ''}
        </Text>
        <Button size="slim" loading={busy === webhook.id} onClick={() => void setActive(webhook, true)}>
          {t('webhook.actions.enable')}
        </Button>
      </BlockStack>
    );
  }

  function lastAttempt(webhook: Webhook) {
    if (!webhook.last_attempt) {
      return (
        <Text as="span" tone="subdued">
          {t('webhook.lastAttempt.never')}
        </Text>
      );
    }
    return (
      <InlineStack gap="200" blockAlign="center" wrap>
        <AttemptResult statusCode={webhook.last_attempt.status_code} error={webhook.last_attempt.error} />
        <Text as="span" variant="bodySm" tone="subdued">
          <span title={formatDate(webhook.last_attempt.at, undefined, { lang })}>{relativeTime(webhook.last_attempt.at, Date.now(), t)}</span>
        </Text>
      </InlineStack>
    );
  }

  function target(webhook: Webhook) {
    return (
      <BlockStack gap="050">
        <Text as="span" fontWeight="semibold" breakWord>
          {webhook.url}
        </Text>
        <Text as="span" variant="bodySm" tone="subdued">
          <span className="nudge-mono">{webhook.secret_hint}</span>
          {webhook.consecutive_failures > 0 ? ` · ${t('webhook.failuresInRow', { count: webhook.consecutive_failures })}` : ''}
        </Text>
      </BlockStack>
    );
  }

  function events(webhook: Webhook) {
    return (
      <InlineStack gap="100" wrap>
        {webhook.event_types.map((type) => (
          <Badge key={type}>{type === 'message_with_tag' ? t('webhook.events.withTag', { tag: webhook.tag ?? '' }) : t(`webhook.events.${type}.label`)}</Badge>
        ))}
      </InlineStack>
    );
  }

  function actions(webhook: Webhook) {
    return (
      <ButtonGroup noWrap>
        <Button variant="tertiary" icon={EditIcon} accessibilityLabel={t('webhook.actions.edit', { url: webhook.url })} onClick={() => setDialog({ kind: 'edit', webhook })} />
        <Button
          variant="tertiary"
          tone="critical"
          icon={DeleteIcon}
          accessibilityLabel={t('webhook.actions.delete', { url: webhook.url })}
          onClick={() => setDialog({ kind: 'delete', webhook })}
        />
        <MoreActions
          label={t('webhook.actions.more', { url: webhook.url })}
          items={[
            { content: t('webhook.actions.test'), onAction: () => void sendTest(webhook), disabled: busy === webhook.id },
            { content: t('webhook.actions.attempts'), onAction: () => setDialog({ kind: 'attempts', webhook }) },
            { content: t('webhook.actions.rotate'), onAction: () => setDialog({ kind: 'rotate', webhook }) },
            webhook.status === 'active'
              ? { content: t('webhook.actions.disable'), onAction: () => void setActive(webhook, false), disabled: busy === webhook.id }
              : { content: t('webhook.actions.enable'), onAction: () => void setActive(webhook, true), disabled: busy === webhook.id },
          ]}
        />
      </ButtonGroup>
    );
  }

  const rows = items.map((webhook, index) =>
    smDown ? (
      <IndexTable.Row id={String(webhook.id)} key={webhook.id} position={index}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="200">
            <InlineStack align="space-between" blockAlign="start" gap="200" wrap={false}>
              <div style={{ minWidth: 0 }}>{target(webhook)}</div>
              {actions(webhook)}
            </InlineStack>
            {events(webhook)}
            {statusOf(webhook)}
            {lastAttempt(webhook)}
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(webhook.id)} key={webhook.id} position={index}>
        <IndexTable.Cell>
          <div style={{ maxWidth: 320, whiteSpace: 'normal' }}>{target(webhook)}</div>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <div style={{ maxWidth: 260, whiteSpace: 'normal' }}>{events(webhook)}</div>
        </IndexTable.Cell>
        <IndexTable.Cell>{statusOf(webhook)}</IndexTable.Cell>
        <IndexTable.Cell>{lastAttempt(webhook)}</IndexTable.Cell>
        <IndexTable.Cell>{actions(webhook)}</IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  const createAction = {
    content: t('webhook.create.open'),
    icon: PlusIcon,
    disabled: full,
    helpText: full ? t('webhook.tooMany', { max: WEBHOOK_MAX_PER_APPLICATION }) : undefined,
    onAction: () => setDialog({ kind: 'create' }),
  };
  const path = (webhook: Webhook) => `${base}/${webhook.id}`;

  return (
    <Page title={t('menu.webhooks')} subtitle={t('webhook.subtitle')} primaryAction={createAction}>
      <BlockStack gap="400">
        <Card padding="0">
          <QueryState query={webhooks} lines={4}>
            {() => (
              <IndexTable
                resourceName={{ singular: t('webhook.one'), plural: t('webhook.other') }}
                itemCount={items.length}
                selectable={false}
                condensed={smDown}
                loading={webhooks.loading}
                emptyState={
                  <EmptyState heading={t('webhook.empty.title')} image={EMPTY_ILLUSTRATION} action={{ content: t('webhook.create.open'), onAction: () => setDialog({ kind: 'create' }) }}>
                    <p>{t('webhook.empty.body')}</p>
                  </EmptyState>
                }
                headings={[
                  { title: t('webhook.columns.url') },
                  { title: t('webhook.columns.events') },
                  { title: t('webhook.columns.status') },
                  { title: t('webhook.columns.lastAttempt') },
                  { title: t('webhook.columns.actions') },
                ]}
                pagination={pagination}
              >
                {rows}
              </IndexTable>
            )}
          </QueryState>
        </Card>
        <Card>
          <BlockStack gap="200">
            <Text as="h2" variant="headingSm">
              {t('webhook.verify.title')}
            </Text>
            <Text as="p">{t('webhook.verify.body')}</Text>
            <Text as="p" tone="subdued">
              {t('webhook.verify.retries')}
            </Text>
          </BlockStack>
        </Card>
      </BlockStack>
      {dialog?.kind === 'create' ? (
        <WebhookModal
          base={base}
          onClose={() => setDialog(null)}
          onCreated={(webhook) => {
            setDialog({ kind: 'secret', webhook });
            showToast(t('webhook.create.done'));
            webhooks.reload();
          }}
          onSaved={() => done(t('common.changed'))}
        />
      ) : null}
      {dialog?.kind === 'edit' ? (
        <WebhookModal base={base} webhook={dialog.webhook} onClose={() => setDialog(null)} onCreated={() => undefined} onSaved={() => done(t('common.changed'))} />
      ) : null}
      {dialog?.kind === 'delete' ? (
        <ConfirmDeleteModal
          path={path(dialog.webhook)}
          title={t('webhook.delete.title')}
          body={t('webhook.delete.body', { url: dialog.webhook.url })}
          onClose={() => setDialog(null)}
          onDone={() => done(t('webhook.delete.done'))}
        />
      ) : null}
      {dialog?.kind === 'rotate' ? (
        <RotateSecretModal
          path={path(dialog.webhook)}
          webhook={dialog.webhook}
          onClose={() => setDialog(null)}
          onRotated={(webhook) => {
            setDialog({ kind: 'secret', webhook });
            webhooks.reload();
          }}
        />
      ) : null}
      {dialog?.kind === 'attempts' ? <AttemptsModal path={path(dialog.webhook)} webhook={dialog.webhook} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'secret' ? <SecretModal webhook={dialog.webhook} onClose={() => setDialog(null)} /> : null}
    </Page>
  );
}
