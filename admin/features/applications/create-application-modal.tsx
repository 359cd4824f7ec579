import { Banner, BlockStack, Form, FormLayout, Modal, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Application, CreateApplicationBody } from '../../../shared/contract';
import { APPLICATION_ID_MAX_LENGTH } from '../../../shared/validation';
import { api, isApiError } from '../../api';
import { type FieldErrors, apiFieldErrors, zodFieldErrors } from '../../components/form-errors';

export interface CreateApplicationModalProps {
  onClose(): void;
  /** Called with the new application once the server has created it. */
  onCreated(application: Application): void;
}

/** "Create application": an application ID (letters, digits, underscore) and a name that is not blank. */
export function CreateApplicationModal({ onClose, onCreated }: CreateApplicationModalProps) {
  const { t } = useTranslation();
  const [applicationId, setApplicationId] = useState('');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit() {
    const parsed = CreateApplicationBody.safeParse({ application_id: applicationId, name });
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setFailure(null);
    setSaving(true);
    try {
      const { data } = await api.post('/application', parsed.data, Application, { quiet: true });
      onCreated(data);
    } catch (cause) {
      if (isApiError(cause) && cause.fields.length > 0) setErrors(apiFieldErrors(cause.fields));
      else if (isApiError(cause) && cause.code === 'CONFLICT') setErrors({ application_id: cause.message });
      else setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSaving(false);
    }
  }

  return (
    <Modal
      open
      onClose={onClose}
      title={t('applications.create.title')}
      primaryAction={{ content: t('applications.create.submit'), onAction: submit, loading: saving }}
      secondaryActions={[{ content: t('common.cancel'), onAction: onClose, disabled: saving }]}
    >
      <Modal.Section>
        <BlockStack gap="400">
          {failure ? (
            <Banner tone="critical" onDismiss={() => setFailure(null)}>
              <p>{failure}</p>
            </Banner>
          ) : null}
          <Form onSubmit={submit} noValidate>
            <FormLayout>
              <TextField
                label={t('applications.fields.applicationId')}
                value={applicationId}
                onChange={setApplicationId}
                autoComplete="off"
                maxLength={APPLICATION_ID_MAX_LENGTH}
                monospaced
                helpText={errors.application_id ? undefined : t('applications.create.applicationIdHelp')}
                error={errors.application_id ? t(errors.application_id) : undefined}
              />
              <TextField
                label={t('applications.fields.name')}
                value={name}
                onChange={setName}
                autoComplete="off"
                error={errors.name ? t(errors.name) : undefined}
              />
            </FormLayout>
          </Form>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
