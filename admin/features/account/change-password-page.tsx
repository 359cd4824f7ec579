import { BlockStack, Card, Layout, Page, Text } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { PasswordChangeForm } from './password-change-form';

/** /change-password: the same form as the Security dialog, on its own page. */
export function ChangePasswordPage() {
  const { t } = useTranslation();
  return (
    <Page title={t('menu.changePassword')} narrowWidth>
      <Layout>
        <Layout.Section>
          <Card>
            <BlockStack gap="400">
              <Text as="p" tone="subdued">
                {t('account.changePasswordIntro')}
              </Text>
              <PasswordChangeForm />
            </BlockStack>
          </Card>
        </Layout.Section>
      </Layout>
    </Page>
  );
}
