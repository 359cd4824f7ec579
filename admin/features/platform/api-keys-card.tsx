import {
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  EmptyState,
  IndexTable,
  InlineStack,
  Modal,
  Text,
  useBreakpoints,
} from '@shopify/polaris';
import { DeleteIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ApiKey, ApiKeyCreated } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { isShopPlatformApplication } from '../../../shared/permissions';
import { api, isApiError } from '../../api';
import { useApiQuery } from '../../api/use-api-query';
import { useConsoleLinks } from '../../app/use-console-links';
import { copyText } from '../../components/clipboard';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState, tablePagination } from '../../components/query-state';
import { useAppStore } from '../../stores/store';
import { FailureBanner } from '../../components/failure-banner';
import { useLanguage } from '../../app/i18n';

const ApiKeyList = z.array(ApiKey);
const PAGE_SIZE = 10;

/** The key just made, shown once with a copy button: the server never answers it again. */
function NewKeyModal({ created, onClose }: { created: ApiKeyCreated; onClose(): void }) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  async function copy() {
    const copied = await copyText(created.key);
    showToast(copied ? t('common.copied') : t('common.unknownError'), { error: !copied });
  }
  return (
    <Modal
      open
      onClose={onClose}
      title={t('platform.apiKeys.createdTitle')}
      primaryAction={{ content: t('platform.apiKeys.copy'), onAction: () => void copy() }}
      secondaryActions={[{ content: t('platform.apiKeys.done'), onAction: onClose }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <Banner tone="warning">
            <p>{t('platform.apiKeys.createdWarning')}</p>
          </Banner>
          <Box padding="300" background="bg-surface-secondary" borderRadius="200">
            <Text as="p" variant="bodyMd" breakWord>
              <code data-testid="new-api-key">{created.key}</code>
            </Text>
          </Box>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

/**
 * The application's REST API keys: list (start of the key, made, last used), make one (shown whole once),
 * revoke with a confirmation, and the link to the API documentation.
 */
export function ApiKeysCard({ applicationId }: { applicationId: string }) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const { smDown } = useBreakpoints();
  const { apiDocsUrl } = useConsoleLinks();
  const showToast = useAppStore((state) => state.showToast);
  const base = `/application/${encodeURIComponent(applicationId)}/api_key`;
  const keys = useApiQuery(base, ApiKeyList, undefined, { showsFailure: true });
  const [pageNumber, setPageNumber] = useState(1);
  const [creating, setCreating] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  const all = keys.data ?? [];
  const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
  const current = Math.min(pageNumber, pages);
  const shown = all.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE);
  const when = (value: string | null) => (value ? formatDate(value, '{y}-{m}-{d} {h}:{i}', { lang }) : t('platform.apiKeys.never'));

  async function create() {
    setFailure(null);
    setCreating(true);
    try {
      const result = await api.post(base, {}, ApiKeyCreated, { quiet: true });
      setCreated(result.data);
      keys.reload();
    } catch (cause) {
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setCreating(false);
    }
  }

  const revokeButton = (key: ApiKey) => (
    <Button
      variant="tertiary"
      tone="critical"
      icon={DeleteIcon}
      accessibilityLabel={t('platform.apiKeys.revokeLabel', { prefix: key.prefix })}
      onClick={() => setRevoking(key)}
    />
  );

  const rows = shown.map((key, index) =>
    smDown ? (
      <IndexTable.Row id={String(key.id)} key={key.id} position={index}>
        <div style={{ padding: '12px 16px' }}>
          <InlineStack align="space-between" blockAlign="center" wrap={false} gap="200">
            <BlockStack gap="050">
              <Text as="span" fontWeight="semibold">
                <code>{key.prefix}…</code>
              </Text>
              <Text as="span" tone="subdued" variant="bodySm">
                {`${t('platform.apiKeys.created')}: ${when(key.created_at)} · ${t('platform.apiKeys.lastUsed')}: ${when(key.last_used_at)}`}
              </Text>
            </BlockStack>
            {revokeButton(key)}
          </InlineStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(key.id)} key={key.id} position={index}>
        <IndexTable.Cell>
          <code>{key.prefix}…</code>
        </IndexTable.Cell>
        <IndexTable.Cell>{when(key.created_at)}</IndexTable.Cell>
        <IndexTable.Cell>{when(key.last_used_at)}</IndexTable.Cell>
        <IndexTable.Cell>{revokeButton(key)}</IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  return (
    <section aria-label={t('platform.apiKeys.title')}>
      <Card padding="0">
        <Box padding="400">
          <BlockStack gap="200">
            <InlineStack align="space-between" blockAlign="center" gap="200">
              <Text as="h2" variant="headingMd">
                {t('platform.apiKeys.title')}
              </Text>
              <Button onClick={() => void create()} loading={creating}>
                {t('platform.apiKeys.create')}
              </Button>
            </InlineStack>
            <Text as="p" tone="subdued">
              {t('platform.apiKeys.about')}
            </Text>
            {isShopPlatformApplication(applicationId) ? null : (
              <InlineStack>
                <Button variant="plain" url={apiDocsUrl} external>
                  {t('platform.apiKeys.docs')}
                </Button>
              </InlineStack>
            )}
            <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
          </BlockStack>
        </Box>
        <QueryState query={keys} lines={3}>
          {() => (
            <IndexTable
              resourceName={{ singular: t('platform.apiKeys.prefix'), plural: t('platform.apiKeys.title') }}
              itemCount={shown.length}
              selectable={false}
              condensed={smDown}
              loading={keys.loading}
              emptyState={
                <EmptyState
                  heading={t('platform.apiKeys.empty')}
                  image={EMPTY_ILLUSTRATION}
                  action={{ content: t('platform.apiKeys.create'), onAction: () => void create(), loading: creating }}
                >
                  <p>{t('platform.apiKeys.emptyBody')}</p>
                </EmptyState>
              }
              headings={[
                { title: t('platform.apiKeys.prefix') },
                { title: t('platform.apiKeys.created') },
                { title: t('platform.apiKeys.lastUsed') },
                { title: t('platform.apiKeys.revoke'), hidden: true },
              ]}
              pagination={tablePagination(t, current, all.length, PAGE_SIZE, setPageNumber)}
            >
              {rows}
            </IndexTable>
          )}
        </QueryState>
      </Card>
      {created ? <NewKeyModal created={created} onClose={() => setCreated(null)} /> : null}
      {revoking ? (
        <ConfirmDeleteModal
          path={`${base}/${revoking.id}`}
          title={t('platform.apiKeys.revokeTitle')}
          body={t('platform.apiKeys.revokeBody', { prefix: revoking.prefix })}
          confirmLabel={t('platform.apiKeys.revoke')}
          onClose={() => setRevoking(null)}
          onDone={() => {
            setRevoking(null);
            showToast(t('platform.apiKeys.revoked'));
            keys.reload();
          }}
        />
      ) : null}
    </section>
  );
}
