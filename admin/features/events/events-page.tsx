import { Badge, BlockStack, Box, Card, EmptyState, IndexTable, InlineStack, Link, Page, Text, useBreakpoints } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EventDefinition, isBuiltinEvent, page } from '../../../shared/contract';
import { formatDate, formatNumber, relativeTime } from '../../../shared/format';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { PropertyBadge } from '../../components/attribute-type-badge';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState, usePagination } from '../../components/query-state';
import { useLanguage, useAbbreviateNumber } from '../../app/i18n';
import { AREA_ROLES, canAccessRoute } from '../../../shared/permissions';
import { useAppStore } from '../../stores/store';
import { performedSegmentUrl } from '../segments/segment-editor-model';

const PAGE_SIZE = 20;
const EventPage = page(EventDefinition);

const EXAMPLE = "nudge('event', 'purchase', { value: 250000, 'delivery.date': '2025-03-02' });";

/** /event: the events the application's players sent, how often, when first and last, and their properties. */
export function EventsPage() {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const { smDown } = useBreakpoints();
  const [pageNumber, setPageNumber] = useState(1);
  const lang = useLanguage();
  const events = useApiQuery(`/application/${encodeURIComponent(applicationId)}/event`, EventPage, { page: pageNumber, limit: PAGE_SIZE }, { showsFailure: true });
  const items = events.data?.items ?? [];
  const pagination = usePagination(t, pageNumber, events.data?.total, PAGE_SIZE, setPageNumber);
  const day = (value: string) => formatDate(value, '{y}-{m}-{d}', { lang });
  // Who did it: a new segment of the players who performed the event, with its live count (segments' roles).
  const seesSegments = canAccessRoute(useAppStore((state) => state.roles), { roles: AREA_ROLES.segments });
  const whoDidIt = (event: EventDefinition) =>
    seesSegments ? (
      <Link url={performedSegmentUrl(event.name)} removeUnderline>
        {t('events.whoDidIt')}
      </Link>
    ) : null;

  /** The event's name, marked when the SDK records it by itself. */
  function name(event: EventDefinition) {
    return (
      <InlineStack gap="200" blockAlign="center" wrap={false}>
        <Text as="span" fontWeight="semibold" truncate>
          <span className="nudge-mono">{event.name}</span>
        </Text>
        {isBuiltinEvent(event.name) ? <Badge size="small">{t('events.builtin')}</Badge> : null}
      </InlineStack>
    );
  }

  function properties(event: EventDefinition) {
    const entries = Object.entries(event.properties);
    if (entries.length === 0) {
      return (
        <Text as="span" tone="subdued">
          {t('events.noProperties')}
        </Text>
      );
    }
    return (
      <InlineStack gap="200">
        {entries.map(([name, type]) => (
          <PropertyBadge key={name} name={name} type={type} />
        ))}
      </InlineStack>
    );
  }

  const rows = items.map((event, index) =>
    smDown ? (
      <IndexTable.Row id={event.name} key={event.name} position={index}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="150">
            <InlineStack align="space-between" gap="200" wrap={false}>
              {name(event)}
              <Text as="span" numeric>
                {abbreviate(event.count)}
              </Text>
            </InlineStack>
            <Text as="span" tone="subdued" variant="bodySm">
              {t('events.seenRange', { first: day(event.first_seen_at), last: relativeTime(event.last_seen_at, Date.now(), t) })}
            </Text>
            {properties(event)}
            {whoDidIt(event)}
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={event.name} key={event.name} position={index}>
        <IndexTable.Cell>{name(event)}</IndexTable.Cell>
        <IndexTable.Cell>
          <span title={formatNumber(event.count, lang)}>
            <Text as="span" numeric alignment="end">
              {abbreviate(event.count)}
            </Text>
          </span>
        </IndexTable.Cell>
        <IndexTable.Cell>{day(event.first_seen_at)}</IndexTable.Cell>
        <IndexTable.Cell>
          <span title={formatDate(event.last_seen_at, '{y}-{m}-{d} {h}:{i}:{s}', { lang })}>{relativeTime(event.last_seen_at, Date.now(), t)}</span>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <div style={{ maxWidth: 420, whiteSpace: 'normal' }}>{properties(event)}</div>
        </IndexTable.Cell>
        {seesSegments ? <IndexTable.Cell>{whoDidIt(event)}</IndexTable.Cell> : null}
      </IndexTable.Row>
    ),
  );

  return (
    <Page title={t('menu.events')} subtitle={t('events.subtitle')}>
      <Card padding="0">
        <QueryState query={events} lines={6}>
          {() => (
            <IndexTable
              resourceName={{ singular: t('events.one'), plural: t('events.other') }}
              itemCount={items.length}
              selectable={false}
              condensed={smDown}
              loading={events.loading}
              emptyState={
                <EmptyState heading={t('events.empty.title')} image={EMPTY_ILLUSTRATION}>
                  <BlockStack gap="300">
                    <p>{t('events.empty.body')}</p>
                    <Box background="bg-surface-secondary" padding="300" borderRadius="200">
                      <pre className="nudge-mono" style={{ margin: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', textAlign: 'left' }}>
                        {EXAMPLE}
                      </pre>
                    </Box>
                    <p>{t('events.empty.dates')}</p>
                  </BlockStack>
                </EmptyState>
              }
              headings={[
                { title: t('events.columns.name') },
                { title: t('events.columns.count'), alignment: 'end' },
                { title: t('events.columns.firstSeen') },
                { title: t('events.columns.lastSeen') },
                { title: t('events.columns.properties') },
                ...(seesSegments ? [{ title: t('events.columns.players'), hidden: true }] : []),
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
