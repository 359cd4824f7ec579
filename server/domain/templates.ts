import { sql, type Selectable } from 'kysely';
import type { NotificationContent, NotificationType, Template, TemplateInput, TemplateListQuery } from '../../shared/contract';
import { nowIso, type ApplicationContext, type Ctx } from '../context';
import { toCount } from '../db';
import type { TemplatesTable } from '../db/schema';
import { containsPattern, type Page } from './applications';
import { checkedContent, refuseFields } from './notifications';
import { findOwnRow } from './own-rows';

/*
 * Templates: a named content for one type. The console fills a new message's form from one; nothing is copied
 * implicitly when a message names its template.
 */

type TemplateRow = Selectable<TemplatesTable>;

function toTemplate(row: TemplateRow): Template {
  return {
    id: Number(row.id),
    name: row.name,
    type: row.type as NotificationType,
    content: JSON.parse(row.content) as NotificationContent,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The content as a message of that type would keep it: the same rules and plan cap as a message. */
function contentOf(access: ApplicationContext, input: TemplateInput): string {
  const { content, fields } = checkedContent(access.application, input.type, input.content);
  refuseFields(fields);
  return JSON.stringify(content);
}

/** The templates, newest first, by type and a name search. */
export async function listTemplates(ctx: Ctx, access: ApplicationContext, query: TemplateListQuery): Promise<Page<Template>> {
  let base = ctx.s.db.selectFrom('templates').where('application_id', '=', access.application.application_id);
  if (query.type !== 'all') base = base.where('type', '=', query.type);
  if (query.q) base = base.where(sql`lower(name)`, 'like', sql`${containsPattern(query.q)} escape '\\'`);
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  return { items: rows.map(toTemplate), total: toCount(count?.n), page: query.page, limit: query.limit };
}

export async function getTemplate(ctx: Ctx, access: ApplicationContext, id: number): Promise<Template> {
  return toTemplate(await findOwnRow(ctx, access, 'templates', id));
}

export async function createTemplate(ctx: Ctx, access: ApplicationContext, input: TemplateInput): Promise<Template> {
  const content = contentOf(access, input);
  const now = nowIso(ctx.s);
  const row = await ctx.s.db
    .insertInto('templates')
    .values({ application_id: access.application.application_id, name: input.name, type: input.type, content, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTemplate(row);
}

export async function updateTemplate(ctx: Ctx, access: ApplicationContext, id: number, input: TemplateInput): Promise<Template> {
  const current = await findOwnRow(ctx, access, 'templates', id);
  const content = contentOf(access, input);
  const row = await ctx.s.db
    .updateTable('templates')
    .set({ name: input.name, type: input.type, content, updated_at: nowIso(ctx.s) })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTemplate(row);
}

/** Deletes a template; the messages made from it keep their content and lose the link. */
export async function deleteTemplate(ctx: Ctx, access: ApplicationContext, id: number): Promise<void> {
  const current = await findOwnRow(ctx, access, 'templates', id);
  await ctx.s.db.transaction().execute(async (trx) => {
    await trx.updateTable('notifications').set({ template_id: null }).where('template_id', '=', current.id).execute();
    await trx.deleteFrom('templates').where('id', '=', current.id).execute();
  });
}
