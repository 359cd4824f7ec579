import { Select, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ATTRIBUTE_TYPES, AttributeBody, AttributeDefinition, type AttributeType } from '../../../shared/contract';
import { api } from '../../api';
import { FormModal, useFormSubmit } from '../../components/form-modal';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { useFormatNumber } from '../../app/i18n';

export interface AttributeModalProps {
  /** The attribute's list path (`/application/{id}/attribute`). */
  base: string;
  /** The attribute being edited; none to create one. */
  attribute?: AttributeDefinition;
  onClose(): void;
  onDone(attribute: AttributeDefinition): void;
}

/** Create or edit an attribute definition: name, type and description, checked with AttributeBody (`.date` rule). */
export function AttributeModal({ base, attribute, onClose, onDone }: AttributeModalProps) {
  const { t } = useTranslation();
  const [name, setName] = useState(attribute?.name ?? '');
  const [type, setType] = useState<AttributeType>(attribute?.type ?? 'text');
  const [description, setDescription] = useState(attribute?.description ?? '');
  const form = useFormSubmit(
    AttributeBody,
    async (body) => {
      const result = attribute
        ? await api.put(`${base}/${attribute.id}`, body, AttributeDefinition, { quiet: true })
        : await api.post(base, body, AttributeDefinition, { quiet: true });
      onDone(result.data);
    },
    (cause) => (cause.code === 'CONFLICT' ? { name: cause.message } : null),
  );
  const { errors } = form;
  const submit = () => void form.submit({ name, type, description: description.trim() === '' ? undefined : description });

  return (
    <FormModal
      title={attribute ? t('attributes.edit.title') : t('attributes.create.title')}
      submitLabel={attribute ? t('common.save') : t('attributes.create.submit')}
      form={form}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label={t('attributes.fields.name')}
        value={name}
        onChange={setName}
        autoComplete="off"
        maxLength={64}
        helpText={t('attributes.fields.nameHelp')}
        error={errors.name ? t(errors.name) : undefined}
      />
      <Select
        label={t('attributes.fields.type')}
        options={ATTRIBUTE_TYPES.map((value) => ({ value, label: t(`attributes.types.${value}`) }))}
        value={type}
        onChange={(value) => setType(value as AttributeType)}
        error={errors.type ? t(errors.type) : undefined}
      />
      <TextField
        label={t('attributes.fields.description')}
        value={description}
        onChange={setDescription}
        autoComplete="off"
        multiline={2}
        maxLength={300}
        error={errors.description ? t(errors.description) : undefined}
      />
    </FormModal>
  );
}

/** The confirmation before an attribute definition is deleted. */
export function DeleteAttributeModal({ base, attribute, onClose, onDone }: Required<Pick<AttributeModalProps, 'base' | 'attribute' | 'onClose'>> & { onDone(): void }) {
  const { t } = useTranslation();
  const number = useFormatNumber();
  return (
    <ConfirmDeleteModal
      path={`${base}/${attribute.id}`}
      title={t('attributes.delete.title')}
      body={t('attributes.delete.body', { name: attribute.name, players: number(attribute.players) })}
      onClose={onClose}
      onDone={onDone}
    />
  );
}
