import { BlockStack, Card, Text } from '@shopify/polaris';
import { type ReactNode, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from '../../app/layout/language-switch';
import { Brand } from '../../components/brand';

export interface AuthLayoutProps {
  /** i18n key of the card's heading; it also names the window. */
  title: string;
  /** A line under the heading. */
  subtitle?: string;
  children: ReactNode;
  /** Under the card: links to the other account pages. */
  footer?: ReactNode;
}

/** The frame of the account pages: the brand, one card, the language switch in the corner. */
export function AuthLayout({ title, subtitle, children, footer }: AuthLayoutProps) {
  const { t } = useTranslation();
  useEffect(() => {
    document.title = `${t(title)} · ${t('common.appName')}`;
  }, [t, title]);
  return (
    <div className="nudge-auth">
      <div className="nudge-auth-top">
        <LanguageSwitch />
      </div>
      <main className="nudge-auth-card">
        <Brand />
        <Card padding={{ xs: '400', sm: '600' }}>
          <BlockStack gap="500">
            <BlockStack gap="100">
              <Text as="h1" variant="headingLg">
                {t(title)}
              </Text>
              {subtitle ? (
                <Text as="p" tone="subdued">
                  {subtitle}
                </Text>
              ) : null}
            </BlockStack>
            {children}
          </BlockStack>
        </Card>
        {footer ? <div style={{ marginTop: 'var(--p-space-500)', textAlign: 'center' }}>{footer}</div> : null}
      </main>
    </div>
  );
}
