import { Banner, Card, EmptyState, Page } from '@shopify/polaris';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import type { Widget } from '../../../shared/contract';
import { withInternationalNumbers } from '../../../shared/validation/phone';
import { DEFAULT_PHONE_COUNTRY } from '../../../shared/validation/phone-countries';
import { useApplicationPlan, useCurrentApplication } from '../../app/application-scope';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { LoadFailedPage, PageSkeleton } from '../../components/query-state';
import type { SettingsOf } from '../banners/widget-drafts';
import { WidgetEditor } from '../banners/widget-editor';
import { MaxleadSettingsSection, maxleadProblems } from './maxlead-settings';
import { PhonesSettingsSection } from './phones-settings';
import { useMaxleadWidget } from './use-maxlead-widget';

/** The settings /maxlead edits; the hotlines belong to /feature. */
const BUTTON_SETTINGS = ['buttons', 'position', 'color', 'greeting', 'capture'] as const;

/**
 * The preview's buttons as the shop's pages will have them: WhatsApp and Viber numbers read in the application's
 * country for phone numbers, as the storefront config gives them (withInternationalNumbers), so the preview of a
 * shop in Thailand opens the same chat as its pages.
 */
function useShownButtons(): (settings: SettingsOf<'maxlead'>) => SettingsOf<'maxlead'> {
  const country = useCurrentApplication().application?.phone_country ?? DEFAULT_PHONE_COUNTRY;
  return useCallback((settings) => ({ ...settings, buttons: withInternationalNumbers(settings.buttons, country) }), [country]);
}

/** /maxlead: the contact-button widget's buttons, their order, colour, corner, greeting and capture. */
export function MaxleadPage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const plan = useApplicationPlan();
  const [, navigate] = useLocation();
  const { widget: stored, loaded, error, reload } = useMaxleadWidget(applicationId);
  const shown = useShownButtons();
  // The widget the first save created, until the list answers with it: a second save must update it.
  const [created, setCreated] = useState<Widget | null>(null);
  const widget = stored ?? created ?? undefined;

  if (!loaded && error) return <LoadFailedPage title={t('menu.maxlead')} message={error.message} onRetry={reload} />;
  if (!loaded) return <PageSkeleton primaryAction aside={6} />;

  const notice = !widget ? (
    <Banner tone="info">
      <p>{t('maxlead.editor.firstSave')}</p>
    </Banner>
  ) : widget.status === 'inactive' ? (
    <Banner tone="warning" action={{ content: t('maxlead.editor.switchOn'), onAction: () => navigate('/feature') }}>
      <p>{t('maxlead.editor.isOff')}</p>
    </Banner>
  ) : null;

  return (
    <WidgetEditor
      key={widget?.id ?? 'new'}
      applicationId={applicationId}
      type="maxlead"
      widget={widget}
      title={t('menu.maxlead')}
      showName={false}
      defaultName={t('maxlead.defaultName')}
      showStatus={false}
      settingsKeys={BUTTON_SETTINGS}
      shown={shown}
      notice={notice}
      links={[
        { content: t('menu.feature'), url: '/feature' },
        { content: t('menu.maxleadReport'), url: '/maxlead_report' },
      ]}
      check={maxleadProblems}
      renderSettings={(props) => <MaxleadSettingsSection {...props} plan={plan} />}
      onSaved={(saved, isNew) => {
        if (isNew) setCreated(saved);
        reload();
      }}
    />
  );
}

/** /feature: the contact-button widget's hotline numbers and whether it shows on the shop. */
export function FeaturePage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const plan = useApplicationPlan();
  const [, navigate] = useLocation();
  const { widget, loaded, error, reload } = useMaxleadWidget(applicationId);
  const shown = useShownButtons();

  if (!loaded && error) return <LoadFailedPage title={t('menu.feature')} message={error.message} onRetry={reload} />;
  if (!loaded) return <PageSkeleton primaryAction aside={6} />;
  if (!widget) {
    return (
      <Page title={t('menu.feature')}>
        <Card>
          <EmptyState
            heading={t('maxlead.feature.emptyTitle')}
            image={EMPTY_ILLUSTRATION}
            action={{ content: t('maxlead.feature.setUp'), onAction: () => navigate('/maxlead') }}
          >
            <p>{t('maxlead.feature.emptyBody')}</p>
          </EmptyState>
        </Card>
      </Page>
    );
  }

  return (
    <WidgetEditor
      key={widget.id}
      applicationId={applicationId}
      type="maxlead"
      widget={widget}
      title={t('menu.feature')}
      showName={false}
      defaultName={t('maxlead.defaultName')}
      showRules={false}
      settingsKeys={['phones']}
      shown={shown}
      links={[
        { content: t('menu.maxlead'), url: '/maxlead' },
        { content: t('menu.maxleadReport'), url: '/maxlead_report' },
      ]}
      notice={
        <Banner tone="info" action={{ content: t('maxlead.feature.editButtons'), onAction: () => navigate('/maxlead') }}>
          <p>{t('maxlead.feature.about')}</p>
        </Banner>
      }
      renderSettings={(props) => <PhonesSettingsSection {...props} plan={plan} />}
      onSaved={() => reload()}
    />
  );
}
