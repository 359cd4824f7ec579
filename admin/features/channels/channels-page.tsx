import { Badge, BlockStack, Button, Card, InlineGrid, InlineStack, Page, SkeletonBodyText, Text } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import {
  type AudienceChannel,
  Dashboard,
  MessageStats,
  type MessageStatsChannel,
  type NotificationType,
  type PlatformKind,
  TYPE_PLATFORMS,
} from '../../../shared/contract';
import { AREA_ROLES, canAccessRoute, isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { LoadFailedCard } from '../../components/query-state';
import { useAbbreviateNumber, useLanguage } from '../../app/i18n';
import { ctrText } from '../notifications/stat-cards';

/** The channels in the order the console names them, each with the notification type that sends through it. */
export const CHANNELS: readonly { channel: AudienceChannel; type: NotificationType }[] = [
  { channel: 'web_push', type: 'web_push' },
  { channel: 'mobile_push', type: 'mobile_push' },
  { channel: 'sms', type: 'sms' },
  { channel: 'facebook', type: 'facebook' },
];

const DAYS = 30;

/** A channel's messages of the period: its platforms' totals added up. */
export function channelTotals(rows: readonly MessageStatsChannel[], kinds: readonly PlatformKind[]) {
  const mine = rows.filter((row) => (kinds as readonly string[]).includes(row.platform));
  const sum = (key: 'sent' | 'delivered' | 'clicked' | 'failed') => mine.reduce((total, row) => total + row[key], 0);
  return { targeted: 0, sent: sum('sent'), delivered: sum('delivered'), clicked: sum('clicked'), failed: sum('failed') };
}

function Figure({ label, value, detail }: { label: string; value: number | string; detail?: string }) {
  const abbreviate = useAbbreviateNumber();
  return (
    <BlockStack gap="050">
      <Text as="span" tone="subdued" variant="bodySm">
        {label}
      </Text>
      <Text as="span" variant="headingLg" numeric>
        {typeof value === 'number' ? abbreviate(value) : value}
      </Text>
      {detail ? (
        <Text as="span" tone="subdued" variant="bodySm">
          {detail}
        </Text>
      ) : null}
    </BlockStack>
  );
}

/**
 * /channel: web push, mobile push (iOS and Android), SMS and Facebook Messenger: whether each is set up, how
 * many players each reaches now, what was sent through it in the last 30 days, and the ways to configure it
 * and to send through it.
 */
export function ChannelsPage() {
  const abbreviate = useAbbreviateNumber();
  const lang = useLanguage();
  const { t } = useTranslation();
  const { applicationId, application } = useCurrentApplication();
  const roles = useAppStore((state) => state.roles);
  const readOnly = isViewerOnly(roles);
  const mayConfigure = canAccessRoute(roles, { roles: AREA_ROLES.platform });
  const base = `/application/${encodeURIComponent(applicationId)}`;
  const dashboard = useApiQuery(`${base}/dashboard`, Dashboard, { days: DAYS }, { showsFailure: true });
  const stats = useApiQuery(`${base}/dashboard/messages`, MessageStats, { days: DAYS });
  const active = application?.platforms ?? [];

  return (
    <Page title={t('menu.channels')} subtitle={t('channelUi.subtitle', { count: DAYS })} secondaryActions={[{ content: t('menu.messages'), url: '/message' }]}>
      {dashboard.error && !dashboard.data ? (
        <LoadFailedCard message={dashboard.error.message} onRetry={dashboard.reload} />
      ) : (
        <InlineGrid columns={{ xs: 1, md: 2 }} gap="400">
          {CHANNELS.map(({ channel, type }) => {
            const kinds = TYPE_PLATFORMS[type];
            const on = kinds.filter((kind) => active.includes(kind));
            const reachable = dashboard.data?.by_channel.find((row) => row.channel === channel)?.players ?? 0;
            const totals = stats.data ? channelTotals(stats.data.by_channel, kinds) : null;
            const platforms =
              channel === 'mobile_push'
                ? kinds.map((kind) => `${t(`messageUi.platforms.${kind}`)}: ${t(on.includes(kind) ? 'channelUi.active' : 'channelUi.notSetUp')}`).join(' · ')
                : null;
            return (
              <Card key={channel}>
                <BlockStack gap="400">
                  <InlineStack align="space-between" blockAlign="center" gap="200">
                    <Text as="h2" variant="headingMd">
                      {t(`players.channels.${channel}`)}
                    </Text>
                    <Badge tone={on.length > 0 ? 'success' : undefined} progress={on.length > 0 ? 'complete' : 'incomplete'}>
                      {t(on.length > 0 ? 'channelUi.active' : 'channelUi.notSetUp')}
                    </Badge>
                  </InlineStack>
                  <Text as="p" tone="subdued">
                    {t(`channelUi.help.${channel}`)}
                  </Text>
                  {platforms ? (
                    <Text as="p" variant="bodySm">
                      {platforms}
                    </Text>
                  ) : null}
                  {dashboard.data ? (
                    <InlineGrid columns={{ xs: 2, sm: 4 }} gap="300">
                      <Figure label={t('channelUi.reachable')} value={reachable} />
                      <Figure label={t('channelUi.sent', { count: DAYS })} value={totals?.sent ?? '—'} />
                      <Figure label={t('notificationUi.stats.clicked')} value={totals?.clicked ?? '—'} />
                      <Figure label={t('notificationUi.stats.ctr')} value={totals ? ctrText(totals, lang) : '—'} detail={totals && totals.failed > 0 ? t('channelUi.failed', { failed: abbreviate(totals.failed) }) : undefined} />
                    </InlineGrid>
                  ) : (
                    <SkeletonBodyText lines={2} />
                  )}
                  <InlineStack gap="200">
                    <Button variant="primary" url={`/notification/${type}`} disabled={readOnly || on.length === 0}>
                      {t('channelUi.send')}
                    </Button>
                    {mayConfigure ? <Button url="/platform">{t(on.length > 0 ? 'channelUi.settings' : 'channelUi.configure')}</Button> : null}
                  </InlineStack>
                  {on.length === 0 && !mayConfigure ? (
                    <Text as="p" tone="subdued" variant="bodySm">
                      {t('notificationUi.picker.askAdmin')}
                    </Text>
                  ) : null}
                </BlockStack>
              </Card>
            );
          })}
        </InlineGrid>
      )}
    </Page>
  );
}
