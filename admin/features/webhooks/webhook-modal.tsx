import { BlockStack, Checkbox, InlineError, Text, TextField } from '@shopify/polaris';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  TAG_MAX_LENGTH,
  WEBHOOK_EVENT_TYPES,
  Webhook,
  WebhookInput,
  WebhookWithSecret,
  type WebhookEventType,
} from '../../../shared/contract';
import { PAYLOAD_URL_MAX_LENGTH } from '../../../shared/validation';
import { api } from '../../api';
import { FormModal, useFormSubmit } from '../../components/form-modal';

export interface WebhookModalProps {
  /** The webhooks' list path (`/application/{id}/webhook`). */
  base: string;
  /** The webhook being edited; none to add one. */
  webhook?: Webhook;
  onClose(): void;
  /** After an add: the new webhook with its whole signing secret. */
  onCreated(webhook: WebhookWithSecret): void;
  onSaved(webhook: Webhook): void;
}

/**
 * Add or edit a webhook: payload URL, the events it receives (each with what it means), the tag when
 * "message with tag" is chosen, and on/off. Checked with WebhookInput; the server adds the address check.
 */
export function WebhookModal({ base, webhook, onClose, onCreated, onSaved }: WebhookModalProps) {
  const { t } = useTranslation();
  const eventsId = useId();
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [types, setTypes] = useState<WebhookEventType[]>(webhook?.event_types ?? ['new_lead']);
  const [tag, setTag] = useState(webhook?.tag ?? '');
  const [active, setActive] = useState(webhook ? webhook.status === 'active' : true);
  const form = useFormSubmit(WebhookInput, async (body) => {
    if (webhook) onSaved((await api.put(`${base}/${webhook.id}`, body, Webhook, { quiet: true })).data);
    else onCreated((await api.post(base, body, WebhookWithSecret, { quiet: true })).data);
  });
  const { errors } = form;
  const withTag = types.includes('message_with_tag');

  function toggle(type: WebhookEventType, checked: boolean) {
    setTypes((current) => WEBHOOK_EVENT_TYPES.filter((candidate) => (candidate === type ? checked : current.includes(candidate))));
  }

  const submit = () => void form.submit({ url, event_types: types, tag: withTag ? tag : null, active });

  return (
    <FormModal
      title={webhook ? t('webhook.edit.title') : t('webhook.create.title')}
      submitLabel={webhook ? t('common.save') : t('webhook.create.submit')}
      form={form}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label={t('webhook.fields.url')}
        type="url"
        value={url}
        onChange={setUrl}
        autoComplete="off"
        placeholder="https://example.com/webhooks/nudge"
        maxLength={PAYLOAD_URL_MAX_LENGTH}
        helpText={t('webhook.fields.urlHelp')}
        error={errors.url ? t(errors.url) : undefined}
      />
      <fieldset style={{ border: 0, margin: 0, padding: 0, minWidth: 0 }} aria-describedby={errors.event_types ? eventsId : undefined}>
        <BlockStack gap="200">
          <legend style={{ padding: 0 }}>
            <Text as="span" variant="bodyMd">
              {t('webhook.fields.eventTypes')}
            </Text>
          </legend>
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <Checkbox
              key={type}
              label={t(`webhook.events.${type}.label`)}
              helpText={t(`webhook.events.${type}.help`)}
              checked={types.includes(type)}
              onChange={(checked) => toggle(type, checked)}
            />
          ))}
          {errors.event_types ? <InlineError message={t(errors.event_types)} fieldID={eventsId} /> : null}
        </BlockStack>
      </fieldset>
      {withTag ? (
        <TextField
          label={t('webhook.fields.tag')}
          value={tag}
          onChange={setTag}
          autoComplete="off"
          maxLength={TAG_MAX_LENGTH}
          helpText={t('webhook.fields.tagHelp')}
          error={errors.tag ? t(errors.tag) : undefined}
        />
      ) : null}
      <Checkbox label={t('webhook.fields.active')} helpText={t('webhook.fields.activeHelp')} checked={active} onChange={setActive} />
    </FormModal>
  );
}
