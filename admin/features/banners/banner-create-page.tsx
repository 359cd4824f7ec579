import { BlockStack, Box, Button, Card, Icon, InlineGrid, Page, Text } from '@shopify/polaris';
import { ClockIcon, FormsIcon, GiftCardIcon, ImageIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Redirect, useLocation, useSearch } from 'wouter';
import { BANNER_TYPES, Widget, type WidgetType } from '../../../shared/contract';
import { isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { LoadFailedPage, PageSkeleton, recordLoadFailure, recordId } from '../../components/query-state';
import { useAppStore } from '../../stores/store';
import {
  BannerSettingsSection,
  ContactSettingsSection,
  ScheduleSettingsSection,
  bannerProblems,
  contactProblems,
  scheduleProblems,
} from './banner-type-settings';
import { SpinSettingsSection } from './spin-settings';
import { type SettingsSectionProps, WidgetEditor } from './widget-editor';
import type { PathErrors, SettingsOf } from './widget-drafts';

type BannerType = (typeof BANNER_TYPES)[number];

const isBannerType = (value: string | null): value is BannerType => (BANNER_TYPES as readonly string[]).includes(value ?? '');

const TYPE_ICONS: Record<BannerType, typeof ClockIcon> = {
  schedule: ClockIcon,
  banner: ImageIcon,
  contact: FormsIcon,
  spin: GiftCardIcon,
};

/** Where a widget of each non-banner type is edited. */
const OTHER_EDITORS: Partial<Record<WidgetType, (id: number) => string>> = {
  suggestion: (id) => `/suggestion?id=${id}`,
  fake_noti: (id) => `/fake_noti?id=${id}`,
  maxlead: () => '/maxlead',
};

/** The editor of one banner type, typed by that type. */
function BannerEditor({
  type,
  widget,
  applicationId,
  onSaved,
}: {
  type: BannerType;
  widget?: Widget;
  applicationId: string;
  onSaved(widget: Widget, created: boolean): void;
}) {
  const { t } = useTranslation();
  const title = widget ? widget.name : t(`banners.create.newTitle.${type}`);
  const common = { applicationId, widget, title, backUrl: '/banner', onSaved };
  switch (type) {
    case 'schedule':
      return (
        <WidgetEditor
          {...common}
          type="schedule"
          check={scheduleProblems}
          renderSettings={(props: SettingsSectionProps<'schedule'>) => <ScheduleSettingsSection {...props} />}
        />
      );
    case 'banner':
      return (
        <WidgetEditor
          {...common}
          type="banner"
          check={bannerProblems}
          renderSettings={(props: SettingsSectionProps<'banner'>) => <BannerSettingsSection {...props} />}
        />
      );
    case 'contact':
      return (
        <WidgetEditor
          {...common}
          type="contact"
          check={contactProblems}
          renderSettings={(props: SettingsSectionProps<'contact'>) => <ContactSettingsSection {...props} />}
        />
      );
    case 'spin':
      return (
        <WidgetEditor
          {...common}
          type="spin"
          check={(settings: SettingsOf<'spin'>): PathErrors => (settings.slices.every((slice) => slice.lose) ? { slices: 'banners.spin.allLose' } : {})}
          renderSettings={(props: SettingsSectionProps<'spin'>) => <SpinSettingsSection {...props} />}
        />
      );
  }
}

/** The first step of a new banner: which of the four kinds. */
function TypePicker({ onPick }: { onPick(type: BannerType): void }) {
  const { t } = useTranslation();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  return (
    <Page title={t('menu.bannerCreate')} subtitle={t('banners.create.pickSubtitle')} backAction={{ content: t('menu.banners'), url: '/banner' }}>
      <InlineGrid columns={{ xs: 1, sm: 2 }} gap="400">
        {BANNER_TYPES.map((type) => (
          <Card key={type}>
            <BlockStack gap="300">
              <Box>
                <span style={{ display: 'inline-flex', padding: 8, borderRadius: 10, background: 'var(--p-color-bg-fill-secondary)' }}>
                  <Icon source={TYPE_ICONS[type]} tone="base" />
                </span>
              </Box>
              <Text as="h2" variant="headingMd">
                {t(`widgets.types.${type}`)}
              </Text>
              <Text as="p" tone="subdued">
                {t(`banners.create.about.${type}`)}
              </Text>
              <Box>
                <Button
                  variant="primary"
                  disabled={readOnly}
                  accessibilityLabel={t(`banners.create.newTitle.${type}`)}
                  onClick={() => onPick(type)}
                >
                  {t('banners.create.pick')}
                </Button>
              </Box>
            </BlockStack>
          </Card>
        ))}
      </InlineGrid>
    </Page>
  );
}

/**
 * /banner/create: choose a kind, then its editor; /banner/create?type=spin opens the editor of a new one,
 * /banner/create?id=12 edits a saved one (the route set of spec §2 has no separate edit route).
 */
export function BannerCreatePage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const idParam = params.get('id');
  const typeParam = params.get('type');
  const id = recordId(idParam);
  // The widget just created, so opening its edit URL doesn't load it again.
  const [saved, setSaved] = useState<Widget | null>(null);
  const known = saved && saved.id === id ? saved : null;
  const loaded = useApiQuery(
    id !== null && !known ? `/application/${encodeURIComponent(applicationId)}/widget/${id}` : null,
    Widget,
    undefined,
    { showsFailure: true },
  );

  function onSaved(widget: Widget, created: boolean) {
    setSaved(widget);
    if (created) navigate(`/banner/create?id=${widget.id}`, { replace: true });
  }

  if (id !== null) {
    const widget = known ?? (loaded.data?.id === id ? loaded.data : undefined);
    if (!widget) {
      if (loaded.error) {
        return (
          <LoadFailedPage
            title={t('menu.bannerCreate')}
            backAction={{ content: t('menu.banners'), url: '/banner' }}
            {...recordLoadFailure(loaded.error, t('errors.NOT_FOUND'), loaded.reload)}
          />
        );
      }
      return <PageSkeleton primaryAction backAction aside={6} />;
    }
    if (!isBannerType(widget.type)) {
      const elsewhere = OTHER_EDITORS[widget.type];
      return elsewhere ? <Redirect to={elsewhere(widget.id)} replace /> : <Redirect to="/banner" replace />;
    }
    return <BannerEditor key={widget.id} type={widget.type} widget={widget} applicationId={applicationId} onSaved={onSaved} />;
  }

  if (isBannerType(typeParam)) {
    return <BannerEditor key={`new-${typeParam}`} type={typeParam} applicationId={applicationId} onSaved={onSaved} />;
  }
  return <TypePicker onPick={(type) => navigate(`/banner/create?type=${type}`)} />;
}
