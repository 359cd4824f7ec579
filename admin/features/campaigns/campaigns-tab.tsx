import { BlockStack, Card, EmptySearchResult, EmptyState, Filters, IndexTable, InlineStack, Link, Text, useBreakpoints } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { Campaign, page } from '../../../shared/contract';
import { ctrText } from '../notifications/stat-cards';
import { formatDate } from '../../../shared/format';
import { isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState, usePagination } from '../../components/query-state';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { useAppStore } from '../../stores/store';
import { NotificationsShell } from '../notifications/notifications-shell';
import { CampaignFormModal } from './campaign-modals';
import { useLanguage, useAbbreviateNumber } from '../../app/i18n';

const PAGE_SIZE = 20;
const CampaignPage = page(Campaign);

/** /notification/campaign: campaigns (named groups of messages) with their totals; a row opens the campaign. */
export function CampaignsTab() {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const [, navigate] = useLocation();
  const { smDown } = useBreakpoints();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  const [text, setText] = useState('');
  const q = useDebouncedValue(text.trim(), 400);
  const [pageNumber, setPageNumber] = useState(1);
  const [creating, setCreating] = useState(false);
  const lang = useLanguage();
  const list = useApiQuery(`/application/${encodeURIComponent(applicationId)}/campaign`, CampaignPage, { page: pageNumber, limit: PAGE_SIZE, q: q || undefined }, { showsFailure: true });
  const pagination = usePagination(t, pageNumber, list.data?.total, PAGE_SIZE, setPageNumber);
  const items = list.data?.items ?? [];
  const url = (campaign: Campaign) => `/campaign/${campaign.id}`;

  const name = (campaign: Campaign) => (
    <BlockStack gap="050">
      <Link url={url(campaign)} dataPrimaryLink removeUnderline monochrome>
        <Text as="span" fontWeight="semibold">
          {campaign.name}
        </Text>
      </Link>
      {campaign.description ? (
        <div style={{ maxWidth: 360 }}>
          <Text as="span" tone="subdued" variant="bodySm" truncate>
            {campaign.description}
          </Text>
        </div>
      ) : null}
    </BlockStack>
  );
  const numeric = (value: string) => (
    <Text as="span" alignment="end" numeric>
      {value}
    </Text>
  );

  const rows = items.map((campaign, index) =>
    smDown ? (
      <IndexTable.Row id={String(campaign.id)} key={campaign.id} position={index} onClick={() => navigate(url(campaign))}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="100">
            {name(campaign)}
            <InlineStack gap="200">
              <Text as="span" tone="subdued" variant="bodySm">
                {[
                  t('campaignUi.list.messagesCount', { count: campaign.messages }),
                  t('campaignUi.list.sentCount', { sent: abbreviate(campaign.stats.sent) }),
                  `${t('notificationUi.list.columns.ctr')} ${ctrText(campaign.stats, lang)}`,
                ].join(' · ')}
              </Text>
            </InlineStack>
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(campaign.id)} key={campaign.id} position={index} onClick={() => navigate(url(campaign))}>
        <IndexTable.Cell>{name(campaign)}</IndexTable.Cell>
        <IndexTable.Cell>{numeric(String(campaign.messages))}</IndexTable.Cell>
        <IndexTable.Cell>{numeric(abbreviate(campaign.stats.sent))}</IndexTable.Cell>
        <IndexTable.Cell>{numeric(abbreviate(campaign.stats.clicked))}</IndexTable.Cell>
        <IndexTable.Cell>{numeric(ctrText(campaign.stats, lang))}</IndexTable.Cell>
        <IndexTable.Cell>{formatDate(campaign.created_at, '{y}-{m}-{d}', { lang })}</IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  return (
    <NotificationsShell
      tab="campaign"
      primaryAction={{ content: t('campaignUi.list.create'), onAction: () => setCreating(true), disabled: readOnly, helpText: readOnly ? t('errors.NO_PERMISSION') : undefined }}
    >
      <Card padding="0">
        <Filters
          queryValue={text}
          queryPlaceholder={t('campaignUi.list.search')}
          onQueryChange={(value) => {
            setText(value);
            setPageNumber(1);
          }}
          onQueryClear={() => setText('')}
          filters={[]}
          hideFilters
          onClearAll={() => setText('')}
        />
        <QueryState query={list} lines={5}>
          {() => (
            <IndexTable
              resourceName={{ singular: t('campaignUi.one'), plural: t('campaignUi.other') }}
              itemCount={items.length}
              selectable={false}
              condensed={smDown}
              loading={list.loading}
              emptyState={
                q ? (
                  <EmptySearchResult title={t('campaignUi.list.noMatch')} description={t('notificationUi.list.noMatchBody')} withIllustration />
                ) : (
                  <EmptyState
                    heading={t('campaignUi.list.emptyTitle')}
                    image={EMPTY_ILLUSTRATION}
                    action={readOnly ? undefined : { content: t('campaignUi.list.create'), onAction: () => setCreating(true) }}
                  >
                    <p>{t('campaignUi.list.emptyBody')}</p>
                  </EmptyState>
                )
              }
              headings={[
                { title: t('campaignUi.list.columns.name') },
                { title: t('campaignUi.list.columns.messages'), alignment: 'end' },
                { title: t('campaignUi.list.columns.sent'), alignment: 'end' },
                { title: t('campaignUi.list.columns.clicked'), alignment: 'end' },
                { title: t('notificationUi.list.columns.ctr'), alignment: 'end' },
                { title: t('campaignUi.list.columns.created') },
              ]}
              pagination={pagination}
            >
              {rows}
            </IndexTable>
          )}
        </QueryState>
      </Card>
      {creating ? (
        <CampaignFormModal
          applicationId={applicationId}
          onClose={() => setCreating(false)}
          onSaved={(campaign) => {
            setCreating(false);
            navigate(`/campaign/${campaign.id}`);
          }}
        />
      ) : null}
    </NotificationsShell>
  );
}
