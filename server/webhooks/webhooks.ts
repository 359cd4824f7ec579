import type { Selectable } from 'kysely';
import {
  WEBHOOK_ATTEMPT_ERRORS,
  WEBHOOK_DISABLED_REASONS,
  WEBHOOK_MAX_PER_APPLICATION,
  WEBHOOK_MESSAGE_TYPES,
  type PageQuery,
  type Webhook,
  type WebhookAttempt,
  type WebhookAttemptError,
  type WebhookAttemptOutcome,
  type WebhookDisabledReason,
  type WebhookInput,
  type WebhookLastAttempt,
  type WebhookMessageType,
  type WebhookWithSecret,
} from '../../shared/contract';
import { V } from '../../shared/validation';
import { type ApplicationContext, type Ctx, isoIn, nowIso } from '../context';
import { toCount } from '../db';
import type { WebhookAttemptsTable, WebhooksTable } from '../db/schema';
import type { Page } from '../domain/applications';
import { AppError } from '../errors';
import { openSecret, sealSecret } from '../security/secret-box';
import { SECRET_PURPOSE, attemptMessage, disableWebhook } from './dispatcher';
import { eventTypesOf, payloadBody } from './events';
import { TargetRefused, allowListOf, resolveTarget, type Lookup } from './guard';
import { generateMessageId, generateSecret, secretHint } from './signing';

type WebhookRow = Selectable<WebhooksTable>;

/** After a rotation, the old secret keeps signing beside the new one this long, so receivers can switch over. */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 3600_000;

const oneOf = <T extends string>(values: readonly T[], value: string | null): T | null =>
  value !== null && (values as readonly string[]).includes(value) ? (value as T) : null;

function lastAttemptOf(row: Selectable<WebhookAttemptsTable> | undefined): WebhookLastAttempt | null {
  if (!row) return null;
  return {
    at: row.created_at,
    ok: row.outcome === 'delivered',
    status_code: row.status_code,
    error: oneOf<WebhookAttemptError>(WEBHOOK_ATTEMPT_ERRORS, row.error),
  };
}

function toWebhook(ctx: Ctx, row: WebhookRow, last: Selectable<WebhookAttemptsTable> | undefined): Webhook {
  const secret = openSecret(ctx.s.config.secretKey, SECRET_PURPOSE, row.secret);
  return {
    id: row.id,
    url: row.url,
    event_types: eventTypesOf(row.event_types),
    tag: row.tag,
    status: row.status === 'disabled' ? 'disabled' : 'active',
    disabled_reason: row.status === 'disabled' ? oneOf<WebhookDisabledReason>(WEBHOOK_DISABLED_REASONS, row.disabled_reason) ?? 'manual' : null,
    disabled_at: row.status === 'disabled' ? row.disabled_at : null,
    secret_hint: secret ? secretHint(secret) : '',
    consecutive_failures: row.consecutive_failures,
    failing_since: row.failing_since,
    last_attempt: lastAttemptOf(last),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function lastAttempt(ctx: Ctx, webhookId: number) {
  return ctx.s.db.selectFrom('webhook_attempts').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(1).executeTakeFirst();
}

async function findWebhook(ctx: Ctx, access: ApplicationContext, webhookId: number): Promise<WebhookRow> {
  const row = await ctx.s.db
    .selectFrom('webhooks')
    .selectAll()
    .where('application_id', '=', access.application.application_id)
    .where('id', '=', webhookId)
    .executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND');
  return row;
}

const invalidUrl = (message: string) => new AppError('INVALID_PARAM', V.payloadUrl, { fields: [{ path: 'url', message }] });

/**
 * Spec §8 'Invalid Payload URL' for a URL that leads inside: its host must resolve, and only to public
 * addresses (or ones WEBHOOK_ALLOWED_HOSTS lets through). The dispatcher checks again at every send.
 */
export async function checkPayloadUrl(ctx: Ctx, url: string, lookup?: Lookup): Promise<void> {
  try {
    await resolveTarget(new URL(url), allowListOf(ctx.s.config.webhooks.allowedHosts), lookup);
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    // A name server that does not answer now says nothing about the name; the send-time check still holds.
    if (error.problem === 'dns' && error.temporary) return;
    throw invalidUrl(error.problem === 'dns' ? 'webhook.urlHostNotFound' : 'webhook.urlPrivate');
  }
}

/** The stored shape of an input: event types once each, in the contract's order; a tag only for message_with_tag. */
function normalized(body: WebhookInput): { url: string; event_types: string; tag: string | null } {
  const types = [...new Set(body.event_types)];
  return {
    url: body.url,
    event_types: JSON.stringify(types),
    tag: types.includes('message_with_tag') ? body.tag : null,
  };
}

/** The application's webhooks, oldest first, each with its last attempt. */
export async function listWebhooks(ctx: Ctx, access: ApplicationContext, query: PageQuery): Promise<Page<Webhook>> {
  const base = ctx.s.db.selectFrom('webhooks').where('application_id', '=', access.application.application_id);
  const count = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('id')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  const items = await Promise.all(rows.map(async (row) => toWebhook(ctx, row, await lastAttempt(ctx, row.id))));
  return { items, total: toCount(count?.n), page: query.page, limit: query.limit };
}

export async function getWebhook(ctx: Ctx, access: ApplicationContext, webhookId: number): Promise<Webhook> {
  const row = await findWebhook(ctx, access, webhookId);
  return toWebhook(ctx, row, await lastAttempt(ctx, row.id));
}

/** Adds a webhook with a new signing secret, answered whole this once. */
export async function createWebhook(ctx: Ctx, access: ApplicationContext, userId: number, body: WebhookInput): Promise<WebhookWithSecret> {
  const applicationId = access.application.application_id;
  const count = await ctx.s.db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('application_id', '=', applicationId)
    .executeTakeFirst();
  if (toCount(count?.n) >= WEBHOOK_MAX_PER_APPLICATION) {
    throw new AppError('INVALID_PARAM', 'webhook.tooMany', { params: { max: WEBHOOK_MAX_PER_APPLICATION } });
  }
  await checkPayloadUrl(ctx, body.url);
  const secret = generateSecret();
  const now = nowIso(ctx.s);
  const row = await ctx.s.db
    .insertInto('webhooks')
    .values({
      application_id: applicationId,
      ...normalized(body),
      secret: sealSecret(ctx.s.config.secretKey, SECRET_PURPOSE, secret),
      previous_secret: null,
      previous_secret_until: null,
      status: body.active ? 'active' : 'disabled',
      consecutive_failures: 0,
      failing_since: null,
      disabled_at: body.active ? null : now,
      disabled_reason: body.active ? null : 'manual',
      created_by: userId,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...toWebhook(ctx, row, undefined), signing_secret: secret };
}

/**
 * Changes a webhook. `active: false` switches it off; `true` switches a disabled one back on with a clean
 * record, and its waiting messages go out at once. A new URL starts a clean record too.
 */
export async function updateWebhook(ctx: Ctx, access: ApplicationContext, webhookId: number, body: WebhookInput): Promise<Webhook> {
  const current = await findWebhook(ctx, access, webhookId);
  await checkPayloadUrl(ctx, body.url);
  const now = nowIso(ctx.s);
  const values = normalized(body);
  const enabling = body.active && current.status === 'disabled';
  const fresh = enabling || values.url !== current.url;
  await ctx.s.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhooks')
      .set({
        ...values,
        ...(fresh ? { consecutive_failures: 0, failing_since: null } : {}),
        ...(enabling ? { status: 'active', disabled_at: null, disabled_reason: null } : {}),
        updated_at: now,
      })
      .where('id', '=', current.id)
      .execute();
    if (enabling) {
      await trx.updateTable('webhook_messages').set({ next_attempt_at: now }).where('webhook_id', '=', current.id).where('status', '=', 'pending').execute();
    }
  });
  if (!body.active && current.status === 'active') await disableWebhook(ctx.s, current.id, 'manual', ctx.s.clock());
  return getWebhook(ctx, access, webhookId);
}

/** Deletes a webhook with its messages and log; nothing more is sent to it. */
export async function deleteWebhook(ctx: Ctx, access: ApplicationContext, webhookId: number): Promise<void> {
  const current = await findWebhook(ctx, access, webhookId);
  await ctx.s.db.deleteFrom('webhooks').where('id', '=', current.id).execute();
}

/**
 * A new signing secret, answered whole this once. The old one keeps signing beside it for
 * PREVIOUS_SECRET_OVERLAP_MS (Standard Webhooks' several signatures), so a receiver can switch without loss.
 */
export async function rotateWebhookSecret(ctx: Ctx, access: ApplicationContext, webhookId: number): Promise<WebhookWithSecret> {
  const current = await findWebhook(ctx, access, webhookId);
  const secret = generateSecret();
  await ctx.s.db
    .updateTable('webhooks')
    .set({
      secret: sealSecret(ctx.s.config.secretKey, SECRET_PURPOSE, secret),
      previous_secret: current.secret,
      previous_secret_until: isoIn(ctx.s, PREVIOUS_SECRET_OVERLAP_MS),
      updated_at: nowIso(ctx.s),
    })
    .where('id', '=', current.id)
    .execute();
  return { ...(await getWebhook(ctx, access, webhookId)), signing_secret: secret };
}

function toAttempt(row: Selectable<WebhookAttemptsTable> & { msg_id: string; event_type: string }): WebhookAttempt {
  return {
    id: Number(row.id),
    msg_id: row.msg_id,
    event_type: oneOf<WebhookMessageType>(WEBHOOK_MESSAGE_TYPES, row.event_type) ?? 'test',
    attempt: row.attempt,
    status_code: row.status_code,
    error: oneOf<WebhookAttemptError>(WEBHOOK_ATTEMPT_ERRORS, row.error),
    duration_ms: row.duration_ms,
    outcome: (oneOf<WebhookAttemptOutcome>(['delivered', 'retrying', 'failed'], row.outcome) ?? 'failed'),
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
  };
}

/**
 * Sends a signed `test` event now, whether the webhook is on or off, and answers the attempt: one try, no
 * retry, and no effect on the webhook's record. It shows in the attempt log like any other.
 */
export async function sendTestEvent(ctx: Ctx, access: ApplicationContext, webhookId: number): Promise<WebhookAttempt> {
  const webhook = await findWebhook(ctx, access, webhookId);
  const now = ctx.s.clock();
  const body = payloadBody('test', webhook.application_id, now, {
    webhook_id: webhook.id,
    message: 'A test event from Nudge: your endpoint receives and verifies webhooks.',
  });
  // Inserted already claimed, as its first attempt, so the dispatcher leaves it to this request.
  const message = await ctx.s.db
    .insertInto('webhook_messages')
    .values({
      webhook_id: webhook.id,
      application_id: webhook.application_id,
      msg_id: generateMessageId(),
      event_type: 'test',
      payload: body,
      attempts: 1,
      next_attempt_at: now.toISOString(),
      status: 'pending',
      claimed_until: new Date(now.getTime() + 60_000).toISOString(),
      created_at: now.toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const attempt = await attemptMessage(ctx.s, message.id, 1);
  if (!attempt) throw new AppError('NOT_FOUND');
  return toAttempt(attempt);
}

/** The webhook's attempts, newest first. */
export async function listWebhookAttempts(ctx: Ctx, access: ApplicationContext, webhookId: number, query: PageQuery): Promise<Page<WebhookAttempt>> {
  const webhook = await findWebhook(ctx, access, webhookId);
  const count = await ctx.s.db
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('webhook_id', '=', webhook.id)
    .executeTakeFirst();
  const rows = await ctx.s.db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_messages as m', 'm.id', 'a.message_id')
    .selectAll('a')
    .select(['m.msg_id', 'm.event_type'])
    .where('a.webhook_id', '=', webhook.id)
    .orderBy('a.id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  return { items: rows.map(toAttempt), total: toCount(count?.n), page: query.page, limit: query.limit };
}
