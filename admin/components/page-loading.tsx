import { Spinner } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';

export interface PageLoadingProps {
  /** Fill the whole window (before the shell exists) rather than the content area. */
  fill?: boolean;
}

/** What shows while a screen's code or the user's roles load. */
export function PageLoading({ fill }: PageLoadingProps) {
  const { t } = useTranslation();
  return (
    <div className="nudge-center" data-fill={fill ? 'true' : 'false'}>
      <Spinner accessibilityLabel={t('common.loading')} size="large" />
    </div>
  );
}
