import { Frame } from '@shopify/polaris';
import { I18nextProvider } from 'react-i18next';
import { Router } from 'wouter';
import { i18n } from './i18n';
import { guardNavigation } from './leave-guard';
import { PolarisProvider } from './polaris-provider';
import { Root } from './root';
import { ToastHost } from './toast-host';

/** The console: translations, Polaris (in the same language), the router, the pages and the toasts. */
export function App() {
  return (
    <I18nextProvider i18n={i18n}>
      <PolarisProvider>
        <Router aroundNav={guardNavigation}>
          <Frame>
            <Root />
            <ToastHost />
          </Frame>
        </Router>
      </PolarisProvider>
    </I18nextProvider>
  );
}
