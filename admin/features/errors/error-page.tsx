import { BlockStack, Button, Text } from '@shopify/polaris';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Brand } from '../../components/brand';
import { useAppStore } from '../../stores/store';

export interface ErrorPageProps {
  /** The status shown large: 404 or 401. */
  code: '404' | '401';
  /** i18n keys of the heading and the explanation. */
  title: string;
  body: string;
}

/** A full-page error with one way on: the application list when signed in, else the login page. */
export function ErrorPage({ code, title, body }: ErrorPageProps) {
  const { t } = useTranslation();
  const signedIn = useAppStore((state) => state.token !== null);
  useEffect(() => {
    document.title = `${t(title)} · ${t('common.appName')}`;
  }, [t, title]);
  return (
    <div className="nudge-auth">
      <main className="nudge-auth-card" style={{ textAlign: 'center' }}>
        <Brand href={signedIn ? '/application' : '/login'} />
        <BlockStack gap="400" inlineAlign="center">
          <Text as="p" variant="heading3xl" tone="subdued">
            {code}
          </Text>
          <Text as="h1" variant="headingLg">
            {t(title)}
          </Text>
          <Text as="p" tone="subdued">
            {t(body)}
          </Text>
          <Button variant="primary" url={signedIn ? '/application' : '/login'}>
            {signedIn ? t('errorPages.toApplications') : t('errorPages.toLogin')}
          </Button>
        </BlockStack>
      </main>
    </div>
  );
}
