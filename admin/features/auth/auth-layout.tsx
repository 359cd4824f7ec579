import { Banner, BlockStack, Card, Text } from '@shopify/polaris';
import { type ReactNode, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from '../../app/layout/language-switch';
import { Brand } from '../../components/brand';
import { FailureBanner } from '../../components/failure-banner';
import { type FormSubmitState } from '../../components/form-modal';

export interface AuthLayoutProps {
  /** i18n key of the card's heading; it also names the window. */
  title: string;
  /** A line under the heading. */
  subtitle?: string;
  children: ReactNode;
  /** Under the card: links to the other account pages. */
  footer?: ReactNode;
  /** The page's form: a refusal that belongs to no field shows in a banner above it. */
  form?: FormSubmitState;
  /** In the corner: the console's language switch, unless the page has a language of its own (playerinfo). */
  language?: ReactNode;
}

/** The frame of the account pages: the brand, one card, the language switch in the corner. */
export function AuthLayout({ title, subtitle, children, footer, form, language }: AuthLayoutProps) {
  const { t } = useTranslation();
  useEffect(() => {
    document.title = `${t(title)} · ${t('common.appName')}`;
  }, [t, title]);
  return (
    <div className="nudge-auth">
      <div className="nudge-auth-top">{language ?? <LanguageSwitch />}</div>
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
            <FailureBanner message={form?.failure} onDismiss={form?.dismissFailure} />
            {children}
          </BlockStack>
        </Card>
        {footer ? <div style={{ marginTop: 'var(--p-space-500)', textAlign: 'center' }}>{footer}</div> : null}
      </main>
    </div>
  );
}

/** What an account page shows once its form has sent a link: check your email, and what the link does. */
export function CheckEmail({ title, body, footer }: { title: string; body: string; footer: ReactNode }) {
  const { t } = useTranslation();
  return (
    <AuthLayout title={title} footer={footer}>
      <Banner tone="success" title={t('auth.checkEmail')}>
        <p>{body}</p>
      </Banner>
    </AuthLayout>
  );
}
