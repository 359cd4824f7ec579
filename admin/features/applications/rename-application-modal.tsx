import { Banner, BlockStack, Form, FormLayout, Modal, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Application, UpdateApplicationBody } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { type FieldErrors, apiFieldErrors, zodFieldErrors } from '../../components/form-errors';

export interface RenameApplicationModalProps {
  /** The application to rename; the caller's role in it decides whether the client may send the write. */
  application: Application;
  onClose(): void;
  /** Called with the application as the server saved it. */
  onRenamed(application: Application): void;
}

/** Renames an application (PUT /application/{application_id}); the name must not be blank. */
export function RenameApplicationModal({ application, onClose, onRenamed }: RenameApplicationModalProps) {
  const { t } = useTranslation();
  const [name, setName] = useState(application.name);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit() {
    const parsed = UpdateApplicationBody.safeParse({ name });
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setFailure(null);
    setSaving(true);
    try {
      const path = `/application/${encodeURIComponent(application.application_id)}`;
      const { data } = await api.put(path, parsed.data, Application, {
        quiet: true,
        roles: application.role ? [application.role] : [],
      });
      onRenamed(data);
    } catch (cause) {
      if (isApiError(cause) && cause.fields.length > 0) setErrors(apiFieldErrors(cause.fields));
      else setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSaving(false);
    }
  }

  return (
    <Modal
      open
      onClose={onClose}
      title={t('applications.rename.title', { name: application.name })}
      primaryAction={{ content: t('common.save'), onAction: submit, loading: saving }}
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
