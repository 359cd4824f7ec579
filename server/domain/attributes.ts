import type { Selectable } from 'kysely';
import { audienceIndexes, bumpAudienceEpoch, type HeldAttribute } from './audience-index';
import { ATTRIBUTE_TYPES, type AttributeBody, type AttributeDefinition, type AttributeType, type PageQuery } from '../../shared/contract';
import { nowIso, type ApplicationContext, type Ctx, type Services } from '../context';
import { toCount, unlessTaken } from '../db';
import type { AttributeDefinitionsTable } from '../db/schema';
import { AppError } from '../errors';
import type { Page } from './applications';
import { findOwnRow } from './own-rows';

type DefinitionRow = Selectable<AttributeDefinitionsTable>;

const nameTaken = () =>
  new AppError('CONFLICT', 'audience.attributeNameTaken', { fields: [{ path: 'name', message: 'audience.attributeNameTaken' }] });

/** The row's type, text when it names none this version knows. */
function definitionType(row: DefinitionRow): AttributeType {
  return (ATTRIBUTE_TYPES as readonly string[]).includes(row.type) ? (row.type as AttributeType) : 'text';
}

/** The attributes of these rows as their holders are counted: each with its type. */
const held = (rows: DefinitionRow[]): HeldAttribute[] => rows.map((row) => ({ name: row.name, type: definitionType(row) }));

function toDefinition(row: DefinitionRow, players: number): AttributeDefinition {
  return {
    id: row.id,
    name: row.name,
    type: definitionType(row),
    description: row.description,
    source: row.source === 'console' ? 'console' : 'sdk',
    players,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Players holding a value of each attribute, of its type (AudienceIndex.holders). */
async function holders(ctx: Ctx, applicationId: string, attributes: HeldAttribute[]): Promise<Map<string, number>> {
  if (attributes.length === 0) return new Map();
  // A large audience counts from its in-memory copy: at a million players SQL took 0.3 s for a page of names.
  return (await audienceIndexes(ctx.s).read(applicationId, (index) => index.holders(attributes))) ?? holdersBySql(ctx.s, applicationId, attributes);
}

/**
 * How many players hold a value of each attribute, by SQL (AudienceIndex.holders' meaning: a text attribute's any
 * text, another's a number, as segments read them). Text attributes and the others in a query each, each read from
 * the index of the values it counts (player_attributes' (application_id, name, value) and (…, number_value)).
 */
export async function holdersBySql(s: Pick<Services, 'db'>, applicationId: string, attributes: readonly HeldAttribute[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>(attributes.map(({ name }) => [name, 0]));
  for (const column of ['value', 'number_value'] as const) {
    const names = attributes.filter(({ type }) => (type === 'text') === (column === 'value')).map(({ name }) => name);
    if (names.length === 0) continue;
    const rows = await s.db
      .selectFrom('player_attributes')
      .select((eb) => ['name', eb.fn.count(column).as('n')])
      .where('application_id', '=', applicationId)
      .where('name', 'in', names)
      .groupBy('name')
      .execute();
    for (const row of rows) counts.set(row.name, toCount(row.n));
  }
  return counts;
}

/** The attribute definitions by name, with how many players hold a value of each. */
export async function listAttributes(ctx: Ctx, access: ApplicationContext, query: PageQuery): Promise<Page<AttributeDefinition>> {
  const applicationId = access.application.application_id;
  const base = ctx.s.db.selectFrom('attribute_definitions').where('application_id', '=', applicationId);
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('name')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  const players = await holders(ctx, applicationId, held(rows));
  return { items: rows.map((row) => toDefinition(row, players.get(row.name) ?? 0)), total: toCount(count?.n), page: query.page, limit: query.limit };
}

async function withHolders(ctx: Ctx, row: DefinitionRow): Promise<AttributeDefinition> {
  const players = await holders(ctx, row.application_id, held([row]));
  return toDefinition(row, players.get(row.name) ?? 0);
}

/** Defines an attribute; its name is unique in the application (CONFLICT). */
export async function createAttribute(ctx: Ctx, access: ApplicationContext, body: AttributeBody): Promise<AttributeDefinition> {
  const now = nowIso(ctx.s);
  const row = await unlessTaken(
    () =>
      ctx.s.db
        .insertInto('attribute_definitions')
        .values({
          application_id: access.application.application_id,
          name: body.name,
          type: body.type,
          description: body.description || null,
          source: 'console',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    nameTaken,
  );
  return withHolders(ctx, row);
}

/**
 * Renames, retypes or redescribes an attribute. A rename carries the players' values along. The type changes
 * only while no player holds a value: stored values were read under the old type (CONFLICT otherwise).
 */
export async function updateAttribute(ctx: Ctx, access: ApplicationContext, attributeId: number, body: AttributeBody): Promise<AttributeDefinition> {
  const current = await findOwnRow(ctx, access, 'attribute_definitions', attributeId);
  const applicationId = current.application_id;
  const now = nowIso(ctx.s);
  await unlessTaken(
    () =>
      ctx.s.db.transaction().execute(async (trx) => {
        if (body.type !== current.type) {
          const held = await trx
            .selectFrom('player_attributes')
            .select('player_id')
            .where('application_id', '=', applicationId)
            .where('name', '=', current.name)
            .limit(1)
            .executeTakeFirst();
          if (held) {
            throw new AppError('CONFLICT', 'audience.attributeTypeInUse', { fields: [{ path: 'type', message: 'audience.attributeTypeInUse' }] });
          }
        }
        await trx
          .updateTable('attribute_definitions')
          .set({ name: body.name, type: body.type, description: body.description || null, updated_at: now })
          .where('id', '=', current.id)
          .execute();
        if (body.name !== current.name) {
          await trx
            .updateTable('player_attributes')
            .set({ name: body.name })
            .where('application_id', '=', applicationId)
            .where('name', '=', current.name)
            .execute();
          await bumpAudienceEpoch(trx, applicationId);
        }
      }),
    nameTaken,
  );
  return withHolders(ctx, await findOwnRow(ctx, access, 'attribute_definitions', attributeId));
}

/** Deletes an attribute and every player's value of it, together. */
export async function deleteAttribute(ctx: Ctx, access: ApplicationContext, attributeId: number): Promise<void> {
  const current = await findOwnRow(ctx, access, 'attribute_definitions', attributeId);
  await ctx.s.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('player_attributes').where('application_id', '=', current.application_id).where('name', '=', current.name).execute();
    await trx.deleteFrom('attribute_definitions').where('id', '=', current.id).execute();
    await bumpAudienceEpoch(trx, current.application_id);
  });
}
