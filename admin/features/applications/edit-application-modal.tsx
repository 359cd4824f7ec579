import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TextField } from '@shopify/polaris';
import { Application, UpdateApplicationBody } from '../../../shared/contract';
import { api } from '../../api';
import { FormModal, useFormSubmit } from '../../components/form-modal';
import { PhoneCountrySelect } from '../../components/phone-country-select';
import { UtcOffsetSelect } from '../../components/utc-offset-select';

export interface EditApplicationModalProps {
  /** The application to edit; the caller's role in it decides whether the client may send the write. */
  application: Application;
  onClose(): void;
  /** Called with the application as the server saved it. */
  onSaved(application: Application): void;
}

/**
 * Edits an application (PUT /application/{application_id}): its name, which must not be blank, its timezone,
 * whose days the dashboard and statistics count, and its country for phone numbers.
 */
export function EditApplicationModal({ application, onClose, onSaved }: EditApplicationModalProps) {
  const { t } = useTranslation();
  const [name, setName] = useState(application.name);
  const [utcOffset, setUtcOffset] = useState(application.utc_offset);
  const [phoneCountry, setPhoneCountry] = useState(application.phone_country);
  const form = useFormSubmit(UpdateApplicationBody, async (body) => {
    const path = `/application/${encodeURIComponent(application.application_id)}`;
    // The list acts on every row's application: the client judges the write by the role in this one.
    const roles = application.role ? [application.role] : [];
    onSaved((await api.put(path, body, Application, { quiet: true, roles })).data);
  });

  return (
    <FormModal
      title={t('applications.edit.title', { name: application.name })}
      submitLabel={t('common.save')}
      form={form}
      onSubmit={() => form.submit({ name, utc_offset: utcOffset, phone_country: phoneCountry })}
      onClose={onClose}
    >
      <TextField
        label={t('applications.fields.name')}
        value={name}
        onChange={setName}
        autoComplete="off"
        error={form.errors.name ? t(form.errors.name) : undefined}
      />
      <UtcOffsetSelect value={utcOffset} onChange={setUtcOffset} error={form.errors.utc_offset} />
      <PhoneCountrySelect value={phoneCountry} onChange={setPhoneCountry} error={form.errors.phone_country} />
    </FormModal>
  );
}
