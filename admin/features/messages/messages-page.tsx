import { BlockStack, Box, Card, ChoiceList, EmptySearchResult, EmptyState, Filters, IndexTable, InlineStack, Link, Page, Tag, Text, useBreakpoints } from '@shopify/polaris';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearch } from 'wouter';
import { DELIVERY_STATUSES, Delivery, DeliveryPage, type DeliveryStatus, Notification } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { useReplaceQuery } from '../../app/use-replace-query';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState } from '../../components/query-state';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { titleOf } from '../notifications/notification-bits';
import { DeliveryStatusBadge } from './delivery-status';
import { useLanguage } from '../../app/i18n';

export const PAGE_SIZE = 50;
type StatusFilter = 'all' | DeliveryStatus;

/**
 * The log's filters as the address keeps them (`?notification_id=12&status=failed&q=…`). The page is not kept
 * there: the log pages by cursor, and a reload starts again from the newest recipients.
 */
export interface MessageLogFilters {
  notificationId: number | null;
  status: StatusFilter;
  q: string;
}

export function logFiltersFrom(search: string): MessageLogFilters {
  const params = new URLSearchParams(search);
  const id = params.get('notification_id');
  const status = params.get('status');
  return {
    notificationId: id && /^\d+$/.test(id) && Number(id) > 0 ? Number(id) : null,
    status: status && (DELIVERY_STATUSES as readonly string[]).includes(status) ? (status as DeliveryStatus) : 'all',
    q: (params.get('q') ?? '').trim().slice(0, 100),
  };
}

export function logSearchOf(filters: MessageLogFilters): string {
  const params = new URLSearchParams();
  if (filters.notificationId) params.set('notification_id', String(filters.notificationId));
  if (filters.status !== 'all') params.set('status', filters.status);
  if (filters.q) params.set('q', filters.q);
  return params.toString();
}

/**
 * Where the log is: the cursor of the page shown (null: the newest) and the cursors of the pages before it, for
 * Previous. It belongs to one set of filters and starts over when they change.
 */
interface LogPosition {
  filters: string;
  cursor: number | null;
  previous: (number | null)[];
}

/**
 * /message: the recipients' log, newest first: each device a message went to, its platform and status (with the
 * reason of a failure), attempts, and when it was sent, delivered and clicked. Searched by device id, external
 * user id, email or phone; filtered by status and by message (`?notification_id=` from a message's detail).
 */
export function MessagesPage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const { smDown } = useBreakpoints();
  const search = useSearch();
  const replaceQuery = useReplaceQuery();
  const filters = useMemo(() => logFiltersFrom(search), [search]);
  const setFilters = (next: MessageLogFilters) => {
    const query = logSearchOf(next);
    replaceQuery(query);
  };
  const [text, setText] = useState(filters.q);
  const settled = useDebouncedValue(text.trim(), 400);
  const lang = useLanguage();
  const base = `/application/${encodeURIComponent(applicationId)}`;
  const filtersKey = logSearchOf(filters);
  const [stored, setPosition] = useState<LogPosition>({ filters: filtersKey, cursor: null, previous: [] });
  const position = stored.filters === filtersKey ? stored : { filters: filtersKey, cursor: null, previous: [] };

  useEffect(() => setText(filters.q), [filters.q]);
  useEffect(() => {
    if (settled !== filters.q) setFilters({ ...filters, q: settled });
    // Only a settled change is applied; a change from outside is synced above.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled]);

  // Keyset paging (before_id) reaches any depth of a message sent to a million people.
  const log = useApiQuery(
    `${base}/message`,
    DeliveryPage,
    {
      before_id: position.cursor ?? undefined,
      limit: PAGE_SIZE,
      status: filters.status === 'all' ? undefined : filters.status,
      q: filters.q || undefined,
      notification_id: filters.notificationId ?? undefined,
    },
    { showsFailure: true, showsRefusal: true },
  );
  // A search the server refused (more players begin with it than a log search takes) is said in place of the list,
  // not by a toast over the rows of the search before, which it does not match.
  const refused = filters.q && log.error?.status === 400 ? log.error.message : null;
  const message = useApiQuery(filters.notificationId ? `${base}/notification/${filters.notificationId}` : null, Notification);
  const items = log.data?.items ?? [];
  const total = log.data?.total ?? 0;
  const next = log.data?.next_before_id ?? null;
  const pageNumber = position.previous.length + 1;
  // Past the server's count cap the page count is a floor ("of more than …").
  const pages = Math.max(pageNumber, Math.ceil(total / PAGE_SIZE));
  const pagination =
    position.cursor === null && next === null
      ? undefined
      : {
          hasPrevious: position.cursor !== null && !log.loading,
          hasNext: next !== null && !log.loading,
          onPrevious: () => setPosition({ filters: filtersKey, cursor: position.previous.at(-1) ?? null, previous: position.previous.slice(0, -1) }),
          onNext: () => {
            if (next !== null) setPosition({ filters: filtersKey, cursor: next, previous: [...position.previous, position.cursor] });
          },
          label: t(log.data?.total_capped ? 'common.pageOfMore' : 'common.pageOf', { page: pageNumber, pages }),
          accessibilityLabels: { previous: t('common.previousPage'), next: t('common.nextPage') },
        };
  const filtered = filters.status !== 'all' || filters.q !== '' || filters.notificationId !== null;
  const date = (value: string | null) => (value ? formatDate(value, '{y}-{m}-{d} {h}:{i}:{s}', { lang }) : '—');

  const applied =
    filters.status !== 'all'
      ? [{ key: 'status', label: t('messageUi.filters.statusApplied', { value: t(`messageUi.statuses.${filters.status}`) }), onRemove: () => setFilters({ ...filters, status: 'all' }) }]
      : [];

  const status = (delivery: Delivery) => <DeliveryStatusBadge delivery={delivery} />;
  const messageLink = (delivery: Delivery) => (
    <Link url={`/notification/${delivery.notification_id}/detail`} removeUnderline>
      {delivery.notification_name || `#${delivery.notification_id}`}
    </Link>
  );
  const device = (delivery: Delivery) => (
    <Link url={`/player/${delivery.player_id}`} removeUnderline monochrome>
      <span className="nudge-mono">{delivery.device_id}</span>
    </Link>
  );

  const rows = items.map((delivery, index) =>
    smDown ? (
      <IndexTable.Row id={String(delivery.id)} key={delivery.id} position={index}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="150">
            <InlineStack align="space-between" blockAlign="start" gap="200" wrap={false}>
              <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>{device(delivery)}</div>
              {status(delivery)}
            </InlineStack>
            <Text as="span" variant="bodySm">
              {messageLink(delivery)}
            </Text>
            <Text as="span" tone="subdued" variant="bodySm">
              {[t(`messageUi.platforms.${delivery.platform}`), t('messageUi.sentAt', { date: date(delivery.sent_at) }), delivery.clicked_at ? t('messageUi.clickedAt', { date: date(delivery.clicked_at) }) : null]
                .filter(Boolean)
                .join(' · ')}
            </Text>
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(delivery.id)} key={delivery.id} position={index}>
        <IndexTable.Cell>{device(delivery)}</IndexTable.Cell>
        <IndexTable.Cell>{t(`messageUi.platforms.${delivery.platform}`)}</IndexTable.Cell>
        <IndexTable.Cell>{status(delivery)}</IndexTable.Cell>
        <IndexTable.Cell>
          <Text as="span" alignment="end" numeric>
            {delivery.attempts}
          </Text>
        </IndexTable.Cell>
        <IndexTable.Cell>{date(delivery.sent_at)}</IndexTable.Cell>
        <IndexTable.Cell>{date(delivery.delivered_at)}</IndexTable.Cell>
        <IndexTable.Cell>{date(delivery.clicked_at)}</IndexTable.Cell>
        <IndexTable.Cell>
          <div style={{ maxWidth: 240, overflow: 'hidden', textOverflow: 'ellipsis' }}>{messageLink(delivery)}</div>
        </IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  return (
    <Page title={t('menu.messages')} subtitle={t('messageUi.subtitle')}>
      <Card padding="0">
        {filters.notificationId ? (
          <Box paddingBlockStart="300" paddingInline="300">
            <InlineStack gap="200" blockAlign="center">
              <Tag onRemove={() => setFilters({ ...filters, notificationId: null })} accessibilityLabel={t('messageUi.filters.removeMessage')}>
                {t('messageUi.filters.message', { name: message.data ? titleOf(message.data) : `#${filters.notificationId}` })}
              </Tag>
              <Link url={`/notification/${filters.notificationId}/detail`}>{t('messageUi.filters.openMessage')}</Link>
            </InlineStack>
          </Box>
        ) : null}
        <Filters
          queryValue={text}
          queryPlaceholder={t('messageUi.search')}
          onQueryChange={setText}
          onQueryClear={() => setText('')}
          filters={[
            {
              key: 'status',
              label: t('messageUi.filters.status'),
              shortcut: true,
              filter: (
                <ChoiceList
                  title={t('messageUi.filters.status')}
                  titleHidden
                  choices={['all', ...DELIVERY_STATUSES].map((value) => ({ value, label: value === 'all' ? t('notificationUi.filters.all') : t(`messageUi.statuses.${value}`) }))}
                  selected={[filters.status]}
                  onChange={(selected) => setFilters({ ...filters, status: (selected[0] ?? 'all') as StatusFilter })}
                />
              ),
            },
          ]}
          appliedFilters={applied}
          onClearAll={() => {
            setText('');
            setFilters({ notificationId: null, status: 'all', q: '' });
          }}
        />
        {refused ? (
          <Box padding="600">
            <EmptySearchResult title={t('messageUi.searchRefusedTitle')} description={refused} withIllustration />
          </Box>
        ) : (
          <QueryState query={log} lines={8}>
            {() => (
              <IndexTable
                resourceName={{ singular: t('messageUi.one'), plural: t('messageUi.other') }}
                itemCount={items.length}
                selectable={false}
                condensed={smDown}
                loading={log.loading}
                emptyState={
                  filtered ? (
                    <EmptySearchResult title={t('messageUi.noMatchTitle')} description={t('messageUi.noMatchBody')} withIllustration />
                  ) : (
                    <EmptyState heading={t('messageUi.emptyTitle')} image={EMPTY_ILLUSTRATION} action={{ content: t('messageUi.emptyAction'), url: '/notification/basic' }}>
                      <p>{t('messageUi.emptyBody')}</p>
                    </EmptyState>
                  )
                }
                headings={[
                  { title: t('messageUi.columns.device') },
                  { title: t('messageUi.columns.platform') },
                  { title: t('messageUi.columns.status') },
                  { title: t('messageUi.columns.attempts'), alignment: 'end' },
                  { title: t('messageUi.columns.sent') },
                  { title: t('messageUi.columns.delivered') },
                  { title: t('messageUi.columns.clicked') },
                  { title: t('messageUi.columns.message') },
                ]}
                pagination={pagination}
              >
                {rows}
              </IndexTable>
            )}
          </QueryState>
        )}
      </Card>
    </Page>
  );
}
