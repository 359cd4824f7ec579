import { BlockStack, Button, Card, List, Text } from '@shopify/polaris';
import { ExternalIcon } from '@shopify/polaris-icons';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from '../../admin/app/layout/language-switch';
import { Brand } from '../../admin/components/brand';
import { type EmbedApp, navFor, shopAdminUrl } from './entry';

export interface OutsideFramePageProps {
  /** The embedded app whose entry was opened, when the path names one. */
  app: EmbedApp | undefined;
  /** The shop named in the URL, already checked to be a shop domain. */
  shop: string | null;
  /** The app's key in the platform, for a link straight to it in the shop's admin. */
  apiKey: string | null;
}

/**
 * What an entry shows when it is opened outside the platform's admin (no frame, or no shop): how to open
 * Nudge from the shop admin, with a link to that admin when the shop is known. Nothing here can call the
 * API: without the platform's session token there is no one to answer for.
 */
export function OutsideFramePage({ app, shop, apiKey }: OutsideFramePageProps) {
  const { t } = useTranslation();
  // Everything the app's menu may hold; which of it a person sees depends on their role, known only inside.
  const screens = app ? navFor(app, ['admin']).map((item) => t(item.labelKey)).join(', ') : null;

  useEffect(() => {
    document.title = `${t('embed.outside.title')} · ${t('common.appName')}`;
  }, [t]);

  return (
    <div className="nudge-auth">
      <div className="nudge-auth-top">
        <LanguageSwitch />
      </div>
      <main className="nudge-auth-card nudge-embed-outside">
        <Brand />
        <Card>
          <BlockStack gap="400">
            <BlockStack gap="200">
              <Text as="h1" variant="headingLg">
                {t('embed.outside.title')}
              </Text>
              {app ? (
                <Text as="p" tone="subdued">
                  {t(app.titleKey)}
                </Text>
              ) : null}
            </BlockStack>
            <Text as="p">{t('embed.outside.body')}</Text>
            <List type="number">
              <List.Item>{t('embed.outside.stepSignIn')}</List.Item>
              <List.Item>{t('embed.outside.stepApps')}</List.Item>
              {screens ? <List.Item>{t('embed.outside.stepMenu', { screens })}</List.Item> : null}
            </List>
            {shop ? (
              <Button variant="primary" url={shopAdminUrl(shop, apiKey)} target="_top" icon={ExternalIcon} fullWidth>
                {t('embed.outside.openShop', { shop })}
              </Button>
            ) : null}
          </BlockStack>
        </Card>
        <div className="nudge-embed-console">
          <BlockStack gap="200" inlineAlign="center">
            <Text as="p" tone="subdued" alignment="center">
              {t('embed.outside.console')}
            </Text>
            <Button variant="plain" url={`${window.location.origin}/login`}>
              {t('embed.outside.toConsole')}
            </Button>
          </BlockStack>
        </div>
      </main>
    </div>
  );
}
