import { Page } from '@shopify/polaris';
import { PlusIcon } from '@shopify/polaris-icons';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { BANNER_TYPES } from '../../../shared/contract';
import { isViewerOnly } from '../../../shared/permissions';
import { useCurrentApplication } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { WidgetTable } from './widget-table';

/** /banner: the flash sales, banners, contact forms and spin wheels of the application. */
export function BannersPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const { applicationId } = useCurrentApplication();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  return (
    <Page
      title={t('menu.banners')}
      subtitle={t('banners.list.subtitle')}
      primaryAction={{
        content: t('banners.list.create'),
        icon: PlusIcon,
        disabled: readOnly,
        helpText: readOnly ? t('errors.NO_PERMISSION') : undefined,
        onAction: () => navigate('/banner/create'),
      }}
      secondaryActions={[{ content: t('menu.maxleadReport'), onAction: () => navigate('/maxlead_report') }]}
    >
      <WidgetTable
        applicationId={applicationId}
        types={BANNER_TYPES}
        showType
        editUrl={(widget) => `/banner/create?id=${widget.id}`}
        createUrl="/banner/create"
        emptyTitleKey="banners.list.emptyTitle"
        emptyBodyKey="banners.list.emptyBody"
        createLabelKey="banners.list.create"
      />
    </Page>
  );
}
