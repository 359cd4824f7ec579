import { dayAtOffset } from '../../shared/format';
import { WIDGET_TYPES, type CONTACT_FIELDS, type ContactButton, type LeadSubmit, type PublicConfig, type PublicWidget, type WidgetEvent, type WidgetType } from '../../shared/contract';
import type { Ctx } from '../context';
import type { ApplicationRow } from '../db/schema';
import { AppError } from '../errors';
import { withinWindows } from '../security/rate-windows';
import type { ThrottleLimits, ThrottleRule } from '../security/throttle';
import { recordLead, type LeadValues } from './leads';
import { bumpButtonClicks, bumpWidgetCounter } from './widget-stats';
import { publicWebPush } from './web-push';
import { toRecord, type WidgetRecord } from './widgets';
import { withShopOrders } from '../../embed/server/orders';
import { V } from '../../shared/validation';
import { withInternationalNumbers } from '../../shared/validation/phone';

/*
 * The public storefront API: what a shop's visitors' browsers may ask and send, identified only by the
 * application's public client key. Nothing here reads or answers anything a merchant keeps private.
 */

const notFound = () => new AppError('NOT_FOUND');

type ContactField = (typeof CONTACT_FIELDS)[number];

/** The application a client key names; an unknown key is NOT_FOUND. */
export async function applicationByKey(ctx: Ctx, key: string): Promise<ApplicationRow> {
  const application = await ctx.s.db.selectFrom('applications').selectAll().where('client_key', '=', key).executeTakeFirst();
  if (!application) throw notFound();
  return application;
}

/** Active and not over: shown now, or scheduled, so the loader can show it when its start comes. */
export function isListed(widget: Pick<WidgetRecord, 'status' | 'rules'>, now: Date): boolean {
  if (widget.status !== 'active') return false;
  return !widget.rules.end_at || Date.parse(widget.rules.end_at) > now.getTime();
}

/** Active, started and not over: only such a widget takes leads, spins and events. */
export function isLive(widget: Pick<WidgetRecord, 'status' | 'rules'>, now: Date): boolean {
  if (!isListed(widget, now)) return false;
  return !widget.rules.start_at || Date.parse(widget.rules.start_at) <= now.getTime();
}

/**
 * The settings a browser gets: a spin wheel's odds, stock and code prefixes stay on the server; the numbers of contact
 * buttons whose links need the country code come in international form, read in the application's country for phone
 * numbers (`phoneCountry`; withInternationalNumbers, which the console's preview of the buttons uses too).
 */
export function publicSettings(type: WidgetType, settings: Record<string, unknown>, phoneCountry: string): Record<string, unknown> {
  if (type === 'maxlead') {
    const buttons = Array.isArray(settings.buttons) ? (settings.buttons as ContactButton[]) : [];
    return { ...settings, buttons: withInternationalNumbers(buttons, phoneCountry) };
  }
  if (type !== 'spin') return settings;
  const slices = Array.isArray(settings.slices) ? (settings.slices as Record<string, unknown>[]) : [];
  return {
    ...settings,
    slices: slices.map((slice) => ({ id: slice.id, label: slice.label, color: slice.color, lose: slice.lose === true })),
  };
}

/** The widgets the loader may show, oldest first (the order the merchant created them), and web push when it is on. */
export async function getPublicConfig(ctx: Ctx, key: string): Promise<PublicConfig> {
  const application = await applicationByKey(ctx, key);
  const rows = await ctx.s.db
    .selectFrom('widgets')
    .selectAll()
    .where('application_id', '=', application.application_id)
    .where('status', '=', 'active')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  const now = ctx.s.clock();
  const listed: PublicWidget[] = rows
    .map(toRecord)
    .filter((widget) => isListed(widget, now))
    .map((widget) => ({ id: widget.id, type: widget.type, settings: publicSettings(widget.type, widget.settings, application.phone_country), rules: widget.rules }));
  // Fake-buyer notices fed by a shop's real orders get them here (or stay off when there are none).
  const widgets = await withShopOrders(ctx, application.application_id, listed);
  const push = await publicWebPush(ctx, application.application_id);
  return { application_id: application.application_id, widgets, ...(push ? { push } : {}) };
}

/** A live widget of the application, of one of `types`; anything else is NOT_FOUND. */
export async function liveWidget(ctx: Ctx, application: ApplicationRow, widgetId: number, types: readonly WidgetType[]): Promise<WidgetRecord> {
  const row = await ctx.s.db
    .selectFrom('widgets')
    .selectAll()
    .where('application_id', '=', application.application_id)
    .where('id', '=', widgetId)
    .executeTakeFirst();
  if (!row) throw notFound();
  const widget = toRecord(row);
  if (!types.includes(widget.type) || !isLive(widget, ctx.s.clock())) throw notFound();
  return widget;
}

/** The limits of each public call (server/security/throttle.ts); events have no per-address limit of their own. */
const SDK_LIMITS = {
  lead: { visitor: 'sdkLeadPerVisitor', ip: 'sdkLeadPerIp', application: 'sdkLeadPerApplication' },
  spin: { visitor: 'sdkSpinPerVisitor', ip: 'sdkSpinPerIp', application: 'sdkSpinPerApplication' },
  event: { visitor: 'sdkEventPerVisitor', ip: null, application: 'sdkEventPerApplication' },
} as const satisfies Record<string, { visitor: keyof ThrottleLimits; ip: keyof ThrottleLimits | null; application: keyof ThrottleLimits }>;
export type SdkCall = keyof typeof SDK_LIMITS;

/** Counts the call against the visitor, the caller's address and the application; RATE_LIMITED past any. */
export async function checkSdkLimits(ctx: Ctx, call: SdkCall, application: ApplicationRow, visitorId: string): Promise<void> {
  const { limits } = ctx.s;
  const names = SDK_LIMITS[call];
  const app = application.application_id;
  const checks: { bucket: string; rule: ThrottleRule }[] = [{ bucket: `sdk:${call}:visitor:${app}:${visitorId}`, rule: limits[names.visitor] }];
  if (names.ip) checks.push({ bucket: `sdk:${call}:ip:${ctx.ip}`, rule: limits[names.ip] });
  checks.push({ bucket: `sdk:${call}:app:${app}`, rule: limits[names.application] });
  if (!(await withinWindows(ctx.s.db, ctx.s.clock(), checks))) throw new AppError('RATE_LIMITED');
}

/** True when the honeypot field was filled: a bot, to be answered as if all went well. */
export function isBot(website: string | undefined): boolean {
  return typeof website === 'string' && website.trim() !== '';
}

const filled = (value: string | undefined): value is string => typeof value === 'string' && value.trim() !== '';

function missing(fields: string[]): AppError {
  return new AppError('INVALID_PARAM', V.required, {
    fields: fields.map((path) => ({ path, message: V.required })),
  });
}

/**
 * A contact form or a contact-button capture. The form's own required fields are checked (the widget's
 * settings decide them, not the visitor); fields the form does not have are dropped. A contact-button lead
 * carries the phone or email its capture asks for; without a capture it records which button was used.
 */
export async function submitLead(ctx: Ctx, body: LeadSubmit): Promise<void> {
  const application = await applicationByKey(ctx, body.key);
  await checkSdkLimits(ctx, 'lead', application, body.visitor_id);
  const widget = await liveWidget(ctx, application, body.widget_id, ['contact', 'maxlead']);
  if (isBot(body.website)) return;

  const values = { visitor_id: body.visitor_id, page_url: body.page_url ?? null };
  let lead: LeadValues;
  if (widget.type === 'contact') {
    const settings = widget.settings as { fields: ContactField[]; required: ContactField[] };
    const absent = settings.required.filter((field) => settings.fields.includes(field) && !filled(body[field]));
    if (absent.length > 0) throw missing(absent);
    const kept = (field: ContactField) => (settings.fields.includes(field) ? body[field] : null);
    lead = { ...values, source: 'contact', name: kept('name'), email: kept('email'), phone: kept('phone'), message: kept('message') };
  } else {
    const { capture } = widget.settings as { capture: 'none' | 'phone' | 'email' };
    if (capture === 'none' && !body.button_type) throw missing(['button_type']);
    if (capture !== 'none' && !filled(body[capture])) throw missing([capture]);
    lead = {
      ...values,
      source: 'maxlead',
      button_type: body.button_type,
      name: body.name,
      email: body.email,
      phone: body.phone,
      message: body.message,
    };
  }
  const now = ctx.s.clock();
  await ctx.s.db.transaction().execute((trx) => recordLead(trx, widget, lead, now, application.utc_offset));
}

/**
 * A view or a click of a live widget, on the day's counters; a click on a contact button also counts for
 * that button. A button the widget does not have is not counted for it.
 */
export async function recordEvent(ctx: Ctx, body: WidgetEvent): Promise<void> {
  const application = await applicationByKey(ctx, body.key);
  await checkSdkLimits(ctx, 'event', application, body.visitor_id);
  const widget = await liveWidget(ctx, application, body.widget_id, WIDGET_TYPES);
  const day = dayAtOffset(ctx.s.clock().getTime(), application.utc_offset);
  await bumpWidgetCounter(ctx.s.db, widget.id, day, body.kind === 'view' ? 'views' : 'clicks');
  if (body.kind === 'click' && body.button_type && widget.type === 'maxlead') {
    const buttons = (widget.settings as { buttons: { type: string }[] }).buttons;
    if (buttons.some((button) => button.type === body.button_type)) {
      await bumpButtonClicks(ctx.s.db, widget.id, body.button_type, day);
    }
  }
}
