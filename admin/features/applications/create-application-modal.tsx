import { TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Application, CreateApplicationBody } from '../../../shared/contract';
import { APPLICATION_ID_MAX_LENGTH } from '../../../shared/validation';
import { api } from '../../api';
import { FormModal, useFormSubmit } from '../../components/form-modal';
import { PhoneCountrySelect, defaultPhoneCountry } from '../../components/phone-country-select';
import { UtcOffsetSelect, defaultUtcOffset } from '../../components/utc-offset-select';

export interface CreateApplicationModalProps {
  onClose(): void;
  /** Called with the new application once the server has created it. */
  onCreated(application: Application): void;
}

/**
 * "Create application": an application ID (letters, digits, underscore), a name that is not blank, its timezone
 * (this computer's to begin with) and its country for phone numbers (this browser's region to begin with).
 */
export function CreateApplicationModal({ onClose, onCreated }: CreateApplicationModalProps) {
  const { t } = useTranslation();
  const [applicationId, setApplicationId] = useState('');
  const [name, setName] = useState('');
  const [utcOffset, setUtcOffset] = useState(() => defaultUtcOffset());
  const [phoneCountry, setPhoneCountry] = useState(() => defaultPhoneCountry());
  const form = useFormSubmit(
    CreateApplicationBody,
    async (body) => onCreated((await api.post('/application', body, Application, { quiet: true })).data),
    // A taken id is that field's problem.
    (cause) => (cause.code === 'CONFLICT' ? { application_id: cause.message } : null),
  );
  const submit = () => form.submit({ application_id: applicationId, name, utc_offset: utcOffset, phone_country: phoneCountry });

  return (
    <FormModal
      title={t('applications.create.title')}
      submitLabel={t('applications.create.submit')}
      form={form}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label={t('applications.fields.applicationId')}
        value={applicationId}
        onChange={setApplicationId}
        autoComplete="off"
        maxLength={APPLICATION_ID_MAX_LENGTH}
        monospaced
        helpText={form.errors.application_id ? undefined : t('applications.create.applicationIdHelp')}
        error={form.errors.application_id ? t(form.errors.application_id) : undefined}
      />
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
