import { ActionList, Banner, BlockStack, Button, Collapsible, FormLayout, InlineError, InlineGrid, InlineStack, Popover, Text, TextField } from '@shopify/polaris';
import { PlusIcon } from '@shopify/polaris-icons';
import { useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  ADDITIONAL_DATA_MAX,
  type AttributeDefinition,
  BUTTONS_MAX,
  CONTENT_MAX,
  HEADING_MAX,
  type NotificationType,
  SMS_CONTENT_MAX,
  fieldsOf,
  withUtm,
} from '../../../shared/contract';
import { PLANS, type Plan } from '../../../shared/permissions/plans';
import { ItemCard } from '../banners/item-controls';
import {
  type ButtonDraft,
  type ContentDraft,
  type Problems,
  additionalDataProblem,
  buttonsCapProblem,
  newButton,
  problemText,
} from './notification-form-model';
import { smsText } from './notification-preview';
import { smsSize } from './sms';

export interface ContentFieldsProps {
  type: NotificationType;
  value: ContentDraft;
  onChange(value: ContentDraft): void;
  /** Problems relative to the content (`heading`, `buttons.0.button_text`). */
  problems: Problems;
  /** The plan whose button cap is shown. */
  plan: Plan;
  disabled?: boolean;
  /**
   * The application's attributes, offered as personal values ({{name}}) for the heading and the text; undefined
   * while they load or for a role that may not list them (the syntax can still be typed).
   */
  attributes?: readonly AttributeDefinition[];
}

const UTM_KEYS = ['source', 'medium', 'campaign', 'term'] as const;

/**
 * What a message says, with the fields its type uses (fieldsOf): heading, text, link, pictures, buttons,
 * UTM parameters and additional data. The create form and the template editor both use it.
 */
export function ContentFields({ type, value, onChange, problems, plan, disabled, attributes }: ContentFieldsProps) {
  const { t } = useTranslation();
  const fields = new Set<string>(fieldsOf(type));
  const [advanced, setAdvanced] = useState(() => Boolean(value.additional_data || value.additional_data_b || Object.values(value.utm).some(Boolean)));
  const advancedId = useId();
  const set = <K extends keyof ContentDraft>(key: K) => (next: ContentDraft[K]) => onChange({ ...value, [key]: next });
  const error = (path: string) => problemText(t, problems[path]);
  const sms = type === 'sms' ? smsSize(smsText(value)) : null;
  const link = value.target_url.trim() ? withUtm(value.target_url.trim(), value.utm) : '';
  const headingId = useId();
  const contentId = useId();
  // Where a personal value goes: the heading or the text, whichever was edited last (the text to begin with).
  const personalTarget = useRef<'heading' | 'content'>('content');
  const insertPersonal = (name: string) => {
    const key = personalTarget.current;
    const element = document.getElementById(key === 'heading' ? headingId : contentId) as HTMLInputElement | HTMLTextAreaElement | null;
    const text = value[key];
    const at = element?.selectionStart ?? text.length;
    const tag = `{{${name}}}`;
    onChange({ ...value, [key]: text.slice(0, at) + tag + text.slice(element?.selectionEnd ?? at) });
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(at + tag.length, at + tag.length);
    });
  };

  return (
    <FormLayout>
      {fields.has('heading') ? (
        <TextField
          id={headingId}
          label={t('notificationUi.content.heading')}
          helpText={type === 'facebook' ? t('notificationUi.content.headingOptional') : undefined}
          value={value.heading}
          onChange={set('heading')}
          onFocus={() => (personalTarget.current = 'heading')}
          autoComplete="off"
          maxLength={HEADING_MAX}
          showCharacterCount
          requiredIndicator={type !== 'facebook'}
          disabled={disabled}
          error={error('heading')}
        />
      ) : null}
      <TextField
        id={contentId}
        label={t('notificationUi.content.body')}
        value={value.content}
        onChange={set('content')}
        onFocus={() => (personalTarget.current = 'content')}
        multiline={4}
        autoComplete="off"
        maxLength={type === 'sms' ? SMS_CONTENT_MAX : CONTENT_MAX}
        showCharacterCount
        requiredIndicator
        disabled={disabled}
        helpText={
          sms && sms.parts > 0
            ? t('notificationUi.content.smsParts', { parts: sms.parts, encoding: t(`notificationUi.preview.encodings.${sms.encoding}`), perPart: sms.perPart })
            : undefined
        }
        error={error('content')}
      />
      <PersonalValues attributes={attributes} onInsert={insertPersonal} disabled={disabled} />
      {fields.has('target_url') ? (
        <TextField
          label={t('notificationUi.content.targetUrl')}
          type="url"
          placeholder="https://"
          helpText={t(type === 'sms' ? 'notificationUi.content.targetUrlSmsHelp' : 'notificationUi.content.targetUrlHelp')}
          value={value.target_url}
          onChange={set('target_url')}
          autoComplete="off"
          maxLength={2000}
          disabled={disabled}
          error={error('target_url')}
        />
      ) : null}
      {fields.has('thumbnail_url') || fields.has('image_url') ? (
        <InlineGrid columns={{ xs: 1, md: fields.has('thumbnail_url') && fields.has('image_url') ? 2 : 1 }} gap="300">
          {fields.has('thumbnail_url') ? (
            <TextField
              label={t('notificationUi.content.thumbnail')}
              type="url"
              placeholder="https://"
              helpText={t('notificationUi.content.thumbnailHelp')}
              value={value.thumbnail_url}
              onChange={set('thumbnail_url')}
              autoComplete="off"
              maxLength={2000}
              disabled={disabled}
              error={error('thumbnail_url')}
            />
          ) : null}
          {fields.has('image_url') ? (
            <TextField
              label={t('notificationUi.content.image')}
              type="url"
              placeholder="https://"
              helpText={t(type === 'facebook' ? 'notificationUi.content.imageFacebookHelp' : 'notificationUi.content.imageHelp')}
              value={value.image_url}
              onChange={set('image_url')}
              autoComplete="off"
              maxLength={2000}
              disabled={disabled}
              error={error('image_url')}
            />
          ) : null}
        </InlineGrid>
      ) : null}
      {fields.has('buttons') ? (
        <ButtonsEditor type={type} buttons={value.buttons} onChange={set('buttons')} problems={problems} plan={plan} disabled={disabled} />
      ) : null}
      {fields.has('utm') || fields.has('additional_data') ? (
        <BlockStack gap="300">
          <InlineStack>
            <Button variant="plain" disclosure={advanced ? 'up' : 'down'} ariaExpanded={advanced} ariaControls={advancedId} onClick={() => setAdvanced(!advanced)}>
              {t(fields.has('additional_data') ? 'notificationUi.content.advanced' : 'notificationUi.content.utm')}
            </Button>
          </InlineStack>
          <Collapsible id={advancedId} open={advanced} transition={false}>
            <FormLayout>
              <BlockStack gap="200">
                <Text as="h3" variant="headingSm">
                  {t('notificationUi.content.utm')}
                </Text>
                <Text as="p" tone="subdued" variant="bodySm">
                  {t('notificationUi.content.utmHelp')}
                </Text>
                <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                  {UTM_KEYS.map((key) => (
                    <TextField
                      key={key}
                      label={t(`notificationUi.content.utmFields.${key}`)}
                      value={value.utm[key]}
                      onChange={(next) => set('utm')({ ...value.utm, [key]: next })}
                      autoComplete="off"
                      maxLength={100}
                      disabled={disabled}
                      error={error(`utm.${key}`)}
                    />
                  ))}
                </InlineGrid>
                {link ? (
                  <Text as="p" tone="subdued" variant="bodySm" breakWord>
                    {t('notificationUi.preview.opens', { url: link })}
                  </Text>
                ) : null}
              </BlockStack>
              {fields.has('additional_data') ? (
                <JsonField
                  label={t('notificationUi.content.additionalData')}
                  helpText={t('notificationUi.content.additionalDataHelp')}
                  value={value.additional_data}
                  onChange={set('additional_data')}
                  disabled={disabled}
                  serverError={error('additional_data')}
                />
              ) : null}
              {fields.has('additional_data_b') ? (
                <JsonField
                  label={t('notificationUi.content.additionalDataB')}
                  helpText={t('notificationUi.content.additionalDataBHelp')}
                  value={value.additional_data_b}
                  onChange={set('additional_data_b')}
                  disabled={disabled}
                  serverError={error('additional_data_b')}
                />
              ) : null}
            </FormLayout>
          </Collapsible>
          {/* A problem in a closed section must not go unseen. */}
          {!advanced && (error('additional_data') || error('additional_data_b') || UTM_KEYS.some((key) => error(`utm.${key}`))) ? (
            <InlineError message={t('notificationUi.content.advancedProblem')} fieldID={advancedId} />
          ) : null}
        </BlockStack>
      ) : null}
    </FormLayout>
  );
}

/** A JSON object typed as text: checked as it is typed with the contract's rule, the problem beside it. */
function JsonField({
  label,
  helpText,
  value,
  onChange,
  disabled,
  serverError,
}: {
  label: string;
  helpText: string;
  value: string;
  onChange(value: string): void;
  disabled?: boolean;
  serverError?: string;
}) {
  const { t } = useTranslation();
  const live = additionalDataProblem(value);
  return (
    <TextField
      label={label}
      helpText={helpText}
      value={value}
      onChange={onChange}
      multiline={3}
      monospaced
      autoComplete="off"
      spellCheck={false}
      placeholder='{"coupon": "TET2025"}'
      maxLength={ADDITIONAL_DATA_MAX}
      disabled={disabled}
      error={live ? t(live) : serverError}
    />
  );
}

/** The action buttons: add up to BUTTONS_MAX, each with its text, action id, link and icon; the plan's cap shown. */
function ButtonsEditor({
  type,
  buttons,
  onChange,
  problems,
  plan,
  disabled,
}: {
  type: NotificationType;
  buttons: ButtonDraft[];
  onChange(buttons: ButtonDraft[]): void;
  problems: Problems;
  plan: Plan;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const listId = useId();
  const cap = PLANS[plan].maxPushButtons;
  const overCap = buttonsCapProblem(plan, { buttons });
  const error = (path: string) => problemText(t, problems[path]);
  const setButton = (index: number, patch: Partial<ButtonDraft>) => onChange(buttons.map((button, i) => (i === index ? { ...button, ...patch } : button)));

  return (
    <BlockStack gap="300">
      <BlockStack gap="100">
        <Text as="h3" variant="headingSm">
          {t('notificationUi.buttons.title')}
        </Text>
        <Text as="p" tone="subdued" variant="bodySm">
          {t(type === 'facebook' ? 'notificationUi.buttons.helpFacebook' : 'notificationUi.buttons.help')}
        </Text>
      </BlockStack>
      {overCap ? (
        <Banner tone="warning">
          <BlockStack gap="100">
            <Text as="p" fontWeight="semibold">
              {problemText(t, overCap)}
            </Text>
            <Text as="p">{t('notificationUi.buttons.overCap')}</Text>
          </BlockStack>
        </Banner>
      ) : null}
      <div id={listId}>
        <BlockStack gap="300">
          {buttons.map((button, index) => {
            const name = t('notificationUi.buttons.name', { number: index + 1 });
            const path = (field: string) => `buttons.${index}.${field}`;
            return (
              <ItemCard key={button.key} name={name} index={index} items={buttons} onChange={onChange} disabled={disabled}>
                <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
                  <TextField
                    label={t('notificationUi.buttons.text')}
                    value={button.button_text}
                    onChange={(buttonText) => setButton(index, { button_text: buttonText })}
                    autoComplete="off"
                    maxLength={40}
                    disabled={disabled}
                    error={error(path('button_text'))}
                  />
                  <TextField
                    label={t('notificationUi.buttons.actionId')}
                    helpText={t('notificationUi.buttons.actionIdHelp')}
                    value={button.action_id}
                    onChange={(actionId) => setButton(index, { action_id: actionId })}
                    autoComplete="off"
                    maxLength={64}
                    monospaced
                    disabled={disabled}
                    error={error(path('action_id'))}
                  />
                  <TextField
                    label={t('notificationUi.buttons.launchUrl')}
                    type="url"
                    placeholder="https://"
                    value={button.launch_url}
                    onChange={(launchUrl) => setButton(index, { launch_url: launchUrl })}
                    autoComplete="off"
                    maxLength={2000}
                    disabled={disabled}
                    error={error(path('launch_url'))}
                  />
                  {type === 'facebook' ? null : (
                    <TextField
                      label={t('notificationUi.buttons.iconUrl')}
                      type="url"
                      placeholder="https://"
                      value={button.icon_url}
                      onChange={(iconUrl) => setButton(index, { icon_url: iconUrl })}
                      autoComplete="off"
                      maxLength={2000}
                      disabled={disabled}
                      error={error(path('icon_url'))}
                    />
                  )}
                </InlineGrid>
              </ItemCard>
            );
          })}
        </BlockStack>
      </div>
      {error('buttons') ? <InlineError message={error('buttons') ?? ''} fieldID={listId} /> : null}
      <InlineStack align="space-between" blockAlign="center" gap="200">
        <Button icon={PlusIcon} disabled={disabled || buttons.length >= BUTTONS_MAX} onClick={() => onChange([...buttons, newButton(buttons.length)])}>
          {t('notificationUi.buttons.add')}
        </Button>
        <Text as="span" tone={overCap ? 'critical' : 'subdued'} variant="bodySm">
          {t('notificationUi.buttons.used', { count: buttons.length, number: Math.min(cap, BUTTONS_MAX) })}
        </Text>
      </InlineStack>
    </BlockStack>
  );
}

/**
 * Personal values: how to write one ({{first_name | bạn}}), and the application's attributes to add one from, where
 * the cursor was in the heading or the text.
 */
function PersonalValues({ attributes, onInsert, disabled }: { attributes: readonly AttributeDefinition[] | undefined; onInsert(name: string): void; disabled?: boolean }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <BlockStack gap="100">
      {attributes && attributes.length > 0 ? (
        <div>
          <Popover
            active={open}
            onClose={() => setOpen(false)}
            autofocusTarget="first-node"
            activator={
              <Button disclosure={open ? 'up' : 'down'} onClick={() => setOpen((was) => !was)} disabled={disabled} size="slim">
                {t('notificationUi.content.personal.insert')}
              </Button>
            }
          >
            <ActionList
              items={attributes.map((attribute) => ({
                content: attribute.name,
                suffix: <Text as="span" tone="subdued" variant="bodySm">{t(`attributes.types.${attribute.type}`)}</Text>,
                onAction: () => {
                  setOpen(false);
                  onInsert(attribute.name);
                },
              }))}
            />
          </Popover>
        </div>
      ) : null}
      <Text as="p" tone="subdued" variant="bodySm">
        {t('notificationUi.content.personal.help')}
      </Text>
    </BlockStack>
  );
}
