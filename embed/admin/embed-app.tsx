import { Frame } from '@shopify/polaris';
import { useEffect } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { Router } from 'wouter';
import { i18n } from '../../admin/app/i18n';
import { ToastHost } from '../../admin/app/toast-host';
import { guardNavigation } from '../../admin/app/leave-guard';
import { selectLanguage } from '../../admin/stores/settings-slice';
import { useAppStore } from '../../admin/stores/store';
import { BridgeToasts } from './bridge-feedback';
import { PolarisProvider } from '../../admin/app/polaris-provider';
import { EmbedMessage, EmbeddedAdmin } from './embedded-admin';
import type { EmbedContext } from './entry';
import { OutsideFramePage } from './outside-frame-page';

function NoBridge() {
  const { t } = useTranslation();
  return <EmbedMessage tone="critical" titleKey="embed.failed.title" body={t('embed.noBridge')} />;
}

/**
 * The embedded entry: translations (English by default inside the frame, spec §1), Polaris in the same
 * language, then the embedded admin under its own base, or the explanation shown outside the frame.
 */
export function EmbedApp({ context }: { context: EmbedContext }) {
  const language = useAppStore(selectLanguage);

  // The page is served as lang="en"; outside the frame the console's default (Vietnamese) applies.
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);

  return (
    <I18nextProvider i18n={i18n}>
      <PolarisProvider>
        <Frame>
          {context.kind === 'outside' ? (
            <OutsideFramePage app={context.app} shop={context.shop} apiKey={context.apiKey} />
          ) : context.kind === 'no-bridge' ? (
            <NoBridge />
          ) : (
            <Router base={context.app.base} aroundNav={guardNavigation}>
              <EmbeddedAdmin app={context.app} bridge={context.bridge} />
            </Router>
          )}
          {context.kind === 'embedded' ? <BridgeToasts bridge={context.bridge} /> : <ToastHost />}
        </Frame>
      </PolarisProvider>
    </I18nextProvider>
  );
}
