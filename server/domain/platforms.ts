import { X509Certificate, createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Selectable } from 'kysely';
import type { z } from 'zod';
import {
  AndroidPlatformSettings,
  FacebookPlatformSettings,
  IosPlatformSettings,
  PLATFORM_KINDS,
  SmsPlatformSettings,
  WebPushSettings,
  isPrivateKeyLabel,
  maskSecret,
  pemBlocks,
  readServiceAccount,
  type AndroidPlatformEntry,
  type AndroidPlatformInput,
  type AndroidPlatformSettings as AndroidSettings,
  type FacebookPlatformEntry,
  type FacebookPlatformInput,
  type FacebookPlatformSettings as FacebookSettings,
  type IosPlatformEntry,
  type IosPlatformInput,
  type IosPlatformSettings as IosSettings,
  type PlatformEntry,
  type PlatformKind,
  type PlatformList,
  type ProviderPlatformKind,
  type SmsPlatformEntry,
  type SmsPlatformInput,
  type SmsPlatformSettings as SmsSettings,
} from '../../shared/contract';
import { V } from '../../shared/validation';
import type { Config } from '../config';
import { nowIso, type ApplicationContext, type Ctx, type Services } from '../context';
import type { PlatformsTable } from '../db/schema';
import { checkPage } from '../delivery/senders/messenger';
import type { ApnsAuth } from '../delivery/senders/apns';
import type { ServiceAccount } from '../delivery/senders/fcm';
import { AppError } from '../errors';
import { openSecret, sealSecret } from '../security/secret-box';
import { WEB_PUSH_KIND, vapidKeys } from './web-push';

/*
 * The platforms the merchant brings credentials for (issue 6): iOS (APNs), Android (FCM), SMS and a Facebook
 * page, one `platforms` row per kind. The `settings` column holds only what may be shown (secrets already
 * masked, so reading never unseals anything); the `secrets` column holds the credentials, sealed with
 * secret-box under `platform:<kind>:credentials`. Keys and certificates are checked with node:crypto and the
 * page with the Graph API before anything is written, so a refused save changes nothing.
 */

type PlatformRow = Selectable<PlatformsTable>;

/** The channel's credentials as the delivery engine needs them. */
export type ChannelCredentials =
  | { kind: 'web'; vapid: { publicKey: string; privateKey: string; subject: string }; iconUrl: string | null }
  | { kind: 'ios'; production: boolean; topic: string; auth: ApnsAuth }
  | { kind: 'android'; serviceAccount: ServiceAccount }
  | { kind: 'sms'; username: string; password: string; brandName: string }
  | { kind: 'facebook'; pageId: string; pageAccessToken: string };

type IosSecrets = { kind: 'token'; p8: string } | { kind: 'certificate'; cert: string; key: string; passphrase?: string };

interface Kinds {
  ios: { input: IosPlatformInput; settings: IosSettings; secrets: IosSecrets; entry: IosPlatformEntry };
  android: { input: AndroidPlatformInput; settings: AndroidSettings; secrets: { service_account: ServiceAccount }; entry: AndroidPlatformEntry };
  sms: { input: SmsPlatformInput; settings: SmsSettings; secrets: { password: string }; entry: SmsPlatformEntry };
  facebook: { input: FacebookPlatformInput; settings: FacebookSettings; secrets: { page_access_token: string }; entry: FacebookPlatformEntry };
}

/** What is stored of a platform: the settings as shown, and the unsealed secrets. */
interface Stored<K extends ProviderPlatformKind> {
  settings: Kinds[K]['settings'];
  secrets: Kinds[K]['secrets'];
}

interface KindSpec<K extends ProviderPlatformKind> {
  settings: z.ZodType<Kinds[K]['settings']>;
  /** Checks the input, keeps the stored secrets it leaves out, and answers what to store; throws field errors. */
  prepare(ctx: Ctx, input: Kinds[K]['input'], stored: Stored<K> | null): Promise<Stored<K>>;
}

const purpose = (kind: ProviderPlatformKind) => `platform:${kind}:credentials`;

/** Refuses the save with one field's problem (an i18n key), as the schema's own checks do. */
function invalid(path: string, message: string): never {
  throw new AppError('INVALID_PARAM', message, { fields: [{ path, message }] });
}

function privateKeyOf(pem: string, passphrase?: string): KeyObject | null {
  try {
    return createPrivateKey(passphrase ? { key: pem, passphrase } : pem);
  } catch {
    return null;
  }
}

/** A key's public fingerprint (SHA-256 of its SubjectPublicKeyInfo), safe to show beside the mask. */
function fingerprint(key: KeyObject): string {
  const der = createPublicKey(key).export({ type: 'spki', format: 'der' });
  return `SHA256:${createHash('sha256').update(der).digest('base64').slice(0, 16)}`;
}

/** A distinguished name on one line: "CN=…, O=…". */
function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

function isEncryptedKey(pem: string): boolean {
  return pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || /Proc-Type:\s*4,ENCRYPTED/.test(pem);
}

const ios: KindSpec<'ios'> = {
  settings: IosPlatformSettings,
  async prepare(ctx, input, stored) {
    const base = { environment: input.environment, bundle_id: input.bundle_id };
    const auth = input.auth;
    if (auth.kind === 'token') {
      if (auth.p8 !== undefined) {
        const key = privateKeyOf(auth.p8);
        // Apple's keys sign ES256: an EC key on P-256.
        if (!key || key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
          invalid('auth.p8', 'platform.errors.p8Key');
        }
        return {
          settings: { ...base, auth: { kind: 'token', key_id: auth.key_id, team_id: auth.team_id, p8: maskSecret(fingerprint(key)) } },
          secrets: { kind: 'token', p8: auth.p8 },
        };
      }
      if (stored?.secrets.kind === 'token' && stored.settings.auth.kind === 'token') {
        return { settings: { ...base, auth: { ...stored.settings.auth, key_id: auth.key_id, team_id: auth.team_id } }, secrets: stored.secrets };
      }
      return invalid('auth.p8', V.required);
    }

    if (auth.pem === undefined) {
      if (stored?.secrets.kind === 'certificate' && stored.settings.auth.kind === 'certificate') {
        return { settings: { ...base, auth: stored.settings.auth }, secrets: stored.secrets };
      }
      return invalid('auth.pem', V.required);
    }
    const blocks = pemBlocks(auth.pem);
    const certificates = blocks.filter((block) => block.label === 'CERTIFICATE').map((block) => block.text);
    const keyPem = blocks.find((block) => isPrivateKeyLabel(block.label))!.text;
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(certificates[0]);
    } catch {
      return invalid('auth.pem', 'platform.errors.certificateInvalid');
    }
    const encrypted = isEncryptedKey(keyPem);
    const passphrase = encrypted ? auth.passphrase || undefined : undefined;
    if (encrypted && !passphrase) invalid('auth.passphrase', 'platform.errors.passphraseNeeded');
    const key = privateKeyOf(keyPem, passphrase);
    if (!key) return invalid(encrypted ? 'auth.passphrase' : 'auth.pem', encrypted ? 'platform.errors.passphraseWrong' : 'platform.errors.keyInvalid');
    if (!certificate.checkPrivateKey(key)) invalid('auth.pem', 'platform.errors.keyMismatch');
    const validTo = new Date(certificate.validTo);
    if (validTo.getTime() <= ctx.s.clock().getTime()) invalid('auth.pem', 'platform.errors.certificateExpired');
    return {
      settings: {
        ...base,
        auth: {
          kind: 'certificate',
          pem: maskSecret(fingerprint(key)),
          has_passphrase: passphrase !== undefined,
          certificate: {
            subject: oneLine(certificate.subject),
            issuer: oneLine(certificate.issuer),
            valid_from: new Date(certificate.validFrom).toISOString(),
            valid_to: validTo.toISOString(),
          },
        },
      },
      secrets: { kind: 'certificate', cert: certificates.join('\n'), key: keyPem, ...(passphrase ? { passphrase } : {}) },
    };
  },
};

const android: KindSpec<'android'> = {
  settings: AndroidPlatformSettings,
  async prepare(_ctx, input, stored) {
    if (input.service_account === undefined) {
      if (stored) return stored;
      return invalid('service_account', V.required);
    }
    const read = readServiceAccount(input.service_account);
    if (!read.ok) return invalid('service_account', read.message);
    const key = privateKeyOf(read.value.private_key);
    // FCM signs its token requests RS256.
    if (!key || key.asymmetricKeyType !== 'rsa') return invalid('service_account', 'platform.errors.serviceAccountKey');
    const { project_id, client_email, private_key_id, token_uri } = read.value;
    return {
      settings: { project_id, client_email, private_key_id: private_key_id ?? null, private_key: maskSecret(fingerprint(key)) },
      secrets: {
        service_account: {
          project_id,
          client_email,
          // The sender imports PKCS#8; a PKCS#1 key from an older tool is converted once, here.
          private_key: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
          ...(private_key_id ? { private_key_id } : {}),
          ...(token_uri ? { token_uri } : {}),
        },
      },
    };
  },
};

const sms: KindSpec<'sms'> = {
  settings: SmsPlatformSettings,
  async prepare(_ctx, input, stored) {
    const password = input.password ?? stored?.secrets.password;
    if (!password) return invalid('password', V.required);
    return { settings: { username: input.username, brand_name: input.brand_name, password: maskSecret() }, secrets: { password } };
  },
};

let caCache: { file: string; pem: string } | undefined;

/** The extra CA certificates trusted for provider TLS (PROVIDER_CA_FILE), read once. */
export function providerCa(config: Pick<Config, 'providers'>): string | undefined {
  const file = config.providers.caFile;
  if (!file) return undefined;
  if (caCache?.file !== file) caCache = { file, pem: readFileSync(file, 'utf8') };
  return caCache.pem;
}

const facebook: KindSpec<'facebook'> = {
  settings: FacebookPlatformSettings,
  async prepare(ctx, input, stored) {
    const token = input.page_access_token ?? stored?.secrets.page_access_token;
    if (!token) return invalid('page_access_token', V.required);
    let pageName = stored?.settings.page_name ?? '';
    const changed = input.page_access_token !== undefined || input.page_id !== stored?.settings.page_id;
    // Switching a page off with the same credentials needs no check: an expired token must not keep it on.
    if (changed || input.status === 'active') {
      const check = await checkPage(input.page_id, token, {
        baseUrl: ctx.s.config.providers.graphBaseUrl,
        ca: providerCa(ctx.s.config),
        timeoutMs: 15_000,
      });
      if (!check.ok) {
        ctx.log.info({ pageId: input.page_id, reason: check.reason, detail: check.detail }, 'facebook page check failed');
        throw new AppError('INVALID_PARAM', 'platform.errors.pageConnect');
      }
      pageName = check.name;
    }
    return {
      settings: { page_id: input.page_id, page_name: pageName, page_access_token: maskSecret(token.slice(-4)) },
      secrets: { page_access_token: token },
    };
  },
};

const SPECS: { [K in ProviderPlatformKind]: KindSpec<K> } = { ios, android, sms, facebook };

function isProviderKind(kind: PlatformKind): kind is ProviderPlatformKind {
  return kind !== WEB_PUSH_KIND;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function settingsOf<K extends ProviderPlatformKind>(kind: K, row: Pick<PlatformRow, 'settings'>): Kinds[K]['settings'] | null {
  const parsed = (SPECS[kind] as KindSpec<K>).settings.safeParse(parseJson(row.settings || '{}'));
  return parsed.success ? parsed.data : null;
}

function secretsOf<K extends ProviderPlatformKind>(s: Pick<Services, 'config'>, kind: K, row: Pick<PlatformRow, 'secrets'>): Kinds[K]['secrets'] | null {
  if (!row.secrets) return null;
  const opened = openSecret(s.config.secretKey, purpose(kind), row.secrets);
  return opened === null ? null : (parseJson(opened) as Kinds[K]['secrets'] | null);
}

function webSettingsOf(row: Pick<PlatformRow, 'settings'>): WebPushSettings | null {
  const parsed = WebPushSettings.safeParse(parseJson(row.settings || '{}'));
  return parsed.success ? parsed.data : null;
}

/** One kind's entry: its state (not_configured until first saved) and its settings, masked. */
function entryOf(kind: PlatformKind, row: PlatformRow | undefined): PlatformEntry {
  if (!isProviderKind(kind)) {
    const settings = row ? webSettingsOf(row) : null;
    const status = !settings ? 'not_configured' : settings.enabled && row!.status === 'active' ? 'active' : 'inactive';
    return { kind: 'web', status, updated_at: row?.updated_at ?? null, settings };
  }
  const settings = row ? settingsOf(kind, row) : null;
  const status = !settings ? 'not_configured' : row!.status === 'active' ? 'active' : 'inactive';
  return { kind, status, updated_at: settings ? row!.updated_at : null, settings } as PlatformEntry;
}

async function rowOf(s: Pick<Services, 'db'>, applicationId: string, kind: PlatformKind) {
  return s.db.selectFrom('platforms').selectAll().where('application_id', '=', applicationId).where('kind', '=', kind).executeTakeFirst();
}

/** GET /application/{id}/platform: every kind with its state and masked settings, in PLATFORM_KINDS order. */
export async function listPlatforms(ctx: Ctx, app: ApplicationContext): Promise<PlatformList> {
  const rows = await ctx.s.db.selectFrom('platforms').selectAll().where('application_id', '=', app.application.application_id).execute();
  return PLATFORM_KINDS.map((kind) => entryOf(kind, rows.find((row) => row.kind === kind)));
}

/** GET /application/{id}/platform/{kind}: one platform, secrets masked. */
export async function getPlatform<K extends ProviderPlatformKind>(ctx: Ctx, app: ApplicationContext, kind: K): Promise<Kinds[K]['entry']> {
  return entryOf(kind, await rowOf(ctx.s, app.application.application_id, kind)) as Kinds[K]['entry'];
}

/**
 * PUT /application/{id}/platform/{kind}: checks and saves a platform's settings and status. Secrets left out
 * keep their stored values; a refused save (bad key, wrong passphrase, page unreachable) writes nothing.
 */
export async function savePlatform<K extends ProviderPlatformKind>(
  ctx: Ctx,
  app: ApplicationContext,
  kind: K,
  input: Kinds[K]['input'],
): Promise<Kinds[K]['entry']> {
  const applicationId = app.application.application_id;
  const row = await rowOf(ctx.s, applicationId, kind);
  const storedSettings = row ? settingsOf(kind, row) : null;
  const storedSecrets = row ? secretsOf(ctx.s, kind, row) : null;
  const stored = storedSettings && storedSecrets ? { settings: storedSettings, secrets: storedSecrets } : null;
  const next = await (SPECS[kind] as KindSpec<K>).prepare(ctx, input, stored);
  const now = nowIso(ctx.s);
  const values = {
    status: input.status,
    settings: JSON.stringify(next.settings),
    secrets: sealSecret(ctx.s.config.secretKey, purpose(kind), JSON.stringify(next.secrets)),
    updated_at: now,
  };
  await ctx.s.db
    .insertInto('platforms')
    .values({ application_id: applicationId, kind, public_key: null, created_at: now, ...values })
    .onConflict((oc) => oc.columns(['application_id', 'kind']).doUpdateSet(values))
    .execute();
  return getPlatform(ctx, app, kind);
}

/** The platform's credentials unsealed, or null when not configured or inactive. */
export async function loadChannelCredentials(
  s: Pick<Services, 'db' | 'config'>,
  applicationId: string,
  kind: PlatformKind,
): Promise<ChannelCredentials | null> {
  const row = await rowOf(s, applicationId, kind);
  if (!row || row.status !== 'active') return null;
  if (!isProviderKind(kind)) {
    const settings = webSettingsOf(row);
    if (!settings?.enabled) return null;
    const keys = await vapidKeys(s, applicationId);
    if (!keys) return null;
    return { kind: 'web', vapid: { ...keys, subject: s.config.providers.vapidSubject }, iconUrl: settings.icon_url || null };
  }
  switch (kind) {
    case 'ios': {
      const settings = settingsOf('ios', row);
      const secrets = secretsOf(s, 'ios', row);
      if (!settings || !secrets) return null;
      const auth: ApnsAuth | null =
        secrets.kind === 'token' && settings.auth.kind === 'token'
          ? { kind: 'token', keyId: settings.auth.key_id, teamId: settings.auth.team_id, key: secrets.p8 }
          : secrets.kind === 'certificate'
            ? { kind: 'certificate', cert: secrets.cert, key: secrets.key, ...(secrets.passphrase ? { passphrase: secrets.passphrase } : {}) }
            : null;
      return auth && { kind: 'ios', production: settings.environment === 'production', topic: settings.bundle_id, auth };
    }
    case 'android': {
      const secrets = secretsOf(s, 'android', row);
      return secrets && { kind: 'android', serviceAccount: secrets.service_account };
    }
    case 'sms': {
      const settings = settingsOf('sms', row);
      const secrets = secretsOf(s, 'sms', row);
      return settings && secrets && { kind: 'sms', username: settings.username, password: secrets.password, brandName: settings.brand_name };
    }
    case 'facebook': {
      const settings = settingsOf('facebook', row);
      const secrets = secretsOf(s, 'facebook', row);
      return settings && secrets && { kind: 'facebook', pageId: settings.page_id, pageAccessToken: secrets.page_access_token };
    }
  }
}

/** Kinds configured and active for the application. */
export async function activePlatformKinds(s: Pick<Services, 'db'>, applicationId: string): Promise<PlatformKind[]> {
  const rows = await s.db
    .selectFrom('platforms')
    .select(['kind', 'settings'])
    .where('application_id', '=', applicationId)
    .where('status', '=', 'active')
    .execute();
  return PLATFORM_KINDS.filter((kind) => {
    const row = rows.find((candidate) => candidate.kind === kind);
    if (!row) return false;
    // Web push's row exists from the first read of its card; it counts once saved with `enabled`.
    return kind === WEB_PUSH_KIND ? webSettingsOf(row)?.enabled === true : true;
  });
}
