import {
  Banner,
  BlockStack,
  FormLayout,
  InlineGrid,
  Layout,
  List,
  Page,
  PageActions,
  Select,
  TextField,
} from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Redirect, useLocation, useSearch } from 'wouter';
import { Campaign, Notification, type NotificationType, Segment, Template, isEditable, page } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { AREA_ROLES, canAccessRoute, isViewerOnly } from '../../../shared/permissions';
import { api, isApiError } from '../../api';
import { useAllPages, useApiQuery } from '../../api/use-api-query';
import { useApplicationPlan, useCurrentApplication } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { AudienceSection } from './audience-section';
import { ContentFields } from './content-fields';
import { useAttributeChoices } from '../segments/use-rule-choices';
import { StatusBadge, typeAvailable, useVisitedViewTitle } from './notification-bits';
import {
  type ContentDraft,
  type NotificationDraft,
  type Problems,
  contentDraftOf,
  draftOf,
  newDraft,
  problemText,
  problemsUnder,
  serverProblems,
  toNotificationInput,
} from './notification-form-model';
import { NotificationPreview } from './notification-preview';
import { ScheduleSection } from './schedule-section';
import { SaveTemplateModal } from './template-modals';
import { TagsField } from './tags-field';
import { LoadFailedPage, PageSkeleton, recordLoadFailure, recordId } from '../../components/query-state';
import { SectionCard } from '../../components/section-card';
import { useLanguage } from '../../app/i18n';
import { useUnsavedForm } from '../../app/leave-guard';

const CampaignPage = page(Campaign);
const TemplatePage = page(Template);

/** Paths with a field of their own on the form; other problems are listed at the top so none goes unseen. */
const PLACED = ['name', 'tags', 'content.', 'audience.', 'schedule', 'ttl_seconds', 'campaign_id', 'template_id', 'type'];
const isPlaced = (path: string) => PLACED.some((prefix) => path === prefix || path.startsWith(prefix.endsWith('.') ? prefix : `${prefix}.`));

/** The console path of the form (for the visited-view tab it leaves behind). */
function formPath(applicationId: string, type: NotificationType, search: string): string {
  return `/application/${encodeURIComponent(applicationId)}/notification/${type}${search ? `?${search}` : ''}`;
}

/**
 * /notification/:type: a new message of a type (`?campaign_id=` in a campaign, `?template_id=` from a template,
 * `?segment_id=` to a segment, `?copy=` from another message), or a saved draft or scheduled message (`?id=`).
 * Content by type, audience, schedule and expiry on the left; the preview beside them (under them on a phone).
 */
export function NotificationFormPage({ type }: { type: NotificationType }) {
  const { t } = useTranslation();
  const { applicationId, application } = useCurrentApplication();
  const search = useSearch();
  const params = new URLSearchParams(search);
  const editId = recordId(params.get('id'));
  const copyId = editId === null ? recordId(params.get('copy')) : null;
  const sourceId = editId ?? copyId;
  const base = `/application/${encodeURIComponent(applicationId)}`;
  const source = useApiQuery(sourceId !== null ? `${base}/notification/${sourceId}` : null, Notification, undefined, { showsFailure: true });
  // A new message to a segment (its page's "Send a message"): the segment's name, which the audience's list may
  // not hold (it loads the newest PICKER_MAX). One deleted meanwhile is named so, and sending is refused. A role
  // without the segments area (spec §6) sends to everyone, as its audience field says, whatever the link holds.
  const maySegment = canAccessRoute(useAppStore((state) => state.roles), { roles: AREA_ROLES.segments });
  const segmentId = sourceId === null && maySegment ? recordId(params.get('segment_id')) : null;
  const segment = useApiQuery(segmentId !== null ? `${base}/segment/${segmentId}` : null, Segment);

  if (sourceId !== null && source.error && !source.data) {
    return (
      <LoadFailedPage
        title={t('notificationUi.form.notFoundTitle')}
        backAction={{ content: t('menu.notifications'), url: '/notification/basic' }}
        {...recordLoadFailure(source.error, t('notificationUi.form.notFound'), source.reload)}
      />
    );
  }
  // The message it starts from, or the segment it goes to, still loading.
  if ((sourceId !== null && source.data?.id !== sourceId) || (segmentId !== null && !segment.data && !segment.error)) {
    return (
      <PageSkeleton backAction primaryAction lines={10} aside={6} />
    );
  }
  // A saved message opens in its own type's form.
  if (source.data && source.data.type !== type) return <Redirect to={`/notification/${source.data.type}?${search}`} replace />;

  // A copy is a new message: like the link above, without the segments area it goes to everyone (the server
  // refuses a segment such a role chooses, and lets it keep only the one a message it edits already has).
  const initial = source.data
    ? { ...draftOf(source.data, { copy: copyId !== null }), ...(copyId !== null && !maySegment ? { segmentId: null } : {}) }
    : { ...newDraft(type), campaignId: recordId(params.get('campaign_id')), templateId: recordId(params.get('template_id')), segmentId };
  return (
    <NotificationForm
      key={`${type}:${editId ?? ''}:${copyId ?? ''}:${segmentId ?? ''}`}
      type={type}
      applicationId={applicationId}
      appName={application?.name ?? ''}
      activePlatforms={application?.platforms}
      initial={initial}
      saved={editId !== null ? source.data : undefined}
      savedSegment={source.data?.audience_segment ?? (segment.data ? { id: segment.data.id, name: segment.data.name } : null)}
      base={base}
      leavePath={formPath(applicationId, type, search)}
      fillFromTemplate={sourceId === null ? initial.templateId : null}
      onSaved={source.reload}
    />
  );
}

interface NotificationFormProps {
  type: NotificationType;
  applicationId: string;
  appName: string;
  activePlatforms: readonly string[] | undefined;
  initial: NotificationDraft;
  /** The message being edited. */
  saved: Notification | undefined;
  /** The segment of the message edited or copied, as the server named it. */
  savedSegment: Notification['audience_segment'];
  base: string;
  leavePath: string;
  /** A template whose content fills the new message once loaded. */
  fillFromTemplate: number | null;
  /** The message was saved and stays on the form (a draft). */
  onSaved(): void;
}

function NotificationForm({ type, applicationId, appName, activePlatforms, initial, saved, savedSegment, base, leavePath, fillFromTemplate, onSaved }: NotificationFormProps) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const roles = useAppStore((state) => state.roles);
  const showToast = useAppStore((state) => state.showToast);
  const plan = useApplicationPlan();
  const [draft, setDraft] = useState<NotificationDraft>(initial);
  const [problems, setProblems] = useState<Problems>({});
  const [tried, setTried] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [platformRefusal, setPlatformRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState<'send' | 'draft' | null>(null);
  const [savingTemplate, setSavingTemplate] = useState(false);
  const [filledFrom, setFilledFrom] = useState<number | null>(null);
  const lang = useLanguage();
  useVisitedViewTitle(saved ? 'notificationUi.form.tabEdit' : 'menu.notificationCreate');

  const locked = saved !== undefined && !isEditable(saved.status);
  const readOnly = isViewerOnly(roles);
  const disabled = readOnly || locked || saving !== null;
  // The message as it was opened (a template's content filled in) or last saved: leaving with anything else asks.
  const { markSaved, leaveFreely } = useUnsavedForm(draft, { ignore: readOnly || locked });
  const typeName = t(`notificationUi.types.${type}`);
  const available = typeAvailable(type, activePlatforms);
  const mayConfigure = canAccessRoute(roles, { roles: AREA_ROLES.platform });

  const campaigns = useAllPages(`${base}/campaign`, CampaignPage);
  const templates = useAllPages(`${base}/template`, TemplatePage, { type });
  const startTemplate = useApiQuery(fillFromTemplate !== null ? `${base}/template/${fillFromTemplate}` : null, Template);
  const attributes = useAttributeChoices(base, !readOnly && !locked);

  const patch = (next: Partial<NotificationDraft>) => setDraft((current) => ({ ...current, ...next }));
  const setContent = (content: ContentDraft) => patch({ content });

  /** Fills the content from the template; returns what the message holds then. */
  function applyTemplate(template: Template): NotificationDraft {
    const filled = { ...draft, content: contentDraftOf(template.content), templateId: template.id };
    patch({ content: filled.content, templateId: template.id });
    setFilledFrom(template.id);
    return filled;
  }

  // ?template_id=: the template's content fills the new message once; the message opened so is not a change.
  useEffect(() => {
    if (startTemplate.data && startTemplate.data.id === fillFromTemplate && filledFrom === null && startTemplate.data.type === type) {
      markSaved(applyTemplate(startTemplate.data));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [startTemplate.data]);

  // After a refused send, problems clear (or appear) as the form changes.
  useEffect(() => {
    if (!tried) return;
    const checked = toNotificationInput(draft, false);
    setProblems(checked.ok ? {} : checked.problems);
  }, [draft, tried]);

  const showTop = () => window.scrollTo?.({ top: 0, behavior: 'smooth' });

  async function submit(mode: 'send' | 'draft') {
    if (readOnly || locked) return;
    setFailure(null);
    setPlatformRefusal(null);
    setTried(true);
    const checked = toNotificationInput(draft, mode === 'draft');
    if (!checked.ok) {
      setProblems(checked.problems);
      showTop();
      return;
    }
    setProblems({});
    setSaving(mode);
    try {
      const { data } = saved
        ? await api.put(`${base}/notification/${saved.id}`, checked.value, Notification, { quiet: true })
        : await api.post(`${base}/notification`, checked.value, Notification, { quiet: true });
      if (mode === 'draft') showToast(t('notificationUi.form.draftSaved'));
      else if (data.schedule.mode === 'now') showToast(t('notificationUi.form.sent'));
      else showToast(t('notificationUi.form.scheduled', { date: formatDate(data.send_at, '{y}-{m}-{d} {h}:{i}', { lang }) }));
      if (mode === 'draft' && saved) {
        markSaved(draft);
        onSaved();
        return;
      }
      leaveFreely();
      // The form's tab gives way to the page that replaces it.
      useAppStore.getState().removeVisitedView(leavePath);
      if (mode === 'draft') navigate(`/notification/${type}?id=${data.id}`, { replace: true });
      else navigate(`/notification/${data.id}/detail`, { replace: true });
    } catch (cause) {
      const message = isApiError(cause) ? cause.message : t('common.unknownError');
      if (isApiError(cause) && cause.fields.length > 0) {
        const fields = serverProblems(cause.fields);
        setProblems(fields);
        if (fields.type) setPlatformRefusal(message);
      } else if (isApiError(cause) && cause.code === 'PLAN_LIMIT') {
        setProblems({ 'content.buttons': message });
      } else {
        setFailure(message);
      }
      showToast(mode === 'send' ? `${t('notificationUi.form.sendFailed')}: ${message}` : message, { error: true });
      showTop();
    } finally {
      setSaving(null);
    }
  }

  const unplaced = Object.entries(problems).filter(([path]) => !isPlaced(path));
  const problemCount = Object.keys(problems).length;
  const sendLabel = draft.scheduleMode === 'now' ? t('notificationUi.form.sendNow') : t('notificationUi.form.schedule');
  const campaignOptions = [
    { value: '', label: t('notificationUi.form.noCampaign') },
    ...(campaigns.data?.items ?? []).map((campaign) => ({ value: String(campaign.id), label: campaign.name })),
  ];
  if (draft.campaignId !== null && !campaignOptions.some((option) => option.value === String(draft.campaignId))) {
    campaignOptions.push({ value: String(draft.campaignId), label: t('notificationUi.form.campaignNumber', { id: draft.campaignId }) });
  }
  const templateItems = templates.data?.items ?? [];
  const templateOptions = [
    { value: '', label: t(templateItems.length > 0 ? 'notificationUi.form.noTemplate' : 'notificationUi.form.noTemplates') },
    ...templateItems.map((template) => ({ value: String(template.id), label: template.name })),
  ];
  if (draft.templateId !== null && !templateOptions.some((option) => option.value === String(draft.templateId))) {
    templateOptions.push({ value: String(draft.templateId), label: t('notificationUi.form.templateNumber', { id: draft.templateId }) });
  }

  const primary = { content: sendLabel, onAction: () => void submit('send'), loading: saving === 'send', disabled: disabled || !available };
  const secondary = [
    { content: t('notificationUi.form.saveDraft'), onAction: () => void submit('draft'), loading: saving === 'draft', disabled },
    { content: t('notificationUi.form.saveTemplate'), onAction: () => setSavingTemplate(true), disabled: readOnly || saving !== null },
  ];
  const backUrl = draft.campaignId !== null && !saved ? `/campaign/${draft.campaignId}` : '/notification/basic';
  const title = saved
    ? t('notificationUi.form.editTitle', { type: typeName })
    : t('notificationUi.form.newTitle', { type: typeName });

  return (
    <Page
      title={title}
      titleMetadata={saved ? <StatusBadge status={saved.status} /> : undefined}
      backAction={{ content: t('menu.notifications'), url: backUrl }}
      primaryAction={primary}
      secondaryActions={secondary}
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            {readOnly ? (
              <Banner tone="info">
                <p>{t('notificationUi.form.readOnly')}</p>
              </Banner>
            ) : null}
            {locked && saved ? (
              <Banner
                tone="warning"
                title={t('notificationUi.form.lockedTitle')}
                action={{ content: t('notificationUi.actions.duplicate'), onAction: () => navigate(`/notification/${type}?copy=${saved.id}`) }}
                secondaryAction={{ content: t('notificationUi.form.viewDetail'), url: `/notification/${saved.id}/detail` }}
              >
                <p>{t('notificationUi.form.locked', { status: t(`notificationUi.statuses.${saved.status}`) })}</p>
              </Banner>
            ) : null}
            {!available || platformRefusal ? (
              <Banner
                tone={platformRefusal ? 'critical' : 'warning'}
                title={t('notificationUi.form.platformMissingTitle', { type: typeName })}
                action={mayConfigure ? { content: t('notificationUi.picker.configure'), url: '/platform' } : undefined}
              >
                <p>{platformRefusal ?? (mayConfigure ? t('notificationUi.form.platformMissing') : t('notificationUi.picker.askAdmin'))}</p>
              </Banner>
            ) : null}
            {failure ? (
              <Banner tone="critical" title={t('notificationUi.form.sendFailed')} onDismiss={() => setFailure(null)}>
                <p>{failure}</p>
              </Banner>
            ) : null}
            {problemCount > 0 ? (
              <Banner tone="critical" title={t('notificationUi.form.problems', { count: problemCount })}>
                {unplaced.length > 0 ? (
                  <List>
                    {unplaced.map(([path, problem]) => (
                      <List.Item key={path}>{problemText(t, problem)}</List.Item>
                    ))}
                  </List>
                ) : (
                  <p>{t('notificationUi.form.problemsHelp')}</p>
                )}
              </Banner>
            ) : null}
            <SectionCard title={t('notificationUi.form.details')}>
              <FormLayout>
                <TextField
                  label={t('notificationUi.form.name')}
                  helpText={t('notificationUi.form.nameHelp')}
                  value={draft.name}
                  onChange={(name) => patch({ name })}
                  autoComplete="off"
                  maxLength={120}
                  disabled={disabled}
                  error={problemText(t, problems.name)}
                />
                <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                  <Select
                    label={t('notificationUi.form.campaign')}
                    options={campaignOptions}
                    value={draft.campaignId === null ? '' : String(draft.campaignId)}
                    onChange={(value) => patch({ campaignId: value === '' ? null : Number(value) })}
                    disabled={disabled}
                    error={problemText(t, problems.campaign_id)}
                  />
                  <Select
                    label={t('notificationUi.form.template')}
                    helpText={t('notificationUi.form.templateHelp')}
                    options={templateOptions}
                    value={draft.templateId === null ? '' : String(draft.templateId)}
                    onChange={(value) => {
                      const template = templateItems.find((item) => String(item.id) === value);
                      if (template) {
                        applyTemplate(template);
                        showToast(t('notificationUi.form.templateLoaded', { name: template.name }));
                      } else patch({ templateId: null });
                    }}
                    disabled={disabled}
                    error={problemText(t, problems.template_id)}
                  />
                </InlineGrid>
                <TagsField
                  label={t('notificationUi.form.tags')}
                  helpText={t('notificationUi.form.tagsHelp')}
                  tags={draft.tags}
                  onChange={(tags) => patch({ tags })}
                  error={problemText(t, problems.tags)}
                  disabled={disabled}
                />
              </FormLayout>
            </SectionCard>
            <SectionCard title={t('notificationUi.content.title')}>
              <ContentFields type={type} value={draft.content} onChange={setContent} problems={problemsUnder(problems, 'content')} plan={plan} disabled={disabled} attributes={attributes} />
            </SectionCard>
            <AudienceSection
              applicationId={applicationId}
              type={type}
              draft={draft}
              savedSegment={savedSegment}
              onChange={patch}
              problems={problems}
              showAllErrors={tried}
              disabled={disabled}
            />
            <ScheduleSection draft={draft} push={type === 'web_push' || type === 'mobile_push'} onChange={patch} problems={problems} disabled={disabled} />
            <PageActions primaryAction={primary} secondaryActions={secondary.slice(0, 1)} />
          </BlockStack>
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <div style={{ position: 'sticky', top: 'calc(var(--nudge-topbar-height) + var(--nudge-tabs-height) + 16px)' }}>
            <NotificationPreview type={type} content={draft.content} appName={appName} />
          </div>
        </Layout.Section>
      </Layout>
      {savingTemplate ? (
        <SaveTemplateModal
          applicationId={applicationId}
          type={type}
          content={draft.content}
          onClose={() => setSavingTemplate(false)}
          onContentProblems={(contentProblems) => {
            setSavingTemplate(false);
            setProblems(contentProblems);
            showTop();
          }}
          onSaved={(template) => {
            setSavingTemplate(false);
            patch({ templateId: template.id });
            templates.reload();
          }}
        />
      ) : null}
    </Page>
  );
}

