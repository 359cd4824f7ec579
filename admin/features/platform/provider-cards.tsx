import { BlockStack, ChoiceList, FormLayout, Select, Text, TextField } from '@shopify/polaris';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import {
  APNS_ENVIRONMENTS,
  AndroidPlatformEntry,
  AndroidPlatformInput,
  FacebookPlatformEntry,
  FacebookPlatformInput,
  IosPlatformEntry,
  IosPlatformInput,
  SMS_BRAND_NAME_MAX_LENGTH,
  SmsPlatformEntry,
  SmsPlatformInput,
  type ApnsEnvironment,
  type PlatformStatus,
  type ProviderPlatformKind,
} from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { PlatformCard, SecretField, usePlatformForm } from './platform-card';
import { useLanguage } from '../../app/i18n';

/** What every provider card gets: the application and its platform as the server holds it. */
export interface ProviderCardProps<E> {
  applicationId: string;
  entry: E;
  /** Called with the platform once saved. */
  onSaved(entry: E): void;
}

const statusOf = (active: boolean): PlatformStatus => (active ? 'active' : 'inactive');
/** A platform not saved yet starts switched on: saving it is the merchant's way of turning it on. */
const isOn = (entry: { status: string }) => entry.status !== 'inactive';
/** A secret's form value: null keeps the stored one; with none stored, an empty field the merchant must fill. */
const secretDraft = (masked: string | null | undefined) => (masked ? null : '');
const withSecret = <K extends string>(key: K, value: string | null) => (value === null ? {} : ({ [key]: value } as Record<K, string>));

/** How one kind's form maps to and from the API. */
interface ProviderForm<D, E> {
  draftOf(entry: E): D;
  /** The body without its status, which every kind sends the same way. */
  bodyOf(draft: D): object;
  input: z.ZodTypeAny;
  answer: z.ZodType<E>;
}

type ProviderEntry = { status: 'active' | 'inactive' | 'not_configured'; updated_at: string | null };

/** A provider card's form: the kind's own fields, plus the status switch every kind has. */
function useProviderForm<D extends { active: boolean }, E extends ProviderEntry>(
  kind: ProviderPlatformKind,
  { applicationId, entry, onSaved }: ProviderCardProps<E>,
  spec: ProviderForm<D, E>,
) {
  return usePlatformForm<D, E>({
    path: `/application/${encodeURIComponent(applicationId)}/platform/${kind}`,
    initial: spec.draftOf(entry),
    bodyOf: (draft) => ({ status: statusOf(draft.active), ...spec.bodyOf(draft) }),
    input: spec.input,
    answer: spec.answer,
    draftOf: spec.draftOf,
    onSaved,
  });
}

/** The card of one provider kind: its title, about text and state, around the kind's fields. */
function ProviderCard<D extends { active: boolean }>({
  kind,
  entry,
  form,
  children,
}: {
  kind: ProviderPlatformKind;
  entry: ProviderEntry;
  form: ReturnType<typeof usePlatformForm<D, unknown>>;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <PlatformCard
      title={t(`platform.${kind}.title`)}
      about={t(`platform.${kind}.about`)}
      state={entry.status}
      updatedAt={entry.updated_at}
      form={form}
      onSave={() => void form.save()}
      active={{ checked: form.draft.active, onChange: form.set('active') }}
    >
      <FormLayout>{children}</FormLayout>
    </PlatformCard>
  );
}

// ---------------------------------------------------------------------------------------------------------

type IosEntry = z.infer<typeof IosPlatformEntry>;

interface IosDraft {
  active: boolean;
  environment: ApnsEnvironment;
  bundle_id: string;
  kind: 'token' | 'certificate';
  key_id: string;
  team_id: string;
  p8: string | null;
  pem: string | null;
  passphrase: string;
}

const IOS: ProviderForm<IosDraft, IosEntry> = {
  draftOf(entry) {
    const auth = entry.settings?.auth;
    return {
      active: isOn(entry),
      environment: entry.settings?.environment ?? 'production',
      bundle_id: entry.settings?.bundle_id ?? '',
      kind: auth?.kind ?? 'token',
      key_id: auth?.kind === 'token' ? auth.key_id : '',
      team_id: auth?.kind === 'token' ? auth.team_id : '',
      p8: secretDraft(auth?.kind === 'token' ? auth.p8 : null),
      pem: secretDraft(auth?.kind === 'certificate' ? auth.pem : null),
      passphrase: '',
    };
  },
  bodyOf: (draft) => ({
    environment: draft.environment,
    bundle_id: draft.bundle_id,
    auth:
      draft.kind === 'token'
        ? { kind: 'token', key_id: draft.key_id, team_id: draft.team_id, ...withSecret('p8', draft.p8) }
        : { kind: 'certificate', ...withSecret('pem', draft.pem), ...(draft.pem !== null && draft.passphrase ? { passphrase: draft.passphrase } : {}) },
  }),
  input: IosPlatformInput,
  answer: IosPlatformEntry,
};

/** iOS (APNs): environment, bundle id, and an auth key (.p8) or a certificate (PEM file). */
export function IosCard(props: ProviderCardProps<IosEntry>) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const { entry } = props;
  const form = useProviderForm('ios', props, IOS);
  const { draft, set, problem } = form;
  const stored = entry.settings?.auth;
  const certificate = stored?.kind === 'certificate' ? stored.certificate : null;
  const expired = certificate ? new Date(certificate.valid_to).getTime() < Date.now() : false;

  return (
    <ProviderCard kind="ios" entry={entry} form={form}>
      <FormLayout.Group>
        <Select
          label={t('platform.ios.environment')}
          options={APNS_ENVIRONMENTS.map((value) => ({ value, label: t(`platform.ios.environments.${value}`) }))}
          value={draft.environment}
          onChange={(value) => set('environment')(value as ApnsEnvironment)}
          error={problem('environment')}
        />
        <TextField
          label={t('platform.ios.bundleId')}
          value={draft.bundle_id}
          onChange={set('bundle_id')}
          autoComplete="off"
          placeholder="vn.shop.app"
          helpText={t('platform.ios.bundleIdHelp')}
          error={problem('bundle_id')}
        />
      </FormLayout.Group>
      <ChoiceList
        title={t('platform.ios.authKind')}
        choices={(['token', 'certificate'] as const).map((value) => ({ value, label: t(`platform.ios.authKinds.${value}`) }))}
        selected={[draft.kind]}
        onChange={([value]) => set('kind')(value as IosDraft['kind'])}
      />
      {draft.kind === 'token' ? (
        <BlockStack gap="400">
          <FormLayout.Group>
            {(['key_id', 'team_id'] as const).map((field) => (
              <TextField
                key={field}
                label={t(field === 'key_id' ? 'platform.ios.keyId' : 'platform.ios.teamId')}
                value={draft[field]}
                onChange={set(field)}
                autoComplete="off"
                maxLength={10}
                helpText={t('platform.ios.appleIdHelp')}
                error={problem(`auth.${field}`)}
              />
            ))}
          </FormLayout.Group>
          <SecretField
            label={t('platform.ios.p8')}
            helpText={t('platform.ios.p8Help')}
            masked={stored?.kind === 'token' ? stored.p8 : null}
            value={draft.p8}
            onChange={set('p8')}
            error={problem('auth.p8')}
            file={{ accept: '.p8,.pem,.txt' }}
          />
        </BlockStack>
      ) : (
        <BlockStack gap="400">
          <SecretField
            label={t('platform.ios.pem')}
            helpText={t('platform.ios.pemHelp')}
            masked={stored?.kind === 'certificate' ? stored.pem : null}
            value={draft.pem}
            onChange={set('pem')}
            error={problem('auth.pem')}
            file={{ accept: '.pem,.crt,.key,.txt' }}
          />
          {draft.pem !== null ? (
            <TextField
              label={t('platform.ios.passphrase')}
              type="password"
              value={draft.passphrase}
              onChange={set('passphrase')}
              autoComplete="new-password"
              helpText={t('platform.ios.passphraseHelp')}
              error={problem('auth.passphrase')}
            />
          ) : stored?.kind === 'certificate' && stored.has_passphrase ? (
            <Text as="p" tone="subdued">
              {t('platform.ios.passphraseSaved')}
            </Text>
          ) : null}
          {certificate ? (
            <BlockStack gap="100">
              <Text as="h3" variant="headingSm">
                {t('platform.ios.certificate')}
              </Text>
              <Text as="p" breakWord>
                {t('platform.ios.certificateSubject', { subject: certificate.subject })}
              </Text>
              <Text as="p" tone={expired ? 'critical' : 'subdued'}>
                {t(expired ? 'platform.ios.certificateExpired' : 'platform.ios.certificateValid', {
                  date: formatDate(certificate.valid_to, '{y}-{m}-{d}', { lang }),
                })}
              </Text>
            </BlockStack>
          ) : null}
        </BlockStack>
      )}
    </ProviderCard>
  );
}

// ---------------------------------------------------------------------------------------------------------

type AndroidEntry = z.infer<typeof AndroidPlatformEntry>;

interface AndroidDraft {
  active: boolean;
  service_account: string | null;
}

const ANDROID: ProviderForm<AndroidDraft, AndroidEntry> = {
  draftOf: (entry) => ({ active: isOn(entry), service_account: secretDraft(entry.settings?.private_key) }),
  bodyOf: (draft) => withSecret('service_account', draft.service_account),
  input: AndroidPlatformInput,
  answer: AndroidPlatformEntry,
};

/** Android (FCM HTTP v1): the service-account key file. */
export function AndroidCard(props: ProviderCardProps<AndroidEntry>) {
  const { t } = useTranslation();
  const settings = props.entry.settings;
  const form = useProviderForm('android', props, ANDROID);

  return (
    <ProviderCard kind="android" entry={props.entry} form={form}>
      {settings ? (
        <BlockStack gap="100">
          <Text as="p" breakWord>
            {t('platform.android.project', { project: settings.project_id })}
          </Text>
          <Text as="p" tone="subdued" breakWord>
            {t('platform.android.account', { email: settings.client_email })}
          </Text>
        </BlockStack>
      ) : null}
      <SecretField
        label={t('platform.android.serviceAccount')}
        helpText={t('platform.android.serviceAccountHelp')}
        masked={settings?.private_key ?? null}
        value={form.draft.service_account}
        onChange={form.set('service_account')}
        error={form.problem('service_account')}
        file={{ accept: '.json,application/json' }}
      />
    </ProviderCard>
  );
}

// ---------------------------------------------------------------------------------------------------------

type SmsEntry = z.infer<typeof SmsPlatformEntry>;

interface SmsDraft {
  active: boolean;
  username: string;
  password: string | null;
  brand_name: string;
}

const SMS: ProviderForm<SmsDraft, SmsEntry> = {
  draftOf: (entry) => ({
    active: isOn(entry),
    username: entry.settings?.username ?? '',
    password: secretDraft(entry.settings?.password),
    brand_name: entry.settings?.brand_name ?? '',
  }),
  bodyOf: (draft) => ({ username: draft.username, brand_name: draft.brand_name, ...withSecret('password', draft.password) }),
  input: SmsPlatformInput,
  answer: SmsPlatformEntry,
};

/** SMS: the provider account and the brand name messages are sent under. */
export function SmsCard(props: ProviderCardProps<SmsEntry>) {
  const { t } = useTranslation();
  const form = useProviderForm('sms', props, SMS);
  const { draft, set, problem } = form;

  return (
    <ProviderCard kind="sms" entry={props.entry} form={form}>
      <FormLayout.Group>
        <TextField label={t('platform.sms.username')} value={draft.username} onChange={set('username')} autoComplete="off" error={problem('username')} />
        <SecretField
          label={t('platform.sms.password')}
          masked={props.entry.settings?.password ?? null}
          value={draft.password}
          onChange={set('password')}
          error={problem('password')}
        />
      </FormLayout.Group>
      <TextField
        label={t('platform.sms.brandName')}
        value={draft.brand_name}
        onChange={set('brand_name')}
        autoComplete="off"
        maxLength={SMS_BRAND_NAME_MAX_LENGTH}
        showCharacterCount
        helpText={t('platform.sms.brandNameHelp')}
        error={problem('brand_name')}
      />
    </ProviderCard>
  );
}

// ---------------------------------------------------------------------------------------------------------

type FacebookEntry = z.infer<typeof FacebookPlatformEntry>;

interface FacebookDraft {
  active: boolean;
  page_id: string;
  page_access_token: string | null;
}

const FACEBOOK: ProviderForm<FacebookDraft, FacebookEntry> = {
  draftOf: (entry) => ({ active: isOn(entry), page_id: entry.settings?.page_id ?? '', page_access_token: secretDraft(entry.settings?.page_access_token) }),
  bodyOf: (draft) => ({ page_id: draft.page_id, ...withSecret('page_access_token', draft.page_access_token) }),
  input: FacebookPlatformInput,
  answer: FacebookPlatformEntry,
};

/** Facebook page: the page and its access token, checked with Facebook on save. */
export function FacebookCard(props: ProviderCardProps<FacebookEntry>) {
  const { t } = useTranslation();
  const settings = props.entry.settings;
  const form = useProviderForm('facebook', props, FACEBOOK);
  const { draft, set, problem } = form;

  return (
    <ProviderCard kind="facebook" entry={props.entry} form={form}>
      {settings?.page_name ? (
        <Text as="p" breakWord>
          {t('platform.facebook.connected', { name: settings.page_name })}
        </Text>
      ) : null}
      <TextField
        label={t('platform.facebook.pageId')}
        value={draft.page_id}
        onChange={set('page_id')}
        autoComplete="off"
        inputMode="numeric"
        helpText={t('platform.facebook.pageIdHelp')}
        error={problem('page_id')}
      />
      <SecretField
        label={t('platform.facebook.pageToken')}
        helpText={t('platform.facebook.pageTokenHelp')}
        masked={settings?.page_access_token ?? null}
        value={draft.page_access_token}
        onChange={set('page_access_token')}
        error={problem('page_access_token')}
      />
    </ProviderCard>
  );
}
