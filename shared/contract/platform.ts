import { z } from 'zod';
import { V, isHttpsUrl } from '../validation';
import { PushSubscription } from './audience';

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
  delay_seconds: z.number().int().min(0, { message: 'validation.outOfRange' }).max(600, { message: 'validation.outOfRange' }),
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

const VisitorId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);

/** POST /api/sdk/push/subscribe: a browser's new (or renewed) subscription for its visitor. */
export const PushSubscribeBody = z.object({
  key: z.string().min(8).max(64),
  visitor_id: VisitorId,
  subscription: PushSubscription,
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

/** POST /api/sdk/push/unsubscribe: the visitor's browser no longer takes pushes (permission revoked, expired). */
export const PushUnsubscribeBody = z.object({
  key: z.string().min(8).max(64),
  visitor_id: VisitorId,
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
