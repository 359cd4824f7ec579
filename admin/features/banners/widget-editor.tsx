import { Banner, BlockStack, Card, FormLayout, Layout, List, Page, PageActions, TextField } from '@shopify/polaris';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Widget, type WidgetType } from '../../../shared/contract';
import { isViewerOnly } from '../../../shared/permissions';
import { api, isApiError } from '../../api';
import { Switch } from '../../components/switch';
import { WidgetPreview } from '../../components/widget-preview';
import { useAppStore } from '../../stores/store';
import { DisplayRulesCard, rulesProblems } from './display-rules-card';
import { messageText } from './form-fields';
import {
  type PathErrors,
  type SettingsOf,
  type WidgetDraft,
  draftFromWidget,
  errorsUnder,
  newDraft,
  serverFieldErrors,
  toPublicWidget,
  validateDraft,
} from './widget-drafts';
import { FailureBanner } from '../../components/failure-banner';
import { useUnsavedForm } from '../../app/leave-guard';

/** What a type's settings section receives from the editor. */
export interface SettingsSectionProps<T extends WidgetType> {
  settings: SettingsOf<T>;
  onChange(settings: SettingsOf<T>): void;
  /** Problems under `settings.` (paths relative to it). */
  errors: PathErrors;
  /** A viewer, or a save in flight. */
  disabled: boolean;
}

export interface WidgetEditorProps<T extends WidgetType> {
  applicationId: string;
  type: T;
  /** The saved widget being edited; none for a new one. */
  widget?: Widget;
  title: string;
  /** Where the page's back arrow leads. */
  backUrl?: string;
  /** The type's own settings section(s). */
  renderSettings(props: SettingsSectionProps<T>): ReactNode;
  /** The type's checks beyond the contract, with paths relative to `settings.`. */
  check?(settings: SettingsOf<T>): PathErrors;
  /** The widget's name is asked for (else `defaultName` is used). */
  showName?: boolean;
  defaultName?: string;
  /** The on/off switch is part of the form (else the status is kept as it is). */
  showStatus?: boolean;
  /** The display rules card is part of the form. */
  showRules?: boolean;
  /** The top-level settings this screen edits (all by default); problems with others are listed at the top. */
  settingsKeys?: readonly string[];
  /** Shown above the form (a plan cap, a pointer to another screen). */
  notice?: ReactNode;
  /** Links to related screens, in the page's header. */
  links?: ReadonlyArray<{ content: string; url: string }>;
  /**
   * The settings as the shop's browser will get them, where the server changes them for it (the contact buttons'
   * numbers): what the preview shows. As they are by default.
   */
  shown?(settings: SettingsOf<T>): SettingsOf<T>;
  onSaved(widget: Widget, created: boolean): void;
}

function widgetPath(applicationId: string, widgetId?: number): string {
  const base = `/application/${encodeURIComponent(applicationId)}/widget`;
  return widgetId === undefined ? base : `${base}/${widgetId}`;
}

/**
 * The editor every widget type shares: name and on/off, the type's settings, the display rules and a live
 * preview beside them. The draft is checked with the contract before it is sent; the server's field
 * problems come back to the same fields.
 */
export function WidgetEditor<T extends WidgetType>({
  applicationId,
  type,
  widget,
  title,
  backUrl,
  renderSettings,
  check,
  showName = true,
  defaultName,
  showStatus = true,
  showRules = true,
  settingsKeys,
  notice,
  links,
  shown,
  onSaved,
}: WidgetEditorProps<T>) {
  const { t } = useTranslation();
  const roles = useAppStore((state) => state.roles);
  const showToast = useAppStore((state) => state.showToast);
  const readOnly = isViewerOnly(roles);
  const [draft, setDraft] = useState<WidgetDraft<T>>(() =>
    widget ? draftFromWidget(widget as Widget & { type: T }, t) : { ...newDraft(type, t), name: defaultName ?? '' },
  );
  // The widget as it was opened or last saved: leaving with anything else asks first.
  const { markSaved, leaveFreely } = useUnsavedForm(draft, { ignore: readOnly });
  const [errors, setErrors] = useState<PathErrors>({});
  const [tried, setTried] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const disabled = readOnly || saving;
  // A refusal is shown at the top of the form; the Save pressed may be at its bottom.
  const showTop = () => window.scrollTo?.({ top: 0, behavior: 'smooth' });

  const extra = (current: WidgetDraft) => {
    const own = check?.(current.settings as SettingsOf<T>) ?? {};
    const prefixed = Object.fromEntries(Object.entries(own).map(([path, message]) => [`settings.${path}`, message]));
    return { ...prefixed, ...(showRules ? rulesProblems(current.rules) : {}) };
  };

  // After a refused save, problems clear (or appear) as the merchant types.
  useEffect(() => {
    if (!tried) return;
    const result = validateDraft(draft, extra);
    setErrors(result.errors ?? {});
  }, [draft, tried]);

  const publicWidget = useMemo(
    () => toPublicWidget(shown ? { ...draft, settings: shown(draft.settings) } : draft, widget?.id ?? 0),
    [draft, widget?.id, shown],
  );

  async function save() {
    if (readOnly) return;
    setFailure(null);
    setTried(true);
    const named = showName ? draft : { ...draft, name: draft.name.trim() || defaultName || '' };
    const result = validateDraft(named, extra);
    if (result.errors) {
      setErrors(result.errors);
      showTop();
      return;
    }
    setErrors({});
    setSaving(true);
    try {
      const { data } = widget
        ? await api.put(widgetPath(applicationId, widget.id), result.body, Widget, { quiet: true })
        : await api.post(widgetPath(applicationId), result.body, Widget, { quiet: true });
      showToast(t('widgets.editor.saved'));
      markSaved(draft);
      leaveFreely();
      onSaved(data, !widget);
    } catch (cause) {
      if (isApiError(cause) && cause.code === 'INVALID_PARAM' && cause.fields.length > 0) {
        setErrors(serverFieldErrors(cause.fields));
      } else {
        setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
      }
      showTop();
    } finally {
      setSaving(false);
    }
  }

  const problems = Object.keys(errors).length;
  const unplaced = Object.entries(errors).filter(([path]) => !isPlacedPath(path, { showName, showRules, settingsKeys }));
  const saveAction = { content: t('common.save'), onAction: save, loading: saving, disabled: readOnly };

  return (
    <Page
      title={title}
      backAction={backUrl ? { content: t('widgets.editor.back'), url: backUrl } : undefined}
      primaryAction={saveAction}
      secondaryActions={links?.map((link) => ({ ...link }))}
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            {readOnly ? (
              <Banner tone="info">
                <p>{t('widgets.editor.readOnly')}</p>
              </Banner>
            ) : null}
            <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
            {problems > 0 ? (
              <Banner tone="critical" title={t('widgets.editor.problems', { count: problems })}>
                {unplaced.length > 0 ? (
                  <List>
                    {unplaced.map(([path, message]) => (
                      <List.Item key={path}>{messageText(t, message)}</List.Item>
                    ))}
                  </List>
                ) : (
                  <p>{t('widgets.editor.problemsHelp')}</p>
                )}
              </Banner>
            ) : null}
            {notice}
            {showName || showStatus ? (
              <Card>
                <FormLayout>
                  {showName ? (
                    <TextField
                      label={t('widgets.fields.name')}
                      helpText={t('widgets.fields.nameHelp')}
                      value={draft.name}
                      onChange={(name) => setDraft({ ...draft, name })}
                      autoComplete="off"
                      maxLength={100}
                      disabled={disabled}
                      error={errors.name ? messageText(t, errors.name) : undefined}
                    />
                  ) : null}
                  {showStatus ? (
                    <Switch
                      label={t('widgets.fields.status')}
                      helpText={t('widgets.fields.statusHelp')}
                      checked={draft.status === 'active'}
                      disabled={disabled}
                      onChange={(on) => setDraft({ ...draft, status: on ? 'active' : 'inactive' })}
                    />
                  ) : null}
                </FormLayout>
              </Card>
            ) : null}
            {renderSettings({
              settings: draft.settings,
              onChange: (settings) => setDraft((current) => ({ ...current, settings })),
              errors: errorsUnder(errors, 'settings'),
              disabled,
            })}
            {showRules ? (
              <DisplayRulesCard
                rules={draft.rules}
                onChange={(rules) => setDraft((current) => ({ ...current, rules }))}
                errors={errorsUnder(errors, 'rules')}
                disabled={disabled}
              />
            ) : null}
            <PageActions primaryAction={saveAction} />
          </BlockStack>
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <div style={{ position: 'sticky', top: 'calc(var(--nudge-topbar-height) + var(--nudge-tabs-height) + 16px)' }}>
            <WidgetPreview widget={publicWidget} />
          </div>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

/**
 * Whether a problem's path has a field of its own on the form; the others (a list's own rule, a setting
 * edited on another screen) are listed in the summary so none goes unseen.
 */
function isPlacedPath(
  path: string,
  form: { showName: boolean; showRules: boolean; settingsKeys?: readonly string[] },
): boolean {
  if (path === 'name') return form.showName;
  if (path.startsWith('rules.')) return form.showRules;
  if (!path.startsWith('settings.')) return false;
  const key = path.split('.')[1];
  return !form.settingsKeys || form.settingsKeys.includes(key);
}
