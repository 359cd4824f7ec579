import { Card, ChoiceList, EmptySearchResult, EmptyState, Filters } from '@shopify/polaris';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearch } from 'wouter';
import { NOTIFICATION_SOURCES, NOTIFICATION_STATUSES, NOTIFICATION_TYPES, Notification, page } from '../../../shared/contract';
import { isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { useReplaceQuery } from '../../app/use-replace-query';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState } from '../../components/query-state';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { useAppStore } from '../../stores/store';
import { isLive, useLiveRefresh } from './notification-bits';
import { type NotificationFilters, filtersFromSearch, isFiltered, listQuery, searchOf, withFilter } from './notification-filters';
import { NotificationTable } from './notification-table';
import { NotificationsShell } from './notifications-shell';
import { TypePickerModal } from './type-picker-modal';
import { useNotificationActions } from './use-notification-actions';

export const PAGE_SIZE = 20;
const NotificationPage = page(Notification);

/** The filters kept in the address, so a reload or a shared link shows the same list. */
function useFilters(): [NotificationFilters, (next: NotificationFilters) => void] {
  const search = useSearch();
  const replaceQuery = useReplaceQuery();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const setFilters = (next: NotificationFilters) => {
    const query = searchOf(next);
    replaceQuery(query);
  };
  return [filters, setFilters];
}

/**
 * /notification/basic: the messages, newest first, filtered by status (all, new … canceled), source, type
 * and a search; paged by the server's total. It refreshes by itself while a listed message is waiting or running.
 */
export function MessagesTab() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  const [filters, setFilters] = useFilters();
  const [picking, setPicking] = useState(false);
  const [text, setText] = useState(filters.q);
  const settled = useDebouncedValue(text, 400);

  useEffect(() => setText(filters.q), [filters.q]);
  useEffect(() => {
    if (settled.trim() !== filters.q) setFilters(withFilter(filters, 'q', settled.trim()));
    // Only a settled change is applied; a change from outside is synced above.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled]);

  const list = useApiQuery(`/application/${encodeURIComponent(applicationId)}/notification`, NotificationPage, listQuery(filters, PAGE_SIZE), { showsFailure: true });
  const items = list.data?.items ?? [];
  useLiveRefresh(items.some((message) => isLive(message.status)), list.reload);
  const actions = useNotificationActions(applicationId, () => list.reload());

  const set = <K extends 'status' | 'source' | 'type'>(key: K) => (selected: string[]) =>
    setFilters(withFilter(filters, key, (selected[0] ?? 'all') as NotificationFilters[K]));

  const choices = <K extends 'status' | 'source' | 'type'>(key: K, values: readonly string[], label: (value: string) => string) => ({
    key,
    label: t(`notificationUi.filters.${key}`),
    shortcut: true,
    filter: (
      <ChoiceList
        title={t(`notificationUi.filters.${key}`)}
        titleHidden
        choices={['all', ...values].map((value) => ({ value, label: value === 'all' ? t('notificationUi.filters.all') : label(value) }))}
        selected={[filters[key]]}
        onChange={set(key)}
      />
    ),
  });

  const filterDefs = [
    choices('status', NOTIFICATION_STATUSES, (value) => t(`notificationUi.statuses.${value}`)),
    choices('type', NOTIFICATION_TYPES, (value) => t(`notificationUi.types.${value}`)),
    choices('source', NOTIFICATION_SOURCES, (value) => t(`notificationUi.sources.${value}`)),
  ];
  const applied = (['status', 'type', 'source'] as const)
    .filter((key) => filters[key] !== 'all')
    .map((key) => ({
      key,
      label: t(`notificationUi.filters.applied.${key}`, { value: t(`notificationUi.${key === 'status' ? 'statuses' : key === 'type' ? 'types' : 'sources'}.${filters[key]}`) }),
      onRemove: () => setFilters(withFilter(filters, key, 'all')),
    }));

  const create = () => setPicking(true);
  const emptyState = isFiltered(filters) ? (
    <EmptySearchResult title={t('notificationUi.list.noMatchTitle')} description={t('notificationUi.list.noMatchBody')} withIllustration />
  ) : (
    <EmptyState
      heading={t('notificationUi.list.emptyTitle')}
      image={EMPTY_ILLUSTRATION}
      action={readOnly ? undefined : { content: t('notificationUi.list.create'), onAction: create }}
    >
      <p>{t('notificationUi.list.emptyBody')}</p>
    </EmptyState>
  );

  return (
    <NotificationsShell
      tab="basic"
      primaryAction={{ content: t('notificationUi.list.create'), onAction: create, disabled: readOnly, helpText: readOnly ? t('errors.NO_PERMISSION') : undefined }}
    >
      <Card padding="0">
        <Filters
          queryValue={text}
          queryPlaceholder={t('notificationUi.list.search')}
          onQueryChange={setText}
          onQueryClear={() => setText('')}
          filters={filterDefs}
          appliedFilters={applied}
          onClearAll={() => {
            setText('');
            setFilters({ status: 'all', source: 'all', type: 'all', q: '', page: 1 });
          }}
        />
        <QueryState query={list} lines={6}>
          {() => (
            <NotificationTable
              items={items}
              total={list.data?.total}
              page={filters.page}
              pageSize={PAGE_SIZE}
              onPage={(update) => setFilters(withFilter(filters, 'page', update(filters.page)))}
              loading={list.loading}
              actions={actions}
              emptyState={emptyState}
            />
          )}
        </QueryState>
      </Card>
      {actions.dialogs}
      {picking ? <TypePickerModal onClose={() => setPicking(false)} /> : null}
    </NotificationsShell>
  );
}
