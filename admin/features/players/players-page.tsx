import {
  BlockStack,
  Box,
  Card,
  ChoiceList,
  EmptySearchResult,
  EmptyState,
  Filters,
  Icon,
  IndexTable,
  InlineStack,
  Link,
  Page,
  Select,
  Tag,
  Text,
  TextField,
  useBreakpoints,
  type IndexTableProps,
} from '@shopify/polaris';
import { SearchIcon } from '@shopify/polaris-icons';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearch } from 'wouter';
import { DEVICE_TYPES, PLAYER_PLATFORMS, PLAYER_SORTS, PlayerPage, type Player } from '../../../shared/contract';
import { formatNumber, relativeTime } from '../../../shared/format';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { useReplaceQuery } from '../../app/use-replace-query';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState, usePagination } from '../../components/query-state';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { type PlayerFilterKey, type PlayerFilters, filtersFromSearch, isFiltered, searchOf, withFilter, withoutFilters } from './player-filters';
import { Missing, PlatformLabel, SubscribedBadge, playerLabel } from './player-bits';
import { CountryFilter, TagFilter, TextFilter } from './filter-fields';
import { countryName } from '../../components/code-names';
import { useLanguage } from '../../app/i18n';

const SEEN_CHOICES = [1, 7, 30, 90, 365];
const SORT_ORDERS = ['desc', 'asc'] as const;
const TAGS_SHOWN = 3;
/** How many players a search names whole the list shows above it (a user id, an email: one, as a rule). */
const WHOLE_SHOWN = 5;

/** A column of the desktop table: its heading, the sort its heading offers, its cell. */
interface Column {
  title: string;
  sort?: PlayerFilters['sort'];
  alignment?: 'end';
  cell(player: Player): ReactNode;
  /** A phone's card: the value, labelled, for a column the card does not otherwise show. */
  summary?(player: Player): string;
}

/** The player list's filters, kept in the URL's query so a reload or a shared link shows the same list. */
function usePlayerFilters(): [PlayerFilters, (next: PlayerFilters) => void] {
  const search = useSearch();
  const replaceQuery = useReplaceQuery();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const setFilters = (next: PlayerFilters) => {
    const query = searchOf(next);
    replaceQuery(query);
  };
  return [filters, setFilters];
}

/**
 * /player: every device of the application, newest activity first; filters by country, device type, OS,
 * platform, subscription, last seen and tag, and a search by device id, user id, email or mobile number.
 */
export function PlayersPage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const { smDown } = useBreakpoints();
  const [filters, setFilters] = usePlayerFilters();
  const [queryText, setQueryText] = useState(filters.q ?? '');
  const settledQuery = useDebouncedValue(queryText, 400);
  const lang = useLanguage();

  useEffect(() => setQueryText(filters.q ?? ''), [filters.q]);
  useEffect(() => {
    if (settledQuery.trim() !== (filters.q ?? '')) setFilters(withFilter(filters, 'q', settledQuery.trim() || undefined));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settledQuery]);

  const base = `/application/${encodeURIComponent(applicationId)}`;
  const players = useApiQuery(`${base}/player`, PlayerPage, { ...filters }, { showsFailure: true });
  const items = players.data?.items ?? [];
  const total = players.data?.total ?? 0;
  // The search names players by their beginnings, in the list's order: those it names whole ("customer-4", not the
  // customer-40… it begins) are said above it, wherever the order puts them.
  const whole = useApiQuery(filters.q ? `${base}/player` : null, PlayerPage, { ...filters, match: 'whole', page: 1, limit: WHOLE_SHOWN }, { showsFailure: true, showsRefusal: true });
  const named = filters.q && !whole.error && whole.data && total > whole.data.items.length ? whole.data.items : [];
  // A search's total is counted up to PLAYER_SEARCH_COUNT_CAP: past it, "more than" that many, in pages as far as the cap.
  const capped = players.data?.total_capped ?? false;
  const pagination = usePagination(t, filters.page, players.data?.total, filters.limit, (update) => setFilters({ ...filters, page: update(filters.page) }), capped);
  const filtered = isFiltered(filters);

  const set = <K extends PlayerFilterKey>(key: K) => (value: PlayerFilters[K] | undefined) => setFilters(withFilter(filters, key, value));
  const choice = <K extends PlayerFilterKey>(key: K) => (selected: string[]) => set(key)((selected[0] || undefined) as PlayerFilters[K] | undefined);

  const seenChoices = [...new Set([...SEEN_CHOICES, ...(filters.seen_within_days ? [filters.seen_within_days] : [])])].sort((a, b) => a - b);

  const filterDefs = [
    {
      key: 'country',
      label: t('players.filters.country'),
      filter: <CountryFilter value={filters.country ?? ''} onChange={(code) => set('country')(code || undefined)} />,
      shortcut: true,
    },
    {
      key: 'platform',
      label: t('players.filters.platform'),
      filter: (
        <ChoiceList
          title={t('players.filters.platform')}
          titleHidden
          choices={PLAYER_PLATFORMS.map((value) => ({ value, label: t(`players.platforms.${value}`) }))}
          selected={filters.platform ? [filters.platform] : []}
          onChange={choice('platform')}
        />
      ),
      shortcut: true,
    },
    {
      key: 'subscribed',
      label: t('players.filters.subscribed'),
      filter: (
        <ChoiceList
          title={t('players.filters.subscribed')}
          titleHidden
          choices={[
            { value: 'true', label: t('players.subscribed.yes') },
            { value: 'false', label: t('players.subscribed.no') },
          ]}
          selected={filters.subscribed ? [filters.subscribed] : []}
          onChange={choice('subscribed')}
        />
      ),
      shortcut: true,
    },
    {
      key: 'seen_within_days',
      label: t('players.filters.lastSeen'),
      filter: (
        <ChoiceList
          title={t('players.filters.lastSeen')}
          titleHidden
          choices={seenChoices.map((days) => ({ value: String(days), label: t('players.filters.withinDays', { count: days }) }))}
          selected={filters.seen_within_days ? [String(filters.seen_within_days)] : []}
          onChange={(selected) => set('seen_within_days')(selected[0] ? Number(selected[0]) : undefined)}
        />
      ),
    },
    {
      key: 'device_type',
      label: t('players.filters.deviceType'),
      filter: (
        <ChoiceList
          title={t('players.filters.deviceType')}
          titleHidden
          choices={DEVICE_TYPES.map((value) => ({ value, label: t(`players.deviceTypes.${value}`) }))}
          selected={filters.device_type ? [filters.device_type] : []}
          onChange={choice('device_type')}
        />
      ),
    },
    {
      key: 'os',
      label: t('players.filters.os'),
      filter: <TextFilter label={t('players.filters.os')} placeholder={t('players.filters.osPlaceholder')} value={filters.os ?? ''} maxLength={64} onCommit={(value) => set('os')(value || undefined)} />,
    },
    {
      key: 'tag',
      label: t('players.filters.tag'),
      filter: <TagFilter value={filters.tag ?? ''} onCommit={(value) => set('tag')(value || undefined)} />,
    },
  ];

  const applied = [
    filters.country ? { key: 'country', label: t('players.applied.country', { value: countryName(filters.country, lang) ?? filters.country }) } : null,
    filters.platform ? { key: 'platform', label: t('players.applied.platform', { value: t(`players.platforms.${filters.platform}`) }) } : null,
    filters.subscribed ? { key: 'subscribed', label: filters.subscribed === 'true' ? t('players.subscribed.yes') : t('players.subscribed.no') } : null,
    filters.seen_within_days ? { key: 'seen_within_days', label: t('players.applied.lastSeen', { count: filters.seen_within_days }) } : null,
    filters.device_type ? { key: 'device_type', label: t(`players.deviceTypes.${filters.device_type}`) } : null,
    filters.os ? { key: 'os', label: t('players.applied.os', { value: filters.os }) } : null,
    filters.tag ? { key: 'tag', label: t('players.applied.tag', { value: filters.tag }) } : null,
  ]
    .filter((entry): entry is { key: PlayerFilterKey; label: string } => entry !== null)
    .map((entry) => ({ ...entry, onRemove: () => set(entry.key)(undefined) }));

  // Every sort the list offers, also those without a column (first seen, page views) and on a phone, where the
  // condensed table has no headings to click.
  const sortOptions = PLAYER_SORTS.flatMap((sort) => SORT_ORDERS.map((order) => ({ value: `${sort}:${order}`, label: t(`players.sort.${sort}_${order}`) })));
  function onSortChoice(value: string) {
    const [sort, order] = value.split(':') as [PlayerFilters['sort'], PlayerFilters['order']];
    setFilters({ ...filters, sort, order, page: 1 });
  }

  const playerUrl = (player: Player) => `/player/${player.id}`;
  const seen = (player: Player) => (player.last_seen_at ? relativeTime(player.last_seen_at, Date.now(), t) : null);
  const software = (player: Player) => [player.os && [player.os, player.os_version].filter(Boolean).join(' '), player.browser ?? player.app_version].filter(Boolean).join(' · ');

  function who(player: Player) {
    const known = player.external_user_id ?? player.email ?? player.mobile_number;
    return (
      <BlockStack gap="050">
        <Link url={playerUrl(player)} dataPrimaryLink removeUnderline monochrome>
          <Text as="span" fontWeight="semibold" truncate>
            <span className="nudge-mono">{player.device_id}</span>
          </Text>
        </Link>
        {known ? (
          <Text as="span" tone="subdued" variant="bodySm" truncate>
            {known}
          </Text>
        ) : null}
      </BlockStack>
    );
  }

  function tags(player: Player) {
    if (player.tags.length === 0) return <Missing />;
    return (
      <InlineStack gap="100">
        {player.tags.slice(0, TAGS_SHOWN).map((tag) => (
          <Tag key={tag}>{tag}</Tag>
        ))}
        {player.tags.length > TAGS_SHOWN ? (
          <Text as="span" tone="subdued" variant="bodySm">
            +{player.tags.length - TAGS_SHOWN}
          </Text>
        ) : null}
      </InlineStack>
    );
  }

  const count = (value: number) => (
    <Text as="span" numeric alignment="end">
      {formatNumber(value, lang)}
    </Text>
  );
  // The desktop table's columns; the one the list is sorted by is always among them: first seen and page views,
  // which have no column of their own, get one while the list is sorted by them.
  const sortedOnlyColumns: Partial<Record<PlayerFilters['sort'], Column>> = {
    created_at: {
      title: t('players.fields.created_at'),
      sort: 'created_at',
      cell: (player) => relativeTime(player.created_at, Date.now(), t),
      summary: (player) => t('players.firstSeenAgo', { when: relativeTime(player.created_at, Date.now(), t) }),
    },
    page_views: {
      title: t('players.fields.page_views'),
      sort: 'page_views',
      alignment: 'end',
      cell: (player) => count(player.page_views),
      summary: (player) => t('players.pageViewsCount', { count: formatNumber(player.page_views, lang) }),
    },
  };
  const sortedOnly = sortedOnlyColumns[filters.sort];
  const columns: Column[] = [
    { title: t('players.columns.device'), cell: (player) => <div style={{ maxWidth: 220 }}>{who(player)}</div> },
    { title: t('players.columns.platform'), cell: (player) => <PlatformLabel platform={player.platform} deviceType={player.device_type} /> },
    { title: t('players.columns.country'), cell: (player) => (player.country ? <span title={countryName(player.country, lang) ?? undefined}>{player.country}</span> : <Missing />) },
    { title: t('players.columns.deviceType'), cell: (player) => t(`players.deviceTypes.${player.device_type}`) },
    { title: t('players.columns.os'), cell: (player) => software(player) || <Missing /> },
    { title: t('players.columns.subscribed'), cell: (player) => <SubscribedBadge subscribed={player.subscribed} /> },
    { title: t('players.columns.sessions'), sort: 'session_count', alignment: 'end', cell: (player) => count(player.session_count) },
    ...(sortedOnly ? [sortedOnly] : []),
    { title: t('players.columns.lastSeen'), sort: 'last_seen_at', cell: (player) => seen(player) ?? <Missing /> },
    // Tags wrap, and a long one is cut with its name on hover (Polaris' Tag), so a laptop's width holds the list.
    { title: t('players.columns.tags'), cell: (player) => <div style={{ maxWidth: 120 }}>{tags(player)}</div> },
  ];
  const sortColumn = columns.findIndex((column) => column.sort === filters.sort);

  function onSort(index: number, direction: 'ascending' | 'descending') {
    const sort = columns[index]?.sort;
    if (!sort) return;
    setFilters({ ...filters, sort, order: direction === 'ascending' ? 'asc' : 'desc', page: 1 });
  }

  const rows = items.map((player, index) =>
    smDown ? (
      <IndexTable.Row id={String(player.id)} key={player.id} position={index}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="150">
            <InlineStack align="space-between" blockAlign="start" gap="200" wrap={false}>
              <div style={{ minWidth: 0 }}>{who(player)}</div>
              <SubscribedBadge subscribed={player.subscribed} />
            </InlineStack>
            <InlineStack gap="200" blockAlign="center">
              <PlatformLabel platform={player.platform} deviceType={player.device_type} />
              <Text as="span" tone="subdued" variant="bodySm">
                {[countryName(player.country, lang), software(player), t('players.sessionsCount', { count: player.session_count }), sortedOnly?.summary?.(player), seen(player)].filter(Boolean).join(' · ')}
              </Text>
            </InlineStack>
            {player.tags.length > 0 ? tags(player) : null}
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(player.id)} key={player.id} position={index}>
        {columns.map((column) => (
          <IndexTable.Cell key={column.title}>{column.cell(player)}</IndexTable.Cell>
        ))}
      </IndexTable.Row>
    ),
  );

  // A search matches a whole ID, email or number (indexed, at a million players), not a part: say so when it finds
  // none, or "customer-15" finding nothing reads as if customer-1564 were not there.
  const emptyState = filters.q ? (
    <EmptySearchResult title={t('players.empty.searchedTitle')} description={t('players.empty.searchedBody')} withIllustration />
  ) : filtered ? (
    <EmptySearchResult title={t('players.empty.filteredTitle')} description={t('players.empty.filteredBody')} withIllustration />
  ) : (
    <EmptyState heading={t('players.empty.title')} image={EMPTY_ILLUSTRATION}>
      <p>{t('players.empty.body')}</p>
    </EmptyState>
  );

  return (
    <Page fullWidth title={t('menu.players')} subtitle={players.data ? t(capped ? 'players.totalMore' : 'players.total', { count: formatNumber(total, lang) }) : t('players.subtitle')}>
      <Card padding="0">
        {/*
          The search field is the list's own, not Filters' built-in one: that one is slim (28 px) and drops its magnifier
          below 768 px, so on a phone it sat small and bare over a 36 px sort menu. This one is Polaris' text field at its
          usual height with the icon at every width, the sort menu beside it or, on a phone, under it (shell.css).
        */}
        <Box padding="200" borderBlockEndWidth="025" borderColor="border-secondary">
          <InlineStack gap={{ xs: '200', md: '300' }} blockAlign="center">
            <div className="nudge-player-search-field">
              <TextField
                label={t('players.searchPlaceholder')}
                labelHidden
                placeholder={t('players.searchPlaceholder')}
                prefix={<Icon source={SearchIcon} tone="subdued" />}
                value={queryText}
                onChange={setQueryText}
                clearButton
                onClearButtonClick={() => setQueryText('')}
                autoComplete="off"
                loading={players.loading && players.data !== undefined}
              />
            </div>
            {/* Never wider than the card: its text is cut instead. */}
            <div style={{ maxWidth: '100%', minWidth: 0 }}>
              <Select label={t('players.sort.label')} labelInline options={sortOptions} value={`${filters.sort}:${filters.order}`} onChange={onSortChoice} />
            </div>
          </InlineStack>
        </Box>
        <Filters
          hideQueryField
          queryValue={queryText}
          onQueryChange={setQueryText}
          onQueryClear={() => setQueryText('')}
          filters={filterDefs}
          appliedFilters={applied}
          onClearAll={() => {
            setQueryText('');
            setFilters(withoutFilters(filters));
          }}
        />
        {named.length > 0 ? (
          <Box padding="300" paddingInlineStart="400" borderBlockEndWidth="025" borderColor="border-secondary">
            <InlineStack gap="200" blockAlign="center">
              <Text as="span" tone="subdued">
                {t('players.named', { query: filters.q })}
              </Text>
              {named.map((player) => (
                <Link key={player.id} url={playerUrl(player)}>
                  {playerLabel(player)}
                </Link>
              ))}
            </InlineStack>
          </Box>
        ) : null}
        <QueryState query={players} lines={8}>
          {() => (
            // nudge-wrapping-headings: a long heading takes two lines rather than widening its column (shell.css).
            <div className="nudge-wrapping-headings">
              <IndexTable
                resourceName={{ singular: t('players.one'), plural: t('players.other') }}
                itemCount={items.length}
                selectable={false}
                condensed={smDown}
                loading={players.loading}
                emptyState={emptyState}
                headings={columns.map((column) => ({ title: column.title, ...(column.alignment ? { alignment: column.alignment } : {}) })) as IndexTableProps['headings']}
                sortable={columns.map((column) => column.sort !== undefined)}
                sortColumnIndex={sortColumn < 0 ? undefined : sortColumn}
                sortDirection={filters.order === 'asc' ? 'ascending' : 'descending'}
                defaultSortDirection="descending"
                onSort={onSort}
                pagination={pagination}
              >
                {rows}
              </IndexTable>
            </div>
          )}
        </QueryState>
      </Card>
    </Page>
  );
}
