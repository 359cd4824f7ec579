import {
  BlockStack,
  Box,
  Button,
  ButtonGroup,
  Card,
  EmptyState,
  InlineGrid,
  InlineStack,
  Layout,
  Link,
  Page,
  SkeletonBodyText,
  SkeletonDisplayText,
} from '@shopify/polaris';
import { ClipboardIcon } from '@shopify/polaris-icons';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearch } from 'wouter';
import { Dashboard } from '../../../shared/contract';
import { formatShare, formatUtcOffset } from '../../../shared/format';
import { AREA_ROLES, canAccessRoute } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { useReplaceQuery } from '../../app/use-replace-query';
import { copyText } from '../../components/clipboard';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { TimeChart, partialWhenToday } from '../../components/time-chart';
import { useAppStore } from '../../stores/store';
import { Metric, Shares } from './dashboard-cards';
import { MessageStatsSection } from './message-stats-section';
import { performedSegmentUrl } from '../segments/segment-editor-model';
import { LoadFailedCard } from '../../components/query-state';
import { SectionCard } from '../../components/section-card';
import { useLanguage, useAbbreviateNumber, useFormatDay } from '../../app/i18n';

export const PERIODS = [7, 30, 90] as const;
export type Period = (typeof PERIODS)[number];
const DEFAULT_PERIOD: Period = 30;

/** The period in the address (`?period=7`), or the default. */
export function periodOf(search: string): Period {
  const value = Number(new URLSearchParams(search).get('period'));
  return (PERIODS as readonly number[]).includes(value) ? (value as Period) : DEFAULT_PERIOD;
}

/** The shop's script tag, with this console's address and the application's client key. */
export function installSnippet(origin: string, clientKey: string): string {
  return `<script async src="${origin}/sdk/nudge.js" data-app="${clientKey}"></script>`;
}

function DashboardSkeleton() {
  return (
    <BlockStack gap="400">
      <InlineGrid columns={{ xs: 2, md: 4 }} gap="400">
        {[0, 1, 2, 3].map((n) => (
          <Card key={n}>
            <BlockStack gap="200">
              <SkeletonBodyText lines={1} />
              <SkeletonDisplayText size="medium" />
            </BlockStack>
          </Card>
        ))}
      </InlineGrid>
      <Card>
        <SkeletonBodyText lines={8} />
      </Card>
    </BlockStack>
  );
}

/** What a new application shows until its first player arrives: how to put the script on the shop. */
function InstallScript() {
  const { t } = useTranslation();
  const { application } = useCurrentApplication();
  const showToast = useAppStore((state) => state.showToast);
  const snippet = application ? installSnippet(window.location.origin, application.client_key) : null;
  return (
    <Card>
      <EmptyState heading={t('dashboard.empty.title')} image={EMPTY_ILLUSTRATION}>
        <BlockStack gap="300">
          <p>{t('dashboard.empty.body')}</p>
          {snippet ? (
            <Box background="bg-surface-secondary" padding="300" borderRadius="200">
              <pre className="nudge-mono" style={{ margin: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', textAlign: 'left' }}>
                {snippet}
              </pre>
            </Box>
          ) : null}
          {snippet ? (
            <InlineStack align="center">
              <Button
                icon={ClipboardIcon}
                onClick={() =>
                  void copyText(snippet).then((copied) => showToast(copied ? t('common.copied') : t('common.unknownError'), { error: !copied }))
                }
              >
                {t('dashboard.empty.copy')}
              </Button>
            </InlineStack>
          ) : null}
          <p>{t('dashboard.empty.events')}</p>
        </BlockStack>
      </EmptyState>
    </Card>
  );
}

/**
 * The application's root route: players and subscribers in total, by platform and by channel, new and
 * active players, sessions and page views per day over 7, 30 or 90 days, the top events, and (for the roles that
 * see notifications) what the messages did over the same days.
 */
export function DashboardPage() {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const { applicationId, application } = useCurrentApplication();
  const search = useSearch();
  const replaceQuery = useReplaceQuery();
  const period = periodOf(search);
  const lang = useLanguage();
  // Message statistics belong to the Notifications area (spec §6).
  const roles = useAppStore((state) => state.roles);
  const seesMessages = canAccessRoute(roles, { roles: AREA_ROLES.notifications });
  // A top event leads to a new segment of the players who performed it in the period (segments' roles).
  const seesSegments = canAccessRoute(roles, { roles: AREA_ROLES.segments });
  const dashboard = useApiQuery(`/application/${encodeURIComponent(applicationId)}/dashboard`, Dashboard, { days: period }, { showsFailure: true });
  const data = dashboard.data;
  const day = useFormatDay();

  const periodPicker = (
    <ButtonGroup variant="segmented">
      {PERIODS.map((days) => (
        <Button
          key={days}
          pressed={period === days}
          onClick={() => replaceQuery(days === DEFAULT_PERIOD ? '' : `period=${days}`)}
        >
          {t('dashboard.period', { count: days })}
        </Button>
      ))}
    </ButtonGroup>
  );

  let body: ReactNode;
  if (dashboard.error && !data) {
    body = <LoadFailedCard message={dashboard.error.message} onRetry={dashboard.reload} />;
  } else if (!data) {
    body = <DashboardSkeleton />;
  } else if (data.players === 0) {
    body = <InstallScript />;
  } else {
    const days = data.days.map((entry) => entry.day);
    const partialLast = partialWhenToday(days, t('dashboard.charts.partialDay', { zone: formatUtcOffset(data.utc_offset) }), data.utc_offset);
    const sum = (key: 'new_players' | 'sessions' | 'page_views') => data.days.reduce((total, entry) => total + entry[key], 0);
    body = (
      <BlockStack gap="400">
        <InlineGrid columns={{ xs: 2, md: 4 }} gap="400">
          <Metric label={t('dashboard.metrics.players')} value={data.players} />
          <Metric label={t('dashboard.metrics.subscribers')} value={data.subscribers} detail={t('dashboard.metrics.ofPlayers', { share: formatShare(data.subscribers, data.players, lang, 0) })} />
          <Metric label={t('dashboard.metrics.newPlayers')} value={sum('new_players')} detail={t('dashboard.metrics.inPeriod', { count: period })} />
          <Metric label={t('dashboard.metrics.sessions')} value={sum('sessions')} detail={t('dashboard.metrics.pageViews', { count: abbreviate(sum('page_views')) })} />
        </InlineGrid>
        <Layout>
          <Layout.Section>
            <BlockStack gap="400">
              <SectionCard gap="300" title={t('dashboard.charts.players')}>
                <TimeChart
                  title={t('dashboard.charts.players')}
                  days={days}
                  formatDay={day}
                  partialLast={partialLast}
                  series={[
                    { label: t('dashboard.charts.new'), values: data.days.map((entry) => entry.new_players) },
                    { label: t('dashboard.charts.active'), values: data.days.map((entry) => entry.active_players) },
                  ]}
                />
              </SectionCard>
              <SectionCard gap="300" title={t('dashboard.charts.activity')}>
                <TimeChart
                  title={t('dashboard.charts.activity')}
                  kind="bar"
                  days={days}
                  formatDay={day}
                  partialLast={partialLast}
                  series={[
                    { label: t('dashboard.charts.sessions'), values: data.days.map((entry) => entry.sessions) },
                    { label: t('dashboard.charts.pageViews'), values: data.days.map((entry) => entry.page_views) },
                  ]}
                />
              </SectionCard>
            </BlockStack>
          </Layout.Section>
          <Layout.Section variant="oneThird">
            <BlockStack gap="400">
              <Shares
                title={t('dashboard.byPlatform')}
                empty={t('dashboard.none')}
                rows={data.by_platform.map((row) => ({
                  key: row.platform,
                  label: t(`players.platforms.${row.platform}`),
                  value: row.players,
                  detail: t('dashboard.subscribersShort', { count: abbreviate(row.subscribers) }),
                }))}
              />
              <Shares
                title={t('dashboard.byChannel')}
                empty={t('dashboard.noChannels')}
                rows={data.by_channel.map((row) => ({ key: row.channel, label: t(`players.channels.${row.channel}`), value: row.players }))}
              />
              <Shares
                title={t('dashboard.topEvents')}
                empty={t('dashboard.noEvents')}
                rows={data.top_events.map((row) => {
                  const name = <span className="nudge-mono">{row.name}</span>;
                  const label = seesSegments ? (
                    <Link url={performedSegmentUrl(row.name, period)} removeUnderline accessibilityLabel={t('dashboard.topEventPlayers', { name: row.name, count: period })}>
                      {name}
                    </Link>
                  ) : (
                    name
                  );
                  return { key: row.name, label, value: row.count };
                })}
              />
            </BlockStack>
          </Layout.Section>
        </Layout>
        {seesMessages ? <MessageStatsSection applicationId={applicationId} days={period} /> : null}
      </BlockStack>
    );
  }

  return (
    <Page
      title={t('menu.dashboard')}
      subtitle={
        application
          ? `${t('dashboard.subtitle', { application: application.name })} · ${t('dashboard.timezone', { zone: formatUtcOffset(data?.utc_offset ?? application.utc_offset) })}`
          : undefined
      }
      primaryAction={periodPicker}
    >
      {body}
    </Page>
  );
}
