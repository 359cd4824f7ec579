import { z } from 'zod';
import { V, dateValueMs, isEmail, isExternalLink, isMobileNumber, isNotBlank } from '../validation';
import { ApplicationParams } from './application';
import { DeviceId } from './audience';
import { Timestamp } from './common';
import { PublicWebPush } from './platform';

/**
 * Storefront widgets (spec §1, §3): what merchants configure in the console and shoppers see on the shop's
 * pages. One entity, `Widget`, with a `type` and the settings of that type; the four banner types of spec §3
 * (schedule = flash sale, banner, contact = form, spin) plus suggestions, fake-buyer notices and the maxlead
 * contact buttons.
 */

export const BANNER_TYPES = ['schedule', 'banner', 'contact', 'spin'] as const;
export const WIDGET_TYPES = [...BANNER_TYPES, 'suggestion', 'fake_noti', 'maxlead'] as const;
export const WidgetType = z.enum(WIDGET_TYPES);
export type WidgetType = z.infer<typeof WidgetType>;

/** The 19 contact-button types of spec §3. */
export const CONTACT_BUTTON_TYPES = [
  'zalo', 'facebook', 'youtube', 'sms', 'mail', 'tawk', 'fanpage', 'fgroup', 'cart', 'twitter', 'tiktok',
  'instagram', 'linkedin', 'telegram', 'discord', 'line', 'whatapps', 'viber', 'account',
] as const;
export const ContactButtonType = z.enum(CONTACT_BUTTON_TYPES);
export type ContactButtonType = z.infer<typeof ContactButtonType>;
/**
 * Contact buttons whose links need a number with its country code (wa.me/…, viber://chat?number=…): the storefront
 * config gives their numbers in international form, a national one read in the application's country for phone
 * numbers (withInternationalNumbers in shared/validation/phone.ts), so "081 234 5678" of a shop in Thailand opens +66 81 234 5678.
 */
export const INTERNATIONAL_NUMBER_BUTTONS: readonly ContactButtonType[] = ['whatapps', 'viber'];

/** Merchant text shown to shoppers: plain text, rendered as text (never HTML) by the widgets. */
const Text = (max = 500) => z.string().max(max, { message: V.tooLong });
const RequiredText = (max = 200) => z.string().trim().refine(isNotBlank, { message: V.required }).pipe(z.string().max(max, { message: V.tooLong }));
/** A link a shopper may follow: http(s), mailto: or tel: only — `javascript:` never passes. */
export const Link = z.string().trim().refine(isExternalLink, { message: V.link });
const OptionalLink = z.union([z.literal(''), Link]).optional();
/** A CSS colour as #rgb or #rrggbb: anything else could smuggle CSS into the widget's style. */
export const Color = z.string().regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, { message: 'validation.color' });

/** Display rules shared by every widget (issue: pages, device, delay, scroll, exit intent, frequency, dates). */
export const PageRule = z.object({
  match: z.enum(['contains', 'equals', 'excludes']),
  value: z.string().trim().min(1, { message: V.required }).max(500, { message: V.tooLong }),
});
export type PageRule = z.infer<typeof PageRule>;

export const FREQUENCIES = ['every_page', 'once_session', 'once_day', 'once'] as const;
export const DisplayRules = z.object({
  pages: z.array(PageRule).max(20).default([]),
  devices: z.array(z.enum(['desktop', 'mobile'])).min(1, { message: V.required }).default(['desktop', 'mobile']),
  delay_seconds: z.number().int().min(0).max(3600).default(0),
  /** Show once the visitor has scrolled this fraction of the page (spec §9: 1/4, 1/2, 3/4, end). */
  scroll: z.enum(['none', '25', '50', '75', '100']).default('none'),
  /** Desktop only: show when the pointer leaves through the top of the window. */
  exit_intent: z.boolean().default(false),
  frequency: z.enum(FREQUENCIES).default('every_page'),
  start_at: Timestamp.nullable().default(null),
  end_at: Timestamp.nullable().default(null),
});
export type DisplayRules = z.infer<typeof DisplayRules>;

const Position = z.enum(['top', 'bottom', 'center', 'bottom_left', 'bottom_right']);

export const ScheduleSettings = z.object({
  /** Flash sale bar: a countdown to the sale's end, with before / during / after texts. */
  title: RequiredText(),
  before_text: Text(200).default(''),
  after_text: Text(200).default(''),
  mode: z.enum(['fixed', 'evergreen']).default('fixed'),
  /** fixed mode: the sale's window. */
  sale_start: Timestamp.nullable().default(null),
  sale_end: Timestamp.nullable().default(null),
  /** evergreen mode: each visitor gets this many minutes from their first view. */
  evergreen_minutes: z.number().int().min(1).max(60 * 24 * 30).default(60),
  link: OptionalLink,
  button_text: Text(40).default(''),
  position: z.enum(['top', 'bottom']).default('top'),
  sticky: z.boolean().default(true),
  background: Color.default('#d72c0d'),
  color: Color.default('#ffffff'),
});

export const BannerSettings = z.object({
  title: Text(200).default(''),
  text: Text(500).default(''),
  image_url: OptionalLink,
  link: OptionalLink,
  button_text: Text(40).default(''),
  position: Position.default('bottom_right'),
  background: Color.default('#ffffff'),
  color: Color.default('#202223'),
  closable: z.boolean().default(true),
});

export const CONTACT_FIELDS = ['name', 'email', 'phone', 'message'] as const;
export const ContactFormSettings = z.object({
  title: RequiredText(),
  text: Text(500).default(''),
  fields: z.array(z.enum(CONTACT_FIELDS)).min(1, { message: V.required }).default(['name', 'email']),
  required: z.array(z.enum(CONTACT_FIELDS)).default(['email']),
  submit_text: Text(40).default(''),
  success_text: Text(200).default(''),
  position: Position.default('center'),
  background: Color.default('#ffffff'),
  color: Color.default('#202223'),
});

export const SpinSlice = z.object({
  id: z.string().regex(/^[a-z0-9_-]{1,32}$/),
  label: RequiredText(40),
  color: Color,
  /** Relative odds: a slice with weight 2 comes up twice as often as one with weight 1. */
  weight: z.number().min(0).max(1_000_000),
  /** A losing slice hands out no code. */
  lose: z.boolean().default(false),
  /** How many prizes of this slice exist; null = unlimited. Never exceeded, even under concurrent spins. */
  stock: z.number().int().min(0).nullable().default(null),
  /** Prefix of the one-time codes handed out for this slice. */
  code_prefix: z.string().regex(/^[A-Z0-9-]{0,12}$/).default(''),
});
export type SpinSlice = z.infer<typeof SpinSlice>;

export const SpinSettings = z.object({
  title: RequiredText(),
  text: Text(500).default(''),
  gate: z.enum(['email', 'phone']).default('email'),
  slices: z
    .array(SpinSlice)
    .min(2)
    .max(12)
    .refine((slices) => slices.some((s) => s.weight > 0), { message: 'validation.spinOdds' })
    .refine((slices) => new Set(slices.map((s) => s.id)).size === slices.length, { message: 'validation.spinSliceIds' }),
  button_text: Text(40).default(''),
  position: Position.default('center'),
  background: Color.default('#ffffff'),
  color: Color.default('#202223'),
});

export const SuggestionItem = z.object({
  title: RequiredText(120),
  url: Link,
  image_url: OptionalLink,
  price: Text(40).default(''),
});
export const SuggestionSettings = z.object({
  title: RequiredText(),
  kind: z.enum(['promotion', 'recommendation']).default('recommendation'),
  items: z.array(SuggestionItem).min(1, { message: V.required }).max(12),
  position: Position.default('bottom_left'),
  background: Color.default('#ffffff'),
  color: Color.default('#202223'),
});

export const FakeNotiItem = z.object({
  name: Text(60).default(''),
  city: Text(60).default(''),
  product: RequiredText(120),
  url: OptionalLink,
  image_url: OptionalLink,
  minutes_ago: z.number().int().min(0).max(60 * 24 * 30).default(5),
});
export type FakeNotiItem = z.infer<typeof FakeNotiItem>;

/** Where the notices come from: the merchant's own list, or the shop's real recent orders (shop-platform applications). */
export const FAKE_NOTI_SOURCES = ['manual', 'shop_orders'] as const;
export const FakeNotiSettings = z
  .object({
    source: z.enum(FAKE_NOTI_SOURCES).default('manual'),
    /** Required (at least one) for the manual source; the shop_orders source builds its items from orders. */
    items: z.array(FakeNotiItem).max(100).default([]),
    min_interval_seconds: z.number().int().min(3).max(3600).default(8),
    max_interval_seconds: z.number().int().min(3).max(3600).default(20),
    display_seconds: z.number().int().min(2).max(60).default(6),
    max_per_session: z.number().int().min(1).max(100).default(5),
    position: z.enum(['bottom_left', 'bottom_right']).default('bottom_left'),
  })
  .superRefine((settings, ctx) => {
    if (settings.source === 'manual' && settings.items.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['items'], message: V.required });
    }
  });

export const ContactButton = z.object({
  type: ContactButtonType,
  /** Phone number, username, page id or URL, depending on the type (see contactButtonHref). */
  value: z.string().trim().min(1, { message: V.required }).max(300, { message: V.tooLong }),
  label: Text(40).default(''),
});
export type ContactButton = z.infer<typeof ContactButton>;

export const MaxleadSettings = z.object({
  buttons: z.array(ContactButton).min(1, { message: V.required }).max(19),
  position: z.enum(['bottom_left', 'bottom_right']).default('bottom_right'),
  color: Color.default('#008060'),
  /** Hotline numbers, shown as call (tel:) entries; capped by the plan (spec §6). */
  phones: z
    .array(z.object({ number: z.string().trim().refine(isMobileNumber, { message: V.mobileNumber }), label: Text(40).default('') }))
    .max(10)
    .default([]),
  /** Optional capture: ask for a phone number or email before opening a channel; recorded as a lead. */
  capture: z.enum(['none', 'phone', 'email']).default('none'),
  greeting: Text(200).default(''),
});

/** The settings of each type, keyed by type. */
export const WIDGET_SETTINGS = {
  schedule: ScheduleSettings,
  banner: BannerSettings,
  contact: ContactFormSettings,
  spin: SpinSettings,
  suggestion: SuggestionSettings,
  fake_noti: FakeNotiSettings,
  maxlead: MaxleadSettings,
} as const satisfies Record<WidgetType, z.ZodTypeAny>;

const widgetBody = <T extends WidgetType>(type: T) =>
  z.object({
    type: z.literal(type),
    name: RequiredText(100),
    status: z.enum(['active', 'inactive']).default('inactive'),
    settings: WIDGET_SETTINGS[type],
    rules: DisplayRules.default(DisplayRules.parse({})),
  });

/** POST /application/{id}/widget and PUT /application/{id}/widget/{widget_id}. */
export const WidgetBody = z.discriminatedUnion('type', [
  widgetBody('schedule'),
  widgetBody('banner'),
  widgetBody('contact'),
  widgetBody('spin'),
  widgetBody('suggestion'),
  widgetBody('fake_noti'),
  widgetBody('maxlead'),
]);
export type WidgetBody = z.infer<typeof WidgetBody>;

/** A widget as the console lists it, with its counters. */
export const Widget = z.object({
  id: z.number().int(),
  type: WidgetType,
  name: z.string(),
  status: z.enum(['active', 'inactive']),
  settings: z.record(z.string(), z.unknown()),
  rules: DisplayRules,
  views: z.number().int(),
  clicks: z.number().int(),
  leads: z.number().int(),
  created: Timestamp,
  updated: Timestamp,
});
export type Widget = z.infer<typeof Widget>;

export const WidgetParams = ApplicationParams.extend({ widget_id: z.coerce.number().int().positive() });

/** POST /application/{id}/widget/{widget_id}/status: switch a widget on or off without resending it. */
export const WidgetStatusBody = z.object({ status: z.enum(['active', 'inactive']) });
export type WidgetStatusBody = z.infer<typeof WidgetStatusBody>;

export const WidgetListQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** Comma-separated types, e.g. `schedule,banner,contact,spin` for /banner. */
  types: z.string().optional(),
});

/* ---------- Public storefront API (/api/sdk/…), keyed by the application's client key ---------- */

/**
 * What the loader receives: only what a shopper's browser needs, nothing private. A spin wheel's slices
 * carry only `id`, `label`, `color` and `lose`: the odds, the stock and the code prefix stay on the server,
 * which draws the prize.
 */
export const PublicWidget = z.object({
  id: z.number().int(),
  type: WidgetType,
  settings: z.record(z.string(), z.unknown()),
  rules: DisplayRules,
});
export type PublicWidget = z.infer<typeof PublicWidget>;
export const PublicConfig = z.object({
  /** The application's id: the SDK opens its visitor's playerinfo page with it. */
  application_id: z.string(),
  widgets: z.array(PublicWidget),
  /** Present when web push is on: the VAPID key, the service worker's path and the subscription box. */
  push: PublicWebPush.optional(),
});
export type PublicConfig = z.infer<typeof PublicConfig>;

/** GET /api/sdk/config?key=CLIENT_KEY. */
export const SdkConfigQuery = z.object({ key: z.string().min(8).max(64) });

/**
 * The honeypot field of the public forms: people never see it, bots fill it. Any text is accepted so that a
 * bot learns nothing; when it is not empty the server answers success and stores nothing.
 */
const Honeypot = z.string().max(1000).optional();

/** An email or phone a shopper may leave empty; one typed is checked with the console's rules. */
const VisitorEmail = z.string().trim().max(254).refine((v) => v === '' || isEmail(v), { message: V.email }).optional();
const VisitorPhone = z.string().trim().max(30).refine((v) => v === '' || isMobileNumber(v), { message: V.mobileNumber }).optional();

/** POST /api/sdk/lead: a contact form, a maxlead capture. `website` is the honeypot: bots fill it, people don't see it. */
export const LeadSubmit = z.object({
  key: z.string().min(8).max(64),
  widget_id: z.number().int(),
  visitor_id: DeviceId,
  name: Text(100).optional(),
  email: VisitorEmail,
  phone: VisitorPhone,
  message: Text(2000).optional(),
  button_type: ContactButtonType.optional(),
  page_url: z.string().max(2000).optional(),
  website: Honeypot,
});
export type LeadSubmit = z.infer<typeof LeadSubmit>;

/** POST /api/sdk/spin: the server draws the prize; one spin per visitor and per email/phone. */
export const SpinRequest = z.object({
  key: z.string().min(8).max(64),
  widget_id: z.number().int(),
  visitor_id: DeviceId,
  email: VisitorEmail,
  phone: VisitorPhone,
  website: Honeypot,
});
export type SpinRequest = z.infer<typeof SpinRequest>;
export const SpinResult = z.object({
  slice_id: z.string(),
  label: z.string(),
  lose: z.boolean(),
  /** The one-time code for a winning slice; null for a losing one. */
  code: z.string().nullable(),
});
export type SpinResult = z.infer<typeof SpinResult>;

/** POST /api/sdk/event: views and clicks, sent as text/plain (no CORS preflight). */
export const WidgetEvent = z.object({
  key: z.string().min(8).max(64),
  widget_id: z.number().int(),
  visitor_id: DeviceId,
  kind: z.enum(['view', 'click']),
  button_type: ContactButtonType.optional(),
});
export type WidgetEvent = z.infer<typeof WidgetEvent>;

/* ---------- Leads (/maxlead_report) ---------- */

export const LEAD_SOURCES = ['contact', 'spin', 'maxlead'] as const;
export const Lead = z.object({
  id: z.number().int(),
  widget_id: z.number().int().nullable(),
  widget_name: z.string().nullable(),
  source: z.enum(LEAD_SOURCES),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  message: z.string().nullable(),
  button_type: ContactButtonType.nullable(),
  /** For spin leads: the prize label and code. */
  prize: z.string().nullable(),
  code: z.string().nullable(),
  page_url: z.string().nullable(),
  created: Timestamp,
});
export type Lead = z.infer<typeof Lead>;

/**
 * A bound of a date filter: a day (YYYY-MM-DD, a day of the application's timezone, `to` includes all of it) or an
 * ISO 8601 instant (what a console in another time zone sends for its local day), read as dateValueMs reads them:
 * a day its month has, a time without a zone in UTC.
 */
export const DateBound = z
  .string()
  .trim()
  .refine((v) => dateValueMs(v) !== null, { message: V.invalid });

export const LeadListQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  source: z.enum(LEAD_SOURCES).optional(),
  from: DateBound.optional(),
  to: DateBound.optional(),
});
export type LeadListQuery = z.infer<typeof LeadListQuery>;

/** GET /application/{id}/lead/clicks: the same date filter. */
export const ClicksQuery = z.object({ from: DateBound.optional(), to: DateBound.optional() });
export type ClicksQuery = z.infer<typeof ClicksQuery>;

/** Clicks per contact-button type, for the report. */
export const ButtonClicks = z.object({ items: z.array(z.object({ button_type: ContactButtonType, clicks: z.number().int() })) });
export type ButtonClicks = z.infer<typeof ButtonClicks>;
