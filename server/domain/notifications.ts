import { createHash } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import {
  IDEMPOTENCY_TTL_HOURS,
  LOCAL_TIME_EARLIEST_OFFSET_MINUTES,
  LOCAL_TIME_LATEST_OFFSET_MINUTES,
  SCHEDULE_GRACE_MS,
  TYPE_PLATFORMS,
  canTransition,
  checkContent,
  ctr,
  fieldsOf,
  isEditable,
  localMoment,
  type ApiNotification,
  type ApiSendBody,
  type ApiSent,
  type FieldError,
  type Notification,
  type NotificationAudience,
  type NotificationContent,
  type NotificationInput,
  type NotificationListQuery,
  type NotificationSchedule,
  type NotificationStats,
  type NotificationStatus,
  type NotificationType,
} from '../../shared/contract';
import { AREA_ROLES, canAccessRoute } from '../../shared/permissions';
import { pushPlanViolation } from '../../shared/permissions/plans';
import { nowIso, type ApplicationContext, type Ctx, type Services } from '../context';
import { isUniqueViolation, toCount } from '../db';
import type { ApplicationRow, Database, NotificationsTable } from '../db/schema';
import { AppError, noSuch } from '../errors';
import { containsPattern, type Page } from './applications';
import { activePlatformKinds } from './platforms';
import { planOf } from './widgets';
import { V } from '../../shared/validation';

/*
 * Messages (spec §3 Notification, §4 statuses and sources, §5 rules): the console's create/edit/send/cancel, the
 * REST send API, and the one status change the delivery engine uses too. Nothing here sends: the engine picks
 * rows with status 'waiting' and send_at ≤ now.
 */

type NotificationRow = Selectable<NotificationsTable>;
type Db = Kysely<Database>;

/** Columns a status change may set along with the status. */
export type NotificationPatch = Omit<Updateable<NotificationsTable>, 'id' | 'application_id' | 'status'>;

/** An UPDATE that applies only while the message still has `status`; false when someone changed it first. */
async function updateWhileStatus(db: Db, id: number, status: NotificationStatus, set: Updateable<NotificationsTable>): Promise<boolean> {
  const result = await db
    .updateTable('notifications')
    .set({ updated_at: new Date().toISOString(), ...set })
    .where('id', '=', id)
    .where('status', '=', status)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The one way a message changes status: refused unless NOTIFICATION_TRANSITIONS allows from → to, and applied
 * only if the row still has `from`, so of two racing callers (two cancels, a cancel and the engine's start)
 * exactly one wins. Resolves false for the loser. `patch` is written in the same UPDATE.
 */
export async function transitionNotification(
  db: Db,
  id: number,
  from: NotificationStatus,
  to: NotificationStatus,
  patch: NotificationPatch = {},
): Promise<boolean> {
  if (!canTransition(from, to)) throw new AppError('CONFLICT', 'notification.transitionRefused');
  return updateWhileStatus(db, id, from, { ...patch, status: to });
}

// ---------------------------------------------------------------------------------------------------------
// Validation (spec §5), one place for create, update, send and the send API
// ---------------------------------------------------------------------------------------------------------

/** Spec §5 "A platform must be configured before a notification is created": the message names the type's platforms. */
async function checkPlatform(s: Pick<Services, 'db'>, applicationId: string, type: NotificationType): Promise<void> {
  const active = await activePlatformKinds(s, applicationId);
  if (TYPE_PLATFORMS[type].some((kind) => active.includes(kind))) return;
  const key = `notification.platformRequired.${type}`;
  throw new AppError('INVALID_PARAM', key, { fields: [{ path: 'type', message: key }] });
}

/** The content with only the fields its type uses (an SMS keeps no heading or buttons); the rest emptied. */
function contentFor(type: NotificationType, content: NotificationContent): NotificationContent {
  const out: NotificationContent = { heading: '', content: content.content, buttons: [], utm: {} };
  for (const field of fieldsOf(type)) {
    if (content[field] !== undefined) (out as Record<string, unknown>)[field] = content[field];
  }
  return out;
}

/**
 * A message's or template's content for its type: trimmed to the type's fields, within the plan's button cap
 * (PLAN_LIMIT, spec §6 wording), and the per-type problems as field errors under `content.`.
 */
export function checkedContent(application: Pick<ApplicationRow, 'plan'>, type: NotificationType, content: NotificationContent): { content: NotificationContent; fields: FieldError[] } {
  const kept = contentFor(type, content);
  const violation = pushPlanViolation(planOf(application), kept);
  if (violation) throw new AppError('PLAN_LIMIT', violation.key, { params: violation.params });
  return { content: kept, fields: checkContent(type, kept).map((problem) => ({ path: `content.${problem.path}`, message: problem.message })) };
}

/** Refuses with the field errors, the first one as the message (as the schema validation does). */
export function refuseFields(fields: FieldError[]): void {
  if (fields.length > 0) throw new AppError('INVALID_PARAM', fields[0].message, { fields });
}

/**
 * The moments a schedule names: when the fan-out is due (for local_time: when the first zone, UTC+14, reaches
 * it) and the last moment it reaches (local_time: in UTC-12). Null for a date that doesn't exist.
 */
export function scheduleMoments(schedule: NotificationSchedule, now: Date): { first: Date; last: Date } | null {
  switch (schedule.mode) {
    case 'now':
      return { first: now, last: now };
    case 'at': {
      const at = new Date(schedule.at);
      return Number.isNaN(at.getTime()) ? null : { first: at, last: at };
    }
    case 'local_time': {
      const first = localMoment(schedule.date, schedule.time, LOCAL_TIME_EARLIEST_OFFSET_MINUTES);
      const last = localMoment(schedule.date, schedule.time, LOCAL_TIME_LATEST_OFFSET_MINUTES);
      return first && last ? { first, last } : null;
    }
  }
}

/** The schedule's problems: a date that doesn't exist, or a moment already past (everywhere, for local_time). */
function scheduleFields(schedule: NotificationSchedule, now: Date): FieldError[] {
  const path = schedule.mode === 'at' ? 'schedule.at' : 'schedule.date';
  const moments = scheduleMoments(schedule, now);
  if (!moments) return [{ path, message: V.date }];
  if (moments.last.getTime() < now.getTime() - SCHEDULE_GRACE_MS) return [{ path, message: 'notification.scheduleInPast' }];
  return [];
}

/** Field errors for ids of another application's (or no) segment, template and campaign. */
async function ownershipFields(s: Pick<Services, 'db'>, applicationId: string, input: MessageFields): Promise<FieldError[]> {
  const fields: FieldError[] = [];
  const exists = async (table: 'segments' | 'templates' | 'campaigns', id: number) =>
    Boolean(await s.db.selectFrom(table).select('id').where('application_id', '=', applicationId).where('id', '=', id).executeTakeFirst());
  if (input.audience.segment_id !== null && !(await exists('segments', input.audience.segment_id))) {
    fields.push({ path: 'audience.segment_id', message: 'notification.segmentNotFound' });
  }
  if (input.template_id !== null && !(await exists('templates', input.template_id))) {
    fields.push({ path: 'template_id', message: 'notification.templateNotFound' });
  }
  if (input.campaign_id !== null && !(await exists('campaigns', input.campaign_id))) {
    fields.push({ path: 'campaign_id', message: 'notification.campaignNotFound' });
  }
  return fields;
}

/**
 * Saved segments belong to the segments area (spec §6), as the console's audience picker does: a role without it
 * (User, Viewer) may keep the segment a message already has when editing it, or drop it, but not choose one.
 */
function segmentAccessFields(access: ApplicationContext, input: MessageFields, saved: number | null): FieldError[] {
  const chosen = input.audience.segment_id;
  if (chosen === null || chosen === saved || canAccessRoute(access.roles, { roles: AREA_ROLES.segments })) return [];
  return [{ path: 'audience.segment_id', message: 'notification.segmentNoAccess' }];
}

/** What validation looks at: the input without the list's labels and delivery options. */
type MessageFields = Pick<NotificationInput, 'type' | 'content' | 'audience' | 'schedule' | 'template_id' | 'campaign_id'>;

interface CheckedMessage {
  content: NotificationContent;
  audience: NotificationAudience;
  /** When the fan-out is due if the message is sent now (ISO). */
  sendAt: string;
}

const unique = <T>(list: T[] | undefined) => (list ? [...new Set(list)] : undefined);

/**
 * The one validation of a message, on create, update, send and the send API: the type's platform configured
 * and active; the content for the type (plan's button cap, checkContent); segment, template and campaign of
 * this application; a schedule not in the past (one minute of grace). Field problems come back together.
 */
export async function checkNotification(
  s: Pick<Services, 'db' | 'clock'>,
  application: ApplicationRow,
  input: MessageFields,
  /** Problems the caller found first (the caller's access), returned with the others. */
  earlier: FieldError[] = [],
): Promise<CheckedMessage> {
  await checkPlatform(s, application.application_id, input.type);
  const { content, fields: contentFields } = checkedContent(application, input.type, input.content);
  const fields = [...earlier, ...contentFields];
  const now = s.clock();
  // A direct list that is present but empty would name nobody: almost surely a caller's mistake.
  for (const list of ['player_ids', 'device_ids', 'external_user_ids'] as const) {
    if (input.audience[list]?.length === 0) fields.push({ path: `audience.${list}`, message: V.required });
  }
  fields.push(...(await ownershipFields(s, application.application_id, input)), ...scheduleFields(input.schedule, now));
  refuseFields(fields);
  const first = scheduleMoments(input.schedule, now)!.first;
  const { player_ids, device_ids, external_user_ids, ...rest } = input.audience;
  const audience: NotificationAudience = {
    ...rest,
    ...(player_ids ? { player_ids: unique(player_ids) } : {}),
    ...(device_ids ? { device_ids: unique(device_ids) } : {}),
    ...(external_user_ids ? { external_user_ids: unique(external_user_ids) } : {}),
  };
  return { content, audience, sendAt: first.toISOString() };
}

// ---------------------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------------------

const NAME_MAX = 120;

/** The list's name: the one given, else the heading, else the start of the text. */
function nameOf(name: string, content: NotificationContent): string {
  return (name || content.heading || content.content).replace(/\s+/g, ' ').trim().slice(0, NAME_MAX);
}

function statsOf(row: Pick<NotificationRow, 'targeted' | 'sent' | 'delivered' | 'failed' | 'clicked'>): NotificationStats {
  return {
    targeted: toCount(row.targeted),
    sent: toCount(row.sent),
    delivered: toCount(row.delivered),
    failed: toCount(row.failed),
    clicked: toCount(row.clicked),
  };
}

type RowWithCreator = NotificationRow & { creator_name: string | null; creator_email: string | null };

function toNotification(row: RowWithCreator): Notification {
  const audience = JSON.parse(row.audience) as NotificationAudience;
  return {
    id: Number(row.id),
    application_id: row.application_id,
    type: row.type as NotificationType,
    name: row.name,
    content: JSON.parse(row.content) as NotificationContent,
    audience,
    schedule: JSON.parse(row.schedule) as NotificationSchedule,
    ttl_seconds: Number(row.ttl_seconds),
    promotional: Number(row.promotional) === 1,
    urgency: row.urgency as Notification['urgency'],
    tags: JSON.parse(row.tags) as string[],
    template_id: row.template_id === null ? null : Number(row.template_id),
    campaign_id: row.campaign_id === null ? null : Number(row.campaign_id),
    status: row.status as NotificationStatus,
    source: row.source as Notification['source'],
    stats: statsOf(row),
    send_at: row.send_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    created_by: row.creator_name || row.creator_email || null,
    created_at: row.created_at,
    updated_at: row.updated_at,
    // Filled by withSegments: the audience is JSON, so its segment can't be joined in the same query.
    audience_segment: null,
  };
}

/**
 * The messages with their audience's segment named: one lookup for all of them (a page of the list costs one
 * query, not one per row). A segment deleted since stays null, and the console says so.
 */
async function withSegments(db: Db, applicationId: string, rows: RowWithCreator[]): Promise<Notification[]> {
  const messages = rows.map(toNotification);
  const ids = [...new Set(messages.map((message) => message.audience.segment_id).filter((id): id is number => typeof id === 'number'))];
  if (ids.length === 0) return messages;
  const segments = await db.selectFrom('segments').select(['id', 'name']).where('application_id', '=', applicationId).where('id', 'in', ids).execute();
  const names = new Map(segments.map((segment) => [Number(segment.id), segment.name]));
  return messages.map((message) => {
    const id = message.audience.segment_id;
    const name = typeof id === 'number' ? names.get(id) : undefined;
    return typeof id !== 'number' || name === undefined ? message : { ...message, audience_segment: { id, name } };
  });
}

/** Messages with the name of the member who created them (API messages have none). */
function selectWithCreator(db: Db) {
  return db
    .selectFrom('notifications as n')
    .leftJoin('users as u', 'u.id', 'n.created_by')
    .selectAll('n')
    .select(['u.name as creator_name', 'u.email as creator_email']);
}

async function findRow(ctx: Ctx, applicationId: string, id: number): Promise<RowWithCreator> {
  const row = await selectWithCreator(ctx.s.db).where('n.application_id', '=', applicationId).where('n.id', '=', id).executeTakeFirst();
  if (!row) throw noSuch('message', id);
  return row;
}

/** The messages, newest first, filtered by status, source, type, campaign and a name search. */
export async function listNotifications(ctx: Ctx, access: ApplicationContext, query: NotificationListQuery): Promise<Page<Notification>> {
  let base = ctx.s.db.selectFrom('notifications as n').where('n.application_id', '=', access.application.application_id);
  if (query.status !== 'all') base = base.where('n.status', '=', query.status);
  if (query.source !== 'all') base = base.where('n.source', '=', query.source);
  if (query.type !== 'all') base = base.where('n.type', '=', query.type);
  if (query.campaign_id) base = base.where('n.campaign_id', '=', query.campaign_id);
  if (query.q) base = base.where(sql`lower(n.name)`, 'like', sql`${containsPattern(query.q)} escape '\\'`);
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .leftJoin('users as u', 'u.id', 'n.created_by')
    .selectAll('n')
    .select(['u.name as creator_name', 'u.email as creator_email'])
    .orderBy('n.id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  const items = await withSegments(ctx.s.db, access.application.application_id, rows);
  return { items, total: toCount(count?.n), page: query.page, limit: query.limit };
}

export async function getNotification(ctx: Ctx, access: ApplicationContext, id: number): Promise<Notification> {
  const applicationId = access.application.application_id;
  const [message] = await withSegments(ctx.s.db, applicationId, [await findRow(ctx, applicationId, id)]);
  return message;
}

// ---------------------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------------------

/** The stored columns of an input that passed checkNotification. */
function columnsOf(input: Omit<NotificationInput, 'draft'>, checked: CheckedMessage) {
  return {
    type: input.type,
    name: nameOf(input.name, checked.content),
    content: JSON.stringify(checked.content),
    audience: JSON.stringify(checked.audience),
    schedule: JSON.stringify(input.schedule),
    ttl_seconds: input.ttl_seconds,
    promotional: input.promotional ? (1 as const) : (0 as const),
    urgency: input.urgency,
    tags: JSON.stringify([...new Set(input.tags)]),
    template_id: input.template_id,
    campaign_id: input.campaign_id,
  };
}

/** POST …/notification: a draft (status new) or a message due at its schedule (waiting), from the console. */
export async function createNotification(ctx: Ctx, access: ApplicationContext, userId: number, input: NotificationInput): Promise<Notification> {
  const checked = await checkNotification(ctx.s, access.application, input, segmentAccessFields(access, input, null));
  const now = nowIso(ctx.s);
  const row = await ctx.s.db
    .insertInto('notifications')
    .values({
      ...columnsOf(input, checked),
      application_id: access.application.application_id,
      status: input.draft ? 'new' : 'waiting',
      source: 'dashboard',
      send_at: input.draft ? null : checked.sendAt,
      created_by: userId,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return getNotification(ctx, access, Number(row.id));
}

/**
 * PUT …/notification/{id}: replaces a draft or a scheduled message that hasn't started. `draft` decides its
 * status (waiting ⇄ new go through transitionNotification); a message the engine started meanwhile is refused.
 */
export async function updateNotification(ctx: Ctx, access: ApplicationContext, id: number, input: NotificationInput): Promise<Notification> {
  const current = await findRow(ctx, access.application.application_id, id);
  const from = current.status as NotificationStatus;
  if (!isEditable(from)) throw new AppError('CONFLICT', 'notification.notEditable');
  const saved = (JSON.parse(current.audience) as NotificationAudience).segment_id;
  const checked = await checkNotification(ctx.s, access.application, input, segmentAccessFields(access, input, saved));
  const to: NotificationStatus = input.draft ? 'new' : 'waiting';
  const patch = { ...columnsOf(input, checked), send_at: input.draft ? null : checked.sendAt, updated_at: nowIso(ctx.s) };
  const done = from === to ? await updateWhileStatus(ctx.s.db, current.id, from, patch) : await transitionNotification(ctx.s.db, current.id, from, to, patch);
  if (!done) throw new AppError('CONFLICT', 'notification.notEditable');
  return getNotification(ctx, access, current.id);
}

/** The status changes the console asks for: send a draft, cancel, take a scheduled message back to draft. */
export type NotificationAction = 'send' | 'cancel' | 'draft';

const ACTION_TARGET: Record<NotificationAction, NotificationStatus> = { send: 'waiting', cancel: 'canceled', draft: 'new' };
const ACTION_REFUSED: Record<NotificationAction, string> = {
  send: 'notification.cannotSend',
  cancel: 'notification.cannotCancel',
  draft: 'notification.cannotDraft',
};

/** What the stored message says, as the validation reads it. */
function fieldsOfRow(row: NotificationRow): MessageFields {
  return {
    type: row.type as NotificationType,
    content: JSON.parse(row.content) as NotificationContent,
    audience: JSON.parse(row.audience) as NotificationAudience,
    schedule: JSON.parse(row.schedule) as NotificationSchedule,
    template_id: row.template_id,
    campaign_id: row.campaign_id,
  };
}

/**
 * POST …/send (new → waiting, validated again and due at its schedule), …/cancel (new or waiting → canceled),
 * …/draft (waiting → new). Refused with CONFLICT when the status doesn't allow it, also when another request
 * or the engine changed it first.
 */
export async function changeNotificationStatus(ctx: Ctx, access: ApplicationContext, id: number, action: NotificationAction): Promise<Notification> {
  const current = await findRow(ctx, access.application.application_id, id);
  const from = current.status as NotificationStatus;
  const to = ACTION_TARGET[action];
  if (!canTransition(from, to)) throw new AppError('CONFLICT', ACTION_REFUSED[action]);
  const patch: NotificationPatch = { updated_at: nowIso(ctx.s) };
  if (action === 'send') patch.send_at = (await checkNotification(ctx.s, access.application, fieldsOfRow(current))).sendAt;
  if (action === 'draft') patch.send_at = null;
  if (!(await transitionNotification(ctx.s.db, current.id, from, to, patch))) throw new AppError('CONFLICT', ACTION_REFUSED[action]);
  return getNotification(ctx, access, current.id);
}

/** DELETE …/notification/{id}: drafts and canceled messages only (a conditional delete, so a racing send can't slip by). */
export async function deleteNotification(ctx: Ctx, access: ApplicationContext, id: number): Promise<void> {
  const applicationId = access.application.application_id;
  const result = await ctx.s.db
    .deleteFrom('notifications')
    .where('application_id', '=', applicationId)
    .where('id', '=', id)
    .where('status', 'in', ['new', 'canceled'])
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 1) return;
  await findRow(ctx, applicationId, id);
  throw new AppError('CONFLICT', 'notification.cannotDelete');
}

// ---------------------------------------------------------------------------------------------------------
// The REST send API
// ---------------------------------------------------------------------------------------------------------

/** JSON with object keys sorted, so the same request hashes the same whatever its key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function requestHash(body: ApiSendBody): string {
  return createHash('sha256').update(canonicalJson(body)).digest('base64url');
}

/** The answer to a key already used: the same message for the same request, a refusal for another one. */
async function replay(s: Pick<Services, 'db'>, key: { request_hash: string; notification_id: number | null }, hash: string): Promise<ApiSent> {
  if (key.request_hash !== hash) throw new AppError('INVALID_PARAM', 'notification.idempotencyMismatch');
  const row =
    key.notification_id === null
      ? undefined
      : await s.db.selectFrom('notifications').select(['id', 'status']).where('id', '=', key.notification_id).executeTakeFirst();
  if (!row) throw new AppError('CONFLICT', 'notification.idempotencyInFlight');
  return { id: Number(row.id), status: row.status as NotificationStatus, duplicate: true };
}

/**
 * POST /api/v1/notifications: a message from the application's server (source api), due at its schedule.
 * With an Idempotency-Key, the key's row is inserted first in the message's own transaction: its primary key
 * lets one of several concurrent requests through, the others answer that request's message (or are refused
 * when their body differs). A request refused by validation leaves the key unused.
 */
export async function sendFromApi(s: Pick<Services, 'db' | 'clock'>, application: ApplicationRow, body: ApiSendBody, idempotencyKey: string | null): Promise<ApiSent> {
  const applicationId = application.application_id;
  const now = s.clock();
  const hash = requestHash(body);
  if (idempotencyKey !== null) {
    const cutoff = new Date(now.getTime() - IDEMPOTENCY_TTL_HOURS * 3_600_000).toISOString();
    await s.db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).execute();
    const used = await s.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'notification_id'])
      .where('application_id', '=', applicationId)
      .where('key', '=', idempotencyKey)
      .executeTakeFirst();
    if (used) return replay(s, used, hash);
  }

  const { include_device_ids, include_external_user_ids, ...input } = body;
  refuseFields(
    (['include_device_ids', 'include_external_user_ids'] as const).filter((list) => body[list]?.length === 0).map((path) => ({ path, message: V.required })),
  );
  const audience: NotificationAudience = {
    ...input.audience,
    ...(include_device_ids ? { device_ids: [...(input.audience.device_ids ?? []), ...include_device_ids] } : {}),
    ...(include_external_user_ids ? { external_user_ids: [...(input.audience.external_user_ids ?? []), ...include_external_user_ids] } : {}),
  };
  const message = { ...input, audience };
  const checked = await checkNotification(s, application, message);
  const at = now.toISOString();
  try {
    const id = await s.db.transaction().execute(async (trx) => {
      if (idempotencyKey !== null) {
        await trx.insertInto('idempotency_keys').values({ application_id: applicationId, key: idempotencyKey, request_hash: hash, notification_id: null, created_at: at }).execute();
      }
      const row = await trx
        .insertInto('notifications')
        .values({
          ...columnsOf(message, checked),
          application_id: applicationId,
          status: 'waiting',
          source: 'api',
          send_at: checked.sendAt,
          created_by: null,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const notificationId = Number(row.id);
      if (idempotencyKey !== null) {
        await trx.updateTable('idempotency_keys').set({ notification_id: notificationId }).where('application_id', '=', applicationId).where('key', '=', idempotencyKey).execute();
      }
      return notificationId;
    });
    return { id, status: 'waiting', duplicate: false };
  } catch (error) {
    if (idempotencyKey === null || !isUniqueViolation(error)) throw error;
    const winner = await s.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'notification_id'])
      .where('application_id', '=', applicationId)
      .where('key', '=', idempotencyKey)
      .executeTakeFirst();
    if (!winner) throw error;
    return replay(s, winner, hash);
  }
}

/** GET /api/v1/notifications/{id}: a message of the key's application, its status and counters. */
export async function apiNotification(s: Pick<Services, 'db'>, applicationId: string, id: number): Promise<ApiNotification> {
  const row = await s.db.selectFrom('notifications').selectAll().where('application_id', '=', applicationId).where('id', '=', id).executeTakeFirst();
  if (!row) throw noSuch('message', id);
  const stats = statsOf(row);
  return {
    id: Number(row.id),
    type: row.type as NotificationType,
    status: row.status as NotificationStatus,
    source: row.source as ApiNotification['source'],
    stats,
    ctr: ctr(stats),
    send_at: row.send_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    created_at: row.created_at,
  };
}
