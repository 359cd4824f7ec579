import { Banner, Button, Spinner, InlineStack } from '@shopify/polaris';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { LoginAnswer } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { useAppStore } from '../../stores/store';
import { AuthLayout } from './auth-layout';

/**
 * Where emailed links land (/auth-redirect?hash=…): the hash is sent to POST /user/verify, which signs the
 * user in (spec §4: verify stores the token) and the console opens the application list.
 */
export function AuthRedirectPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const search = useSearch();
  const signIn = useAppStore((state) => state.signIn);
  const [failure, setFailure] = useState<string | null>(null);
  const started = useRef(false);
  const hash = new URLSearchParams(search).get('hash')?.trim() ?? '';

  useEffect(() => {
    // The hash is single use: a second call (React's development double effects) would be refused.
    if (started.current) return;
    started.current = true;
    if (!hash) {
      setFailure(t('errors.LINK_INVALID'));
      return;
    }
    api
      .post('/user/verify', { hash }, LoginAnswer, { quiet: true })
      .then(({ data }) => {
        signIn(data);
        navigate('/application', { replace: true });
      })
      .catch((cause: unknown) => setFailure(isApiError(cause) ? cause.message : t('common.unknownError')));
  }, [hash, navigate, signIn, t]);

  return (
    <AuthLayout title="auth.verify.title">
      {failure ? (
        <>
          <Banner tone="critical" title={t('auth.verify.failed')}>
            <p>{failure}</p>
          </Banner>
          <Button url="/login" variant="primary" fullWidth>
            {t('auth.verify.toLogin')}
          </Button>
        </>
      ) : (
        <InlineStack align="center" gap="300" blockAlign="center">
          <Spinner size="small" accessibilityLabel={t('auth.verify.checking')} />
          <span>{t('auth.verify.checking')}</span>
        </InlineStack>
      )}
    </AuthLayout>
  );
}
