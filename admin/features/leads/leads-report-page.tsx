import {
  Badge,
  BlockStack,
  Card,
  EmptyState,
  IndexTable,
  InlineGrid,
  InlineStack,
  Link,
  Page,
  ProgressBar,
  Select,
  SkeletonBodyText,
  Text,
  TextField,
  useBreakpoints,
} from '@shopify/polaris';
import { ExportIcon } from '@shopify/polaris-icons';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ButtonClicks, LEAD_SOURCES, Lead, page } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { apiAuthorization, isApiError } from '../../api';
import type { Query } from '../../api/client';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { selectLanguage } from '../../stores/settings-slice';
import { useAppStore } from '../../stores/store';
import { ButtonTypeBadge } from '../maxlead/button-types';
import { downloadLeadsCsv } from './export-leads';
import { QueryState, usePagination } from '../../components/query-state';
import { SectionCard } from '../../components/section-card';
import { useLanguage, useAbbreviateNumber } from '../../app/i18n';

const PAGE_SIZE = 20;
const LeadPage = page(Lead);
type Source = (typeof LEAD_SOURCES)[number];

/**
 * A local day (YYYY-MM-DD from a date input) as the instant it starts or ends in the browser's time zone:
 * the merchant's "1 March" is their own day, not UTC's.
 */
export function dayBound(day: string, edge: 'start' | 'end'): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const date = new Date(`${day}T${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Only web pages become links: a page address a visitor's browser sent could be anything. */
const isWebAddress = (value: string) => /^https?:\/\/[^\s]+$/i.test(value);

function shortPage(value: string): string {
  try {
    const url = new URL(value);
    return `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return value;
  }
}

/** /maxlead_report: the leads of forms, spins and contact buttons, filtered by date and source; clicks per button. */
export function LeadsReportPage() {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const { smDown } = useBreakpoints();
  const showToast = useAppStore((state) => state.showToast);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [source, setSource] = useState<Source | ''>('');
  const [pageNumber, setPageNumber] = useState(1);
  const [exporting, setExporting] = useState(false);
  const lang = useLanguage();

  const backwards = from !== '' && to !== '' && from > to;
  const range = useMemo(() => ({ from: dayBound(from, 'start'), to: dayBound(to, 'end') }), [from, to]);
  const filters = useMemo<Query>(() => ({ source: source || undefined, ...range }), [source, range]);
  const base = `/application/${encodeURIComponent(applicationId)}/lead`;
  const leads = useApiQuery(backwards ? null : base, LeadPage, { ...filters, page: pageNumber, limit: PAGE_SIZE }, { showsFailure: true });
  const clicks = useApiQuery(backwards ? null : `${base}/clicks`, ButtonClicks, range, { showsFailure: true });
  const items = leads.data?.items ?? [];
  const total = leads.data?.total ?? 0;
  const pagination = usePagination(t, pageNumber, leads.data?.total, PAGE_SIZE, setPageNumber);
  const filtered = from !== '' || to !== '' || source !== '';

  function change<T>(setter: (value: T) => void) {
    return (value: T) => {
      setter(value);
      setPageNumber(1);
    };
  }

  async function exportCsv() {
    setExporting(true);
    try {
      const state = useAppStore.getState();
      await downloadLeadsCsv(applicationId, filters, {
        token: state.token,
        authorization: await apiAuthorization(),
        language: selectLanguage(state),
        pageUrl: window.location.href,
        unknownError: t('common.unknownError'),
      });
    } catch (cause) {
      showToast(isApiError(cause) ? cause.message : t('common.unknownError'), { error: true });
    } finally {
      setExporting(false);
    }
  }

  const typeName = (type: string) => t(`maxlead.types.${type}`);
  const when = (value: string) => formatDate(value, '{y}-{m}-{d} {h}:{i}', { lang });
  const dash = (
    <Text as="span" tone="subdued">
      —
    </Text>
  );

  function sourceCell(lead: Lead) {
    return (
      <BlockStack gap="050">
        <Badge tone={lead.source === 'spin' ? 'magic' : lead.source === 'contact' ? 'info' : 'success'}>{t(`leads.sources.${lead.source}`)}</Badge>
        {lead.widget_name ? (
          <Text as="span" tone="subdued" variant="bodySm" truncate>
            {lead.widget_name}
          </Text>
        ) : null}
      </BlockStack>
    );
  }

  function prizeCell(lead: Lead) {
    if (!lead.prize && !lead.code) return dash;
    return (
      <BlockStack gap="050">
        {lead.prize ? <Text as="span">{lead.prize}</Text> : null}
        {lead.code ? (
          <Text as="span" variant="bodySm" tone="subdued">
            <span className="nudge-mono">{lead.code}</span>
          </Text>
        ) : null}
      </BlockStack>
    );
  }

  function pageCell(lead: Lead) {
    if (!lead.page_url) return dash;
    return isWebAddress(lead.page_url) ? (
      <Link url={lead.page_url} target="_blank" removeUnderline>
        {shortPage(lead.page_url)}
      </Link>
    ) : (
      <Text as="span">{lead.page_url}</Text>
    );
  }

  function buttonCell(lead: Lead) {
    if (!lead.button_type) return dash;
    return (
      <InlineStack gap="150" blockAlign="center" wrap={false}>
        <ButtonTypeBadge type={lead.button_type} size={20} />
        <Text as="span">{typeName(lead.button_type)}</Text>
      </InlineStack>
    );
  }

  const rows = items.map((lead, index) =>
    smDown ? (
      <IndexTable.Row id={String(lead.id)} key={lead.id} position={index}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="150">
            <InlineStack align="space-between" blockAlign="center" gap="200">
              {sourceCell(lead)}
              <Text as="span" tone="subdued" variant="bodySm">
                {when(lead.created)}
              </Text>
            </InlineStack>
            <Text as="span" fontWeight="semibold">
              {[lead.name, lead.email, lead.phone].filter(Boolean).join(' · ') || '—'}
            </Text>
            {lead.message ? <Text as="p">{lead.message}</Text> : null}
            {lead.button_type ? buttonCell(lead) : null}
            {lead.prize || lead.code ? prizeCell(lead) : null}
            {lead.page_url ? pageCell(lead) : null}
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(lead.id)} key={lead.id} position={index}>
        <IndexTable.Cell>
          <Text as="span" numeric>
            {when(lead.created)}
          </Text>
        </IndexTable.Cell>
        <IndexTable.Cell>{sourceCell(lead)}</IndexTable.Cell>
        <IndexTable.Cell>{lead.name || dash}</IndexTable.Cell>
        <IndexTable.Cell>{lead.email || dash}</IndexTable.Cell>
        <IndexTable.Cell>{lead.phone || dash}</IndexTable.Cell>
        <IndexTable.Cell>
          {lead.message ? (
            <div style={{ maxWidth: 240, whiteSpace: 'normal', overflowWrap: 'anywhere' }}>
              <Text as="span">{lead.message}</Text>
            </div>
          ) : (
            dash
          )}
        </IndexTable.Cell>
        <IndexTable.Cell>{buttonCell(lead)}</IndexTable.Cell>
        <IndexTable.Cell>{prizeCell(lead)}</IndexTable.Cell>
        <IndexTable.Cell>{pageCell(lead)}</IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  const clickItems = clicks.data?.items ?? [];
  const mostClicks = Math.max(1, ...clickItems.map((item) => item.clicks));

  return (
    <Page
      title={t('menu.maxleadReport')}
      subtitle={t('leads.subtitle')}
      primaryAction={{
        content: t('leads.export'),
        icon: ExportIcon,
        loading: exporting,
        disabled: backwards || total === 0,
        onAction: () => void exportCsv(),
      }}
    >
      <BlockStack gap="400">
        <Card>
          <InlineGrid columns={{ xs: 1, sm: 3 }} gap="300">
            <TextField
              label={t('leads.filters.from')}
              type="date"
              value={from}
              onChange={change(setFrom)}
              autoComplete="off"
              clearButton
              onClearButtonClick={() => change(setFrom)('')}
            />
            <TextField
              label={t('leads.filters.to')}
              type="date"
              value={to}
              onChange={change(setTo)}
              autoComplete="off"
              clearButton
              onClearButtonClick={() => change(setTo)('')}
              error={backwards ? t('leads.filters.backwards') : undefined}
            />
            <Select
              label={t('leads.filters.source')}
              options={[
                { value: '', label: t('leads.sources.all') },
                ...LEAD_SOURCES.map((value) => ({ value, label: t(`leads.sources.${value}`) })),
              ]}
              value={source}
              onChange={(value) => change(setSource)(value as Source | '')}
            />
          </InlineGrid>
        </Card>
        <Card padding="0">
          <QueryState query={leads} lines={6}>
            {() => (
              <IndexTable
                resourceName={{ singular: t('leads.one'), plural: t('leads.other') }}
                itemCount={items.length}
                selectable={false}
                condensed={smDown}
                loading={leads.loading}
                emptyState={
                  <EmptyState heading={t(filtered ? 'leads.empty.filteredTitle' : 'leads.empty.title')} image={EMPTY_ILLUSTRATION}>
                    <p>{t(filtered ? 'leads.empty.filteredBody' : 'leads.empty.body')}</p>
                  </EmptyState>
                }
                headings={[
                  { title: t('leads.columns.date') },
                  { title: t('leads.columns.source') },
                  { title: t('leads.columns.name') },
                  { title: t('leads.columns.email') },
                  { title: t('leads.columns.phone') },
                  { title: t('leads.columns.message') },
                  { title: t('leads.columns.button') },
                  { title: t('leads.columns.prize') },
                  { title: t('leads.columns.page') },
                ]}
                pagination={pagination}
              >
                {rows}
              </IndexTable>
            )}
          </QueryState>
        </Card>
        {total > 0 ? (
          <Text as="p" tone="subdued" variant="bodySm">
            {t('leads.total', { count: total })}
          </Text>
        ) : null}
        <SectionCard title={t('leads.clicks.title')} help={t('leads.clicks.subtitle')}>
          {clicks.loading && !clicks.data ? (
            <SkeletonBodyText lines={4} />
          ) : clicks.error && !clicks.data ? (
            <Text as="p" tone="critical">
              {clicks.error.message}
            </Text>
          ) : clickItems.length === 0 ? (
            <Text as="p" tone="subdued">
              {t('leads.clicks.none')}
            </Text>
          ) : (
            <ul
              aria-label={t('leads.clicks.title')}
              style={{ listStyle: 'none', margin: 0, padding: 0, display: 'grid', gap: '12px 32px', gridTemplateColumns: 'repeat(auto-fill, minmax(240px, 1fr))' }}
            >
              {clickItems.map((item) => (
                <li key={item.button_type}>
                  <BlockStack gap="100">
                    <InlineStack align="space-between" blockAlign="center" gap="200" wrap={false}>
                      <InlineStack gap="200" blockAlign="center" wrap={false}>
                        <ButtonTypeBadge type={item.button_type} size={22} />
                        <Text as="span">{typeName(item.button_type)}</Text>
                      </InlineStack>
                      <Text as="span" fontWeight="semibold" numeric>
                        {t('leads.clicks.count', { clicks: abbreviate(item.clicks) })}
                      </Text>
                    </InlineStack>
                    <ProgressBar progress={(item.clicks / mostClicks) * 100} size="small" tone="primary" />
                  </BlockStack>
                </li>
              ))}
            </ul>
          )}
        </SectionCard>
      </BlockStack>
    </Page>
  );
}
