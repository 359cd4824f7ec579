import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { ButtonClicks, ClicksQuery, ContactButtonType, Lead, LeadListQuery } from '../../shared/contract';
import { addDays, dayAtOffset, dayStartAtOffset } from '../../shared/format';
import type { ApplicationContext, Ctx } from '../context';
import { toCount } from '../db';
import type { Database } from '../db/schema';
import { AppError } from '../errors';
import type { Page } from './applications';
import { CSV_BOM, csvRow } from './csv';
import { bumpWidgetCounter } from './widget-stats';
import { V, dateValueMs } from '../../shared/validation';

export type LeadSource = Lead['source'];

/** What a storefront call captured; the widget and application come from the call's context. */
export interface LeadValues {
  source: LeadSource;
  visitor_id: string;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  message?: string | null;
  button_type?: string | null;
  prize?: string | null;
  code?: string | null;
  page_url?: string | null;
}

const orNull = (value: string | null | undefined): string | null => (value === undefined || value === '' ? null : value);

interface LeadRowWithWidget {
  id: number;
  widget_id: number | null;
  widget_name: string | null;
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

function toLead(row: LeadRowWithWidget): Lead {
  return {
    id: row.id,
    widget_id: row.widget_id,
    widget_name: row.widget_name,
    source: row.source as LeadSource,
    name: row.name,
    email: row.email,
    phone: row.phone,
    message: row.message,
    button_type: row.button_type as ContactButtonType | null,
    prize: row.prize,
    code: row.code,
    page_url: row.page_url,
    created: row.created_at,
  };
}

/**
 * Stores a lead, counts it on its widget's day (in the application's timezone, `utcOffset`), and leaves a
 * `new_lead` row in the webhook outbox for the webhook deliverer. Run it inside the caller's transaction so the
 * three never disagree.
 */
export async function recordLead(
  db: Kysely<Database>,
  widget: { id: number; application_id: string; name: string },
  values: LeadValues,
  now: Date,
  utcOffset: number,
): Promise<Lead> {
  const createdAt = now.toISOString();
  const inserted = await db
    .insertInto('leads')
    .values({
      application_id: widget.application_id,
      widget_id: widget.id,
      visitor_id: values.visitor_id,
      source: values.source,
      name: orNull(values.name),
      email: orNull(values.email),
      phone: orNull(values.phone),
      message: orNull(values.message),
      button_type: orNull(values.button_type),
      prize: orNull(values.prize),
      code: orNull(values.code),
      page_url: orNull(values.page_url),
      created_at: createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const lead = toLead({ ...inserted, widget_name: widget.name });
  await bumpWidgetCounter(db, widget.id, dayAtOffset(now.getTime(), utcOffset), 'leads');
  await db
    .insertInto('webhook_outbox')
    .values({
      application_id: widget.application_id,
      event: 'new_lead',
      payload: JSON.stringify({ event: 'new_lead', application_id: widget.application_id, lead }),
      created_at: createdAt,
      delivered_at: null,
    })
    .execute();
  return lead;
}

/**
 * A bound as the instant it stands for: an instant as given; a day (of the application's timezone, `utcOffset`)
 * `from` its start, `to` the start of the day after (exclusive).
 */
export function boundOf(value: string, side: 'from' | 'to', utcOffset: number): { at: string; inclusive: boolean } {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    if (side === 'from') return { at: new Date(dayStartAtOffset(value, utcOffset)).toISOString(), inclusive: true };
    return { at: new Date(dayStartAtOffset(addDays(value, 1), utcOffset)).toISOString(), inclusive: false };
  }
  const at = dateValueMs(value);
  if (at === null) throw new AppError('INVALID_PARAM', V.invalid, { fields: [{ path: side, message: V.invalid }] });
  return { at: new Date(at).toISOString(), inclusive: true };
}

type LeadFilter = Pick<LeadListQuery, 'source' | 'from' | 'to'>;

/** The filter with its date bounds resolved (and checked) once. */
interface ResolvedFilter {
  source?: LeadSource;
  from?: { at: string; inclusive: boolean };
  to?: { at: string; inclusive: boolean };
}

function resolveFilter(filter: LeadFilter, utcOffset: number): ResolvedFilter {
  return {
    source: filter.source,
    from: filter.from ? boundOf(filter.from, 'from', utcOffset) : undefined,
    to: filter.to ? boundOf(filter.to, 'to', utcOffset) : undefined,
  };
}

function leadsOf(ctx: Ctx, applicationId: string, filter: ResolvedFilter) {
  let query = ctx.s.db
    .selectFrom('leads as l')
    .leftJoin('widgets as w', 'w.id', 'l.widget_id')
    .where('l.application_id', '=', applicationId);
  if (filter.source) query = query.where('l.source', '=', filter.source);
  if (filter.from) query = query.where('l.created_at', '>=', filter.from.at);
  if (filter.to) query = query.where('l.created_at', filter.to.inclusive ? '<=' : '<', filter.to.at);
  return query;
}

const leadColumns = [
  'l.id',
  'l.widget_id',
  'w.name as widget_name',
  'l.source',
  'l.name',
  'l.email',
  'l.phone',
  'l.message',
  'l.button_type',
  'l.prize',
  'l.code',
  'l.page_url',
  'l.created_at',
] as const;

/** Leads of the application, newest first, filtered by source and date. */
export async function listLeads(ctx: Ctx, access: ApplicationContext, query: LeadListQuery): Promise<Page<Lead>> {
  const base = leadsOf(ctx, access.application.application_id, resolveFilter(query, access.application.utc_offset));
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .select(leadColumns)
    .orderBy('l.created_at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  return { items: rows.map(toLead), total: toCount(count?.n), page: query.page, limit: query.limit };
}

export const CSV_COLUMNS = [
  'created',
  'source',
  'widget',
  'name',
  'email',
  'phone',
  'message',
  'button',
  'prize',
  'code',
  'page_url',
] as const;

const EXPORT_BATCH = 500;

/**
 * The leads matching the filter as CSV, newest first, produced in batches so a large export never sits in
 * memory whole. Filter bounds are checked before the first byte goes out.
 */
export function exportLeadsCsv(ctx: Ctx, access: ApplicationContext, filter: LeadFilter): Readable {
  const applicationId = access.application.application_id;
  const resolved = resolveFilter(filter, access.application.utc_offset);
  async function* lines(): AsyncGenerator<string> {
    yield CSV_BOM + csvRow(CSV_COLUMNS);
    let before: number | null = null;
    for (;;) {
      let query = leadsOf(ctx, applicationId, resolved).select(leadColumns).orderBy('l.id', 'desc').limit(EXPORT_BATCH);
      if (before !== null) query = query.where('l.id', '<', before);
      const rows = await query.execute();
      if (rows.length === 0) return;
      yield rows
        .map((row) =>
          csvRow([
            row.created_at,
            row.source,
            row.widget_name,
            row.name,
            row.email,
            row.phone,
            row.message,
            row.button_type,
            row.prize,
            row.code,
            row.page_url,
          ]),
        )
        .join('');
      if (rows.length < EXPORT_BATCH) return;
      before = rows[rows.length - 1].id;
    }
  }
  return Readable.from(lines());
}

/** Clicks per contact-button type over the application's widgets, most clicked first. */
export async function buttonClicks(ctx: Ctx, access: ApplicationContext, query: ClicksQuery): Promise<ButtonClicks> {
  let base = ctx.s.db
    .selectFrom('widget_button_clicks as c')
    .innerJoin('widgets as w', 'w.id', 'c.widget_id')
    .where('w.application_id', '=', access.application.application_id);
  // Counters are per day of the application's timezone, so instants are taken at their day there.
  const utcOffset = access.application.utc_offset;
  const dayThere = (at: string) => dayAtOffset(at, utcOffset);
  if (query.from) base = base.where('c.day', '>=', dayThere(boundOf(query.from, 'from', utcOffset).at));
  if (query.to) {
    const to = boundOf(query.to, 'to', utcOffset);
    base = to.inclusive ? base.where('c.day', '<=', dayThere(to.at)) : base.where('c.day', '<', dayThere(to.at));
  }
  const rows = await base
    .select((eb) => ['c.button_type', eb.fn.sum<number>('c.clicks').as('clicks')])
    .groupBy('c.button_type')
    .execute();
  const items = rows
    .map((row) => ({ button_type: row.button_type as ContactButtonType, clicks: toCount(row.clicks) }))
    .sort((a, b) => b.clicks - a.clicks || a.button_type.localeCompare(b.button_type));
  return { items };
}
