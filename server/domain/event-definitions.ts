import type { Selectable } from 'kysely';
import { ATTRIBUTE_TYPES, type AttributeType, type EventDefinition, type PageQuery } from '../../shared/contract';
import { isDateFieldName } from '../../shared/validation';
import type { ApplicationContext, Ctx } from '../context';
import { toCount } from '../db';
import type { EventDefinitionsTable } from '../db/schema';
import { noSuch } from '../errors';
import type { Page } from './applications';

type DefinitionRow = Selectable<EventDefinitionsTable>;

/** Property name → type as ingestion recorded it; a `.date` property is a date whatever its first value looked like (spec §5). */
function propertyTypes(text: string): Record<string, AttributeType> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const types: Record<string, AttributeType> = {};
  for (const [name, type] of Object.entries(parsed as Record<string, unknown>)) {
    if (isDateFieldName(name)) types[name] = 'date';
    else types[name] = (ATTRIBUTE_TYPES as readonly unknown[]).includes(type) ? (type as AttributeType) : 'text';
  }
  return types;
}

function toDefinition(row: DefinitionRow): EventDefinition {
  return {
    name: row.name,
    count: toCount(row.count),
    first_seen_at: row.first_seen_at,
    last_seen_at: row.last_seen_at,
    properties: propertyTypes(row.properties),
  };
}

/** The events seen in the application, most recently seen first. */
export async function listEventDefinitions(ctx: Ctx, access: ApplicationContext, query: PageQuery): Promise<Page<EventDefinition>> {
  const base = ctx.s.db.selectFrom('event_definitions').where('application_id', '=', access.application.application_id);
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('last_seen_at', 'desc')
    .orderBy('name')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  return { items: rows.map(toDefinition), total: toCount(count?.n), page: query.page, limit: query.limit };
}

/** One event by name. */
export async function getEventDefinition(ctx: Ctx, access: ApplicationContext, name: string): Promise<EventDefinition> {
  const row = await ctx.s.db
    .selectFrom('event_definitions')
    .selectAll()
    .where('application_id', '=', access.application.application_id)
    .where('name', '=', name)
    .executeTakeFirst();
  if (!row) throw noSuch('event', name);
  return toDefinition(row);
}
