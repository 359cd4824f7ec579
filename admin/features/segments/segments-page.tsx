import { BlockStack, Card, EmptyState, IndexTable, InlineStack, Link, Page, Text, useBreakpoints } from '@shopify/polaris';
import { PlusIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { Segment, page } from '../../../shared/contract';
import { formatDate, formatNumber, relativeTime } from '../../../shared/format';
import { isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState, usePagination } from '../../components/query-state';
import { useAppStore } from '../../stores/store';
import { useLanguage, useAbbreviateNumber } from '../../app/i18n';

const PAGE_SIZE = 20;
const SegmentPage = page(Segment);

/** How many groups and conditions a rule has, in words ("2 groups · 5 conditions"). */
export function ruleSummary(segment: Pick<Segment, 'rule'>, t: (key: string, params?: Record<string, string | number>) => string): string {
  const conditions = segment.rule.any.reduce((sum, group) => sum + group.all.length, 0);
  return `${t('segments.list.groups', { count: segment.rule.any.length })} · ${t('segments.list.conditions', { count: conditions })}`;
}

/** /segment: the saved segments with their last measured size; a new one opens the editor. */
export function SegmentsPage() {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const { smDown } = useBreakpoints();
  const [, navigate] = useLocation();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  const [pageNumber, setPageNumber] = useState(1);
  const lang = useLanguage();
  const base = `/application/${encodeURIComponent(applicationId)}`;
  const segments = useApiQuery(`${base}/segment`, SegmentPage, { page: pageNumber, limit: PAGE_SIZE }, { showsFailure: true });
  const items = segments.data?.items ?? [];
  const pagination = usePagination(t, pageNumber, segments.data?.total, PAGE_SIZE, setPageNumber);

  const size = (segment: Segment) =>
    segment.size === null ? (
      <Text as="span" tone="subdued">
        {t('segments.list.notMeasured')}
      </Text>
    ) : (
      <span title={formatNumber(segment.size, lang)}>
        <Text as="span" numeric>
          {abbreviate(segment.size)}
        </Text>
      </span>
    );
  const measured = (segment: Segment) => (segment.measured_at ? relativeTime(segment.measured_at, Date.now(), t) : '—');
  const name = (segment: Segment) => (
    <Link url={`/segment/${segment.id}`} dataPrimaryLink removeUnderline monochrome>
      <Text as="span" fontWeight="semibold">
        {segment.name}
      </Text>
    </Link>
  );

  const rows = items.map((segment, index) =>
    smDown ? (
      <IndexTable.Row id={String(segment.id)} key={segment.id} position={index}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="100">
            <InlineStack align="space-between" gap="200" wrap={false}>
              <span className="nudge-name">{name(segment)}</span>
              {size(segment)}
            </InlineStack>
            <Text as="span" tone="subdued" variant="bodySm">
              {[ruleSummary(segment, t), t('segments.list.measuredAgo', { when: measured(segment) })].join(' · ')}
            </Text>
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(segment.id)} key={segment.id} position={index}>
        <IndexTable.Cell>
          <BlockStack gap="050">
            {name(segment)}
            <Text as="span" tone="subdued" variant="bodySm">
              {ruleSummary(segment, t)}
            </Text>
          </BlockStack>
        </IndexTable.Cell>
        <IndexTable.Cell>{size(segment)}</IndexTable.Cell>
        <IndexTable.Cell>{measured(segment)}</IndexTable.Cell>
        <IndexTable.Cell>{formatDate(segment.updated_at, '{y}-{m}-{d}', { lang })}</IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  const createAction = {
    content: t('segments.list.create'),
    icon: PlusIcon,
    disabled: readOnly,
    helpText: readOnly ? t('errors.NO_PERMISSION') : undefined,
    onAction: () => navigate('/segment/new'),
  };

  // One "Create segment" on screen: the empty state's while there is no segment (Polaris' empty state guidance),
  // the header's once there are some (and while the list loads or failed to).
  const none = segments.data?.total === 0;

  return (
    <Page title={t('menu.segments')} subtitle={t('segments.list.subtitle')} primaryAction={none ? undefined : createAction}>
      <Card padding="0">
        <QueryState query={segments} lines={5}>
          {() => (
            <IndexTable
              resourceName={{ singular: t('segments.one'), plural: t('segments.other') }}
              itemCount={items.length}
              selectable={false}
              condensed={smDown}
              loading={segments.loading}
              emptyState={
                <EmptyState
                  heading={t('segments.list.emptyTitle')}
                  image={EMPTY_ILLUSTRATION}
                  action={readOnly ? undefined : { content: t('segments.list.create'), onAction: () => navigate('/segment/new') }}
                >
                  <p>{t('segments.list.emptyBody')}</p>
                </EmptyState>
              }
              headings={[
                { title: t('segments.list.columns.name') },
                { title: t('segments.list.columns.size') },
                { title: t('segments.list.columns.measured') },
                { title: t('segments.list.columns.updated') },
              ]}
              pagination={pagination}
            >
              {rows}
            </IndexTable>
          )}
        </QueryState>
      </Card>
    </Page>
  );
}
