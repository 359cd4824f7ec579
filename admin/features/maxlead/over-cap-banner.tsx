import { Banner, BlockStack, Text } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';

/** The warning over a contact widget's list that holds more than the plan allows; `title` names the cap. */
export function OverCapBanner({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <Banner tone="warning">
      <BlockStack gap="100">
        <Text as="p" fontWeight="semibold">
          {title}
        </Text>
        <Text as="p">{t('maxlead.plan.overCap')}</Text>
      </BlockStack>
    </Banner>
  );
}
