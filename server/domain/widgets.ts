import type { z } from 'zod';
import {
  WIDGET_TYPES,
  type DisplayRules,
  type Widget,
  type WidgetBody,
  type WidgetListQuery,
  type WidgetType,
} from '../../shared/contract';
import { DEFAULT_PLAN, PLANS, maxleadPlanViolation, type Plan } from '../../shared/permissions/plans';
import { nowIso, type ApplicationContext, type Ctx } from '../context';
import { toCount } from '../db';
import type { ApplicationRow, WidgetRow } from '../db/schema';
import { AppError } from '../errors';
import type { Page } from './applications';
import { widgetTotals, type WidgetTotals } from './widget-stats';
import { findOwnRow } from './own-rows';
import { V } from '../../shared/validation';

/** A stored widget with its settings and rules read back from JSON. */
export interface WidgetRecord {
  id: number;
  application_id: string;
  type: WidgetType;
  name: string;
  status: 'active' | 'inactive';
  settings: Record<string, unknown>;
  rules: DisplayRules;
  created_at: string;
  updated_at: string;
}

/** Reads a row back. What was stored went through the contract, so it is trusted as written. */
export function toRecord(row: WidgetRow): WidgetRecord {
  return {
    id: row.id,
    application_id: row.application_id,
    type: row.type as WidgetType,
    name: row.name,
    status: row.status === 'active' ? 'active' : 'inactive',
    settings: JSON.parse(row.settings) as Record<string, unknown>,
    rules: JSON.parse(row.rules) as DisplayRules,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toWidget(record: WidgetRecord, totals: WidgetTotals = { views: 0, clicks: 0, leads: 0 }): Widget {
  return {
    id: record.id,
    type: record.type,
    name: record.name,
    status: record.status,
    settings: record.settings,
    rules: record.rules,
    views: totals.views,
    clicks: totals.clicks,
    leads: totals.leads,
    created: record.created_at,
    updated: record.updated_at,
  };
}

/** The plan an application is on; an unknown value (a plan since retired) counts as the default. */
export function planOf(application: Pick<ApplicationRow, 'plan'>): Plan {
  return application.plan in PLANS ? (application.plan as Plan) : DEFAULT_PLAN;
}

/** Spec §6: a plan may cap the contact buttons and phone numbers; the message names the cap. */
function checkPlan(application: ApplicationRow, type: WidgetType, settings: Record<string, unknown>): void {
  if (type !== 'maxlead') return;
  const violation = maxleadPlanViolation(planOf(application), settings as { buttons: unknown[]; phones?: unknown[] });
  if (violation) throw new AppError('PLAN_LIMIT', violation.key, { params: violation.params });
}

/** `types=schedule,banner`: each must be a widget type (a typo is an error, not an empty list). */
function parseTypes(types: string | undefined): WidgetType[] | null {
  if (types === undefined || types.trim() === '') return null;
  const list = types.split(',').map((type) => type.trim()).filter(Boolean);
  if (!list.every((type): type is WidgetType => (WIDGET_TYPES as readonly string[]).includes(type))) {
    throw new AppError('INVALID_PARAM', V.invalid, { fields: [{ path: 'types', message: V.invalid }] });
  }
  return list;
}

/** The application's widgets, newest first, optionally of some types, each with its all-time counters. */
export async function listWidgets(
  ctx: Ctx,
  access: ApplicationContext,
  query: z.infer<typeof WidgetListQuery>,
): Promise<Page<Widget>> {
  const types = parseTypes(query.types);
  let base = ctx.s.db.selectFrom('widgets').where('application_id', '=', access.application.application_id);
  if (types) base = base.where('type', 'in', types);
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  const totals = await widgetTotals(ctx.s.db, rows.map((row) => row.id));
  return {
    items: rows.map((row) => toWidget(toRecord(row), totals.get(row.id))),
    total: toCount(count?.n),
    page: query.page,
    limit: query.limit,
  };
}

async function findWidget(ctx: Ctx, access: ApplicationContext, widgetId: number): Promise<WidgetRecord> {
  return toRecord(await findOwnRow(ctx, access, 'widgets', widgetId));
}

export async function getWidget(ctx: Ctx, access: ApplicationContext, widgetId: number): Promise<Widget> {
  const record = await findWidget(ctx, access, widgetId);
  const totals = await widgetTotals(ctx.s.db, [record.id]);
  return toWidget(record, totals.get(record.id));
}

export async function createWidget(ctx: Ctx, access: ApplicationContext, body: WidgetBody): Promise<Widget> {
  checkPlan(access.application, body.type, body.settings);
  const now = nowIso(ctx.s);
  const row = await ctx.s.db
    .insertInto('widgets')
    .values({
      application_id: access.application.application_id,
      type: body.type,
      name: body.name,
      status: body.status,
      settings: JSON.stringify(body.settings),
      rules: JSON.stringify(body.rules),
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toWidget(toRecord(row));
}

/**
 * Replaces a widget's name, status, settings and rules. Its type stays: counters, spins and leads were
 * gathered by that kind of widget. A spin wheel's handed-out prizes stay counted against the stocks.
 */
export async function updateWidget(ctx: Ctx, access: ApplicationContext, widgetId: number, body: WidgetBody): Promise<Widget> {
  const current = await findWidget(ctx, access, widgetId);
  if (current.type !== body.type) {
    throw new AppError('INVALID_PARAM', 'errors.widgetTypeFixed', { fields: [{ path: 'type', message: 'errors.widgetTypeFixed' }] });
  }
  checkPlan(access.application, body.type, body.settings);
  await ctx.s.db
    .updateTable('widgets')
    .set({
      name: body.name,
      status: body.status,
      settings: JSON.stringify(body.settings),
      rules: JSON.stringify(body.rules),
      updated_at: nowIso(ctx.s),
    })
    .where('id', '=', current.id)
    .execute();
  return getWidget(ctx, access, current.id);
}

/** Switches a widget on or off. Switching a contact-button widget on checks it against the plan again. */
export async function setWidgetStatus(
  ctx: Ctx,
  access: ApplicationContext,
  widgetId: number,
  status: 'active' | 'inactive',
): Promise<Widget> {
  const current = await findWidget(ctx, access, widgetId);
  if (status === 'active') checkPlan(access.application, current.type, current.settings);
  await ctx.s.db.updateTable('widgets').set({ status, updated_at: nowIso(ctx.s) }).where('id', '=', current.id).execute();
  return getWidget(ctx, access, current.id);
}

/** Deletes a widget with its counters, stock and spins; its leads stay, without a widget. */
export async function deleteWidget(ctx: Ctx, access: ApplicationContext, widgetId: number): Promise<void> {
  const current = await findWidget(ctx, access, widgetId);
  await ctx.s.db.deleteFrom('widgets').where('id', '=', current.id).execute();
}
