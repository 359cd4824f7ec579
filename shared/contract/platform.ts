import { z } from 'zod';
import { V, isEmail, isHttpsUrl } from '../validation';
import { DeviceId, PushSubscription } from './audience';
import { Timestamp } from './common';

/**
 * The platforms an application sends through (spec §3 "Platform setting"). Issue 5 builds web push; issue 6
 * adds ios, android, sms and facebook to the same table (one row per application and kind: status, settings,
 * sealed secrets, public key). Web push is stored under the kind `web`, the label the application list shows.
 */

export const PLATFORM_KINDS = ['web', 'ios', 'android', 'sms', 'facebook'] as const;
export const PlatformKind = z.enum(PLATFORM_KINDS);
export type PlatformKind = z.infer<typeof PlatformKind>;

export const SUBSCRIPTION_BOX_POSITIONS = ['top', 'center', 'bottom_left', 'bottom_right'] as const;
export const SubscriptionBoxPosition = z.enum(SUBSCRIPTION_BOX_POSITIONS);
export type SubscriptionBoxPosition = z.infer<typeof SubscriptionBoxPosition>;

/** The service worker path when the merchant names none: a file at the root, so its scope is the whole shop. */
export const DEFAULT_SW_PATH = '/nudge-sw.js';

/** The text of the subscription box the shop's visitors see, before the browser's own permission prompt. */
export const SubscriptionBox = z.object({
  text: z.string().trim().min(1, { message: V.required }).max(200, { message: V.tooLong }),
  allow_text: z.string().trim().min(1, { message: V.required }).max(40, { message: V.tooLong }),
  deny_text: z.string().trim().min(1, { message: V.required }).max(40, { message: V.tooLong }),
  /** Seconds after the page opens; 0 shows it at once. */
  delay_seconds: z.number().int().min(0, { message: V.outOfRange }).max(600, { message: V.outOfRange }),
  position: SubscriptionBoxPosition,
});
export type SubscriptionBox = z.infer<typeof SubscriptionBox>;

/** A new application's box, in the default language (vi); the merchant edits it. */
export const DEFAULT_SUBSCRIPTION_BOX: SubscriptionBox = {
  text: 'Nhận thông báo về ưu đãi và sản phẩm mới từ cửa hàng?',
  allow_text: 'Cho phép',
  deny_text: 'Để sau',
  delay_seconds: 5,
  position: 'top',
};

/** A same-origin path the service worker is served from: `/`, then letters, digits and `_ . ~ - /`, no `..`. */
export function isServiceWorkerPath(value: string): boolean {
  return /^\/[A-Za-z0-9._~/-]{0,199}$/.test(value) && !value.includes('..') && !value.startsWith('//');
}

const HttpsUrl = (message: string) =>
  z.string().trim().max(2000, { message: V.tooLong }).refine((value) => isHttpsUrl(value), { message });

/** PUT /application/{id}/platform/web_push: the merchant's web push settings (spec §3, §5: HTTPS only). */
export const WebPushSettings = z.object({
  enabled: z.boolean(),
  /** The shop's address; its origin is where the service worker is registered. */
  site_url: HttpsUrl(V.siteUrlHttps),
  /** The notifications' default icon; empty or absent for none. */
  icon_url: z
    .string()
    .trim()
    .max(2000, { message: V.tooLong })
    .refine((value) => value === '' || isHttpsUrl(value), { message: V.iconUrlHttps })
    .optional(),
  sw_path: z
    .string()
    .trim()
    .refine((value) => isServiceWorkerPath(value), { message: 'webPush.swPathInvalid' })
    .default(DEFAULT_SW_PATH),
  box: SubscriptionBox,
});
export type WebPushSettings = z.infer<typeof WebPushSettings>;
export type WebPushSettingsInput = z.input<typeof WebPushSettings>;

/**
 * GET /application/{id}/platform/web_push: the settings (null until first saved) and the application's VAPID
 * public key (made once; the private key never leaves the server).
 */
export const WebPushPlatform = z.object({
  settings: WebPushSettings.nullable(),
  vapid_public_key: z.string(),
  updated_at: z.string().nullable(),
});
export type WebPushPlatform = z.infer<typeof WebPushPlatform>;

/** What the storefront config carries when web push is on: what the browser needs to subscribe. */
export const PublicWebPush = z.object({
  vapid_public_key: z.string(),
  sw_path: z.string(),
  box: SubscriptionBox,
});
export type PublicWebPush = z.infer<typeof PublicWebPush>;

/** POST /api/sdk/push/subscribe: a browser's new (or renewed) subscription for its visitor. */
export const PushSubscribeBody = z.object({
  key: z.string().min(8).max(64),
  visitor_id: DeviceId,
  subscription: PushSubscription,
  /** Without it, a visitor who unsubscribed on the playerinfo page stays unsubscribed (subscribePush). */
  opt_in: z
    .boolean()
    .optional()
    .describe('true when the visitor said yes in the subscription box just now; left out when the browser renewed the subscription by itself'),
  device: z
    .object({
      device_type: z.enum(['desktop', 'mobile']).optional(),
      os: z.string().max(64).optional(),
      browser: z.string().max(64).optional(),
      language: z.string().max(16).optional(),
      timezone: z.string().max(64).optional(),
    })
    .optional(),
});
export type PushSubscribeBody = z.infer<typeof PushSubscribeBody>;

/** What POST /api/sdk/push/subscribe answers. */
export const PushSubscribeResult = z.object({
  subscribed: z.boolean().describe('whether the visitor is subscribed with this subscription now'),
  renew: z
    .boolean()
    .describe(
      'true when the push service refused this subscription for good: the browser is to drop it (PushSubscription.unsubscribe()) and send a new one',
    ),
});
export type PushSubscribeResult = z.infer<typeof PushSubscribeResult>;

/** POST /api/sdk/push/unsubscribe: the visitor's browser no longer takes pushes (permission revoked, expired). */
export const PushUnsubscribeBody = z.object({
  key: z.string().min(8).max(64),
  visitor_id: DeviceId,
  /** The endpoint that ended, when known: only that one is cleared. */
  endpoint: z.string().max(2000).optional(),
});
export type PushUnsubscribeBody = z.infer<typeof PushUnsubscribeBody>;

/** POST /api/sdk/push/report: the service worker showed a notification, or the visitor clicked it. */
export const PushReportBody = z.object({
  key: z.string().min(8).max(64),
  kind: z.enum(['delivered', 'clicked']),
  message_id: z.string().max(64).optional(),
  /** The subscription's endpoint: names the player (the service worker has no visitor id). */
  endpoint: z.string().max(2000).optional(),
  /** The button clicked, if any. */
  action: z.string().max(64).optional(),
});
export type PushReportBody = z.infer<typeof PushReportBody>;

// ---------------------------------------------------------------------------------------------------------
// iOS (APNs), Android (FCM), SMS and Facebook page (issue 6)
// ---------------------------------------------------------------------------------------------------------

/** The platforms whose credentials the merchant brings (web push makes its own keys). */
export const PROVIDER_PLATFORM_KINDS = ['ios', 'android', 'sms', 'facebook'] as const;
export const ProviderPlatformKind = z.enum(PROVIDER_PLATFORM_KINDS);
export type ProviderPlatformKind = z.infer<typeof ProviderPlatformKind>;

/** Spec §3 "Platform status: active or inactive": whether messages go out through the platform. */
export const PlatformStatus = z.enum(['active', 'inactive']);
export type PlatformStatus = z.infer<typeof PlatformStatus>;

/** A platform's standing as the console shows it: its status, or never configured. */
export const PlatformState = z.enum(['active', 'inactive', 'not_configured']);
export type PlatformState = z.infer<typeof PlatformState>;

/** The longest PEM or key-file text accepted: a certificate chain and its key fit well within it. */
export const PLATFORM_FILE_MAX_LENGTH = 20_000;

/** The PEM labels of a private key: PKCS#8 (plain or encrypted), PKCS#1 RSA, SEC1 EC. */
const PRIVATE_KEY_LABELS = new Set(['PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY']);

/** One `-----BEGIN X-----` … `-----END X-----` block of a PEM text. */
export interface PemBlock {
  label: string;
  /** The whole block, markers included. */
  text: string;
}

/** The PEM blocks of a text, in order; text outside blocks (bag attributes, comments) is ignored. */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)) {
    // The body is base64, optionally after RFC 1421 headers (Proc-Type, DEK-Info) of legacy encrypted keys.
    if (/^[A-Za-z0-9+/=\s:,-]+$/.test(match[2]) && /[A-Za-z0-9+/]{16}/.test(match[2])) blocks.push({ label: match[1], text: match[0] });
  }
  return blocks;
}

export function isPrivateKeyLabel(label: string): boolean {
  return PRIVATE_KEY_LABELS.has(label);
}

/** An APNs auth key (.p8): one PKCS#8 private key block, as Apple hands it out. */
export function isP8Pem(text: string): boolean {
  const blocks = pemBlocks(text);
  return blocks.length === 1 && blocks[0].label === 'PRIVATE KEY';
}

/** An APNs certificate PEM file (spec "PEM file"): the certificate (and its chain) and one private key. */
export function isCertificatePem(text: string): boolean {
  const blocks = pemBlocks(text);
  return blocks.some((block) => block.label === 'CERTIFICATE') && blocks.filter((block) => isPrivateKeyLabel(block.label)).length === 1;
}

/** The fields of a Google service-account key file that FCM HTTP v1 needs. */
export interface ServiceAccountKey {
  type: 'service_account';
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
  [field: string]: unknown;
}

/**
 * Reads an FCM service-account key file (spec "FCM key"): JSON of type service_account with project_id,
 * client_email and a private key in PEM. Answers the key, or the i18n key of what is wrong with it.
 */
export function readServiceAccount(text: string): { ok: true; value: ServiceAccountKey } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: V.json };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { ok: false, message: V.json };
  const value = json as Record<string, unknown>;
  if (value.type !== 'service_account') return { ok: false, message: 'platform.errors.notServiceAccount' };
  const present = (field: string) => typeof value[field] === 'string' && (value[field] as string).trim() !== '';
  if (!present('project_id') || !present('client_email') || !present('private_key')) {
    return { ok: false, message: 'platform.errors.serviceAccountFields' };
  }
  if (!isEmail(value.client_email as string)) return { ok: false, message: 'platform.errors.serviceAccountFields' };
  const blocks = pemBlocks(value.private_key as string);
  if (blocks.length !== 1 || !isPrivateKeyLabel(blocks[0].label)) return { ok: false, message: 'platform.errors.serviceAccountKey' };
  return { ok: true, value: value as ServiceAccountKey };
}

/**
 * A stored secret as it is read back: bullets, and at most a hint to recognise it by (a token's last four
 * characters, a key's fingerprint), never the value.
 */
export const MaskedSecret = z.string();
export type MaskedSecret = z.infer<typeof MaskedSecret>;
export const MASK = '••••••••';

/** The mask of a secret, with a hint that is safe to show. */
export function maskSecret(hint?: string): MaskedSecret {
  return hint ? `${MASK} ${hint}` : MASK;
}

/**
 * A secret on save. Absent: the stored one stays (the console sends it only when the merchant replaces it).
 * Present: it replaces the stored one, so it may not be empty. The first save must send it.
 */
const KEEPS = 'Secret: absent keeps the stored value; required on the first save.';
const NewSecret = (max: number) => z.string().trim().min(1, { message: V.required }).max(max, { message: V.tooLong });

const PemText = (check: (text: string) => boolean, message: string) =>
  z
    .string()
    .trim()
    .min(1, { message: V.required })
    .max(PLATFORM_FILE_MAX_LENGTH, { message: V.tooLong })
    .refine(check, { message });

/** Apple's key ids and team ids: 10 letters and digits. */
const AppleId = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9]{10}$/, { message: 'platform.errors.appleId' });

export const APNS_ENVIRONMENTS = ['development', 'production'] as const;
export const ApnsEnvironment = z.enum(APNS_ENVIRONMENTS);
export type ApnsEnvironment = z.infer<typeof ApnsEnvironment>;

/** The app's bundle id, sent as the APNs topic: reverse-DNS letters, digits and hyphens. */
export function isBundleId(value: string): boolean {
  return value.length <= 155 && /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(value);
}

/** PUT /application/{id}/platform/ios: token auth (.p8 key) or certificate auth (PEM file). */
export const IosPlatformInput = z.object({
  status: PlatformStatus,
  /** Spec "APNS environment": development sends to the sandbox, production to the live service. */
  environment: ApnsEnvironment,
  bundle_id: z.string().trim().refine(isBundleId, { message: 'platform.errors.bundleId' }),
  auth: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('token'),
      key_id: AppleId,
      team_id: AppleId,
      /** The .p8 file's text; absent keeps the stored key. */
      p8: PemText(isP8Pem, 'platform.errors.p8Shape').optional().describe(KEEPS),
    }),
    z.object({
      kind: z.literal('certificate'),
      /** Certificate and private key in PEM (spec "PEM file"); absent keeps the stored ones. */
      pem: PemText(isCertificatePem, 'platform.errors.pemShape').optional().describe(KEEPS),
      /** The private key's passphrase, if it is encrypted; read only with a new `pem`. */
      passphrase: z.string().max(200, { message: V.tooLong }).optional().describe('Read only together with `pem`.'),
    }),
  ]),
});
export type IosPlatformInput = z.infer<typeof IosPlatformInput>;

/** What a certificate says about itself, read on the server when it is saved. */
export const CertificateInfo = z.object({
  subject: z.string(),
  issuer: z.string(),
  valid_from: Timestamp,
  valid_to: Timestamp,
});
export type CertificateInfo = z.infer<typeof CertificateInfo>;

/** The iOS settings as read back: the key and the certificate masked. */
export const IosPlatformSettings = z.object({
  environment: ApnsEnvironment,
  bundle_id: z.string(),
  auth: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('token'), key_id: z.string(), team_id: z.string(), p8: MaskedSecret }),
    z.object({ kind: z.literal('certificate'), pem: MaskedSecret, has_passphrase: z.boolean(), certificate: CertificateInfo }),
  ]),
});
export type IosPlatformSettings = z.infer<typeof IosPlatformSettings>;

/** PUT /application/{id}/platform/android: the FCM service-account key file (spec "FCM key"). */
export const AndroidPlatformInput = z.object({
  status: PlatformStatus,
  /** The key file's JSON text; absent keeps the stored one. */
  service_account: NewSecret(PLATFORM_FILE_MAX_LENGTH)
    .superRefine((text, context) => {
      const read = readServiceAccount(text);
      if (!read.ok) context.addIssue({ code: 'custom', message: read.message });
    })
    .optional()
    .describe(KEEPS),
});
export type AndroidPlatformInput = z.infer<typeof AndroidPlatformInput>;

/** The Android settings as read back: which project and account, the private key masked. */
export const AndroidPlatformSettings = z.object({
  project_id: z.string(),
  client_email: z.string(),
  private_key_id: z.string().nullable(),
  private_key: MaskedSecret,
});
export type AndroidPlatformSettings = z.infer<typeof AndroidPlatformSettings>;

/** The sender id shown on the phone: at most 11 letters and digits. */
export const SMS_BRAND_NAME_MAX_LENGTH = 11;
export function isBrandName(value: string): boolean {
  return new RegExp(`^[A-Za-z0-9]{1,${SMS_BRAND_NAME_MAX_LENGTH}}$`).test(value);
}

/** PUT /application/{id}/platform/sms: the SMS provider account (spec "username, password, brand name"). */
export const SmsPlatformInput = z.object({
  status: PlatformStatus,
  username: z.string().trim().min(1, { message: V.required }).max(100, { message: V.tooLong }),
  /** Absent keeps the stored password. */
  password: NewSecret(200).optional().describe(KEEPS),
  brand_name: z.string().trim().min(1, { message: V.required }).refine(isBrandName, { message: 'platform.errors.brandName' }),
});
export type SmsPlatformInput = z.infer<typeof SmsPlatformInput>;

export const SmsPlatformSettings = z.object({ username: z.string(), brand_name: z.string(), password: MaskedSecret });
export type SmsPlatformSettings = z.infer<typeof SmsPlatformSettings>;

/**
 * PUT /application/{id}/platform/facebook: the page and its page access token. The server checks them with the
 * Graph API before it saves anything.
 */
export const FacebookPlatformInput = z.object({
  status: PlatformStatus,
  page_id: z
    .string()
    .trim()
    .min(1, { message: V.required })
    .regex(/^\d{1,32}$/, { message: 'platform.errors.pageId' }),
  /** Absent keeps the stored token. */
  page_access_token: NewSecret(1000)
    .regex(/^\S+$/, { message: 'platform.errors.pageToken' })
    .optional()
    .describe(KEEPS),
});
export type FacebookPlatformInput = z.infer<typeof FacebookPlatformInput>;

/** The Facebook settings as read back, with the page's name as the Graph API answered it. */
export const FacebookPlatformSettings = z.object({ page_id: z.string(), page_name: z.string(), page_access_token: MaskedSecret });
export type FacebookPlatformSettings = z.infer<typeof FacebookPlatformSettings>;

function platformEntry<K extends PlatformKind, S extends z.ZodTypeAny>(kind: K, settings: S) {
  return z.object({
    kind: z.literal(kind),
    status: PlatformState,
    updated_at: Timestamp.nullable(),
    /** Null until the platform is first saved; secrets masked. */
    settings: settings.nullable(),
  });
}

export const WebPlatformEntry = platformEntry('web', WebPushSettings);
export const IosPlatformEntry = platformEntry('ios', IosPlatformSettings);
export type IosPlatformEntry = z.infer<typeof IosPlatformEntry>;
export const AndroidPlatformEntry = platformEntry('android', AndroidPlatformSettings);
export type AndroidPlatformEntry = z.infer<typeof AndroidPlatformEntry>;
export const SmsPlatformEntry = platformEntry('sms', SmsPlatformSettings);
export type SmsPlatformEntry = z.infer<typeof SmsPlatformEntry>;
export const FacebookPlatformEntry = platformEntry('facebook', FacebookPlatformSettings);
export type FacebookPlatformEntry = z.infer<typeof FacebookPlatformEntry>;

/** One platform of an application: its status and its settings with secrets masked. */
export const PlatformEntry = z.discriminatedUnion('kind', [WebPlatformEntry, IosPlatformEntry, AndroidPlatformEntry, SmsPlatformEntry, FacebookPlatformEntry]);
export type PlatformEntry = z.infer<typeof PlatformEntry>;

/** GET /application/{id}/platform: every kind, in PLATFORM_KINDS order, configured or not. */
export const PlatformList = z.array(PlatformEntry);
export type PlatformList = z.infer<typeof PlatformList>;
