import type { Selectable } from 'kysely';
import { segmentNameKey, type PageQuery, type Segment, type SegmentBody, type SegmentCount, type SegmentDetail, type SegmentRule } from '../../shared/contract';
import { dayAtOffset } from '../../shared/format';
import { nowIso, type ApplicationContext, type Ctx, type Services } from '../context';
import { toCount, unlessTaken } from '../db';
import type { SegmentsTable } from '../db/schema';
import { AppError } from '../errors';
import type { Page } from './applications';
import { audienceIndexes } from './audience-index';
import { segmentWhere } from './segment-sql';
import { findOwnRow } from './own-rows';

type SegmentRow = Selectable<SegmentsTable>;

/** The detail page's size history: the last year of daily measurements. */
const SIZE_HISTORY_DAYS = 366;

/** How many players of the application match the rule now. */
export async function countMatching(s: Pick<Services, 'db' | 'dialect' | 'clock'>, applicationId: string, rule: SegmentRule): Promise<number> {
  const scope = { applicationId, now: s.clock(), dialect: s.dialect };
  const row = await s.db
    .selectFrom('players')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('players.application_id', '=', applicationId)
    .where((eb) => segmentWhere(eb, rule, scope))
    .executeTakeFirst();
  return toCount(row?.n);
}

/** The ids of the players matching the rule, ascending (for checks and exports, not for the console's list). */
export async function matchingPlayerIds(s: Pick<Services, 'db' | 'dialect' | 'clock'>, applicationId: string, rule: SegmentRule): Promise<number[]> {
  const scope = { applicationId, now: s.clock(), dialect: s.dialect };
  const rows = await s.db
    .selectFrom('players')
    .select('players.id')
    .where('players.application_id', '=', applicationId)
    .where((eb) => segmentWhere(eb, rule, scope))
    .orderBy('players.id')
    .execute();
  return rows.map((row) => Number(row.id));
}

/**
 * POST /segment/count: the live count of a rule being edited, and the application's players in total. Large
 * audiences are counted from their in-memory copy (audience-index.ts), the rest by SQL.
 */
export async function countRule(ctx: Ctx, access: ApplicationContext, rule: SegmentRule): Promise<SegmentCount> {
  const applicationId = access.application.application_id;
  const fast = await audienceIndexes(ctx.s).count(applicationId, rule, ctx.s.clock());
  if (fast) return fast;
  const [count, total] = await Promise.all([
    countMatching(ctx.s, applicationId, rule),
    ctx.s.db
      .selectFrom('players')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('application_id', '=', applicationId)
      .executeTakeFirst()
      .then((row) => toCount(row?.n)),
  ]);
  return { count, total };
}

interface Measurement {
  size: number;
  day: string;
  measured_at: string;
}

/**
 * Measures the segment now and keeps the figure as today's size, today in the application's timezone (a second
 * measurement the same day replaces it). A large audience is counted from its in-memory copy, as the live count is.
 */
async function measureRow(s: Services, row: SegmentRow, utcOffset: number): Promise<Measurement> {
  const rule = JSON.parse(row.rule) as SegmentRule;
  const fast = await audienceIndexes(s).count(row.application_id, rule, s.clock());
  const size = fast ? fast.count : await countMatching(s, row.application_id, rule);
  const measuredAt = nowIso(s);
  const day = dayAtOffset(measuredAt, utcOffset);
  await s.db
    .insertInto('segment_sizes')
    .values({ segment_id: row.id, day, size, measured_at: measuredAt })
    .onConflict((oc) => oc.columns(['segment_id', 'day']).doUpdateSet({ size, measured_at: measuredAt }))
    .execute();
  return { size, day, measured_at: measuredAt };
}

function measure(ctx: Ctx, access: ApplicationContext, row: SegmentRow): Promise<Measurement> {
  return measureRow(ctx.s, row, access.application.utc_offset);
}

/** How many segments one round of the daily measurement (measureSegmentsDue) measures at most. */
export const SEGMENT_MEASURE_ROUND = 20;

/**
 * The daily measurement behind a segment's size over time: measures the segments of every application that have
 * no size yet for today in their application's timezone (a later day, left by a timezone moved west, counts as
 * today's), at most `limit`, and answers how many it measured. Run every few minutes by the scheduler
 * (server/jobs/segment-sizes.ts), so each segment gets a point a day whether or not anyone opens it; reading a
 * segment still measures it first when the round has not reached it yet (latestSizes). A segment that fails to
 * count is logged and left for the next round; the others go on. Stops between segments when `signal` aborts.
 */
export async function measureSegmentsDue(s: Services, limit = SEGMENT_MEASURE_ROUND, signal?: AbortSignal): Promise<number> {
  const offsets = await s.db
    .selectFrom('applications as a')
    .select('a.utc_offset')
    .distinct()
    .where((eb) => eb.exists(eb.selectFrom('segments as g').select(eb.lit(1).as('one')).whereRef('g.application_id', '=', 'a.application_id')))
    .execute();
  let measured = 0;
  // Failed this round: still due, so each later query of the round takes one more to reach `limit` measured.
  let failed = 0;
  for (const { utc_offset: offset } of offsets) {
    const today = dayAtOffset(s.clock().getTime(), offset);
    const due = await s.db
      .selectFrom('segments as g')
      .innerJoin('applications as a', 'a.application_id', 'g.application_id')
      .selectAll('g')
      .where('a.utc_offset', '=', offset)
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('segment_sizes as z').select(eb.lit(1).as('one')).whereRef('z.segment_id', '=', 'g.id').where('z.day', '>=', today))),
      )
      .orderBy('g.id')
      .limit(limit - measured + failed)
      .execute();
    for (const row of due) {
      // Between two counts, the requests waiting meanwhile go first (on SQLite a count holds the event loop).
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) return measured;
      try {
        await measureRow(s, row, offset);
        measured += 1;
      } catch (error) {
        failed += 1;
        s.log.warn({ err: error, segmentId: row.id }, 'segment size could not be measured');
      }
    }
    if (measured >= limit) break;
  }
  return measured;
}

/**
 * The latest size of each segment. A segment not measured today (in the application's timezone) is measured when
 * it is read, before the daily round (measureSegmentsDue) reaches it. A latest day after today (the timezone was
 * moved west) counts as today's.
 */
async function latestSizes(ctx: Ctx, access: ApplicationContext, rows: SegmentRow[]): Promise<Map<number, Measurement>> {
  const latest = new Map<number, Measurement>();
  if (rows.length === 0) return latest;
  const sizes = await ctx.s.db
    .selectFrom('segment_sizes as s')
    .select(['s.segment_id', 's.day', 's.size', 's.measured_at'])
    .where(
      's.segment_id',
      'in',
      rows.map((row) => row.id),
    )
    // The last measured, whatever its day: a change of timezone can leave a later day measured earlier.
    .where((eb) => eb('s.measured_at', '=', eb.selectFrom('segment_sizes as t').select((t) => t.fn.max('t.measured_at').as('measured_at')).whereRef('t.segment_id', '=', 's.segment_id')))
    .execute();
  for (const size of sizes) latest.set(size.segment_id, { size: toCount(size.size), day: size.day, measured_at: size.measured_at });
  const today = dayAtOffset(ctx.s.clock().getTime(), access.application.utc_offset);
  for (const row of rows) {
    const day = latest.get(row.id)?.day;
    if (day === undefined || day < today) latest.set(row.id, await measure(ctx, access, row));
  }
  return latest;
}

function toSegment(row: SegmentRow, measurement: Measurement | undefined): Segment {
  return {
    id: row.id,
    name: row.name,
    rule: JSON.parse(row.rule) as SegmentRule,
    size: measurement ? measurement.size : null,
    measured_at: measurement ? measurement.measured_at : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The segments, newest first, each with its latest size. */
export async function listSegments(ctx: Ctx, access: ApplicationContext, query: PageQuery): Promise<Page<Segment>> {
  const base = ctx.s.db.selectFrom('segments').where('application_id', '=', access.application.application_id);
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  const sizes = await latestSizes(ctx, access, rows);
  return { items: rows.map((row) => toSegment(row, sizes.get(row.id))), total: toCount(count?.n), page: query.page, limit: query.limit };
}

/** One segment with its size over time (oldest day first). */
export async function getSegment(ctx: Ctx, access: ApplicationContext, segmentId: number): Promise<SegmentDetail> {
  const row = await findOwnRow(ctx, access, 'segments', segmentId);
  const latest = await latestSizes(ctx, access, [row]);
  const sizes = await ctx.s.db
    .selectFrom('segment_sizes')
    .select(['day', 'size'])
    .where('segment_id', '=', row.id)
    .orderBy('day', 'desc')
    .limit(SIZE_HISTORY_DAYS)
    .execute();
  return {
    ...toSegment(row, latest.get(row.id)),
    sizes: sizes.reverse().map((size) => ({ day: size.day, size: toCount(size.size) })),
  };
}

/**
 * CONFLICT on the name: another segment of the application has it, as segmentNameKey compares names. The unique
 * index on (application_id, name_key) is the rule, so two saves racing with one name cannot both pass.
 */
const nameTaken = () => new AppError('CONFLICT', 'segments.nameTaken', { fields: [{ path: 'name', message: 'segments.nameTaken' }] });

/** Saves a new segment and measures it. Its name is unique in the application (CONFLICT). */
export async function createSegment(ctx: Ctx, access: ApplicationContext, userId: number, body: SegmentBody): Promise<Segment> {
  const now = nowIso(ctx.s);
  const row = await unlessTaken(
    () =>
      ctx.s.db
        .insertInto('segments')
        .values({
          application_id: access.application.application_id,
          name: body.name,
          name_key: segmentNameKey(body.name),
          rule: JSON.stringify(body.rule),
          created_by: userId,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    nameTaken,
  );
  return toSegment(row, await measure(ctx, access, row));
}

/**
 * Replaces a segment's name and rule and measures it again (today's size is the new rule's). A new name is unique in
 * the application (CONFLICT); the segment's own name in other capitals is no other segment's.
 */
export async function updateSegment(ctx: Ctx, access: ApplicationContext, segmentId: number, body: SegmentBody): Promise<Segment> {
  const current = await findOwnRow(ctx, access, 'segments', segmentId);
  const row = await unlessTaken(
    () =>
      ctx.s.db
        .updateTable('segments')
        .set({ name: body.name, name_key: segmentNameKey(body.name), rule: JSON.stringify(body.rule), updated_at: nowIso(ctx.s) })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow(),
    nameTaken,
  );
  return toSegment(row, await measure(ctx, access, row));
}

/** Deletes a segment with its size history. */
export async function deleteSegment(ctx: Ctx, access: ApplicationContext, segmentId: number): Promise<void> {
  const current = await findOwnRow(ctx, access, 'segments', segmentId);
  await ctx.s.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('segment_sizes').where('segment_id', '=', current.id).execute();
    await trx.deleteFrom('segments').where('id', '=', current.id).execute();
  });
}
