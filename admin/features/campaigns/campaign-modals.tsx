import { TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Campaign, CampaignInput } from '../../../shared/contract';
import { api } from '../../api';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { FormModal, useFormSubmit } from '../../components/form-modal';
import { useAppStore } from '../../stores/store';

export interface CampaignFormModalProps {
  applicationId: string;
  /** The campaign being edited; none for a new one. */
  campaign?: Campaign;
  onClose(): void;
  onSaved(campaign: Campaign): void;
}

/** A campaign's name and description, checked with the contract's CampaignInput. */
export function CampaignFormModal({ applicationId, campaign, onClose, onSaved }: CampaignFormModalProps) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const [name, setName] = useState(campaign?.name ?? '');
  const [description, setDescription] = useState(campaign?.description ?? '');
  const base = `/application/${encodeURIComponent(applicationId)}/campaign`;
  const form = useFormSubmit(CampaignInput, async (body) => {
    const { data } = campaign
      ? await api.put(`${base}/${campaign.id}`, body, Campaign, { quiet: true })
      : await api.post(base, body, Campaign, { quiet: true });
    showToast(t(campaign ? 'campaignUi.form.saved' : 'campaignUi.form.created', { name: data.name }));
    onSaved(data);
  });
  const submit = () => void form.submit({ name, description });

  return (
    <FormModal
      title={campaign ? t('campaignUi.form.editTitle') : t('campaignUi.form.newTitle')}
      submitLabel={campaign ? t('common.save') : t('campaignUi.form.create')}
      form={form}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label={t('campaignUi.form.name')}
        value={name}
        onChange={setName}
        autoComplete="off"
        maxLength={120}
        requiredIndicator
        error={form.errors.name ? t(form.errors.name) : undefined}
      />
      <TextField
        label={t('campaignUi.form.description')}
        helpText={t('campaignUi.form.descriptionHelp')}
        value={description}
        onChange={setDescription}
        multiline={3}
        autoComplete="off"
        maxLength={500}
        showCharacterCount
        error={form.errors.description ? t(form.errors.description) : undefined}
      />
    </FormModal>
  );
}

export interface DeleteCampaignModalProps {
  applicationId: string;
  campaign: Campaign;
  onClose(): void;
  onDone(): void;
}

/** Spec §5: deleting a campaign needs its name typed exactly; its messages stay, without a campaign. */
export function DeleteCampaignModal({ applicationId, campaign, onClose, onDone }: DeleteCampaignModalProps) {
  const { t } = useTranslation();
  return (
    <ConfirmDeleteModal
      path={`/application/${encodeURIComponent(applicationId)}/campaign/${campaign.id}`}
      title={t('campaignUi.delete.title', { name: campaign.name })}
      body={t('campaignUi.delete.body', { count: campaign.messages })}
      typedConfirmation={{
        label: t('campaignUi.delete.typeName', { name: campaign.name }),
        expected: campaign.name,
        body: (typed) => ({ confirm_name: typed }),
      }}
      onClose={onClose}
      onDone={onDone}
    />
  );
}
