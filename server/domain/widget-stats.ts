import { sql, type Kysely } from 'kysely';
import { toCount } from '../db';
import type { Database } from '../db/schema';

export type Counter = 'views' | 'clicks' | 'leads';

/** Adds one to a widget's counter of the day (a day of the application's timezone, dayAtOffset): a single upsert, so concurrent hits never lose a count. */
export async function bumpWidgetCounter(db: Kysely<Database>, widgetId: number, day: string, counter: Counter): Promise<void> {
  await db
    .insertInto('widget_stats')
    .values({ widget_id: widgetId, day, views: 0, clicks: 0, leads: 0, [counter]: 1 })
    .onConflict((oc) =>
      oc.columns(['widget_id', 'day']).doUpdateSet({ [counter]: sql<number>`${sql.ref(`widget_stats.${counter}`)} + 1` }),
    )
    .execute();
}

/** Adds one to the day's clicks of one contact button of a maxlead widget. */
export async function bumpButtonClicks(db: Kysely<Database>, widgetId: number, buttonType: string, day: string): Promise<void> {
  await db
    .insertInto('widget_button_clicks')
    .values({ widget_id: widgetId, button_type: buttonType, day, clicks: 1 })
    .onConflict((oc) =>
      oc.columns(['widget_id', 'button_type', 'day']).doUpdateSet({ clicks: sql<number>`widget_button_clicks.clicks + 1` }),
    )
    .execute();
}

export interface WidgetTotals {
  views: number;
  clicks: number;
  leads: number;
}

/** All-time totals of several widgets, in one grouped query. */
export async function widgetTotals(db: Kysely<Database>, ids: number[]): Promise<Map<number, WidgetTotals>> {
  const totals = new Map(ids.map((id) => [id, { views: 0, clicks: 0, leads: 0 }]));
  if (ids.length === 0) return totals;
  const rows = await db
    .selectFrom('widget_stats')
    .select((eb) => [
      'widget_id',
      eb.fn.sum<number>('views').as('views'),
      eb.fn.sum<number>('clicks').as('clicks'),
      eb.fn.sum<number>('leads').as('leads'),
    ])
    .where('widget_id', 'in', ids)
    .groupBy('widget_id')
    .execute();
  for (const row of rows) {
    totals.set(row.widget_id, { views: toCount(row.views), clicks: toCount(row.clicks), leads: toCount(row.leads) });
  }
  return totals;
}
