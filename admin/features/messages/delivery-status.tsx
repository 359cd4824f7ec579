import { Badge, BlockStack, Text } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import type { Delivery, DeliveryStatus } from '../../../shared/contract';

const STATUS_TONE: Record<DeliveryStatus, 'info' | 'success' | 'critical' | 'magic' | undefined> = {
  queued: undefined,
  sent: 'info',
  delivered: 'success',
  clicked: 'magic',
  failed: 'critical',
};

/** A delivery's status as a badge, with the reason under it when it failed (the log and the player's page). */
export function DeliveryStatusBadge({ delivery }: { delivery: Pick<Delivery, 'status' | 'reason'> }) {
  const { t } = useTranslation();
  return (
    <BlockStack gap="050" inlineAlign="start">
      <Badge tone={STATUS_TONE[delivery.status]}>{t(`messageUi.statuses.${delivery.status}`)}</Badge>
      {delivery.reason ? (
        <Text as="span" tone="critical" variant="bodySm">
          {t(`messageUi.reasons.${delivery.reason}`)}
        </Text>
      ) : null}
    </BlockStack>
  );
}
