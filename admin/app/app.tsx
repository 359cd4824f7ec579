import { AppProvider, Frame } from '@shopify/polaris';
import polarisEn from '@shopify/polaris/locales/en.json';
import polarisVi from '@shopify/polaris/locales/vi.json';
import { I18nextProvider } from 'react-i18next';
import { Router } from 'wouter';
import { RouterLink } from '../components/router-link';
import { selectLanguage } from '../stores/settings-slice';
import { useAppStore } from '../stores/store';
import { i18n } from './i18n';
import { guardNavigation } from './leave-guard';
import { Root } from './root';
import { ToastHost } from './toast-host';

/** The console: translations, Polaris (in the same language), the router, the pages and the toasts. */
export function App() {
  const language = useAppStore(selectLanguage);
  return (
    <I18nextProvider i18n={i18n}>
      <AppProvider i18n={language === 'vi' ? polarisVi : polarisEn} linkComponent={RouterLink}>
        <Router aroundNav={guardNavigation}>
          <Frame>
            <Root />
            <ToastHost />
          </Frame>
        </Router>
      </AppProvider>
    </I18nextProvider>
  );
}
