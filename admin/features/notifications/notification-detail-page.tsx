import {
  BlockStack,
  Button,
  DataTable,
  InlineStack,
  Layout,
  Link,
  Page,
  ProgressBar,
  Text,
} from '@shopify/polaris';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useParams } from 'wouter';
import { Campaign, EMPTY_STATS, type Notification, NotificationReport, Notification as NotificationSchema } from '../../../shared/contract';
import { formatDate, formatUtcOffset } from '../../../shared/format';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { TimeChart } from '../../components/time-chart';
import { useAppStore } from '../../stores/store';
import { StatusBadge, TypeBadge, isLive, titleOf, useLiveRefresh } from './notification-bits';
import { contentDraftOf } from './notification-form-model';
import { NotificationPreview } from './notification-preview';
import { StatCards, ctrText, useStatsCards } from './stat-cards';
import { useNotificationActions } from './use-notification-actions';
import { LoadFailedPage, PageSkeleton, recordLoadFailure, recordId } from '../../components/query-state';
import { SectionCard } from '../../components/section-card';
import { useLanguage, useAbbreviateNumber } from '../../app/i18n';

/** "Label: value" lines of the message's settings. */
function Facts({ rows }: { rows: { label: string; value: ReactNode }[] }) {
  return (
    <BlockStack gap="200">
      {rows.map((row) => (
        <InlineStack key={row.label} align="space-between" gap="300" wrap={false}>
          <Text as="span" tone="subdued">
            {row.label}
          </Text>
          <div style={{ textAlign: 'right', minWidth: 0, overflowWrap: 'anywhere' }}>{typeof row.value === 'string' ? <Text as="span">{row.value}</Text> : row.value}</div>
        </InlineStack>
      ))}
    </BlockStack>
  );
}

/** The TTL in words: whole days when it is whole days, else hours. */
function expiryText(t: (key: string, params?: Record<string, string | number>) => string, seconds: number): string {
  if (seconds % 86_400 === 0) return t('notificationUi.detail.days', { count: seconds / 86_400 });
  return t('notificationUi.detail.hours', { count: Math.round((seconds / 3600) * 100) / 100 });
}

/**
 * /notification/:notification_id/detail: the message's status and allowed actions; targeted, sent, delivered,
 * failed, clicked and the click-through rate; per platform; failures by reason; sends and clicks over time; the
 * content as sent with its preview; the way to its recipients. Refreshes by itself while waiting or running.
 */
export function NotificationDetailPage() {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const { applicationId, application } = useCurrentApplication();
  const { notification_id: idParam = '' } = useParams<{ notification_id: string }>();
  const [, navigate] = useLocation();
  const lang = useLanguage();
  const id = recordId(idParam);
  const base = `/application/${encodeURIComponent(applicationId)}/notification/${idParam}`;
  const message = useApiQuery(id !== null ? base : null, NotificationSchema, undefined, { showsFailure: true });
  const report = useApiQuery(id !== null ? `${base}/report` : null, NotificationReport);
  const reload = () => {
    message.reload();
    report.reload();
  };
  useLiveRefresh(message.data ? isLive(message.data.status) : false, reload);
  const actions = useNotificationActions(applicationId, reload, () => {
    useAppStore.getState().removeVisitedView(`/application/${encodeURIComponent(applicationId)}/notification/${idParam}/detail`);
    navigate('/notification/basic', { replace: true });
  });
  const campaignId = message.data?.campaign_id ?? null;
  const campaign = useApiQuery(campaignId !== null ? `/application/${encodeURIComponent(applicationId)}/campaign/${campaignId}` : null, Campaign);
  const stats = report.data?.stats ?? message.data?.stats ?? EMPTY_STATS;
  const cards = useStatsCards(stats);
  const date = (value: string | null) => (value ? formatDate(value, '{y}-{m}-{d} {h}:{i}', { lang }) : '—');
  const backAction = { content: t('menu.notifications'), url: '/notification/basic' };

  if (id === null || (message.error && !message.data)) {
    return (
      <LoadFailedPage
        title={t('menu.notificationDetail')}
        backAction={backAction}
        {...recordLoadFailure(message.error, t('notificationUi.form.notFound'), message.reload)}
      />
    );
  }
  if (!message.data) {
    return (
      <PageSkeleton title={t('menu.notificationDetail')} backAction lines={10} />
    );
  }

  const data: Notification = message.data;
  const items = actions.items(data);
  const send = items.find((item) => item.id === 'send');
  const timeline = report.data?.timeline ?? [];
  // The timeline's hours are the application's (the report says which offset), as on the dashboard.
  const utcOffset = report.data?.utc_offset ?? 0;
  const hour = (value: string) => formatDate(value, '{d}/{m} {h}h', { lang, utcOffset });
  const failures = report.data?.failures ?? [];
  const failedTotal = failures.reduce((sum, row) => sum + row.count, 0);
  const schedule = data.schedule;
  const push = data.type === 'web_push' || data.type === 'mobile_push';
  const scheduleText =
    schedule.mode === 'now'
      ? t('notificationUi.schedule.modes.now')
      : schedule.mode === 'at'
        ? t('notificationUi.detail.at', { date: date(schedule.at) })
        : t('notificationUi.detail.localTime', { date: schedule.date, time: schedule.time });

  return (
    <Page
      title={titleOf(data)}
      titleMetadata={<StatusBadge status={data.status} />}
      subtitle={t('notificationUi.detail.subtitle', { type: t(`notificationUi.types.${data.type}`), source: t(`notificationUi.sources.${data.source}`), date: date(data.created_at) })}
      backAction={backAction}
      primaryAction={send ? { content: String(send.content), onAction: send.onAction, disabled: send.disabled, loading: actions.busy === data.id } : undefined}
      secondaryActions={items.filter((item) => item !== send).map(({ id: _id, ...item }) => ({ ...item, content: String(item.content) }))}
    >
      <BlockStack gap="400">
        <StatCards cards={cards} />
        <Layout>
          <Layout.Section>
            <BlockStack gap="400">
              <SectionCard
                gap="300"
                title={t('notificationUi.detail.timeline')}
                help={timeline.length > 0 ? t('notificationUi.detail.timelineZone', { zone: formatUtcOffset(utcOffset) }) : undefined}
              >
                {timeline.length > 0 ? (
                  <TimeChart
                    title={t('notificationUi.detail.timeline')}
                    days={timeline.map((point) => point.at)}
                    formatDay={hour}
                    series={[
                      { label: t('notificationUi.stats.sent'), values: timeline.map((point) => point.sent) },
                      { label: t('notificationUi.stats.delivered'), values: timeline.map((point) => point.delivered) },
                      { label: t('notificationUi.stats.clicked'), values: timeline.map((point) => point.clicked) },
                    ]}
                  />
                ) : (
                  <Text as="p" tone="subdued">
                    {t(data.status === 'new' || data.status === 'waiting' ? 'notificationUi.detail.notSentYet' : 'notificationUi.detail.noTimeline')}
                  </Text>
                )}
              </SectionCard>
              <SectionCard gap="300" title={t('notificationUi.detail.byPlatform')}>
                {report.data && report.data.by_platform.length > 0 ? (
                  <DataTable
                    columnContentTypes={['text', 'numeric', 'numeric', 'numeric', 'numeric', 'numeric', 'numeric']}
                    headings={[
                      t('notificationUi.detail.platform'),
                      t('notificationUi.stats.targeted'),
                      t('notificationUi.stats.sent'),
                      t('notificationUi.stats.delivered'),
                      t('notificationUi.stats.failed'),
                      t('notificationUi.stats.clicked'),
                      t('notificationUi.list.columns.ctr'),
                    ]}
                    rows={report.data.by_platform.map((row) => [
                      t(`messageUi.platforms.${row.platform}`),
                      abbreviate(row.stats.targeted),
                      abbreviate(row.stats.sent),
                      abbreviate(row.stats.delivered),
                      abbreviate(row.stats.failed),
                      abbreviate(row.stats.clicked),
                      ctrText(row.stats, lang),
                    ])}
                  />
                ) : (
                  <Text as="p" tone="subdued">
                    {t('notificationUi.detail.noRecipients')}
                  </Text>
                )}
              </SectionCard>
              <SectionCard gap="300" title={t('notificationUi.detail.failures')}>
                {failures.length > 0 ? (
                  <ul style={{ listStyle: 'none', margin: 0, padding: 0, display: 'grid', gap: 12 }}>
                    {failures.map((row) => (
                      <li key={row.reason}>
                        <BlockStack gap="100">
                          <InlineStack align="space-between" gap="200" wrap={false}>
                            <Text as="span" fontWeight="semibold">
                              {t(`messageUi.reasons.${row.reason}`)}
                            </Text>
                            <Text as="span" numeric>
                              {abbreviate(row.count)}
                            </Text>
                          </InlineStack>
                          <ProgressBar progress={(row.count / Math.max(1, failedTotal)) * 100} size="small" tone="critical" />
                          <Text as="span" tone="subdued" variant="bodySm">
                            {t(`messageUi.reasonHelp.${row.reason}`)}
                          </Text>
                        </BlockStack>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <Text as="p" tone="subdued">
                    {t('notificationUi.detail.noFailures')}
                  </Text>
                )}
              </SectionCard>
            </BlockStack>
          </Layout.Section>
          <Layout.Section variant="oneThird">
            <BlockStack gap="400">
              <NotificationPreview type={data.type} content={contentDraftOf(data.content)} appName={application?.name ?? ''} />
              <SectionCard gap="300" title={t('notificationUi.detail.settings')}>
                <Facts
                  rows={[
                    { label: t('notificationUi.detail.type'), value: <TypeBadge type={data.type} /> },
                    { label: t('notificationUi.schedule.title'), value: scheduleText },
                    { label: t('notificationUi.detail.sendAt'), value: date(data.send_at) },
                    { label: t('notificationUi.detail.startedAt'), value: date(data.started_at) },
                    { label: t('notificationUi.detail.finishedAt'), value: date(data.finished_at) },
                    {
                      label: t('notificationUi.audience.segment'),
                      value: data.audience_segment ? (
                        <Link url={`/segment/${data.audience_segment.id}`}>{data.audience_segment.name}</Link>
                      ) : data.audience.segment_id ? (
                        <Text as="span" tone="subdued">
                          {t('notificationUi.audience.segmentDeleted', { id: data.audience.segment_id })}
                        </Text>
                      ) : (
                        t('notificationUi.audience.everyone', { channel: t(`notificationUi.types.${data.type}`) })
                      ),
                    },
                    { label: t('notificationUi.detail.filters'), value: data.audience.filters ? t('notificationUi.detail.yes') : t('notificationUi.detail.no') },
                    { label: t('notificationUi.audience.tags'), value: data.audience.tags.join(', ') || '—' },
                    { label: t('notificationUi.audience.promotional'), value: data.promotional ? t('notificationUi.detail.yes') : t('notificationUi.detail.no') },
                    ...(push
                      ? [
                          { label: t('notificationUi.schedule.ttl'), value: expiryText(t, data.ttl_seconds) },
                          { label: t('notificationUi.schedule.urgency'), value: t(`notificationUi.schedule.urgencies.${data.urgency.replace('-', '_')}`) },
                        ]
                      : []),
                    {
                      label: t('notificationUi.form.campaign'),
                      value: data.campaign_id ? (
                        <Link url={`/campaign/${data.campaign_id}`}>
                          {campaign.data?.id === data.campaign_id ? campaign.data.name : t('notificationUi.form.campaignNumber', { id: data.campaign_id })}
                        </Link>
                      ) : (
                        '—'
                      ),
                    },
                    { label: t('notificationUi.form.tags'), value: data.tags.join(', ') || '—' },
                  ]}
                />
                <InlineStack>
                  <Button url={`/message?notification_id=${data.id}`}>{t('notificationUi.detail.recipients')}</Button>
                </InlineStack>
              </SectionCard>
            </BlockStack>
          </Layout.Section>
        </Layout>
      </BlockStack>
      {actions.dialogs}
    </Page>
  );
}
