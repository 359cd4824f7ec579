import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * The tables, as Kysely sees them. Portable choices, the same on SQLite and PostgreSQL:
 * - timestamps are ISO 8601 UTC text with milliseconds (`2025-01-31T08:00:00.000Z`): they sort and compare
 *   as text in both databases, and travel to the API unchanged;
 * - booleans are integers 0/1;
 * - JSON lists are text holding JSON.
 */
export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  email_links: EmailLinksTable;
  otp_codes: OtpCodesTable;
  throttle_events: ThrottleEventsTable;
  applications: ApplicationsTable;
  memberships: MembershipsTable;
  players: PlayersTable;
  player_tags: PlayerTagsTable;
  player_attributes: PlayerAttributesTable;
  events: EventsTable;
  event_definitions: EventDefinitionsTable;
  attribute_definitions: AttributeDefinitionsTable;
  segments: SegmentsTable;
  segment_sizes: SegmentSizesTable;
  player_days: PlayerDaysTable;
  platforms: PlatformsTable;
  mail_outbox: MailOutboxTable;
  widgets: WidgetsTable;
  spin_stock: SpinStockTable;
  spins: SpinsTable;
  leads: LeadsTable;
  widget_stats: WidgetStatsTable;
  widget_button_clicks: WidgetButtonClicksTable;
  webhook_outbox: WebhookOutboxTable;
  webhooks: WebhooksTable;
  webhook_messages: WebhookMessagesTable;
  webhook_attempts: WebhookAttemptsTable;
  rate_windows: RateWindowsTable;
  shops: ShopsTable;
  shop_webhooks: ShopWebhooksTable;
  shop_orders: ShopOrdersTable;
  campaigns: CampaignsTable;
  templates: TemplatesTable;
  notifications: NotificationsTable;
  deliveries: DeliveriesTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
}

export type Flag = 0 | 1;

export interface UsersTable {
  id: Generated<number>;
  /** Trimmed and lower-cased. */
  email: string;
  name: string | null;
  /** `scrypt$…`; null while the person was invited and has not registered yet. */
  password_hash: string | null;
  mobile_number: string | null;
  agency: string | null;
  /** The language of the emails the person receives when someone else triggers them (invitations). */
  language: string;
  is_admin: ColumnType<Flag, Flag | undefined, Flag>;
  otp_enabled: ColumnType<Flag, Flag | undefined, Flag>;
  email_verified_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 of the token, base64url. The token itself is never stored. */
  token_hash: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  revoked_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

export type LinkPurpose = 'verify' | 'reset';

export interface EmailLinksTable {
  id: Generated<number>;
  user_id: number;
  purpose: LinkPurpose;
  token_hash: string;
  /** For a reset: the hash of the pending new password, applied when the link is used. */
  payload: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export type OtpPurpose = 'login' | 'change_password';

export interface OtpCodesTable {
  id: Generated<number>;
  user_id: number;
  purpose: OtpPurpose;
  /** HMAC-SHA-256 of the code under SECRET_KEY. */
  code_hash: string;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ThrottleEventsTable {
  id: Generated<number>;
  bucket: string;
  created_at: string;
}

export interface ApplicationsTable {
  application_id: string;
  name: string;
  client_key: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  deleting_at: string | null;
  /** A key of PLANS (shared/permissions/plans.ts); 'free' until billing says otherwise. */
  plan: ColumnType<string, string | undefined, string>;
  /** Bumped by deletions and bulk audience changes: in-memory audience copies rebuild (0013). */
  audience_epoch: ColumnType<number, number | undefined, number>;
  /** Its timezone, minutes east of UTC (UtcOffset): the days of its dashboard and statistics (0018). */
  utc_offset: ColumnType<number, number | undefined, number>;
  /** The country its players' national mobile numbers are read in (ISO 3166-1 alpha-2; shared/validation/phone.ts) (0023). */
  phone_country: ColumnType<string, string | undefined, string>;
}

export interface MembershipsTable {
  id: Generated<number>;
  application_id: string;
  user_id: number;
  role: string;
  organization: string | null;
  /** JSON array of the features this member may not use (spec §6 "permissions"). */
  permissions: ColumnType<string, string | undefined, string>;
  invited_by: number | null;
  created_at: string;
}

/** A device (browser or app install) of an application's audience; spec §3's player/device fields. */
export interface PlayersTable {
  id: Generated<number>;
  application_id: string;
  /** The id the device holds: the storefront SDK's visitor id, or the one a mobile app registered. */
  device_id: string;
  /** web | ios | android (PLAYER_PLATFORMS). */
  platform: string;
  /** desktop | mobile (spec §9). */
  device_type: string;
  device_token: string | null;
  external_user_id: string | null;
  email: string | null;
  mobile_number: string | null;
  fb_psid: string | null;
  os: string | null;
  os_version: string | null;
  browser: string | null;
  app_version: string | null;
  device_model: string | null;
  gender: string | null;
  language: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
  city: string | null;
  /** IANA name (Asia/Ho_Chi_Minh). */
  timezone: string | null;
  /** Minutes east of UTC, -720 … 780 (spec §9). */
  timezone_offset: number | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  first_session_at: string | null;
  last_session_at: string | null;
  last_seen_at: string | null;
  session_count: ColumnType<number, number | undefined, number>;
  page_views: ColumnType<number, number | undefined, number>;
  /** Whether the device takes push now (web push subscription or mobile push token). */
  subscribed: ColumnType<Flag, Flag | undefined, Flag>;
  push_endpoint: string | null;
  push_p256dh: string | null;
  push_auth: string | null;
  subscribed_at: string | null;
  unsubscribed_at: string | null;
  /**
   * When the person unsubscribed themselves on the playerinfo page; null again once they subscribe again. While
   * set, a web push subscription their browser renews by itself does not subscribe them (subscribePush).
   */
  opted_out_at: string | null;
  /**
   * The web push endpoint last refused for good ('gone' or 'invalid' in the engine's terms: 404/410 or 400 from the
   * push service, or keys that cannot be used), which the engine took from the player. A browser that still holds
   * it is told to make a new subscription (subscribePush).
   */
  push_expired_endpoint: string | null;
  created_at: string;
  updated_at: string;
}

export interface PlayerTagsTable {
  player_id: number;
  application_id: string;
  tag: string;
}

export interface PlayerAttributesTable {
  player_id: number;
  application_id: string;
  name: string;
  /** The value as text (booleans 'true'/'false', dates ISO). */
  value: string | null;
  /** Numbers as they are, dates as epoch milliseconds, booleans 0/1; null for text. */
  number_value: number | null;
  updated_at: string;
}

export interface EventsTable {
  id: Generated<number>;
  application_id: string;
  player_id: number;
  name: string;
  /** JSON object of the event's properties, or null. */
  properties: string | null;
  /** The client's id for the event: unique per application, so a retried batch inserts nothing twice. */
  client_event_id: string;
  session_id: string | null;
  occurred_at: string;
  received_at: string;
}

export interface EventDefinitionsTable {
  application_id: string;
  name: string;
  count: ColumnType<number | string, number | undefined, number>;
  first_seen_at: string;
  last_seen_at: string;
  /** JSON object: property name → type (text, number, boolean, date). */
  properties: ColumnType<string, string | undefined, string>;
}

export interface AttributeDefinitionsTable {
  id: Generated<number>;
  application_id: string;
  name: string;
  /** text | number | boolean | date (ATTRIBUTE_TYPES); date names end with `.date`. */
  type: string;
  description: string | null;
  /** 'console' when a member defined it, 'sdk' when it was first seen in data. */
  source: string;
  created_at: string;
  updated_at: string;
}

export interface SegmentsTable {
  id: Generated<number>;
  application_id: string;
  name: string;
  /**
   * The name as names are compared (shared/contract segmentNameKey), unique per application (0026, which gave every
   * earlier segment its key). Every write sets it; the column is not NOT NULL only because SQLite adds a column so
   * constrained only with a default, and a default key would be one more name taken.
   */
  name_key: string;
  /** JSON of shared/contract SegmentRule. */
  rule: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface SegmentSizesTable {
  segment_id: number;
  day: string;
  size: ColumnType<number | string, number, number>;
  measured_at: string;
}

export interface PlayerDaysTable {
  application_id: string;
  /** A day of the application's timezone when the activity was counted (applications.utc_offset), YYYY-MM-DD. */
  day: string;
  player_id: number;
  sessions: ColumnType<number, number | undefined, number>;
  page_views: ColumnType<number, number | undefined, number>;
}

/** One sending platform of an application (spec §3 "Platform setting"), one row per kind (0007_web_push). */
export interface PlatformsTable {
  id: Generated<number>;
  application_id: string;
  /** web | ios | android | sms | facebook (PLATFORM_KINDS). */
  kind: string;
  /** active | inactive (spec §3 "Platform status"). */
  status: ColumnType<string, string | undefined, string>;
  /** JSON: the merchant's settings of that kind (web: WebPushSettings). */
  settings: ColumnType<string, string | undefined, string>;
  /** Sealed JSON (server/security/secret-box.ts): keys and credentials that never leave the server. */
  secrets: string | null;
  /** The public half of the platform's key pair, where it has one (web: the VAPID public key). */
  public_key: string | null;
  created_at: string;
  updated_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MailOutboxTable {
  id: Generated<number>;
  recipient: string;
  subject: string;
  body: string;
  created_at: string;
}

export interface WidgetsTable {
  id: Generated<number>;
  application_id: string;
  type: string;
  name: string;
  status: string;
  /** JSON of the type's settings, as the contract parsed them (defaults applied). */
  settings: string;
  /** JSON of the display rules. */
  rules: string;
  created_at: string;
  updated_at: string;
}

export interface SpinStockTable {
  widget_id: number;
  slice_id: string;
  /** Prizes of the slice handed out so far; the slice's stock lives in the widget's settings. */
  given: ColumnType<number, number | undefined, number>;
}

export interface SpinsTable {
  id: Generated<number>;
  widget_id: number;
  visitor_id: string;
  /** The normalised email or phone number of the wheel's gate. */
  contact: string;
  slice_id: string;
  /** The slice's label when it was drawn, so a replay answers what the visitor first saw. */
  prize: string;
  lose: Flag;
  code: string | null;
  created_at: string;
}

export interface LeadsTable {
  id: Generated<number>;
  application_id: string;
  widget_id: number | null;
  visitor_id: string | null;
  source: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  message: string | null;
  button_type: string | null;
  prize: string | null;
  code: string | null;
  page_url: string | null;
  created_at: string;
}

export interface WidgetStatsTable {
  widget_id: number;
  /** A day of the application's timezone when counted (applications.utc_offset), YYYY-MM-DD. */
  day: string;
  views: ColumnType<number, number | undefined, number>;
  clicks: ColumnType<number, number | undefined, number>;
  leads: ColumnType<number, number | undefined, number>;
}

export interface WidgetButtonClicksTable {
  widget_id: number;
  button_type: string;
  /** As widget_stats.day. */
  day: string;
  clicks: ColumnType<number, number | undefined, number>;
}

export interface WebhookOutboxTable {
  id: Generated<number>;
  application_id: string;
  /** A webhook event type; this slice writes 'new_lead'. */
  event: string;
  /** JSON of what the webhook will POST. */
  payload: string;
  created_at: string;
  delivered_at: string | null;
}

export interface RateWindowsTable {
  bucket: string;
  /** ISO start of the fixed window. */
  window_start: string;
  hits: ColumnType<number, number | undefined, number>;
}

/** A shop of the shop platform that installed the app; its application holds everything else. */
export interface ShopsTable {
  /** The shop's permanent domain, `name.myshopify.com`. */
  shop: string;
  application_id: string;
  /** The offline Admin API token, AES-256-GCM under a key derived from SECRET_KEY; null once uninstalled. */
  access_token: string | null;
  /** The scopes the token was granted, comma-separated. */
  scopes: string;
  /** The user created at install; every session token of the shop acts as this user. */
  owner_user_id: number | null;
  /** The shop's contact email as the platform reports it: where customer data exports go. */
  email: string | null;
  name: string | null;
  installed_at: string;
  /** Set by `app/uninstalled`; the application and its data stay. */
  uninstalled_at: string | null;
  updated_at: string;
}

/** Webhook deliveries already handled: a redelivery with the same id does nothing. */
export interface ShopWebhooksTable {
  shop: string;
  webhook_id: string;
  topic: string;
  received_at: string;
}

/** The last read of a shop's recent orders, already anonymised, so storefront hits don't call the platform. */
export interface ShopOrdersTable {
  shop: string;
  /** JSON array of { name, city, product, url, image_url, created_at }. */
  orders: string;
  fetched_at: string;
  /** 0 when the read failed: an empty list is kept briefly so a failing platform isn't called on every hit. */
  ok: Flag;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type ApplicationRow = Selectable<ApplicationsTable>;
export type MembershipRow = Selectable<MembershipsTable>;
export type WidgetRow = Selectable<WidgetsTable>;
export type LeadRow = Selectable<LeadsTable>;
export type ShopRow = Selectable<ShopsTable>;

// ---- 0008_messaging -------------------------------------------------------------------------------------

export interface CampaignsTable {
  id: Generated<number>;
  application_id: string;
  name: string;
  description: ColumnType<string, string | undefined, string>;
  created_at: string;
  updated_at: string;
}

export interface TemplatesTable {
  id: Generated<number>;
  application_id: string;
  name: string;
  /** mobile_push | web_push | sms | facebook (NOTIFICATION_TYPES). */
  type: string;
  /** JSON of shared/contract NotificationContent. */
  content: string;
  created_at: string;
  updated_at: string;
}

/** A message (spec §3 Notification); see NOTIFICATION_TRANSITIONS for its statuses. */
export interface NotificationsTable {
  id: Generated<number>;
  application_id: string;
  type: string;
  name: ColumnType<string, string | undefined, string>;
  status: string;
  /** dashboard | api. */
  source: string;
  /** JSON of NotificationContent. */
  content: string;
  /** JSON of NotificationAudience. */
  audience: string;
  /** JSON of NotificationSchedule. */
  schedule: string;
  ttl_seconds: number;
  promotional: ColumnType<Flag, Flag | undefined, Flag>;
  urgency: ColumnType<string, string | undefined, string>;
  /** JSON array of the message's tags. */
  tags: ColumnType<string, string | undefined, string>;
  template_id: number | null;
  campaign_id: number | null;
  /** When the fan-out is due (null for drafts). */
  send_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  targeted: ColumnType<number, number | undefined, number>;
  sent: ColumnType<number, number | undefined, number>;
  delivered: ColumnType<number, number | undefined, number>;
  failed: ColumnType<number, number | undefined, number>;
  clicked: ColumnType<number, number | undefined, number>;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  /** The fan-out's last player id handed to a batch (0012_engine; PostgreSQL answers bigint as text). */
  fanout_cursor: ColumnType<number | string | null, number | null | undefined, number | null>;
  /** When the fan-out handed out its last batch (0012_engine). */
  fanout_done_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One recipient of a message: unique (notification_id, player_id). */
export interface DeliveriesTable {
  id: Generated<number>;
  notification_id: number;
  application_id: string;
  player_id: number;
  /** web | ios | android | sms | facebook. */
  platform: string;
  /** queued | sent | delivered | clicked | failed (DELIVERY_STATUSES). */
  status: string;
  /** FAILURE_REASONS when failed. */
  reason: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  /** The provider's message id (FCM name, apns-id, SMS id, Messenger message_id). */
  provider_id: string | null;
  sent_at: string | null;
  delivered_at: string | null;
  clicked_at: string | null;
  created_at: string;
  /** A local-time message: the recipient's UTC offset in minutes, whose local moment it goes out at (0012_engine). */
  tz_offset: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  application_id: string;
  /** SHA-256 of the key, base64url. */
  key_hash: string;
  /** The key's first characters, to tell keys apart in the console. */
  prefix: string;
  created_by: number | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface IdempotencyKeysTable {
  application_id: string;
  key: string;
  /** SHA-256 of the request body: the same key with another body is refused. */
  request_hash: string;
  notification_id: number | null;
  created_at: string;
}

/** The embedded mode's durable queue (server/jobs). */
export interface JobsTable {
  id: Generated<number>;
  queue: string;
  name: string;
  /** JSON. */
  payload: string;
  /** A job with the same key is not added twice while it exists. */
  dedupe_key: string | null;
  run_at: string;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: ColumnType<number, number | undefined, number>;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
}

// ---- 0009_webhooks --------------------------------------------------------------------------------------

/** An outbound webhook of an application (shared/contract/webhook.ts). */
export interface WebhooksTable {
  id: Generated<number>;
  application_id: string;
  url: string;
  /** JSON array of WEBHOOK_EVENT_TYPES. */
  event_types: string;
  /** For message_with_tag: only messages carrying this tag. */
  tag: string | null;
  /** The `whsec_…` signing secret, sealed (server/security/secret-box.ts). */
  secret: string;
  /** The secret before the last rotation, sealed; it signs too until previous_secret_until. */
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** active | disabled. */
  status: ColumnType<string, string | undefined, string>;
  /** Messages in a row that failed for good. */
  consecutive_failures: ColumnType<number, number | undefined, number>;
  /** The first failed attempt since the last success. */
  failing_since: string | null;
  disabled_at: string | null;
  /** WEBHOOK_DISABLED_REASONS. */
  disabled_reason: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

/** One event for one webhook, tried until delivered or given up. */
export interface WebhookMessagesTable {
  /** bigserial: PostgreSQL answers it as text. */
  id: Generated<number | string>;
  webhook_id: number;
  application_id: string;
  /** `msg_…`: the `webhook-id` header, the same on every attempt. */
  msg_id: string;
  /** WEBHOOK_MESSAGE_TYPES. */
  event_type: string;
  /** The exact JSON body that is signed and sent. */
  payload: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: string;
  /** pending | delivered | failed. */
  status: string;
  last_status_code: number | null;
  last_error: string | null;
  /** A sender's lease; the message is free again once it is past. */
  claimed_until: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** One attempt to deliver a message. */
export interface WebhookAttemptsTable {
  id: Generated<number | string>;
  message_id: number | string;
  webhook_id: number;
  attempt: number;
  status_code: number | null;
  /** WEBHOOK_ATTEMPT_ERRORS when no answer came. */
  error: string | null;
  duration_ms: ColumnType<number, number | undefined, number>;
  /** delivered | retrying | failed. */
  outcome: string;
  next_attempt_at: string | null;
  created_at: string;
}
