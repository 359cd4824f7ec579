import { BlockStack, InlineGrid, Modal, Select, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NOTIFICATION_TYPES, type NotificationType, Template } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { FormModal } from '../../components/form-modal';
import { useApplicationPlan, useCurrentApplication } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { ContentFields } from './content-fields';
import { useAttributeChoices } from '../segments/use-rule-choices';
import { type ContentDraft, type Problems, contentDraftOf, emptyContent, problemText, problemsUnder, serverProblems, toTemplateInput } from './notification-form-model';
import { NotificationPreview } from './notification-preview';
import { FailureBanner } from '../../components/failure-banner';

/** The outcome of a template save: the field problems, or the refusal that belongs to no field. */
async function saveTemplate(
  path: string,
  method: 'post' | 'put',
  name: string,
  type: NotificationType,
  content: ContentDraft,
): Promise<{ template?: Template; problems?: Problems; failure?: string }> {
  const checked = toTemplateInput(name, type, content);
  if (!checked.ok) return { problems: checked.problems };
  try {
    const { data } = method === 'post' ? await api.post(path, checked.value, Template, { quiet: true }) : await api.put(path, checked.value, Template, { quiet: true });
    return { template: data };
  } catch (cause) {
    if (isApiError(cause) && cause.fields.length > 0) return { problems: serverProblems(cause.fields) };
    if (isApiError(cause) && cause.code === 'PLAN_LIMIT') return { problems: { 'content.buttons': cause.message } };
    return { failure: isApiError(cause) ? cause.message : 'common.unknownError' };
  }
}

export interface SaveTemplateModalProps {
  applicationId: string;
  type: NotificationType;
  content: ContentDraft;
  onClose(): void;
  /** The content itself was refused: its problems go back to the form's fields. */
  onContentProblems(problems: Problems): void;
  onSaved(template: Template): void;
}

/** "Save as template" from the create form: the template's name; the content is the form's. */
export function SaveTemplateModal({ applicationId, type, content, onClose, onContentProblems, onSaved }: SaveTemplateModalProps) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const [name, setName] = useState('');
  const [nameProblem, setNameProblem] = useState<string | undefined>();
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit() {
    setSaving(true);
    setFailure(null);
    const result = await saveTemplate(`/application/${encodeURIComponent(applicationId)}/template`, 'post', name, type, content);
    setSaving(false);
    if (result.template) {
      showToast(t('notificationUi.templates.saved', { name: result.template.name }));
      onSaved(result.template);
      return;
    }
    const problems = result.problems ?? {};
    const contentProblems = Object.fromEntries(Object.entries(problems).filter(([path]) => path.startsWith('content.')));
    if (Object.keys(contentProblems).length > 0) onContentProblems(contentProblems);
    else if (problems.name) setNameProblem(problemText(t, problems.name));
    else setFailure(result.failure ? problemText(t, result.failure) ?? null : problemText(t, Object.values(problems)[0]) ?? null);
  }

  return (
    <FormModal
      title={t('notificationUi.templates.saveTitle')}
      submitLabel={t('common.save')}
      form={{ saving, failure, dismissFailure: () => setFailure(null) }}
      onSubmit={() => void submit()}
      onClose={onClose}
    >
      <TextField
        label={t('notificationUi.templates.name')}
        helpText={t('notificationUi.templates.saveHelp', { type: t(`notificationUi.types.${type}`) })}
        value={name}
        onChange={(value) => {
          setName(value);
          setNameProblem(undefined);
        }}
        autoComplete="off"
        maxLength={120}
        error={nameProblem}
      />
    </FormModal>
  );
}

export interface TemplateEditorModalProps {
  applicationId: string;
  /** The template being edited; none for a new one. */
  template?: Template;
  onClose(): void;
  onSaved(template: Template): void;
  readOnly?: boolean;
}

/** A template's name, type and content (the same fields as the create form) with the preview beside them. */
export function TemplateEditorModal({ applicationId, template, onClose, onSaved, readOnly }: TemplateEditorModalProps) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const { application } = useCurrentApplication();
  const plan = useApplicationPlan();
  const [name, setName] = useState(template?.name ?? '');
  const [type, setType] = useState<NotificationType>(template?.type ?? 'web_push');
  const [content, setContent] = useState<ContentDraft>(() => (template ? contentDraftOf(template.content) : emptyContent()));
  const [problems, setProblems] = useState<Problems>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const applicationBase = `/application/${encodeURIComponent(applicationId)}`;
  const base = `${applicationBase}/template`;
  const attributes = useAttributeChoices(applicationBase, !readOnly);

  async function submit() {
    setSaving(true);
    setFailure(null);
    const result = template ? await saveTemplate(`${base}/${template.id}`, 'put', name, type, content) : await saveTemplate(base, 'post', name, type, content);
    setSaving(false);
    if (result.template) {
      showToast(t('notificationUi.templates.saved', { name: result.template.name }));
      onSaved(result.template);
      return;
    }
    setProblems(result.problems ?? {});
    if (result.failure) setFailure(problemText(t, result.failure) ?? null);
  }

  return (
    <Modal
      open
      size="large"
      onClose={onClose}
      title={template ? t('notificationUi.templates.editTitle', { name: template.name }) : t('notificationUi.templates.newTitle')}
      primaryAction={{ content: t('common.save'), onAction: () => void submit(), loading: saving, disabled: readOnly }}
      secondaryActions={[{ content: t('common.cancel'), onAction: onClose, disabled: saving }]}
    >
      <Modal.Section>
        <BlockStack gap="400">
          <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
          <InlineGrid columns={{ xs: 1, md: '2fr 1fr' }} gap="400">
            <BlockStack gap="400">
              <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                <TextField
                  label={t('notificationUi.templates.name')}
                  value={name}
                  onChange={(value) => {
                    setName(value);
                    setProblems(({ name: _name, ...rest }) => rest);
                  }}
                  autoComplete="off"
                  maxLength={120}
                  disabled={readOnly}
                  error={problemText(t, problems.name)}
                />
                <Select
                  label={t('notificationUi.templates.type')}
                  options={NOTIFICATION_TYPES.map((value) => ({ value, label: t(`notificationUi.types.${value}`) }))}
                  value={type}
                  onChange={(value) => setType(value as NotificationType)}
                  disabled={readOnly || template !== undefined}
                  helpText={template ? t('notificationUi.templates.typeFixed') : undefined}
                />
              </InlineGrid>
              <ContentFields type={type} value={content} onChange={setContent} problems={problemsUnder(problems, 'content')} plan={plan} disabled={readOnly || saving} attributes={attributes} />
            </BlockStack>
            <NotificationPreview type={type} content={content} appName={application?.name ?? ''} />
          </InlineGrid>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
