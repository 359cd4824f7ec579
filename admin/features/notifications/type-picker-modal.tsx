import { BlockStack, Box, Button, InlineStack, Link, Modal, Text } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { NOTIFICATION_TYPES, type NotificationType } from '../../../shared/contract';
import { AREA_ROLES, canAccessRoute } from '../../../shared/permissions';
import { useCurrentApplication } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { TypeBadge, typeAvailable } from './notification-bits';

export interface TypePickerModalProps {
  onClose(): void;
  /** The new message belongs to this campaign. */
  campaignId?: number;
  /** The new message starts from this template (its type is then the only choice). */
  templateId?: number;
  /** Offer only this type (a template's). */
  onlyType?: NotificationType;
  /** The new message goes to this segment. */
  segmentId?: number;
}

/** The URL of the create form of a type, with the campaign, template or segment it starts from. */
export function createUrl(type: NotificationType, options: { campaignId?: number; templateId?: number; segmentId?: number } = {}): string {
  const params = new URLSearchParams();
  if (options.campaignId) params.set('campaign_id', String(options.campaignId));
  if (options.templateId) params.set('template_id', String(options.templateId));
  if (options.segmentId) params.set('segment_id', String(options.segmentId));
  const query = params.toString();
  return `/notification/${type}${query ? `?${query}` : ''}`;
}

/**
 * "Create": the four types, each saying what it reaches; a type whose platform is not configured and active is
 * shown disabled with the way to Settings (spec §5 "A platform must be configured before a notification is created").
 */
export function TypePickerModal({ onClose, campaignId, templateId, onlyType, segmentId }: TypePickerModalProps) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const { application } = useCurrentApplication();
  const roles = useAppStore((state) => state.roles);
  const mayConfigure = canAccessRoute(roles, { roles: AREA_ROLES.platform });
  const types = onlyType ? [onlyType] : NOTIFICATION_TYPES;

  return (
    <Modal open onClose={onClose} title={t('notificationUi.picker.title')} secondaryActions={[{ content: t('common.cancel'), onAction: onClose }]}>
      <Modal.Section>
        <BlockStack gap="300">
          <Text as="p" tone="subdued">
            {t('notificationUi.picker.help')}
          </Text>
          <ul style={{ listStyle: 'none', margin: 0, padding: 0, display: 'grid', gap: 8 }}>
            {types.map((type) => {
              const available = typeAvailable(type, application?.platforms);
              const open = () => navigate(createUrl(type, { campaignId, templateId, segmentId }));
              return (
                <li key={type}>
                  <Box borderWidth="025" borderColor="border" borderRadius="200" padding="300" background={available ? 'bg-surface' : 'bg-surface-disabled'}>
                    <InlineStack align="space-between" blockAlign="center" gap="300">
                      <BlockStack gap="100">
                        <InlineStack gap="200" blockAlign="center">
                          <TypeBadge type={type} />
                          {available ? null : (
                            <Text as="span" tone="subdued" variant="bodySm">
                              {t('notificationUi.picker.notConfigured')}
                            </Text>
                          )}
                        </InlineStack>
                        <Text as="p" variant="bodySm" tone="subdued">
                          {t(`notificationUi.picker.help_${type}`)}
                        </Text>
                      </BlockStack>
                      {available ? (
                        <Button variant="primary" onClick={open} accessibilityLabel={t('notificationUi.picker.choose', { type: t(`notificationUi.types.${type}`) })}>
                          {t('notificationUi.picker.create')}
                        </Button>
                      ) : mayConfigure ? (
                        <Link url="/platform">{t('notificationUi.picker.configure')}</Link>
                      ) : (
                        <Text as="span" tone="subdued" variant="bodySm">
                          {t('notificationUi.picker.askAdmin')}
                        </Text>
                      )}
                    </InlineStack>
                  </Box>
                </li>
              );
            })}
          </ul>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
