import { AppProvider } from '@shopify/polaris';
import polarisEn from '@shopify/polaris/locales/en.json';
import polarisVi from '@shopify/polaris/locales/vi.json';
import type { ReactNode } from 'react';
import { RouterLink } from '../components/router-link';
import { selectPageLanguage } from '../stores/settings-slice';
import { useAppStore } from '../stores/store';

/**
 * Polaris for the console, the embedded admin and the public playerinfo page: its own words (the frame's "skip to
 * content" link, a banner's dismiss, a dialog's close) in the language the page speaks, and links through the router.
 */
export function PolarisProvider({ children }: { children: ReactNode }) {
  const language = useAppStore(selectPageLanguage);
  return (
    <AppProvider i18n={language === 'vi' ? polarisVi : polarisEn} linkComponent={RouterLink}>
      {children}
    </AppProvider>
  );
}
