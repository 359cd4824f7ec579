import { Badge, BlockStack, Box, Divider, InlineStack, Modal, Pagination, Text } from '@shopify/polaris';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WebhookAttempt, page, type Webhook } from '../../../shared/contract';
import { formatDate, relativeTime } from '../../../shared/format';
import { useApiQuery } from '../../api/use-api-query';
import { QueryState } from '../../components/query-state';
import { AttemptResult } from './attempt-result';
import { useLanguage } from '../../app/i18n';

const PAGE_SIZE = 20;
const AttemptPage = page(WebhookAttempt);

export interface AttemptsModalProps {
  /** The webhook's path (`/application/{id}/webhook/{webhook_id}`). */
  path: string;
  webhook: Webhook;
  onClose(): void;
}

/** The webhook's delivery attempts, newest first: when, which event and message, attempt number, answer, what next. */
export function AttemptsModal({ path, webhook, onClose }: AttemptsModalProps) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const [pageNumber, setPageNumber] = useState(1);
  const attempts = useApiQuery(`${path}/attempts`, AttemptPage, { page: pageNumber, limit: PAGE_SIZE }, { showsFailure: true });
  const items = attempts.data?.items ?? [];
  const pages = Math.max(1, Math.ceil((attempts.data?.total ?? 0) / PAGE_SIZE));

  function outcome(attempt: WebhookAttempt) {
    if (attempt.outcome === 'delivered') return <Badge tone="success">{t('webhook.outcomes.delivered')}</Badge>;
    if (attempt.outcome === 'failed') return <Badge tone="critical">{t('webhook.outcomes.failed')}</Badge>;
    return (
      <Badge tone="attention">
        {t('webhook.outcomes.retrying', { time: formatDate(attempt.next_attempt_at, '{y}-{m}-{d} {h}:{i}', { lang }) })}
      </Badge>
    );
  }

  return (
    <Modal open onClose={onClose} title={t('webhook.attempts.title')} size="large" secondaryActions={[{ content: t('common.close'), onAction: onClose }]}>
      <Modal.Section>
        <BlockStack gap="300">
          <Text as="p" tone="subdued" breakWord>
            {webhook.url}
          </Text>
          <QueryState query={attempts} lines={6}>
            {() =>
              items.length === 0 ? (
                <Box paddingBlock="400">
                  <Text as="p" alignment="center" tone="subdued">
                    {t('webhook.attempts.empty')}
                  </Text>
                </Box>
              ) : (
                <BlockStack gap="300">
                  {items.map((attempt, index) => (
                    <Fragment key={attempt.id}>
                      {index > 0 ? <Divider /> : null}
                      <BlockStack gap="100">
                        <InlineStack gap="200" blockAlign="center" wrap>
                          <AttemptResult statusCode={attempt.status_code} error={attempt.error} />
                          <Text as="span" fontWeight="semibold">
                            {t(`webhook.events.${attempt.event_type}.label`)}
                          </Text>
                          <Text as="span" tone="subdued">
                            {t('webhook.attempts.number', { number: attempt.attempt })}
                          </Text>
                          {outcome(attempt)}
                        </InlineStack>
                        <InlineStack gap="200" wrap>
                          <Text as="span" variant="bodySm" tone="subdued">
                            <span title={formatDate(attempt.created_at, undefined, { lang })}>{relativeTime(attempt.created_at, Date.now(), t)}</span>
                            {' · '}
                            {t('webhook.attempts.duration', { ms: attempt.duration_ms })}
                          </Text>
                          <Text as="span" variant="bodySm" tone="subdued" breakWord>
                            <span className="nudge-mono">{attempt.msg_id}</span>
                          </Text>
                        </InlineStack>
                      </BlockStack>
                    </Fragment>
                  ))}
                  {pages > 1 ? (
                    <InlineStack align="center">
                      <Pagination
                        hasPrevious={pageNumber > 1}
                        hasNext={pageNumber < pages}
                        onPrevious={() => setPageNumber((n) => Math.max(1, n - 1))}
                        onNext={() => setPageNumber((n) => Math.min(pages, n + 1))}
                        label={t('common.pageOf', { page: pageNumber, pages })}
                        accessibilityLabels={{ previous: t('common.previousPage'), next: t('common.nextPage') }}
                      />
                    </InlineStack>
                  ) : null}
                </BlockStack>
              )
            }
          </QueryState>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
