import { BlockStack, Card, InlineGrid, Text } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { type NotificationStats, ctr, hasCtr } from '../../../shared/contract';
import { formatPercent, formatShare } from '../../../shared/format';
import type { Language } from '../../../shared/i18n';
import { useFormatNumber, useAbbreviateNumber, useLanguage } from '../../app/i18n';

/** A click-through rate as the console shows it: '—' until something was sent, as there is no rate yet (not 0%). */
export function ctrText(stats: NotificationStats, lang: Language): string {
  return hasCtr(stats) ? formatPercent(ctr(stats), lang) : '—';
}

export interface StatCard {
  label: string;
  /** A count (abbreviated, whole in the tooltip) or a ready text such as a rate. */
  value: number | string;
  detail?: string;
}

/** A row of figure cards in Polaris' analytics style; two a row on a phone. */
export function StatCards({ cards }: { cards: readonly StatCard[] }) {
  const abbreviate = useAbbreviateNumber();
  const number = useFormatNumber();
  return (
    <InlineGrid columns={{ xs: 2, sm: 3, lg: cards.length > 4 ? 6 : 4 }} gap="400">
      {cards.map((card) => (
        <Card key={card.label}>
          <BlockStack gap="100">
            <Text as="h3" variant="bodyMd" tone="subdued">
              {card.label}
            </Text>
            <span title={typeof card.value === 'number' ? number(card.value) : undefined}>
              <Text as="p" variant="headingXl">
                {typeof card.value === 'number' ? abbreviate(card.value) : card.value}
              </Text>
            </span>
            {card.detail ? (
              <Text as="p" variant="bodySm" tone="subdued">
                {card.detail}
              </Text>
            ) : null}
          </BlockStack>
        </Card>
      ))}
    </InlineGrid>
  );
}

/**
 * A message's (or a campaign's) counters as cards: targeted, sent, delivered, failed, clicked and the click-through rate.
 * A share of nothing (sent of none targeted: a draft, a message not yet run) is left out rather than shown as 0%.
 */
export function useStatsCards(stats: NotificationStats): StatCard[] {
  const { t } = useTranslation();
  const lang = useLanguage();
  const share = (key: 'ofTargeted' | 'ofSent', part: number, whole: number) =>
    whole > 0 ? t(`notificationUi.stats.${key}`, { share: formatShare(part, whole, lang) }) : undefined;
  return [
    { label: t('notificationUi.stats.targeted'), value: stats.targeted },
    { label: t('notificationUi.stats.sent'), value: stats.sent, detail: share('ofTargeted', stats.sent, stats.targeted) },
    { label: t('notificationUi.stats.delivered'), value: stats.delivered, detail: share('ofSent', stats.delivered, stats.sent) },
    { label: t('notificationUi.stats.failed'), value: stats.failed, detail: share('ofTargeted', stats.failed, stats.targeted) },
    { label: t('notificationUi.stats.clicked'), value: stats.clicked },
    { label: t('notificationUi.stats.ctr'), value: ctrText(stats, lang), detail: t('notificationUi.stats.ctrHelp') },
  ];
}
