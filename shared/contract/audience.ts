import { z } from 'zod';
import { APNS_TOKEN_PATTERN, DAY_MS, NAME_MAX_LENGTH, NAME_PATTERN, PLAYER_CODE_FIELDS, TIMEZONE_OFFSET_MAX, TIMEZONE_OFFSET_MIN, TRACK_BATCH_MAX, V, dateNameProblem, dateValueMs, isDateFieldName, isDateValue, isEmail, isLanguageTag, isMobileNumber, isPlayerCodeField, isTimezoneName, languageCode } from '../validation';
import { ApplicationParams } from './application';
import { PageQuery, Timestamp, page } from './common';

/** The most days a condition or filter looks back (ten years). */
export const DAYS_MAX = 3650;
/** The most times an event condition counts. */
export const EVENT_TIMES_MAX = 1_000_000;
/** Operators whose value is a number of days back from now. */
const isDaysOperator = (op: string) => op === 'within_days' || op === 'older_than_days';
/** A whole number from `min` to `max` typed in a form: left empty it is required, otherwise `message` says the bounds. */
const boundedInteger = (min: number, max: number, message: string) =>
  z
    .number({ error: (issue) => (issue.input === undefined || issue.input === null || issue.input === '' ? V.required : message) })
    .int({ message })
    .min(min, { message })
    .max(max, { message });
/** A number of days back from now: a whole number from 1 to DAYS_MAX (event conditions, the player list's filter). */
const DaysBack = boundedInteger(1, DAYS_MAX, V.days);

/**
 * The audience (spec §1, §3, §5, §9): players (one per device: a browser or an app install), their events,
 * attributes and tags, and segments over them. What the storefront SDK and mobile apps send, what the
 * console lists, and the segment rule the server compiles to SQL all come from here.
 */

/** Spec §9: a visit ends after 30 minutes without activity. */
export const SESSION_IDLE_MINUTES = 30;

export const PLAYER_PLATFORMS = ['web', 'ios', 'android'] as const;
export const PlayerPlatform = z.enum(PLAYER_PLATFORMS);
export type PlayerPlatform = z.infer<typeof PlayerPlatform>;

/**
 * The platforms of app installs (the others are browsers): what mobile push reaches, by the install's device token
 * (FCM, APNs). A player is reachable by mobile push when it is subscribed, holds a token and is one of these; the
 * console's channels, the segment SQL, the in-memory audience and the delivery engine all ask this.
 */
export const APP_PLATFORMS = ['ios', 'android'] as const;
export type AppPlatform = (typeof APP_PLATFORMS)[number];
export const isAppPlatform = (platform: string | null | undefined): platform is AppPlatform => (APP_PLATFORMS as readonly unknown[]).includes(platform);

/** Spec §9: device types are desktop and mobile. */
export const DEVICE_TYPES = ['desktop', 'mobile'] as const;
export const DeviceType = z.enum(DEVICE_TYPES);
export type DeviceType = z.infer<typeof DeviceType>;

/** Channels a player can be reached on; `web_push`/`mobile_push` need a live subscription or token. */
export const AUDIENCE_CHANNELS = ['web_push', 'mobile_push', 'sms', 'facebook'] as const;
export const AudienceChannel = z.enum(AUDIENCE_CHANNELS);
export type AudienceChannel = z.infer<typeof AudienceChannel>;

export const ATTRIBUTE_TYPES = ['text', 'number', 'boolean', 'date'] as const;
export const AttributeType = z.enum(ATTRIBUTE_TYPES);
export type AttributeType = z.infer<typeof AttributeType>;

export const TAG_MAX_LENGTH = 64;
/** The one rule of all three kinds of name (V.eventName's message speaks of names in general). */
const Name = z.string().trim().min(1, { message: V.required }).max(NAME_MAX_LENGTH, { message: V.tooLong }).regex(NAME_PATTERN, { message: V.eventName });
export const EventName = Name;
export const AttributeName = Name;
/** Spec §8 'Invalid tag value': letters, digits, `_ - . :`, no spaces. */
export const Tag = z.string().trim().min(1, { message: V.required }).max(TAG_MAX_LENGTH, { message: V.tooLong }).regex(/^[\p{L}\p{N}_.:-]+$/u, { message: V.tag });
/** A tag typed in the console, checked with Tag's rule: the tag as stored (trimmed), or the message key of its first problem. */
export function readTag(text: string): { tag: string; problem?: undefined } | { tag?: undefined; problem: string } {
  const parsed = Tag.safeParse(text);
  return parsed.success ? { tag: parsed.data } : { problem: parsed.error.issues[0]?.message ?? V.tag };
}

/** Property and attribute values: scalars only; dates travel as ISO strings under a `.date` name. */
export const ScalarValue = z.union([
  // Each alternative says it, since a refusal names the alternative the value came closest to (server/plugins/errors.ts).
  z.string({ error: V.scalarValue }).max(1000, { message: V.scalarValue }),
  z.number({ error: V.scalarValue }).finite({ message: V.scalarValue }),
  z.boolean({ error: V.scalarValue }),
  z.null({ error: V.scalarValue }),
]);
export type ScalarValue = z.infer<typeof ScalarValue>;
/**
 * Named values, an event's properties or a device's attributes: names of the one rule (Name), scalar values, and a
 * `.date` name's value a date (spec §5: dateValueMs), since segments and the event list take it for one.
 */
const NamedValues = z.record(Name, ScalarValue).superRefine((values, ctx) => {
  for (const [name, value] of Object.entries(values)) {
    if (isDateFieldName(name) && !isDateValue(value)) ctx.addIssue({ code: 'custom', path: [name], message: V.dateValue });
  }
});
/** Up to this many properties an event, and attributes a call. */
export const PROPERTIES_MAX = 50;
export const Properties = NamedValues.refine((value) => Object.keys(value).length <= PROPERTIES_MAX, { message: V.outOfRange })
  // The refinement is invisible to the API's JSON schema: the limit is written there too.
  .meta({ maxProperties: PROPERTIES_MAX });
/** Attributes a device sets; null removes one. */
export const Attributes = NamedValues;

/** The type a value of this name has: a `.date` name is a date (spec §5), otherwise what the value is. */
export function inferValueType(name: string, value: ScalarValue): AttributeType {
  if (isDateFieldName(name)) return 'date';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'text';
}

const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A value as a number, for an attribute defined as one: a number as it is, or text that is a plain decimal number
 * ("42", " -3.5 ", "1e3"), as apps and forms often send numbers. Anything else (text like "12 tuổi" or "0x1F", a
 * boolean) is null: kept as text and out of numeric comparisons.
 */
export function numberValue(value: Exclude<ScalarValue, null>): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!DECIMAL_TEXT.test(text)) return null;
  const number = Number(text);
  return Number.isFinite(number) ? number : null;
}

/** A value as a boolean, for an attribute defined as one: a boolean as it is, or the text "true" or "false" (any case); otherwise null. */
export function booleanValue(value: Exclude<ScalarValue, null>): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return null;
  const text = value.trim().toLowerCase();
  return text === 'true' ? true : text === 'false' ? false : null;
}

/**
 * How an attribute value is stored (player_attributes) under a definition of `type`, by ingestion and by migration
 * 0019: `value` always as text (dates normalised to ISO), `number_value` when the value is of that type: a number,
 * or a number sent as text ("42": numberValue); a date as epoch ms (ISO text, or epoch ms or seconds); a boolean as
 * 0/1, or "true"/"false" (booleanValue). Segments compare `number_value`, so an app that sends its numbers as
 * strings is still found by "age > 30". A value that is not of the type at all ("twelve" for a number) stays text
 * and out of those comparisons.
 */
export function storedAttribute(type: AttributeType, value: Exclude<ScalarValue, null>): { value: string; number_value: number | null } {
  const text = typeof value === 'string' ? value : String(value);
  if (type === 'number') return { value: text, number_value: numberValue(value) };
  if (type === 'boolean') {
    const flag = booleanValue(value);
    return { value: flag === null ? text : String(flag), number_value: flag === null ? null : flag ? 1 : 0 };
  }
  if (type === 'date') {
    const ms = dateValueMs(value);
    return ms === null ? { value: text, number_value: null } : { value: new Date(ms).toISOString(), number_value: ms };
  }
  return { value: text, number_value: null };
}

// ---------------------------------------------------------------------------------------------------------
// Players

/** A player as the console sees it (every field of spec §3's player/device). */
export const Player = z.object({
  id: z.number().int(),
  device_id: z.string(),
  platform: PlayerPlatform,
  device_type: DeviceType,
  device_token: z.string().nullable(),
  external_user_id: z.string().nullable(),
  email: z.string().nullable(),
  mobile_number: z.string().nullable(),
  fb_psid: z.string().nullable(),
  os: z.string().nullable(),
  os_version: z.string().nullable(),
  browser: z.string().nullable(),
  app_version: z.string().nullable(),
  device_model: z.string().nullable(),
  gender: z.string().nullable(),
  language: z.string().nullable(),
  country: z.string().nullable(),
  city: z.string().nullable(),
  timezone: z.string().nullable(),
  timezone_offset: z.number().int().nullable(),
  utm_source: z.string().nullable(),
  utm_medium: z.string().nullable(),
  utm_campaign: z.string().nullable(),
  utm_term: z.string().nullable(),
  utm_content: z.string().nullable(),
  first_session_at: Timestamp.nullable(),
  last_session_at: Timestamp.nullable(),
  last_seen_at: Timestamp.nullable(),
  session_count: z.number().int(),
  page_views: z.number().int(),
  subscribed: z.boolean(),
  subscribed_at: Timestamp.nullable(),
  unsubscribed_at: Timestamp.nullable(),
  /**
   * When the person unsubscribed themselves on their playerinfo page, until they subscribe again: a subscription
   * their browser renews by itself does not subscribe them meanwhile.
   */
  opted_out_at: Timestamp.nullable(),
  /** Channels the player can be reached on now. */
  channels: z.array(AudienceChannel),
  tags: z.array(z.string()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Player = z.infer<typeof Player>;

/**
 * The public playerinfo page's record: what a person sees about their own device, and the name of the shop
 * (application) they are a visitor of. Anyone holding the device id reads it (the link is forwarded, lands in a
 * browser's history), so it carries only that: the device as they know it (platform, type, system, browser, the
 * place it was seen from, its language), when it was last seen, and their subscription (status, its dates, the
 * opt-out, the channels). Nothing of the merchant's: not the tags (the merchant's own segmentation labels,
 * "cart_abandoner", "wholesale"), not the identities the shop attached (external user id, email, phone, Messenger
 * PSID), not the push token, not the marketing attribution (UTM), gender, visit counts or the internal row id and
 * times. Attributes and events are the player detail's (PlayerDetail), never here.
 */
export const OwnPlayer = Player.pick({
  device_id: true,
  platform: true,
  device_type: true,
  os: true,
  os_version: true,
  browser: true,
  language: true,
  country: true,
  city: true,
  last_seen_at: true,
  subscribed: true,
  subscribed_at: true,
  unsubscribed_at: true,
  opted_out_at: true,
  channels: true,
}).extend({ application_name: z.string() });
export type OwnPlayer = z.infer<typeof OwnPlayer>;

export const PLAYER_SORTS = ['last_seen_at', 'created_at', 'session_count', 'page_views'] as const;

/** A country as players keep it: its ISO 3166 alpha-2 code, in capitals whatever case it comes in ("vn" → "VN"). */
const countryCode = (accept: (code: string) => boolean) =>
  z.string().trim().transform(PLAYER_CODE_FIELDS.country.normalise).refine(accept, { message: PLAYER_CODE_FIELDS.country.message });
const CountryCode = countryCode(PLAYER_CODE_FIELDS.country.valid);

/**
 * A device's report of a field checked by `valid`, taking blank as well: blank says nothing of the field, as for
 * every other device fact (players-write keeps the stored value), and a phone with no region set sends "". Refused,
 * it lost the whole registration, push token included.
 */
const blankOr = (valid: (value: string) => boolean) => (value: string) => value === '' || valid(value);

/** GET /application/{id}/player: filters of the player list. */
export const PlayerListQuery = PageQuery.extend({
  sort: z.enum(PLAYER_SORTS).default('last_seen_at'),
  order: z.enum(['asc', 'desc']).default('desc'),
  country: z.preprocess((value) => (value === '' ? undefined : value), CountryCode.optional()),
  device_type: DeviceType.optional(),
  os: z.string().trim().max(64).optional(),
  platform: PlayerPlatform.optional(),
  subscribed: z.enum(['true', 'false']).optional(),
  /** Seen within the last N days. */
  seen_within_days: z.preprocess((value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value), DaysBack).optional(),
  tag: z.string().trim().max(TAG_MAX_LENGTH).optional(),
  /** A device id typed whole, or the beginning of an external user id, email or mobile number. */
  q: z.string().trim().max(254).optional(),
  /**
   * How `q` names players: `start` (the default: the list's search, above) or `whole`, each of those four whole, so
   * a user id that begins others ("customer-4" of "customer-40", "customer-412"…) is found alone. The console's
   * player picker asks both, the whole match first.
   */
  match: z.enum(['start', 'whole']).optional(),
});
export type PlayerListQuery = z.infer<typeof PlayerListQuery>;

/**
 * A search of the player list (`q`) counts its players up to this many and no further: a prefix that a fifth of a
 * million players begin with took 100 to 350 ms to count exactly, a count of at most this many a few. Past it the
 * page says `total_capped` (and `total` is this cap); the list without a search is counted exactly.
 */
export const PLAYER_SEARCH_COUNT_CAP = 10_000;

/** GET /application/{id}/player: a page of the list, its total (up to PLAYER_SEARCH_COUNT_CAP for a search: `total_capped`). */
export const PlayerPage = page(Player).extend({ total_capped: z.boolean() });
export type PlayerPage = z.infer<typeof PlayerPage>;

export const PlayerEvent = z.object({
  id: z.number().int(),
  name: z.string(),
  properties: z.record(z.string(), ScalarValue).nullable(),
  session_id: z.string().nullable(),
  occurred_at: Timestamp,
});
export type PlayerEvent = z.infer<typeof PlayerEvent>;

/**
 * One of a player's attributes: its value as its type reads it, and `text`, the value as it was stored, which a
 * personal value in a message ({{name}}) writes (shared/contract/personalize.ts), null where none is.
 */
export const PlayerAttribute = z.object({ name: z.string(), type: AttributeType, value: ScalarValue, text: z.string().nullable(), updated_at: Timestamp });
export type PlayerAttribute = z.infer<typeof PlayerAttribute>;

/** A player's events a page at a time, newest first; `more` when older ones follow the last of `items`. */
export const PlayerEventsPage = z.object({ items: z.array(PlayerEvent), more: z.boolean() });
export type PlayerEventsPage = z.infer<typeof PlayerEventsPage>;

/** GET /application/{id}/player/{player_id}: the record with its attributes and its newest events (their first page). */
export const PlayerDetail = z.object({
  player: Player,
  attributes: z.array(PlayerAttribute),
  events: PlayerEventsPage,
});
export type PlayerDetail = z.infer<typeof PlayerDetail>;

/**
 * GET /application/{id}/player/{player_id}/events: where the page starts. Events are ordered newest first by their
 * time, then id; the next page is the one after the last event shown, named by both its `occurred_at` and its `id`
 * (several events may share a time). Neither: the newest page.
 */
export const PlayerEventsQuery = z
  .object({
    before_at: z.string().datetime({ offset: true, message: V.dateTime }).optional(),
    before_id: z.coerce.number().int().positive().optional(),
  })
  .refine((query) => (query.before_at === undefined) === (query.before_id === undefined), { message: V.eventsCursor, path: ['before_id'] });
export type PlayerEventsQuery = z.infer<typeof PlayerEventsQuery>;

export const PlayerTagsBody = z.object({ tags: z.array(Tag).min(1, { message: V.required }).max(20) });

export const PlayerParams = ApplicationParams.extend({ player_id: z.coerce.number().int().positive() });
export const PlayerTagParams = PlayerParams.extend({ tag: z.string().min(1).max(TAG_MAX_LENGTH) });

/** How many of the application's tags GET …/tag lists at most: the most held first. */
export const TAG_LIST_MAX = 200;
/** A tag the application's players have, and how many have it. */
export const TagCount = z.object({ tag: z.string(), players: z.number().int().nonnegative() });
export type TagCount = z.infer<typeof TagCount>;
/** The application's tags, most held first (then by name); `more` when it has more than TAG_LIST_MAX. */
export const TagList = z.object({ items: z.array(TagCount), more: z.boolean() });
export type TagList = z.infer<typeof TagList>;

// ---------------------------------------------------------------------------------------------------------
// What devices send: the storefront SDK's batches (POST /api/sdk/track) and the REST device API.

/** Device facts a client reports; every field optional, the server keeps the last value it got. */
export const DeviceInfo = z.object({
  platform: PlayerPlatform.optional(),
  device_type: DeviceType.optional(),
  device_token: z.string().max(4096).optional(),
  os: z.string().max(64).optional(),
  os_version: z.string().max(64).optional(),
  browser: z.string().max(64).optional(),
  app_version: z.string().max(64).optional(),
  device_model: z.string().max(128).optional(),
  /** Kept as the language alone ("vi-VN" → "vi"): see languageCode. */
  language: z
    .string()
    .trim()
    .max(16)
    .refine(blankOr(isLanguageTag), { message: V.language })
    .transform(languageCode)
    .optional()
    .describe('A language tag as the device reports it ("vi", "vi-VN", "en_US"); kept as the language alone ("vi"). Blank says nothing (the stored one is kept).'),
  /** ISO 3166 alpha-2, kept in capitals whatever the device sends: the player list and segments ask for VN. */
  country: countryCode(blankOr(PLAYER_CODE_FIELDS.country.valid)).optional().describe('ISO 3166 alpha-2 country code ("VN"); kept in capitals. Blank says nothing (the stored one is kept).'),
  city: z.string().max(128).optional(),
  /**
   * As the browser names it, unchecked: the storefront SDK sends its offset beside it, and a batch of events is not
   * refused over a name this server's zone database may not have. The device API checks it (DeviceRegister).
   */
  timezone: z.string().max(64).optional().describe('IANA timezone ("Asia/Ho_Chi_Minh"), as the browser names it.'),
  timezone_offset: z
    .number()
    .int()
    .min(TIMEZONE_OFFSET_MIN)
    .max(TIMEZONE_OFFSET_MAX)
    .optional()
    .describe('Minutes east of UTC, -720 to 840 (UTC-12:00 to UTC+14:00): the hour local-time messages arrive at.'),
  gender: z.string().max(16).optional(),
});
export type DeviceInfo = z.infer<typeof DeviceInfo>;

export const Utm = z.object({
  utm_source: z.string().max(200).optional(),
  utm_medium: z.string().max(200).optional(),
  utm_campaign: z.string().max(200).optional(),
  utm_term: z.string().max(200).optional(),
  utm_content: z.string().max(200).optional(),
});
export type Utm = z.infer<typeof Utm>;

/** Identity a client may set: custom user id, email, mobile number, Facebook PSID. */
export const Identity = z.object({
  external_user_id: z.string().trim().max(128).optional(),
  // Checked with the console's rules; blank says nothing (the player keeps what it had).
  email: z
    .string()
    .trim()
    .max(254)
    .refine((value) => value === '' || isEmail(value), { message: V.email })
    .optional()
    .describe('Kept in lower case, as the player list searches it.'),
  mobile_number: z
    .string()
    .trim()
    .max(32)
    .refine((value) => value === '' || isMobileNumber(value), { message: V.mobileNumber })
    .optional()
    .describe("Kept in international form (a national number is read in the application's country for phone numbers), without spaces, dots, dashes and parentheses."),
  fb_psid: z.string().trim().max(64).optional(),
});
export type Identity = z.infer<typeof Identity>;

/** What a client-made id is: 8 to 64 letters, digits, - or _ (a UUID is one). */
const CLIENT_MADE_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** A client-made id of an item or event (uuid or similar): makes a retried item idempotent. */
export const ClientId = z.string().regex(CLIENT_MADE_ID, { message: 'validation.clientId' });

/**
 * A device id a client makes (the SDK's visitor id, an app's install id) or the server made at registration: long
 * and random.
 */
export const DeviceId = z.string().regex(CLIENT_MADE_ID, { message: 'validation.deviceId' });

/**
 * One item of a batch. `at` is the client's epoch time in ms (seconds when 10 digits or fewer), clamped by the server to a sane window.
 * - session: a new session started (30 min idle rule applied by the client); carries the landing UTM.
 * - page: a page view (url, title); `scroll` items report the deepest quarter reached (25, 50, 75, 100).
 * - event: a custom event with properties.
 * - set: attributes; identify: identity fields.
 */
export const TrackItem = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session'), id: ClientId, at: z.number(), session_id: z.string().max(64), utm: Utm.optional(), referrer: z.string().max(2000).optional() }),
  z.object({ type: z.literal('page'), id: ClientId, at: z.number(), session_id: z.string().max(64), url: z.string().max(2000), title: z.string().max(300).optional() }),
  z.object({ type: z.literal('scroll'), id: ClientId, at: z.number(), session_id: z.string().max(64), url: z.string().max(2000), depth: z.union([z.literal(25), z.literal(50), z.literal(75), z.literal(100)]) }),
  z.object({ type: z.literal('event'), id: ClientId, at: z.number(), session_id: z.string().max(64).optional(), name: EventName, properties: Properties.optional() }),
  z.object({ type: z.literal('set'), id: ClientId, at: z.number(), attributes: Attributes }),
  z.object({ type: z.literal('identify'), id: ClientId, at: z.number(), identity: Identity }),
]);
export type TrackItem = z.infer<typeof TrackItem>;

/** POST /api/sdk/track: a batch from one browser (sent as text/plain JSON or a beacon). */
export const TrackBatch = z.object({
  key: z.string().min(1).max(64),
  visitor_id: DeviceId,
  device: DeviceInfo.optional(),
  items: z.array(TrackItem).min(1, { message: V.batchItems }).max(TRACK_BATCH_MAX, { message: V.batchItems }),
});
export type TrackBatch = z.infer<typeof TrackBatch>;

/** What POST /api/sdk/track and the device API's writes answer: how many items were taken (retries included). */
export const TrackAccepted = z.object({ accepted: z.number().int() });
export type TrackAccepted = z.infer<typeof TrackAccepted>;

export const DeviceParams = z.object({ device_id: DeviceId });
/** The device id is the SDK's secret: long and random, so possession of it is the credential of the public page. */
export const PlayerInfoParams = ApplicationParams.extend({ device_id: DeviceId });

/** POST /api/v1/devices: register a device, or update it when `device_id` is known. */
export const DeviceRegister = DeviceInfo.extend({
  /** The app's own id for the install; the server makes one when absent and returns it. */
  device_id: DeviceId.optional(),
  platform: PlayerPlatform,
  device_token: DeviceInfo.shape.device_token.describe(
    "The install's push token: on iOS the token APNs gave the app, in hexadecimal (64 to 200 characters), anything else refused; on Android the FCM registration token. A token belongs to one install: registered by another device id (the app reinstalled), it moves to that one, and the install that held it is unsubscribed.",
  ),
  /** A zone the server knows: without `timezone_offset` it gives the player its offset, so a misspelt one is refused, not kept. */
  timezone: z
    .string()
    .trim()
    .max(64)
    .refine(blankOr(isTimezoneName), { message: V.timezone })
    .optional()
    .describe('IANA timezone ("Asia/Ho_Chi_Minh"); a name the server\'s zone database does not have is refused, a blank one says nothing. Sent without `timezone_offset`, it gives the player that zone\'s offset at the time of the call.'),
  /** The app's push permission: see appSubscriptionChange (server/domain/push-subscriptions.ts). */
  subscribed: z
    .boolean()
    .optional()
    .describe(
      'Whether the person lets the app notify them. Left out, an iOS or Android install that sends a `device_token` is subscribed to mobile push, unless it was unsubscribed by `subscribed: false` with that same token, or on its playerinfo page with any token (only `true` undoes that). `false` unsubscribes it; `true` subscribes it again, and needs a `device_token` in the same call.',
    ),
})
  .refine((body) => body.subscribed !== true || (isAppPlatform(body.platform) && Boolean(body.device_token?.trim())), {
    message: 'validation.subscribeNeedsToken',
    path: ['subscribed'],
  })
  // Refused here rather than found out at the first send, when APNs would refuse it and the install be unsubscribed.
  .refine((body) => body.platform !== 'ios' || !body.device_token?.trim() || APNS_TOKEN_PATTERN.test(body.device_token.trim()), {
    message: V.apnsToken,
    path: ['device_token'],
  });
export type DeviceRegister = z.infer<typeof DeviceRegister>;

export const DeviceRegistered = z.object({
  player_id: z.number().int(),
  device_id: z.string(),
  created: z.boolean(),
  /** Whether the install now takes mobile push (web browsers subscribe through web push instead). */
  subscribed: z.boolean(),
});
export type DeviceRegistered = z.infer<typeof DeviceRegistered>;

/** POST /api/v1/devices/{device_id}/sessions: a session started (`at` epoch ms, or seconds when 10 digits or fewer; now when absent). */
export const DeviceSessionBody = z.object({
  /** The client's id for the session start; a retry with the same id counts once. Made by the server when absent. */
  id: ClientId.optional(),
  at: z.number().optional(),
  session_id: z.string().max(64).optional(),
  utm: Utm.optional(),
  referrer: z.string().max(2000).optional(),
})
  // No body at all (Fastify gives null) is a session starting now, as `{}` is: an app's "came to the foreground" call.
  .nullable();
export type DeviceSessionBody = z.infer<typeof DeviceSessionBody>;

export const DeviceEvent = z.object({
  id: ClientId.describe(
    'Your own id for the event, made once when it happens (a UUID): a retry with the same id is stored once. Unique within the application, across all its devices: an event whose id another event of the application already has is taken as that one and not stored again.',
  ),
  name: EventName,
  at: z
    .number()
    .optional()
    .describe('When it happened: epoch milliseconds, or seconds when 10 digits or fewer; now when absent. Kept within the last 7 days up to 5 minutes ahead: an older time is stored as 7 days old.'),
  session_id: z.string().max(64).optional(),
  properties: Properties.optional(),
});
/** POST /api/v1/devices/{device_id}/events: events with the client's ids (retries store nothing twice). */
export const DeviceEventsBody = z.object({ events: z.array(DeviceEvent).min(1, { message: V.batchEvents }).max(TRACK_BATCH_MAX, { message: V.batchEvents }) });
export type DeviceEventsBody = z.infer<typeof DeviceEventsBody>;

/** PUT /api/v1/devices/{device_id}/attributes: values to set; null removes one. */
export const DeviceAttributesBody = z.object({
  // Attributes within the properties' limit (Properties), and at least one.
  attributes: Properties.refine((value) => Object.keys(value).length >= 1, { message: V.required }).meta({ minProperties: 1, maxProperties: PROPERTIES_MAX }),
});
export type DeviceAttributesBody = z.infer<typeof DeviceAttributesBody>;

/** PUT /api/v1/devices/{device_id}/identity: at least one field; email and mobile number checked as in the console. */
export const DeviceIdentityBody = Identity.refine((value) => Object.values(value).some((field) => typeof field === 'string' && field !== ''), { message: 'validation.identityEmpty' });
export type DeviceIdentityBody = z.infer<typeof DeviceIdentityBody>;

/** A browser's push subscription as PushManager.subscribe() gives it (toJSON()). */
export const PushSubscription = z.object({
  endpoint: z.string().url().max(2000),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
});
export type PushSubscription = z.infer<typeof PushSubscription>;

// ---------------------------------------------------------------------------------------------------------
// Events and attributes in the console

/**
 * The events the SDK records by itself: visits, page views and how far a page was scrolled. They are stored
 * like any event (their client ids make a retried batch count nothing twice; segments test them like any).
 */
export const BUILTIN_EVENTS = { session: 'session_start', page: 'page_view', scroll: 'scroll_depth' } as const;
const BUILTIN_EVENT_NAMES: ReadonlySet<string> = new Set(Object.values(BUILTIN_EVENTS));
export const isBuiltinEvent = (name: string): boolean => BUILTIN_EVENT_NAMES.has(name);

export const EventDefinition = z.object({
  name: z.string(),
  count: z.number().int(),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  /** Property name → type; `.date` properties are dates. */
  properties: z.record(z.string(), AttributeType),
});
export type EventDefinition = z.infer<typeof EventDefinition>;

export const AttributeDefinition = z.object({
  id: z.number().int(),
  name: z.string(),
  type: AttributeType,
  description: z.string().nullable(),
  source: z.enum(['console', 'sdk']),
  /** Players holding a value. */
  players: z.number().int(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type AttributeDefinition = z.infer<typeof AttributeDefinition>;

/** Create or edit an attribute: a date's name must end with `.date`, and only a date's may (spec §5). */
export const AttributeBody = z
  .object({
    name: AttributeName,
    type: AttributeType,
    description: z.string().trim().max(300, { message: V.tooLong }).optional(),
  })
  .superRefine((value, ctx) => {
    const problem = dateNameProblem(value.name, value.type === 'date');
    if (problem) ctx.addIssue({ code: 'custom', path: ['name'], message: problem });
  });
export type AttributeBody = z.infer<typeof AttributeBody>;

export const EventParams = ApplicationParams.extend({ name: z.string().min(1).max(NAME_MAX_LENGTH) });
export const AttributeParams = ApplicationParams.extend({ attribute_id: z.coerce.number().int().positive() });

// ---------------------------------------------------------------------------------------------------------
// Segments

/** Player fields a segment can test, with their type (which decides the operators). */
export const SEGMENT_FIELDS = {
  country: 'text',
  city: 'text',
  language: 'text',
  device_type: 'text',
  platform: 'text',
  os: 'text',
  browser: 'text',
  app_version: 'text',
  timezone_offset: 'number',
  external_user_id: 'text',
  email: 'text',
  utm_source: 'text',
  utm_medium: 'text',
  utm_campaign: 'text',
  utm_term: 'text',
  utm_content: 'text',
  first_session_at: 'date',
  last_session_at: 'date',
  last_seen_at: 'date',
  created_at: 'date',
  session_count: 'number',
  page_views: 'number',
} as const satisfies Record<string, AttributeType>;
export type SegmentField = keyof typeof SEGMENT_FIELDS;
export const SegmentFieldName = z.enum(Object.keys(SEGMENT_FIELDS) as [SegmentField, ...SegmentField[]]);

/**
 * Player fields holding one of a few values, kept as these words (ios, mobile): a segment's "is" and "is not" choose
 * among them (the editor's select, named in the console's language), where text typed as the console shows them
 * ("iOS", "Di động") matched no one.
 */
export const PLAYER_CHOICE_FIELDS = { platform: PLAYER_PLATFORMS, device_type: DEVICE_TYPES } as const satisfies Partial<Record<SegmentField, readonly string[]>>;
export type PlayerChoiceField = keyof typeof PLAYER_CHOICE_FIELDS;
export const isPlayerChoiceField = (field: string): field is PlayerChoiceField => Object.hasOwn(PLAYER_CHOICE_FIELDS, field);

/** Operators by value type. Dates compare to a day (`before`, `after`) or to now (`within_days`, `older_than_days`). */
export const OPERATORS = {
  text: ['eq', 'neq', 'contains', 'not_contains', 'exists', 'not_exists'],
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists'],
  boolean: ['is_true', 'is_false', 'exists', 'not_exists'],
  date: ['before', 'after', 'within_days', 'older_than_days', 'exists', 'not_exists'],
} as const satisfies Record<AttributeType, readonly string[]>;
export const Operator = z.enum(['eq', 'neq', 'contains', 'not_contains', 'exists', 'not_exists', 'gt', 'gte', 'lt', 'lte', 'is_true', 'is_false', 'before', 'after', 'within_days', 'older_than_days']);
export type Operator = z.infer<typeof Operator>;
/** Operators that take no value. */
export const VALUELESS_OPERATORS: readonly Operator[] = ['exists', 'not_exists', 'is_true', 'is_false'];

const ConditionValue = z.union([z.string().trim().max(500, { message: V.tooLong }), z.number().finite()]).optional();

export const FieldCondition = z.object({ kind: z.literal('field'), field: SegmentFieldName, op: Operator, value: ConditionValue });
export const AttributeCondition = z.object({ kind: z.literal('attribute'), name: AttributeName, type: AttributeType, op: Operator, value: ConditionValue });
export const TagCondition = z.object({ kind: z.literal('tag'), op: z.enum(['has', 'not_has']), tag: Tag });
/**
 * Performed (or not) an event, optionally at least / at most / exactly `count` times, optionally within the
 * last `within_days` days.
 */
export const EventCondition = z.object({
  kind: z.literal('event'),
  name: EventName,
  performed: z.boolean(),
  count: z.object({ op: z.enum(['gte', 'lte', 'eq']), value: boundedInteger(0, EVENT_TIMES_MAX, V.times) }).optional(),
  within_days: DaysBack.optional(),
});
export const ChannelCondition = z.object({ kind: z.literal('channel'), channel: AudienceChannel, subscribed: z.boolean() });

/**
 * A condition as saved rules keep it: its shape, operators by type, no empty value (spec §5). Saved segments
 * and messages are read with this, so a check added later to SegmentCondition never makes them unreadable.
 */
export const StoredSegmentCondition = z
  .discriminatedUnion('kind', [FieldCondition, AttributeCondition, TagCondition, EventCondition, ChannelCondition])
  .superRefine((condition, ctx) => {
    // Spec §5: a date attribute's name ends with `.date`, and only a date's does.
    const problem = condition.kind === 'attribute' ? dateNameProblem(condition.name, condition.type === 'date') : null;
    if (problem) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: problem });
      return;
    }
    if (condition.kind !== 'field' && condition.kind !== 'attribute') return;
    const type = condition.kind === 'field' ? SEGMENT_FIELDS[condition.field] : condition.type;
    if (!(OPERATORS[type] as readonly string[]).includes(condition.op)) {
      ctx.addIssue({ code: 'custom', path: ['op'], message: V.invalid });
      return;
    }
    if (VALUELESS_OPERATORS.includes(condition.op)) return;
    const { value } = condition;
    // Spec §5: a condition may not be empty.
    if (value === undefined || value === '') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: V.required });
      return;
    }
    if (isDaysOperator(condition.op)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) ctx.addIssue({ code: 'custom', path: ['value'], message: V.days });
    } else if (type === 'number' && typeof value !== 'number') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: V.number });
    }
    if ((condition.op === 'before' || condition.op === 'after') && (typeof value !== 'string' || Number.isNaN(Date.parse(value)))) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: V.date });
    }
  });

/**
 * The first millisecond (UTC) of the day a date condition names (before, after), or NaN. A submitted condition's
 * day is ISO 8601 (dateValueMs, as `.date` values are); a saved rule of before that rule may hold other text that
 * Date.parse reads, and is counted as it was.
 */
export function conditionDay(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  const ms = dateValueMs(value) ?? Date.parse(value);
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/**
 * A condition as it is submitted (counted, saved, put in a message): a stored one, and players' countries and
 * languages compared as the codes they are kept as (VN, vi): "is Vietnam" or "is vn" would match no one.
 */
export const SegmentCondition = StoredSegmentCondition.superRefine((condition, ctx) => {
  // A number of days as the event conditions and the player filter take it (saved rules may hold more).
  if ((condition.kind === 'field' || condition.kind === 'attribute') && isDaysOperator(condition.op) && typeof condition.value === 'number' && condition.value > DAYS_MAX) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: V.days });
  }
  // A day as ISO 8601 (2026-12-02), as `.date` values are read: Date.parse took "12/05/2025" as December 5th.
  const dated = condition.kind === 'field' || condition.kind === 'attribute' ? condition : null;
  if (dated && (dated.op === 'before' || dated.op === 'after') && typeof dated.value === 'string' && dated.value !== '' && dateValueMs(dated.value) === null) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: V.date });
  }
  if (condition.kind !== 'field' || (condition.op !== 'eq' && condition.op !== 'neq') || typeof condition.value !== 'string') return;
  if (isPlayerChoiceField(condition.field)) {
    const values: readonly string[] = PLAYER_CHOICE_FIELDS[condition.field];
    if (!values.includes(condition.value)) ctx.addIssue({ code: 'invalid_value', values: [...values], path: ['value'], message: V.invalid });
    return;
  }
  if (!isPlayerCodeField(condition.field)) return;
  const rule = PLAYER_CODE_FIELDS[condition.field];
  if (!rule.valid(condition.value)) ctx.addIssue({ code: 'custom', path: ['value'], message: rule.message });
});
export type SegmentCondition = z.infer<typeof SegmentCondition>;

export const SEGMENT_GROUPS_MAX = 10;
export const SEGMENT_CONDITIONS_MAX = 20;

/**
 * A segment's rule: the player matches when ANY group matches, and a group matches when ALL its conditions
 * do (OR of ANDs, how the visual editor shows it). Empty groups and empty rules are refused (spec §5).
 */
const ruleOf = (condition: typeof StoredSegmentCondition) =>
  z.object({
    any: z
      .array(z.object({ all: z.array(condition).min(1, { message: V.conditionsEmpty }).max(SEGMENT_CONDITIONS_MAX) }))
      .min(1, { message: V.conditionsEmpty })
      .max(SEGMENT_GROUPS_MAX),
  });
export const SegmentRule = ruleOf(SegmentCondition);
export type SegmentRule = z.infer<typeof SegmentRule>;
/** A rule as saved (see StoredSegmentCondition): what segments and messages are read with and answered as. */
export const StoredSegmentRule = ruleOf(StoredSegmentCondition);

/** The longest segment name. */
export const SEGMENT_NAME_MAX = 100;

export const SegmentBody = z.object({
  /** Unique in the application, as segmentNameKey compares names (CONFLICT otherwise). */
  name: z.string().trim().min(1, { message: V.required }).max(SEGMENT_NAME_MAX, { message: V.tooLong }),
  rule: SegmentRule,
});
export type SegmentBody = z.infer<typeof SegmentBody>;

/**
 * What two segment names are compared by: two names that read the same in a list of audiences are one name. Case
 * (Unicode, not only ASCII: "KHÁCH VN" is "khách vn"), the spaces around and between words (a list shows "a  b" as
 * "a b") and the Unicode form (Vietnamese typed as composed or decomposed letters, by keyboard) do not count.
 */
export function segmentNameKey(name: string): string {
  return name.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

export const Segment = z.object({
  id: z.number().int(),
  name: z.string(),
  rule: StoredSegmentRule,
  /** The latest measured size, and when it was measured. */
  size: z.number().int().nullable(),
  measured_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Segment = z.infer<typeof Segment>;

export const SegmentDetail = Segment.extend({
  sizes: z.array(z.object({ day: z.string(), size: z.number().int() })),
});
export type SegmentDetail = z.infer<typeof SegmentDetail>;

export const SegmentParams = ApplicationParams.extend({ segment_id: z.coerce.number().int().positive() });
/** POST /application/{id}/segment/count: the rule being edited. */
export const SegmentCountBody = z.object({ rule: SegmentRule });

/** POST /application/{id}/segment/count: the live count of a rule being edited. */
export const SegmentCount = z.object({ count: z.number().int(), total: z.number().int() });
export type SegmentCount = z.infer<typeof SegmentCount>;

// ---------------------------------------------------------------------------------------------------------
// Dashboard

export const DashboardQuery = z.object({
  /** Inclusive days of the application's timezone, YYYY-MM-DD; at most a year apart. */
  from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
  to: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
  /** Or the last `days` days there, today included (without from and to). Default: the last 30 days. */
  days: z.coerce.number().int().min(1).max(366).optional(),
});

export const Dashboard = z.object({
  from: z.string(),
  to: z.string(),
  /** The application's timezone (minutes east of UTC), whose days these are. */
  utc_offset: z.number().int(),
  players: z.number().int(),
  subscribers: z.number().int(),
  by_platform: z.array(z.object({ platform: PlayerPlatform, players: z.number().int(), subscribers: z.number().int() })),
  by_channel: z.array(z.object({ channel: AudienceChannel, players: z.number().int() })),
  /** One entry per day of the period, zeros included. */
  days: z.array(z.object({ day: z.string(), new_players: z.number().int(), active_players: z.number().int(), sessions: z.number().int(), page_views: z.number().int() })),
  /** The events that occurred most in the period (at most 10), most first. */
  top_events: z.array(z.object({ name: z.string(), count: z.number().int() })),
});
export type Dashboard = z.infer<typeof Dashboard>;
