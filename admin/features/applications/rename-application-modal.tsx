import { TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Application, UpdateApplicationBody } from '../../../shared/contract';
import { api } from '../../api';
import { FormModal, useFormSubmit } from '../../components/form-modal';

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
  const form = useFormSubmit(UpdateApplicationBody, async (body) => {
    const path = `/application/${encodeURIComponent(application.application_id)}`;
    // The list acts on every row's application: the client judges the write by the role in this one.
    const roles = application.role ? [application.role] : [];
    onRenamed((await api.put(path, body, Application, { quiet: true, roles })).data);
  });

  return (
    <FormModal
      title={t('applications.rename.title', { name: application.name })}
      submitLabel={t('common.save')}
      form={form}
      onSubmit={() => form.submit({ name })}
      onClose={onClose}
    >
      <TextField
        label={t('applications.fields.name')}
        value={name}
        onChange={setName}
        autoComplete="off"
        error={form.errors.name ? t(form.errors.name) : undefined}
      />
    </FormModal>
  );
}
