import { BlockStack, Box, Card, EmptyState, InlineStack, Layout, Link, SkeletonBodyText, Text } from '@shopify/polaris';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { MessageStats } from '../../../shared/contract';
import { formatDate, formatPercent, formatShare, formatUtcOffset } from '../../../shared/format';
import { useApiQuery } from '../../api/use-api-query';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { TimeChart, partialWhenToday } from '../../components/time-chart';
import { TypeBadge } from '../notifications/notification-bits';
import { StatCards } from '../notifications/stat-cards';
import { Shares } from './dashboard-cards';
import { LoadFailedCard } from '../../components/query-state';
import { SectionCard } from '../../components/section-card';
import { useLanguage, useAbbreviateNumber, useFormatDay } from '../../app/i18n';

export interface MessageStatsSectionProps {
  applicationId: string;
  /** 7, 30 or 90 days, as the dashboard's period picker says. */
  days: 7 | 30 | 90;
}

/**
 * The dashboard's messages: recipients sent, delivered and clicked per day, totals per channel, and the most
 * clicked messages of the period with their click-through rate.
 */
export function MessageStatsSection({ applicationId, days }: MessageStatsSectionProps) {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const lang = useLanguage();
  const stats = useApiQuery(`/application/${encodeURIComponent(applicationId)}/dashboard/messages`, MessageStats, { days }, { showsFailure: true });
  const data = stats.data;
  const day = useFormatDay();

  // Outside a card: on a phone Polaris' cards run edge to edge, so the heading keeps the page's own inset.
  const heading = (
    <Box paddingInline={{ xs: '400', sm: '0' }}>
      <BlockStack gap="100">
        <Text as="h2" variant="headingLg">
          {t('dashboard.messages.title')}
        </Text>
        <Text as="p" tone="subdued">
          {t('dashboard.messages.subtitle', { count: days })}
        </Text>
      </BlockStack>
    </Box>
  );

  const frame = (gap: '300' | '400', children: ReactNode) => (
    <section aria-label={t('dashboard.messages.title')}>
      <BlockStack gap={gap}>{children}</BlockStack>
    </section>
  );

  if (stats.error && !data) {
    return frame(
      '300',
      <>
        {heading}
        <LoadFailedCard message={stats.error.message} onRetry={stats.reload} />
      </>,
    );
  }
  if (!data) {
    return frame(
      '300',
      <>
        {heading}
        <Card>
          <SkeletonBodyText lines={6} />
        </Card>
      </>,
    );
  }
  if (data.totals.sent === 0 && data.totals.failed === 0 && data.top_messages.length === 0) {
    return frame(
      '300',
      <>
        {heading}
        <Card>
          <EmptyState
            heading={t('dashboard.messages.emptyTitle', { count: days })}
            image={EMPTY_ILLUSTRATION}
            action={{ content: t('dashboard.messages.emptyAction'), url: '/notification/basic' }}
          >
            <p>{t('dashboard.messages.emptyBody')}</p>
          </EmptyState>
        </Card>
      </>,
    );
  }

  const { totals } = data;
  const chartDays = data.days.map((entry) => entry.day);
  return frame(
    '400',
    <>
      {heading}
      <StatCards
        cards={[
          { label: t('notificationUi.stats.sent'), value: totals.sent },
          { label: t('notificationUi.stats.delivered'), value: totals.delivered, detail: t('notificationUi.stats.ofSent', { share: formatShare(totals.delivered, totals.sent, lang) }) },
          { label: t('notificationUi.stats.clicked'), value: totals.clicked, detail: t('dashboard.messages.ctr', { ctr: formatPercent(totals.ctr, lang) }) },
          { label: t('notificationUi.stats.failed'), value: totals.failed },
        ]}
      />
      <Layout>
        <Layout.Section>
          <SectionCard gap="300" title={t('dashboard.messages.perDay')}>
            <TimeChart
              title={t('dashboard.messages.perDay')}
              days={chartDays}
              formatDay={day}
              partialLast={partialWhenToday(chartDays, t('dashboard.charts.partialDay', { zone: formatUtcOffset(data.utc_offset) }), data.utc_offset)}
              series={[
                { label: t('notificationUi.stats.sent'), values: data.days.map((entry) => entry.sent) },
                { label: t('notificationUi.stats.delivered'), values: data.days.map((entry) => entry.delivered) },
                { label: t('notificationUi.stats.clicked'), values: data.days.map((entry) => entry.clicked) },
              ]}
            />
          </SectionCard>
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <Shares
            title={t('dashboard.messages.byChannel')}
            empty={t('dashboard.messages.noChannel')}
            rows={data.by_channel
              .filter((row) => row.sent > 0 || row.failed > 0)
              .map((row) => ({
                key: row.platform,
                label: t(`messageUi.platforms.${row.platform}`),
                value: row.sent,
                detail: t('dashboard.messages.clickedShort', { clicked: abbreviate(row.clicked) }),
              }))}
          />
        </Layout.Section>
      </Layout>
      <SectionCard gap="300" title={t('dashboard.messages.top')}>
        {data.top_messages.length === 0 ? (
          <Text as="p" tone="subdued">
            {t('dashboard.messages.noTop')}
          </Text>
        ) : (
          <ol style={{ margin: 0, paddingLeft: 20, display: 'grid', gap: 12 }}>
            {data.top_messages.map((message) => (
              <li key={message.id}>
                <InlineStack align="space-between" blockAlign="center" gap="200">
                  <BlockStack gap="050">
                    <Link url={`/notification/${message.id}/detail`} removeUnderline>
                      {message.title}
                    </Link>
                    <InlineStack gap="150" blockAlign="center">
                      <TypeBadge type={message.type} />
                      {message.send_at ? (
                        <Text as="span" tone="subdued" variant="bodySm">
                          {formatDate(message.send_at, '{y}-{m}-{d}', { lang })}
                        </Text>
                      ) : null}
                    </InlineStack>
                  </BlockStack>
                  <Text as="span" numeric>
                    {t('dashboard.messages.topLine', {
                      sent: abbreviate(message.stats.sent),
                      clicked: abbreviate(message.stats.clicked),
                      ctr: formatPercent(message.ctr, lang),
                    })}
                  </Text>
                </InlineStack>
              </li>
            ))}
          </ol>
        )}
      </SectionCard>
    </>,
  );
}
