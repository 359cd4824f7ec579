import type { Selectable } from 'kysely';
import type { ApplicationContext, Ctx } from '../context';
import type { Database } from '../db/schema';
import { noSuch, type NamedThing } from '../errors';

/** The tables whose rows belong to one application and are addressed by a numeric id in the API's paths. */
export type OwnTable = 'segments' | 'templates' | 'campaigns' | 'widgets' | 'attribute_definitions';
/** What a row of each table is called in a NOT_FOUND message. */
const THING: Record<OwnTable, NamedThing> = { segments: 'segment', templates: 'template', campaigns: 'campaign', widgets: 'widget', attribute_definitions: 'attribute' };

/**
 * One row of the caller's application by its id. NOT_FOUND when there is none, and equally when the id is
 * another application's: an id in a path never reaches outside the application the caller has access to.
 */
export async function findOwnRow<T extends OwnTable>(ctx: Ctx, access: ApplicationContext, table: T, id: number): Promise<Selectable<Database[T]>> {
  // The union, not T: Kysely resolves `application_id` and `id` on the tables it names.
  const row = await ctx.s.db
    .selectFrom(table as OwnTable)
    .selectAll()
    .where('application_id', '=', access.application.application_id)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw noSuch(THING[table], id);
  return row as Selectable<Database[T]>;
}
