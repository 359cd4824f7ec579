import { Page } from '@shopify/polaris';
import { PlusIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { Widget, type WidgetType } from '../../../shared/contract';
import { isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { LoadFailedPage, PageSkeleton, recordLoadFailure, recordId } from '../../components/query-state';
import { useAppStore } from '../../stores/store';
import { type SettingsSectionProps, WidgetEditor } from './widget-editor';
import type { PathErrors, SettingsOf } from './widget-drafts';
import { WidgetTable } from './widget-table';

export interface WidgetScreenProps<T extends WidgetType> {
  type: T;
  /** The route, relative to the application (`/suggestion`). */
  path: string;
  /** i18n keys: the list's title and subtitle, the create action, the empty state, a new widget's title. */
  titleKey: string;
  subtitleKey: string;
  createKey: string;
  emptyTitleKey: string;
  emptyBodyKey: string;
  newTitleKey: string;
  renderSettings(props: SettingsSectionProps<T>): React.ReactNode;
  check?(settings: SettingsOf<T>): PathErrors;
}

/**
 * One route for the list and the editor of a widget type whose spec route has no sub-routes (/suggestion,
 * /fake_noti): the list at `path`, a new widget at `path?new=1`, a saved one at `path?id=12`.
 */
export function WidgetScreen<T extends WidgetType>(props: WidgetScreenProps<T>) {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const [, navigate] = useLocation();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  const params = new URLSearchParams(useSearch());
  const idParam = params.get('id');
  const id = recordId(idParam);
  const creating = id === null && params.get('new') === '1';
  const [saved, setSaved] = useState<Widget | null>(null);
  const known = saved && saved.id === id ? saved : null;
  const loaded = useApiQuery(id !== null && !known ? `/application/${encodeURIComponent(applicationId)}/widget/${id}` : null, Widget, undefined, { showsFailure: true });

  function onSaved(widget: Widget, created: boolean) {
    setSaved(widget);
    if (created) navigate(`${props.path}?id=${widget.id}`, { replace: true });
  }

  const editor = (widget?: Widget) => (
    <WidgetEditor
      key={widget?.id ?? 'new'}
      applicationId={applicationId}
      type={props.type}
      widget={widget}
      title={widget ? widget.name : t(props.newTitleKey)}
      backUrl={props.path}
      renderSettings={props.renderSettings}
      check={props.check}
      onSaved={onSaved}
    />
  );

  if (id !== null) {
    const widget = known ?? (loaded.data?.id === id ? loaded.data : undefined);
    if (widget && widget.type === props.type) return editor(widget);
    if (loaded.error || (widget && widget.type !== props.type)) {
      return (
        <LoadFailedPage
          title={t(props.titleKey)}
          backAction={{ content: t(props.titleKey), url: props.path }}
          {...recordLoadFailure(loaded.error, t('errors.NOT_FOUND'), loaded.reload)}
        />
      );
    }
    return <PageSkeleton primaryAction backAction />;
  }
  if (creating) return editor();

  return (
    <Page
      title={t(props.titleKey)}
      subtitle={t(props.subtitleKey)}
      primaryAction={{
        content: t(props.createKey),
        icon: PlusIcon,
        disabled: readOnly,
        helpText: readOnly ? t('errors.NO_PERMISSION') : undefined,
        onAction: () => navigate(`${props.path}?new=1`),
      }}
    >
      <WidgetTable
        applicationId={applicationId}
        types={[props.type]}
        editUrl={(widget) => `${props.path}?id=${widget.id}`}
        createUrl={`${props.path}?new=1`}
        emptyTitleKey={props.emptyTitleKey}
        emptyBodyKey={props.emptyBodyKey}
        createLabelKey={props.createKey}
      />
    </Page>
  );
}
