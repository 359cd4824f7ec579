import { sql, type Selectable } from 'kysely';
import type { Campaign, CampaignInput, CampaignListQuery, NotificationStats } from '../../shared/contract';
import { EMPTY_STATS } from '../../shared/contract';
import { nowIso, type ApplicationContext, type Ctx } from '../context';
import { toCount } from '../db';
import type { CampaignsTable } from '../db/schema';
import { AppError } from '../errors';
import { containsPattern, type Page } from './applications';
import { findOwnRow } from './own-rows';

/* Campaigns: a named group of messages, with the totals of its messages (spec §2 /campaign/:id). */

type CampaignRow = Selectable<CampaignsTable>;
interface Totals {
  messages: number;
  stats: NotificationStats;
}

/** Messages and summed counters per campaign, in one grouped query over notifications (campaign_id index). */
async function totalsOf(ctx: Ctx, applicationId: string, ids: number[]): Promise<Map<number, Totals>> {
  const totals = new Map<number, Totals>();
  if (ids.length === 0) return totals;
  const rows = await ctx.s.db
    .selectFrom('notifications')
    .select((eb) => [
      'campaign_id',
      eb.fn.countAll().as('messages'),
      eb.fn.sum('targeted').as('targeted'),
      eb.fn.sum('sent').as('sent'),
      eb.fn.sum('delivered').as('delivered'),
      eb.fn.sum('failed').as('failed'),
      eb.fn.sum('clicked').as('clicked'),
    ])
    .where('application_id', '=', applicationId)
    .where('campaign_id', 'in', ids)
    .groupBy('campaign_id')
    .execute();
  for (const row of rows) {
    totals.set(Number(row.campaign_id), {
      messages: toCount(row.messages),
      stats: {
        targeted: toCount(row.targeted),
        sent: toCount(row.sent),
        delivered: toCount(row.delivered),
        failed: toCount(row.failed),
        clicked: toCount(row.clicked),
      },
    });
  }
  return totals;
}

function toCampaign(row: CampaignRow, totals: Totals = { messages: 0, stats: EMPTY_STATS }): Campaign {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    messages: totals.messages,
    stats: totals.stats,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function withTotals(ctx: Ctx, row: CampaignRow): Promise<Campaign> {
  const totals = await totalsOf(ctx, row.application_id, [Number(row.id)]);
  return toCampaign(row, totals.get(Number(row.id)));
}

/** The campaigns, newest first, with their totals; `q` searches the name. */
export async function listCampaigns(ctx: Ctx, access: ApplicationContext, query: CampaignListQuery): Promise<Page<Campaign>> {
  const applicationId = access.application.application_id;
  let base = ctx.s.db.selectFrom('campaigns').where('application_id', '=', applicationId);
  if (query.q) base = base.where(sql`lower(name)`, 'like', sql`${containsPattern(query.q)} escape '\\'`);
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  const totals = await totalsOf(ctx, applicationId, rows.map((row) => Number(row.id)));
  return { items: rows.map((row) => toCampaign(row, totals.get(Number(row.id)))), total: toCount(count?.n), page: query.page, limit: query.limit };
}

export async function getCampaign(ctx: Ctx, access: ApplicationContext, id: number): Promise<Campaign> {
  return withTotals(ctx, await findOwnRow(ctx, access, 'campaigns', id));
}

export async function createCampaign(ctx: Ctx, access: ApplicationContext, input: CampaignInput): Promise<Campaign> {
  const now = nowIso(ctx.s);
  const row = await ctx.s.db
    .insertInto('campaigns')
    .values({ application_id: access.application.application_id, name: input.name, description: input.description, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toCampaign(row);
}

export async function updateCampaign(ctx: Ctx, access: ApplicationContext, id: number, input: CampaignInput): Promise<Campaign> {
  const current = await findOwnRow(ctx, access, 'campaigns', id);
  const row = await ctx.s.db
    .updateTable('campaigns')
    .set({ name: input.name, description: input.description, updated_at: nowIso(ctx.s) })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return withTotals(ctx, row);
}

/**
 * Deletes a campaign once its name is typed exactly (spec §5: "Deletion needs a typed confirmation: the
 * campaign name"). Its messages stay, outside any campaign.
 */
export async function deleteCampaign(ctx: Ctx, access: ApplicationContext, id: number, confirmName: string): Promise<void> {
  const current = await findOwnRow(ctx, access, 'campaigns', id);
  if (confirmName !== current.name) {
    throw new AppError('INVALID_PARAM', 'campaign.confirmName', { fields: [{ path: 'confirm_name', message: 'campaign.confirmName' }] });
  }
  await ctx.s.db.transaction().execute(async (trx) => {
    await trx.updateTable('notifications').set({ campaign_id: null }).where('campaign_id', '=', current.id).execute();
    await trx.deleteFrom('campaigns').where('id', '=', current.id).execute();
  });
}
