import type { FastifyPluginAsync } from 'fastify';
import type { Selectable } from 'kysely';
import {
  WEBHOOK_CONSECUTIVE_FAILURES_DISABLE,
  WEBHOOK_FAILING_DISABLE_MS,
  WEBHOOK_RETRY_SCHEDULE_MS,
  WEBHOOK_TIMEOUT_MS,
  type WebhookAttemptOutcome,
  type WebhookDisabledReason,
} from '../../shared/contract';
import type { Services } from '../context';
import type { WebhookAttemptsTable, WebhooksTable } from '../db/schema';
import { openSecret } from '../security/secret-box';
import { drainOutbox } from './events';
import { type Lookup, allowListOf } from './guard';
import { mailWebhookDisabled } from './notice';
import { type SendOutcome, postWebhook } from './send';
import { signatureHeaders } from './signing';

/** The purpose the signing secrets are sealed under. */
export const SECRET_PURPOSE = 'webhook-secret';

export interface DeliveryOptions {
  /** Delays before each attempt (ms); its length is the number of attempts. Default WEBHOOK_RETRY_SCHEDULE_MS. */
  schedule?: readonly number[];
  timeoutMs?: number;
  /** Resolves payload URL hosts (tests answer with chosen addresses). */
  lookup?: Lookup;
  /** [0, 1): the retry jitter. */
  random?: () => number;
  signal?: AbortSignal;
}

export interface PassOptions extends DeliveryOptions {
  /** Messages claimed per pass. */
  batchSize?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

type WebhookRow = Selectable<WebhooksTable>;
type AttemptRow = Selectable<WebhookAttemptsTable> & { msg_id: string; event_type: string };

/** How long a claim lasts: past it, a crashed sender's message is free for another. */
function leaseMs(timeoutMs: number): number {
  return timeoutMs + 50_000;
}

/** The secrets a message is signed with now: the current one, and the previous one during its overlap. */
export function secretsOf(s: Services, webhook: Pick<WebhookRow, 'secret' | 'previous_secret' | 'previous_secret_until'>, now: Date): string[] {
  const secrets = [openSecret(s.config.secretKey, SECRET_PURPOSE, webhook.secret)];
  if (webhook.previous_secret && webhook.previous_secret_until && webhook.previous_secret_until > now.toISOString()) {
    secrets.push(openSecret(s.config.secretKey, SECRET_PURPOSE, webhook.previous_secret));
  }
  return secrets.filter((secret): secret is string => secret !== null);
}

/**
 * Whether a webhook is switched off after a failed attempt: the receiver said 410 Gone; or it has not
 * succeeded for WEBHOOK_FAILING_DISABLE_MS; or WEBHOOK_CONSECUTIVE_FAILURES_DISABLE messages in a row failed for good.
 */
export function disableReasonAfterFailure(state: { gone: boolean; failingSince: string | null; consecutiveFailures: number; now: Date }): WebhookDisabledReason | null {
  if (state.gone) return 'gone';
  if (state.failingSince && state.now.getTime() - new Date(state.failingSince).getTime() >= WEBHOOK_FAILING_DISABLE_MS) return 'failing';
  if (state.consecutiveFailures >= WEBHOOK_CONSECUTIVE_FAILURES_DISABLE) return 'consecutive_failures';
  return null;
}

/** The wait before attempt `attempt + 1`: the schedule's delay plus up to 10 % jitter, or a longer Retry-After (capped at a day). */
export function retryDelay(schedule: readonly number[], attempt: number, retryAfterMs: number | null, random: () => number): number {
  const base = schedule[Math.min(attempt, schedule.length - 1)] ?? 0;
  const jittered = Math.round(base * (1 + random() * 0.1));
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, 24 * 3600_000));
}

/** Switches a webhook off (once, whatever races) and mails the application's super users. */
export async function disableWebhook(s: Services, webhookId: number, reason: WebhookDisabledReason, now: Date): Promise<void> {
  const nowIso = now.toISOString();
  const switched = await s.db
    .updateTable('webhooks')
    .set({ status: 'disabled', disabled_at: nowIso, disabled_reason: reason, updated_at: nowIso })
    .where('id', '=', webhookId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (Number(switched.numUpdatedRows) !== 1) return;
  const webhook = await s.db.selectFrom('webhooks').select(['application_id', 'url']).where('id', '=', webhookId).executeTakeFirst();
  if (!webhook) return;
  s.log.warn({ webhookId, applicationId: webhook.application_id, reason }, 'webhook disabled');
  if (reason !== 'manual') await mailWebhookDisabled(s, webhook, reason);
}

/** Keeps the webhook's health after a real (not test) attempt, and switches it off when it is past saving. */
async function recordHealth(s: Services, webhookId: number, outcome: WebhookAttemptOutcome, gone: boolean, now: Date): Promise<void> {
  const nowIso = now.toISOString();
  if (outcome === 'delivered') {
    await s.db.updateTable('webhooks').set({ consecutive_failures: 0, failing_since: null }).where('id', '=', webhookId).execute();
    return;
  }
  await s.db
    .updateTable('webhooks')
    .set((eb) => ({
      failing_since: eb.fn.coalesce('failing_since', eb.val(nowIso)),
      consecutive_failures: outcome === 'failed' ? eb('consecutive_failures', '+', 1) : eb.ref('consecutive_failures'),
    }))
    .where('id', '=', webhookId)
    .execute();
  const state = await s.db.selectFrom('webhooks').select(['status', 'failing_since', 'consecutive_failures']).where('id', '=', webhookId).executeTakeFirst();
  if (!state || state.status !== 'active') return;
  const reason = disableReasonAfterFailure({ gone, failingSince: state.failing_since, consecutiveFailures: state.consecutive_failures, now });
  if (reason) await disableWebhook(s, webhookId, reason, now);
}

/**
 * Makes attempt number `attempt` of a message this process has claimed (its `attempts` already counts it),
 * then records it: the message is delivered, scheduled again, or given up; the attempt goes to the log; the
 * webhook's health follows. The record only lands while the claim is still ours. Answers the log row, or
 * null when the message went away (the webhook was deleted) or another sender took over.
 */
export async function attemptMessage(s: Services, messageId: number | string, attempt: number, options: DeliveryOptions = {}): Promise<AttemptRow | null> {
  const schedule = options.schedule ?? WEBHOOK_RETRY_SCHEDULE_MS;
  const row = await s.db
    .selectFrom('webhook_messages as m')
    .innerJoin('webhooks as w', 'w.id', 'm.webhook_id')
    .select(['m.id', 'm.webhook_id', 'm.msg_id', 'm.event_type', 'm.payload', 'w.url', 'w.secret', 'w.previous_secret', 'w.previous_secret_until'])
    .where('m.id', '=', messageId)
    .executeTakeFirst();
  if (!row) return null;

  const sentAt = s.clock();
  const secrets = secretsOf(s, row, sentAt);
  let outcome: SendOutcome;
  if (secrets.length === 0) {
    // A secret sealed under another SECRET_KEY can't sign: the receiver would refuse it anyway.
    s.log.error({ webhookId: row.webhook_id }, 'webhook secret could not be opened (SECRET_KEY changed?)');
    outcome = { statusCode: null, error: 'connection', durationMs: 0, retryAfterMs: null };
  } else {
    outcome = await postWebhook(row.url, row.payload, signatureHeaders(secrets, row.msg_id, sentAt, row.payload), {
      allowed: allowListOf(s.config.webhooks.allowedHosts),
      timeoutMs: options.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      userAgent: `Nudge-Webhooks/${s.version}`,
      lookup: options.lookup,
      signal: options.signal,
    });
  }

  const now = s.clock();
  const nowIso = now.toISOString();
  const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const gone = outcome.statusCode === 410;
  const isTest = row.event_type === 'test';
  const result: WebhookAttemptOutcome = delivered ? 'delivered' : isTest || gone || attempt >= schedule.length ? 'failed' : 'retrying';
  const nextAttemptAt =
    result === 'retrying' ? new Date(now.getTime() + retryDelay(schedule, attempt, outcome.retryAfterMs, options.random ?? Math.random)).toISOString() : null;

  const logged = await s.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_messages')
      .set({
        status: result === 'retrying' ? 'pending' : result,
        ...(nextAttemptAt ? { next_attempt_at: nextAttemptAt } : {}),
        last_status_code: outcome.statusCode,
        last_error: outcome.error,
        claimed_until: null,
        delivered_at: delivered ? nowIso : null,
      })
      .where('id', '=', row.id)
      .where('attempts', '=', attempt)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return null;
    return trx
      .insertInto('webhook_attempts')
      .values({
        message_id: row.id,
        webhook_id: row.webhook_id,
        attempt,
        status_code: outcome.statusCode,
        error: outcome.error,
        duration_ms: outcome.durationMs,
        outcome: result,
        next_attempt_at: nextAttemptAt,
        created_at: sentAt.toISOString(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  if (!logged) return null;
  if (!isTest) await recordHealth(s, row.webhook_id, result, gone, now);
  return { ...logged, msg_id: row.msg_id, event_type: row.event_type };
}

/** Claims a due message for this process by counting the attempt, if nobody else holds it. */
async function claimMessage(s: Services, id: number | string, attempts: number, now: Date, timeoutMs: number): Promise<boolean> {
  const nowIso = now.toISOString();
  const claimed = await s.db
    .updateTable('webhook_messages')
    .set({ attempts: attempts + 1, claimed_until: new Date(now.getTime() + leaseMs(timeoutMs)).toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('attempts', '=', attempts)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', nowIso)]))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** Runs `work` over `items`, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}

/**
 * One pass of the dispatcher: turns new outbox rows into messages, then sends what is due. Safe to run in
 * several processes at once (each message is claimed with a conditional UPDATE) and to run again after a
 * crash (an expired claim frees the message). `more` says a full batch was found: run again soon.
 */
export async function deliverDueWebhooks(s: Services, options: PassOptions = {}): Promise<{ sent: number; more: boolean }> {
  const batchSize = options.batchSize ?? 50;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const drained = await drainOutbox(s.db, s.clock());
  const now = s.clock();
  const nowIso = now.toISOString();
  const due = await s.db
    .selectFrom('webhook_messages as m')
    .innerJoin('webhooks as w', 'w.id', 'm.webhook_id')
    .select(['m.id', 'm.attempts'])
    .where('m.status', '=', 'pending')
    .where('m.next_attempt_at', '<=', nowIso)
    .where((eb) => eb.or([eb('m.claimed_until', 'is', null), eb('m.claimed_until', '<', nowIso)]))
    .where('w.status', '=', 'active')
    .orderBy('m.next_attempt_at')
    .orderBy('m.id')
    .limit(batchSize)
    .execute();
  let sent = 0;
  await eachLimited(due, options.concurrency ?? 8, async (message) => {
    if (options.signal?.aborted) return;
    if (!(await claimMessage(s, message.id, message.attempts, now, timeoutMs))) return;
    try {
      if (await attemptMessage(s, message.id, message.attempts + 1, options)) sent += 1;
    } catch (error) {
      // The claim runs out and the message is tried again; a shutdown's aborted request lands here too.
      if (!options.signal?.aborted) s.log.error({ err: error, messageId: String(message.id) }, 'webhook attempt failed');
    }
  });
  return { sent, more: due.length === batchSize || drained === 100 };
}

/** Finished messages (and their attempts) are kept this long for the console's log. */
export const WEBHOOK_HISTORY_DAYS = 30;

/** Deletes delivered and failed messages older than WEBHOOK_HISTORY_DAYS, with their attempts. */
export async function pruneWebhookHistory(s: Services): Promise<void> {
  const before = new Date(s.clock().getTime() - WEBHOOK_HISTORY_DAYS * 24 * 3600_000).toISOString();
  await s.db.deleteFrom('webhook_messages').where('status', 'in', ['delivered', 'failed']).where('created_at', '<', before).execute();
  await s.db.deleteFrom('webhook_outbox').where('delivered_at', 'is not', null).where('delivered_at', '<', before).execute();
}

export interface DispatcherOptions extends PassOptions {
  /** The wait between passes that found nothing more to do. */
  intervalMs?: number;
}

/**
 * Runs the dispatcher in this process from onReady until onClose: a pass every second, at once again after
 * a full batch, and a clean-up of old history every hour. Register it as a child plugin so that it stops
 * before the database closes.
 */
export function webhookDispatcher(options: DispatcherOptions = {}): FastifyPluginAsync {
  return async (app) => {
    const intervalMs = options.intervalMs ?? 1000;
    const shutdown = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | null = null;
    let prunedAt = 0;

    async function pass(): Promise<boolean> {
      const s = app.services;
      if (Date.now() - prunedAt > 3600_000) {
        prunedAt = Date.now();
        await pruneWebhookHistory(s);
      }
      return (await deliverDueWebhooks(s, { ...options, signal: shutdown.signal })).more;
    }

    function schedule(delay: number) {
      if (shutdown.signal.aborted) return;
      timer = setTimeout(() => {
        running = pass()
          .catch((error: unknown) => {
            if (!shutdown.signal.aborted) app.log.error({ err: error }, 'webhook dispatcher pass failed');
            return false;
          })
          .then((more) => schedule(more ? 0 : intervalMs))
          .finally(() => {
            running = null;
          });
      }, delay);
      timer.unref();
    }

    app.addHook('onReady', async () => schedule(0));
    app.addHook('onClose', async () => {
      shutdown.abort();
      clearTimeout(timer);
      await running;
    });
  };
}
