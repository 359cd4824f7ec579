import { z } from 'zod';
import { V, isJsonText, isUrl } from '../validation';
import { ApplicationParams } from './application';
import { PageQuery, Timestamp, page } from './common';
import { APP_PLATFORMS, DeviceId, DeviceParams, SegmentRule, StoredSegmentRule, Tag } from './audience';
import type { PlatformKind } from './platform';
import { personalTags } from './personalize';

/**
 * Messaging (issue 6): notifications over four channels, templates, campaigns, the REST send API, and what the
 * delivery engine records per recipient. Spec §1, §2 (/notification…, /campaign/:id, /message), §3
 * (Notification), §4 (statuses, sources, types), §5, §9.
 */

// ---------------------------------------------------------------------------------------------------------
// Types, channels, statuses
// ---------------------------------------------------------------------------------------------------------

/** Spec §4 "Types: mobile push, web push, SMS, Facebook message"; also the create route /notification/:type. */
export const NOTIFICATION_TYPES = ['mobile_push', 'web_push', 'sms', 'facebook'] as const;
export const NotificationType = z.enum(NOTIFICATION_TYPES);
export type NotificationType = z.infer<typeof NotificationType>;

/** The platforms (shared/contract/platform.ts kinds) a type sends through; one configured and active is enough. */
export const TYPE_PLATFORMS: Record<NotificationType, readonly PlatformKind[]> = {
  mobile_push: APP_PLATFORMS,
  web_push: ['web'],
  sms: ['sms'],
  facebook: ['facebook'],
};

/** The tabs under /notification. ab_test, automation and trigger come with a later issue and stay hidden. */
export const NOTIFICATION_TABS = ['basic', 'campaign', 'template'] as const;
export const NotificationTab = z.enum(NOTIFICATION_TABS);
export type NotificationTab = z.infer<typeof NotificationTab>;

/** Spec §4 "Message statuses: new (pending approval), waiting, running, executed, opened, canceled". */
export const NOTIFICATION_STATUSES = ['new', 'waiting', 'running', 'executed', 'opened', 'canceled'] as const;
export const NotificationStatus = z.enum(NOTIFICATION_STATUSES);
export type NotificationStatus = z.infer<typeof NotificationStatus>;

/**
 * The transitions, the only ones the server allows (spec §4 leaves them to us):
 * - new → waiting: the draft is sent (now or at its schedule); new → canceled.
 * - waiting → running: its time came and the engine started the fan-out; waiting → canceled (before it starts).
 * - waiting → new: a scheduled message taken back to draft to be edited.
 * - running → executed: every recipient's delivery is settled (sent, delivered or failed).
 * - executed → opened: the first recipient opened (clicked) it.
 * canceled is final; a running message can't be canceled (some recipients already have it).
 */
export const NOTIFICATION_TRANSITIONS: Record<NotificationStatus, readonly NotificationStatus[]> = {
  new: ['waiting', 'canceled'],
  waiting: ['running', 'canceled', 'new'],
  running: ['executed'],
  executed: ['opened'],
  opened: [],
  canceled: [],
};

export function canTransition(from: NotificationStatus, to: NotificationStatus): boolean {
  return NOTIFICATION_TRANSITIONS[from].includes(to);
}

/** Only drafts and scheduled messages that haven't started may be edited. */
export function isEditable(status: NotificationStatus): boolean {
  return status === 'new' || status === 'waiting';
}

/** The list's status filter: the statuses plus all (spec §4). */
export const NotificationStatusFilter = z.enum(['all', ...NOTIFICATION_STATUSES]);

/** Spec §4 "Message sources: dashboard or API". */
export const NOTIFICATION_SOURCES = ['dashboard', 'api'] as const;
export const NotificationSource = z.enum(NOTIFICATION_SOURCES);
export type NotificationSource = z.infer<typeof NotificationSource>;

// ---------------------------------------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------------------------------------

export const HEADING_MAX = 200;
export const CONTENT_MAX = 2000;
/** One SMS body (the provider splits it into parts: 160 GSM-7 or 70 UCS-2 characters a part). */
export const SMS_CONTENT_MAX = 640;
export const BUTTONS_MAX = 3;
/** Web push and FCM allow 4 KB of payload; the additional data must leave room for the rest. */
export const ADDITIONAL_DATA_MAX = 2048;
/** FCM's and web push's own ceiling on time-to-live: 28 days. */
export const TTL_MAX_SECONDS = 28 * 24 * 3600;
export const DEFAULT_TTL_SECONDS = 3 * 24 * 3600;

const OptionalUrl = z
  .string()
  .trim()
  .max(2000, { message: V.tooLong })
  .refine((value) => value === '' || isUrl(value), { message: V.url })
  .optional();

/** A button on a push (spec §3: action_id, button_text, icon_url, launch_url). */
export const NotificationButton = z.object({
  action_id: z.string().trim().min(1, { message: V.required }).max(64, { message: V.tooLong }).regex(/^[A-Za-z0-9_-]+$/, { message: V.username }),
  button_text: z.string().trim().min(1, { message: V.required }).max(40, { message: V.tooLong }),
  icon_url: OptionalUrl,
  launch_url: OptionalUrl,
});
export type NotificationButton = z.infer<typeof NotificationButton>;

/** UTM parameters appended to every link of the message (target URL and button launch URLs). */
export const NotificationUtm = z.object({
  source: z.string().trim().max(100, { message: V.tooLong }).optional(),
  medium: z.string().trim().max(100, { message: V.tooLong }).optional(),
  campaign: z.string().trim().max(100, { message: V.tooLong }).optional(),
  term: z.string().trim().max(100, { message: V.tooLong }).optional(),
});
export type NotificationUtm = z.infer<typeof NotificationUtm>;

/** Additional data: empty, or the text of a JSON object (spec §5 "must be valid"). */
const JsonObjectText = z
  .string()
  .max(ADDITIONAL_DATA_MAX, { message: V.tooLong })
  .refine((value) => {
    if (!isJsonText(value)) return false;
    if (value.trim() === '') return true;
    const parsed = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  }, { message: V.json })
  .optional();

/**
 * What a message says (and what a template keeps): every field of spec §3 that is content, for every type.
 * Which fields a type uses: `fieldsOf(type)`; `checkContent` refuses what a type requires and lacks.
 */
export const NotificationContent = z.object({
  heading: z.string().trim().max(HEADING_MAX, { message: V.tooLong }).default(''),
  content: z.string().trim().min(1, { message: V.required }).max(CONTENT_MAX, { message: V.tooLong }),
  target_url: OptionalUrl,
  /** The small picture beside the text (Android large icon, web push icon). */
  thumbnail_url: OptionalUrl,
  /** The large image under the text (Android big picture, iOS attachment, web push image). */
  image_url: OptionalUrl,
  buttons: z.array(NotificationButton).max(BUTTONS_MAX, { message: V.outOfRange }).default([]),
  utm: NotificationUtm.default({}),
  /** JSON object text delivered with the message to the app or the service worker (`data`). */
  additional_data: JsonObjectText,
  /** The B variant's additional data (spec §3), kept for A/B tests of a later issue. */
  additional_data_b: JsonObjectText,
});
export type NotificationContent = z.infer<typeof NotificationContent>;
export type NotificationContentInput = z.input<typeof NotificationContent>;

/** The content fields each type shows in its form and sends. */
export function fieldsOf(type: NotificationType): readonly (keyof NotificationContent)[] {
  switch (type) {
    case 'mobile_push':
    case 'web_push':
      return ['heading', 'content', 'target_url', 'thumbnail_url', 'image_url', 'buttons', 'utm', 'additional_data', 'additional_data_b'];
    case 'sms':
      return ['content', 'target_url', 'utm'];
    case 'facebook':
      return ['heading', 'content', 'target_url', 'image_url', 'buttons', 'utm'];
  }
}

/** Per-type rules the shape alone can't say: i18n key per path, empty when the content is fine. */
export function checkContent(type: NotificationType, content: NotificationContent): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  if ((type === 'mobile_push' || type === 'web_push') && content.heading.trim() === '') {
    problems.push({ path: 'heading', message: V.required });
  }
  if (type === 'sms' && content.content.length > SMS_CONTENT_MAX) problems.push({ path: 'content', message: V.tooLong });
  // Personal values ({{plan | bạn}}): a tag typed wrong would reach every player as it is.
  for (const path of ['heading', 'content'] as const) {
    if (fieldsOf(type).includes(path) && personalTags(content[path]) === null) problems.push({ path, message: V.personalTag });
  }
  return problems;
}

/** Appends the UTM parameters to a link (keeps its own query and fragment; never overwrites a parameter it has). */
export function withUtm(link: string, utm: NotificationUtm): string {
  if (!link) return link;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return link;
  }
  for (const [key, value] of Object.entries(utm)) {
    if (value && !url.searchParams.has(`utm_${key}`)) url.searchParams.set(`utm_${key}`, value);
  }
  return url.toString();
}

// ---------------------------------------------------------------------------------------------------------
// Audience and schedule
// ---------------------------------------------------------------------------------------------------------

/** The most direct recipients one message lists (device ids, external user ids or player ids). */
export const DIRECT_RECIPIENTS_MAX = 2000;

/**
 * Who gets it, as saved messages keep it: a saved segment (none = all subscribers of the type's channel), extra
 * conditions and player tags. Read and answered with this; submitted as NotificationAudience.
 */
export const StoredNotificationAudience = z.object({
  segment_id: z.number().int().positive().nullable().default(null),
  /** Extra conditions ANDed with the segment (same editor and rules as /segment). */
  filters: StoredSegmentRule.nullable().default(null),
  /** Only players carrying all of these tags. */
  tags: z.array(Tag).max(20).default([]),
  /** Direct recipients (the send API's include_* lists): when a list is present, only players it names, ANDed with the rest. */
  player_ids: z.array(z.number().int().positive()).max(DIRECT_RECIPIENTS_MAX).optional(),
  device_ids: z.array(z.string().min(1).max(64)).max(DIRECT_RECIPIENTS_MAX).optional(),
  /** Every device of these external user ids. */
  external_user_ids: z.array(z.string().min(1).max(128)).max(DIRECT_RECIPIENTS_MAX).optional(),
});
/** Who gets it, as submitted: the extra conditions checked as any rule counted or saved (SegmentRule). */
export const NotificationAudience = StoredNotificationAudience.extend({ filters: SegmentRule.nullable().default(null) });
export type NotificationAudience = z.infer<typeof NotificationAudience>;

/**
 * When: now; at a moment; or at the same local time in each player's timezone on a day (players with no known
 * timezone get it at that time in the application's default, UTC+7). A moment in the past is refused.
 */
export const NotificationSchedule = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('now') }),
  z.object({ mode: z.literal('at'), at: z.string().datetime({ offset: true, message: V.dateTime }) }),
  z.object({
    mode: z.literal('local_time'),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: V.invalid }),
    time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: V.invalid }),
  }),
]);
export type NotificationSchedule = z.infer<typeof NotificationSchedule>;

/**
 * Vietnam's UTC offset (UTC+07:00): a new application's timezone unless one is chosen. A local-time message
 * reaches players whose timezone is unknown at its time in the application's timezone.
 */
export const DEFAULT_LOCAL_OFFSET_MINUTES = 7 * 60;

/** The first and the last timezones to reach a local time: UTC+14 (Line Islands) and UTC-12. */
export const LOCAL_TIME_EARLIEST_OFFSET_MINUTES = 14 * 60;
export const LOCAL_TIME_LATEST_OFFSET_MINUTES = -12 * 60;

/** A schedule this much in the past is still accepted (the form was filled a moment ago); it is sent at once. */
export const SCHEDULE_GRACE_MS = 60_000;

/** The UTC moment a local date (YYYY-MM-DD) and time (HH:MM) happen in the zone `offsetMinutes` east of UTC; null for a date that doesn't exist. */
export function localMoment(date: string, time: string, offsetMinutes: number): Date | null {
  const asUtc = new Date(`${date}T${time}:00.000Z`);
  if (Number.isNaN(asUtc.getTime()) || asUtc.toISOString().slice(0, 10) !== date) return null;
  return new Date(asUtc.getTime() - offsetMinutes * 60_000);
}

export const URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;

// ---------------------------------------------------------------------------------------------------------
// Create, update, read
// ---------------------------------------------------------------------------------------------------------

/** POST /application/{id}/notification and PUT …/notification/{notification_id} (the console's create form). */
export const NotificationInput = z.object({
  type: NotificationType,
  /** A name for the list; the heading (or the content's start) when empty. */
  name: z.string().trim().max(120, { message: V.tooLong }).default(''),
  content: NotificationContent,
  audience: NotificationAudience.default({ segment_id: null, filters: null, tags: [] }),
  schedule: NotificationSchedule.default({ mode: 'now' }),
  /** Expiry: how long the push services keep trying an offline device (spec "expiry"). */
  ttl_seconds: z.number().int().min(0, { message: V.outOfRange }).max(TTL_MAX_SECONDS, { message: V.outOfRange }).default(DEFAULT_TTL_SECONDS),
  /** Spec §9: promotional messages go only to players active in the last 24 hours. */
  promotional: z.boolean().default(false),
  urgency: z.enum(URGENCIES).default('normal'),
  /** Labels of the message; a webhook may be limited to messages with a tag. */
  tags: z.array(Tag).max(20).default([]),
  template_id: z.number().int().positive().nullable().default(null),
  campaign_id: z.number().int().positive().nullable().default(null),
  /** true: saved as a draft (status new); false: sent at its schedule (status waiting). */
  draft: z.boolean().default(false),
});
export type NotificationInput = z.infer<typeof NotificationInput>;
export type NotificationInputDraft = z.input<typeof NotificationInput>;

/** Counters of a message, kept as its batches finish. */
export const NotificationStats = z.object({
  /** Recipients chosen when the fan-out ran. */
  targeted: z.number().int(),
  sent: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  clicked: z.number().int(),
});
export type NotificationStats = z.infer<typeof NotificationStats>;

export const EMPTY_STATS: NotificationStats = { targeted: 0, sent: 0, delivered: 0, failed: 0, clicked: 0 };

/** What clicks are counted against: the messages delivered, or those sent where no delivery is reported. */
const ctrBase = (stats: NotificationStats): number => stats.delivered || stats.sent;

/** Whether the counters have a click-through rate yet: something was delivered or at least sent. */
export function hasCtr(stats: NotificationStats): boolean {
  return ctrBase(stats) > 0;
}

/** Click-through rate in percent, one decimal; 0 when nothing was delivered or sent (hasCtr). */
export function ctr(stats: NotificationStats): number {
  const base = ctrBase(stats);
  return base === 0 ? 0 : Math.round((stats.clicked / base) * 1000) / 10;
}

export const Notification = NotificationInput.omit({ draft: true }).extend({
  audience: StoredNotificationAudience,
  id: z.number().int(),
  application_id: z.string(),
  status: NotificationStatus,
  source: NotificationSource,
  stats: NotificationStats,
  /** When the engine will (or did) start the fan-out; for local_time, the earliest zone's moment. */
  send_at: Timestamp.nullable(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  created_by: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  /**
   * The audience's segment as it is now, so the console can name it (read-only, not part of the input). Null
   * when the message has no segment, and also when its segment was deleted since (audience.segment_id stays).
   */
  audience_segment: z.object({ id: z.number().int(), name: z.string() }).nullable(),
});
export type Notification = z.infer<typeof Notification>;

/** GET /application/{id}/notification: the list (tab basic = messages; tab campaign lists campaigns, template templates). */
export const NotificationListQuery = PageQuery.extend({
  status: NotificationStatusFilter.default('all'),
  source: z.enum(['all', ...NOTIFICATION_SOURCES]).default('all'),
  type: z.enum(['all', ...NOTIFICATION_TYPES]).default('all'),
  campaign_id: z.coerce.number().int().positive().optional(),
  q: z.string().trim().max(100).optional(),
});
export type NotificationListQuery = z.infer<typeof NotificationListQuery>;

export const NotificationParams = ApplicationParams.extend({ notification_id: z.coerce.number().int().positive() });
export const NotificationTypeParams = ApplicationParams.extend({ notification_type: NotificationType });

// ---------------------------------------------------------------------------------------------------------
// Deliveries: one row per (message, device); the /message log and the detail page read them
// ---------------------------------------------------------------------------------------------------------

/**
 * queued: chosen, not yet handed to the provider; sent: the provider accepted it; delivered: the device (service
 * worker, app) reported it shown; failed: refused for good (reason); clicked: opened. Each recipient moves
 * forward only: queued → sent → delivered → clicked, or queued → failed.
 */
export const DELIVERY_STATUSES = ['queued', 'sent', 'delivered', 'clicked', 'failed'] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** Why a delivery failed, stable codes the console translates (delivery.reason.*). */
export const FAILURE_REASONS = [
  'unsubscribed', // 404/410, UNREGISTERED, BadDeviceToken: the device is unsubscribed and not retried
  'invalid_request', // 400 payload or parameter refused
  'auth', // credentials refused (401/403): the platform needs attention
  'rate_limited', // 429 beyond the retries
  'provider_error', // 5xx beyond the retries
  'network', // unreachable beyond the retries
  'expired', // the TTL passed before it could be sent
  'no_address', // the player has no token, subscription, number or PSID for the channel
  'engine_error', // the delivery batch itself failed on every try (not the provider): what it left queued fails
] as const;
export const FailureReason = z.enum(FAILURE_REASONS);
export type FailureReason = z.infer<typeof FailureReason>;

/** The channel a delivery went through: the platform kind (web, ios, android, sms, facebook). */
export const DeliveryPlatform = z.enum(['web', 'ios', 'android', 'sms', 'facebook']);

export const Delivery = z.object({
  id: z.number().int(),
  notification_id: z.number().int(),
  notification_name: z.string(),
  player_id: z.number().int(),
  device_id: z.string(),
  platform: DeliveryPlatform,
  status: DeliveryStatus,
  reason: FailureReason.nullable(),
  attempts: z.number().int(),
  sent_at: Timestamp.nullable(),
  delivered_at: Timestamp.nullable(),
  clicked_at: Timestamp.nullable(),
  created_at: Timestamp,
});
export type Delivery = z.infer<typeof Delivery>;

/** How deep the recipients' log pages by `page` (page × limit); beyond it, page by `before_id`. */
export const DELIVERY_LOG_MAX_ROWS = 10_000;

/**
 * The recipients' log counts its matching rows up to this many and no further: every page then costs the same
 * at a million rows. Past it the page says `total_capped` (and `total` is this cap).
 */
export const DELIVERY_LOG_COUNT_CAP = 100_000;

/**
 * GET /application/{id}/message: the recipients' log, searchable by device id, external user id, email or phone,
 * or narrowed to one player (`player_id`).
 * Paged by `page` (the first DELIVERY_LOG_MAX_ROWS rows), or to any depth by `before_id`: the rows with a smaller
 * id, newest first (`page` is then ignored). The next page's `before_id` comes with each page.
 */
export const DeliveryListQuery = PageQuery.extend({
  notification_id: z.coerce.number().int().positive().optional(),
  /** One player's messages (the player's page). */
  player_id: z.coerce.number().int().positive().optional(),
  status: z.enum(['all', ...DELIVERY_STATUSES]).default('all'),
  q: z.string().trim().max(100).optional(),
  before_id: z.coerce.number().int().positive().optional(),
});
export type DeliveryListQuery = z.infer<typeof DeliveryListQuery>;

/**
 * A page of the recipients' log: `total` counts the matching rows up to DELIVERY_LOG_COUNT_CAP (`total_capped`
 * when there are more); `next_before_id` is null on the last page.
 */
export const DeliveryPage = page(Delivery).extend({ total_capped: z.boolean(), next_before_id: z.number().int().nullable() });
export type DeliveryPage = z.infer<typeof DeliveryPage>;

/** GET …/notification/{id}/stats: the detail page's numbers. */
export const NotificationReport = z.object({
  stats: NotificationStats,
  ctr: z.number(),
  by_platform: z.array(z.object({ platform: DeliveryPlatform, stats: NotificationStats })),
  failures: z.array(z.object({ reason: FailureReason, count: z.number().int() })),
  /**
   * Per hour of the application's timezone from the first (sent, delivered, clicked), for the chart: `at` is
   * when the hour began there, up to 31 days of them.
   */
  timeline: z.array(z.object({ at: Timestamp, sent: z.number().int(), delivered: z.number().int(), clicked: z.number().int() })),
  /** The application's timezone (minutes east of UTC), which the timeline's hours are of. */
  utc_offset: z.number().int(),
});
export type NotificationReport = z.infer<typeof NotificationReport>;

// ---------------------------------------------------------------------------------------------------------
// Templates and campaigns
// ---------------------------------------------------------------------------------------------------------

export const TemplateInput = z.object({
  name: z.string().trim().min(1, { message: V.required }).max(120, { message: V.tooLong }),
  type: NotificationType,
  content: NotificationContent,
});
export type TemplateInput = z.infer<typeof TemplateInput>;
export const Template = TemplateInput.extend({ id: z.number().int(), created_at: Timestamp, updated_at: Timestamp });
export type Template = z.infer<typeof Template>;
export const TemplateParams = ApplicationParams.extend({ template_id: z.coerce.number().int().positive() });
export const TemplateListQuery = PageQuery.extend({ type: z.enum(['all', ...NOTIFICATION_TYPES]).default('all'), q: z.string().trim().max(100).optional() });
export type TemplateListQuery = z.infer<typeof TemplateListQuery>;

export const CampaignInput = z.object({
  name: z.string().trim().min(1, { message: V.required }).max(120, { message: V.tooLong }),
  description: z.string().trim().max(500, { message: V.tooLong }).default(''),
});
export type CampaignInput = z.infer<typeof CampaignInput>;
export const Campaign = CampaignInput.extend({
  id: z.number().int(),
  /** Totals over its messages. */
  messages: z.number().int(),
  stats: NotificationStats,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Campaign = z.infer<typeof Campaign>;
export const CampaignParams = ApplicationParams.extend({ campaign_id: z.coerce.number().int().positive() });
/** GET /application/{id}/campaign: newest first, `q` searches the name. */
export const CampaignListQuery = PageQuery.extend({ q: z.string().trim().max(100).optional() });
export type CampaignListQuery = z.infer<typeof CampaignListQuery>;
/** DELETE …/campaign/{id}: spec §5, the campaign's name typed to confirm. */
export const CampaignDeleteBody = z.object({ confirm_name: z.string() });

// ---------------------------------------------------------------------------------------------------------
// The REST send API (source "api") and its keys
// ---------------------------------------------------------------------------------------------------------

/** The header the send API reads; the same key twice sends once and answers the same id. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/**
 * POST /api/v1/notifications with `Authorization: Key <REST API key>`: what a server sends. The same shape as the
 * console's input, minus draft (an API message is sent at its schedule), plus direct recipients by device ids or
 * external user ids (instead of or besides the segment).
 */
export const ApiSendBody = NotificationInput.omit({ draft: true }).extend({
  include_device_ids: z.array(DeviceId).max(DIRECT_RECIPIENTS_MAX).optional(),
  include_external_user_ids: z.array(z.string().min(1).max(128)).max(DIRECT_RECIPIENTS_MAX).optional(),
});
export type ApiSendBody = z.infer<typeof ApiSendBody>;
export const ApiSent = z.object({ id: z.number().int(), status: NotificationStatus, duplicate: z.boolean() });
export type ApiSent = z.infer<typeof ApiSent>;
/** GET /api/v1/notifications/{notification_id}: where a message sent through the API is, and its counters. */
export const ApiNotification = z.object({
  id: z.number().int(),
  type: NotificationType,
  status: NotificationStatus,
  source: NotificationSource,
  stats: NotificationStats,
  ctr: z.number(),
  send_at: Timestamp.nullable(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  created_at: Timestamp,
});
export type ApiNotification = z.infer<typeof ApiNotification>;
export const ApiNotificationParams = z.object({ notification_id: z.coerce.number().int().positive() });

/** An application's REST API key: the whole key is shown once, when made; afterwards only its start. */
export const ApiKey = z.object({ id: z.number().int(), prefix: z.string(), created_at: Timestamp, last_used_at: Timestamp.nullable() });
export type ApiKey = z.infer<typeof ApiKey>;
export const ApiKeyCreated = ApiKey.extend({ key: z.string() });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;
export const ApiKeyParams = ApplicationParams.extend({ id: z.coerce.number().int().positive() });
/** Active keys an application may hold at once. */
export const API_KEYS_MAX = 20;

// ---------------------------------------------------------------------------------------------------------
// Reports from devices: a push shown or opened (the service worker's come through /api/sdk/push/report)
// ---------------------------------------------------------------------------------------------------------

/** POST /api/v1/devices/{device_id}/notifications/{notification_id}/report. */
export const DeviceNotificationParams = DeviceParams.extend({ notification_id: z.coerce.number().int().positive() });
/** An app reports the push it received as shown (`delivered`) or opened (`clicked`, with the button's action id). */
export const DeviceNotificationReport = z.object({
  kind: z.enum(['delivered', 'clicked']),
  action: z.string().max(64).optional(),
});
export type DeviceNotificationReport = z.infer<typeof DeviceNotificationReport>;
