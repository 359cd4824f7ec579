import { sql, type Kysely, type Transaction } from 'kysely';
import { isAppPlatform, NotificationContent, personalNames, personalize, type FailureReason } from '../../shared/contract';
import type { JobContext } from '../jobs/types';
import type { Database } from '../db/schema';
import { mobileTokenEnded, webSubscriptionEnded } from '../domain/players-write';
import type { Channel } from './channels';
import { SEND_QUEUE, RetryLater, batchKey, type BatchPayload, type Engine } from './engine';
import { emitDeliveryEvent } from './events';
import { dueMoment } from './fanout';
import { apnsMessage, fcmMessage, messengerMessage, smsText, webPushPayload, type PayloadContext, type Urgency } from './payloads';
import { backoffDelayMs, type SendResult } from './senders';
import { completeIfDone, parseTags } from './status';

/** One queued delivery of the batch with its player's addresses (read when the batch runs, not at fan-out). */
export interface Recipient {
  id: number;
  playerId: number;
  platform: string;
  attempts: number;
  subscribed: number;
  endpoint: string | null;
  p256dh: string | null;
  auth: string | null;
  deviceToken: string | null;
  mobileNumber: string | null;
  psid: string | null;
}

/** What becomes of one delivery after a try. */
export type Outcome =
  | { kind: 'sent'; providerId?: string }
  | { kind: 'failed'; reason: FailureReason; unsubscribe?: boolean }
  /** Still queued for a later try; `reason` is what it fails with once the tries run out. */
  | { kind: 'retry'; reason: FailureReason };

type Send = (recipient: Recipient) => Promise<SendResult>;

/** Whether the player can be reached on the delivery's channel now. */
export function hasAddress(r: Recipient): boolean {
  switch (r.platform) {
    case 'web':
      return r.subscribed === 1 && Boolean(r.endpoint && r.p256dh && r.auth);
    case 'ios':
    case 'android':
      return r.subscribed === 1 && Boolean(r.deviceToken);
    case 'sms':
      return Boolean(r.mobileNumber);
    case 'facebook':
      return Boolean(r.psid);
    default:
      return false;
  }
}

/**
 * A provider's answer in the engine's terms: gone/invalid → failed 'unsubscribed' (and the address dropped,
 * see unsubscribe); 429 and 5xx/network → tried again until the delivery's tries run out (`final`: this was
 * the last); the message or credentials refused → failed for good.
 */
export function classify(result: SendResult, attemptsBefore: number, maxAttempts: number, final = false): Outcome {
  if (result.ok) return { kind: 'sent', providerId: result.providerId };
  const last = final || attemptsBefore + 1 >= maxAttempts;
  switch (result.reason) {
    case 'gone':
    case 'invalid':
      return { kind: 'failed', reason: 'unsubscribed', unsubscribe: true };
    case 'payload':
      return { kind: 'failed', reason: 'invalid_request' };
    case 'auth':
      return { kind: 'failed', reason: 'auth' };
    case 'rate_limited':
      return last ? { kind: 'failed', reason: 'rate_limited' } : { kind: 'retry', reason: 'rate_limited' };
    case 'retryable': {
      const reason: FailureReason = result.status ? 'provider_error' : 'network';
      return last ? { kind: 'failed', reason } : { kind: 'retry', reason };
    }
    default:
      return { kind: 'failed', reason: result.status && result.status < 500 ? 'invalid_request' : 'provider_error' };
  }
}

/** The send function of one channel for this batch: the payload is built once, per recipient only the address. */
function sendFor(channel: Channel, ctx: PayloadContext): Send {
  switch (channel.kind) {
    case 'web': {
      const payload = webPushPayload({ ...ctx, iconUrl: channel.iconUrl });
      return (r) =>
        channel.sender.send({ endpoint: r.endpoint!, keys: { p256dh: r.p256dh!, auth: r.auth! } }, { payload: payload(r.id), ttl: ctx.ttlSeconds, urgency: ctx.urgency });
    }
    case 'ios': {
      const message = apnsMessage(ctx);
      return (r) => channel.sender.send({ deviceToken: r.deviceToken! }, message);
    }
    case 'android': {
      const message = fcmMessage(ctx);
      return (r) => channel.sender.send({ token: r.deviceToken! }, message);
    }
    case 'sms': {
      const message = { text: smsText(ctx.content) };
      return (r) => channel.sender.send({ phone: r.mobileNumber! }, message);
    }
    case 'facebook': {
      const message = messengerMessage(ctx.content);
      return (r) => channel.sender.send({ psid: r.psid! }, message);
    }
  }
}

interface Written {
  recipient: Recipient;
  outcome: Outcome;
}

/**
 * Writes a batch's results in small transactions (each: the deliveries' statuses, the unsubscribed players,
 * the counters on the message), one write at a time, while the sends go on. `pending` counts results not yet
 * committed: with `room()` before each send, at most sends-in-flight + 2 × chunk results are ever
 * uncommitted, which is all a crash can make the engine send twice.
 */
export class ResultWriter {
  private buffer: Written[] = [];
  private writing = 0;
  private current: Promise<void> | null = null;
  private error: unknown = null;
  /** This run's failures by reason, for the delivery_failure event. */
  readonly failures = new Map<FailureReason, number>();
  /** Deliveries left queued for a later try. */
  retries = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date,
    private readonly notificationId: number,
    private readonly chunk: number,
  ) {}

  get pending(): number {
    return this.buffer.length + this.writing;
  }

  add(recipient: Recipient, outcome: Outcome): void {
    this.buffer.push({ recipient, outcome });
    if (outcome.kind === 'failed') this.failures.set(outcome.reason, (this.failures.get(outcome.reason) ?? 0) + 1);
    if (outcome.kind === 'retry') this.retries += 1;
    if (!this.current && this.buffer.length >= this.chunk) this.start();
  }

  /** Waits until fewer than `limit` results are uncommitted. */
  async room(limit: number): Promise<void> {
    while (this.pending >= limit && this.current) await this.current;
    if (this.error) throw this.error;
  }

  /** Writes everything added so far. */
  async flush(): Promise<void> {
    while (this.current) await this.current;
    if (!this.error && this.buffer.length) {
      this.start();
      while (this.current) await this.current;
    }
    if (this.error) throw this.error;
  }

  private start(): void {
    const chunk = this.buffer.splice(0);
    this.writing = chunk.length;
    this.current = this.write(chunk)
      .catch((error: unknown) => {
        this.error ??= error;
      })
      .finally(() => {
        this.writing = 0;
        this.current = null;
        if (!this.error && this.buffer.length >= this.chunk) this.start();
      });
  }

  private async write(chunk: Written[]): Promise<void> {
    const now = this.clock().toISOString();
    await this.db.transaction().execute(async (trx) => {
      let sent = 0;
      let failed = 0;
      const delivered = chunk.filter((item) => item.outcome.kind === 'sent');
      if (delivered.length) {
        const withIds = delivered.filter((item) => item.outcome.kind === 'sent' && item.outcome.providerId);
        const providerId = withIds.length
          ? sql<string>`case id ${sql.join(
              withIds.map((item) => sql`when ${item.recipient.id} then ${(item.outcome as { providerId: string }).providerId}`),
              sql` `,
            )} else null end`
          : null;
        const result = await trx
          .updateTable('deliveries')
          .set((eb) => ({ status: 'sent', sent_at: now, provider_id: providerId, attempts: eb('attempts', '+', 1) }))
          .where('id', 'in', delivered.map((item) => item.recipient.id))
          .where('status', '=', 'queued')
          .executeTakeFirst();
        sent = Number(result.numUpdatedRows);
      }
      const byReason = new Map<FailureReason, number[]>();
      for (const item of chunk) {
        if (item.outcome.kind !== 'failed') continue;
        const ids = byReason.get(item.outcome.reason) ?? [];
        ids.push(item.recipient.id);
        byReason.set(item.outcome.reason, ids);
      }
      for (const [reason, ids] of byReason) {
        const result = await trx
          .updateTable('deliveries')
          .set((eb) => ({ status: 'failed', reason, attempts: eb('attempts', '+', 1) }))
          .where('id', 'in', ids)
          .where('status', '=', 'queued')
          .executeTakeFirst();
        failed += Number(result.numUpdatedRows);
      }
      const retried = chunk.filter((item) => item.outcome.kind === 'retry').map((item) => item.recipient.id);
      if (retried.length) {
        await trx
          .updateTable('deliveries')
          .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
          .where('id', 'in', retried)
          .where('status', '=', 'queued')
          .execute();
      }
      for (const item of chunk) {
        if (item.outcome.kind === 'failed' && item.outcome.unsubscribe) await unsubscribe(trx, item.recipient, now);
      }
      if (sent || failed) {
        await trx
          .updateTable('notifications')
          .set((eb) => ({ sent: eb('sent', '+', sent), failed: eb('failed', '+', failed) }))
          .where('id', '=', this.notificationId)
          .execute();
      }
    });
  }
}

/**
 * The address no longer takes the channel: a web subscription ends (subscribed 0, endpoint and keys cleared, the
 * endpoint kept as push_expired_endpoint so a browser still holding it is told to make a new one),
 * a mobile token is cleared, and so are an SMS number the gateway calls opted out, unreachable or invalid and
 * a PSID Messenger says is gone: every later message would try them again, and an opted-out number must
 * never be texted again. Only if the player still holds the address that failed: a browser that subscribed
 * again meanwhile keeps its new subscription, a number or PSID saved since stays. updated_at moves so the
 * in-memory audience copy sees the player leave the channel.
 */
async function unsubscribe(trx: Transaction<Database>, r: Recipient, now: string): Promise<void> {
  if (r.platform === 'web' && r.endpoint) {
    await trx
      .updateTable('players')
      .set({ ...webSubscriptionEnded(now), push_expired_endpoint: r.endpoint })
      .where('id', '=', r.playerId)
      .where('push_endpoint', '=', r.endpoint)
      .execute();
  } else if (isAppPlatform(r.platform) && r.deviceToken) {
    await trx
      .updateTable('players')
      .set(mobileTokenEnded(now))
      .where('id', '=', r.playerId)
      .where('device_token', '=', r.deviceToken)
      .execute();
  } else if (r.platform === 'sms' && r.mobileNumber) {
    await trx
      .updateTable('players')
      .set({ mobile_number: null, updated_at: now })
      .where('id', '=', r.playerId)
      .where('mobile_number', '=', r.mobileNumber)
      .execute();
  } else if (r.platform === 'facebook' && r.psid) {
    await trx
      .updateTable('players')
      .set({ fb_psid: null, updated_at: now })
      .where('id', '=', r.playerId)
      .where('fb_psid', '=', r.psid)
      .execute();
  }
}

/**
 * The attribute values a personal message ({{plan | bạn}}) reads, by player: only the names it uses, for the
 * batch's players (its player id range), read when the batch runs as its addresses are.
 */
async function personalValues(db: Kysely<Database>, applicationId: string, payload: BatchPayload, names: string[]): Promise<Map<number, Map<string, string>>> {
  const rows = await db
    .selectFrom('player_attributes')
    .select(['player_id', 'name', 'value'])
    .where('application_id', '=', applicationId)
    .where('player_id', '>', payload.from_id)
    .where('player_id', '<=', payload.to_id)
    .where('name', 'in', names)
    .execute();
  const byPlayer = new Map<number, Map<string, string>>();
  for (const row of rows) {
    if (row.value === null) continue;
    const id = Number(row.player_id);
    let values = byPlayer.get(id);
    if (!values) byPlayer.set(id, (values = new Map()));
    values.set(row.name, row.value);
  }
  return byPlayer;
}

/** The batch's still-queued deliveries with their players' current addresses. */
async function loadRecipients(db: Kysely<Database>, payload: BatchPayload): Promise<Recipient[]> {
  let query = db
    .selectFrom('deliveries')
    .innerJoin('players', 'players.id', 'deliveries.player_id')
    .select([
      'deliveries.id',
      'deliveries.player_id',
      'deliveries.platform',
      'deliveries.attempts',
      'players.subscribed',
      'players.push_endpoint',
      'players.push_p256dh',
      'players.push_auth',
      'players.device_token',
      'players.mobile_number',
      'players.fb_psid',
    ])
    .where('deliveries.notification_id', '=', payload.notification_id)
    .where('deliveries.player_id', '>', payload.from_id)
    .where('deliveries.player_id', '<=', payload.to_id)
    .where('deliveries.status', '=', 'queued');
  if (payload.offset !== null) query = query.where('deliveries.tz_offset', '=', payload.offset);
  const rows = await query.orderBy('deliveries.player_id').execute();
  return rows.map((row) => ({
    id: Number(row.id),
    playerId: Number(row.player_id),
    platform: row.platform,
    attempts: Number(row.attempts),
    subscribed: Number(row.subscribed),
    endpoint: row.push_endpoint,
    p256dh: row.push_p256dh,
    auth: row.push_auth,
    deviceToken: row.device_token,
    mobileNumber: row.mobile_number,
    psid: row.fb_psid,
  }));
}

/**
 * A delivery batch job: sends the batch's queued deliveries with bounded concurrency and writes the results
 * as they come (ResultWriter). Past the message's TTL they fail as expired; without an address as no_address;
 * without working credentials as auth (logged loudly, the rest of the platform's batch with them). A 429
 * stops the batch: what is left goes to a continuation job delayed by Retry-After. 5xx and network failures
 * stay queued and the job is retried by the queue with backoff; their last try fails them. A job run again
 * (a retry, a redelivery after a crash) finds only what is still queued: nothing is sent twice but the
 * uncommitted results of a crashed run. If its last try fails all the same (the engine, not a provider), what
 * it leaves queued fails as engine_error, so the message still completes.
 */
export async function runBatch(engine: Engine, payload: BatchPayload, context: JobContext): Promise<void> {
  try {
    await sendBatch(engine, payload, context);
  } catch (error) {
    // The queue gives the job up after this try: settle what it leaves queued first (a shutdown's try is
    // handed back uncounted, so it is not the end).
    if (context.lastAttempt && !engine.stopping.aborted && !context.signal.aborted) await failLeftovers(engine, payload, error);
    throw error;
  }
}

async function sendBatch(engine: Engine, payload: BatchPayload, context: JobContext): Promise<void> {
  const { s, options } = engine;
  const n = await s.db
    .selectFrom('notifications')
    .innerJoin('applications', 'applications.application_id', 'notifications.application_id')
    .select([
      'notifications.id',
      'notifications.application_id',
      'notifications.status',
      'notifications.name',
      'notifications.type',
      'notifications.content',
      'notifications.schedule',
      'notifications.ttl_seconds',
      'notifications.urgency',
      'notifications.tags',
      'notifications.send_at',
      'notifications.started_at',
      'applications.client_key',
    ])
    .where('notifications.id', '=', payload.notification_id)
    .executeTakeFirst();
  if (!n || n.status !== 'running') return;
  const recipients = await loadRecipients(s.db, payload);
  if (!recipients.length) {
    await completeIfDone(s, n.id);
    return;
  }

  const writer = new ResultWriter(s.db, s.clock, n.id, options.flushEvery);
  const now = s.clock().getTime();
  const due = dueMoment(n, payload.offset).getTime();
  const expiresAt = n.ttl_seconds > 0 ? due + n.ttl_seconds * 1000 : null;
  const round = payload.round ?? 0;
  const finalAttempt = context.lastAttempt || context.attempt >= options.maxBatchAttempts;

  if (expiresAt !== null && now >= expiresAt) {
    for (const r of recipients) writer.add(r, { kind: 'failed', reason: 'expired' });
  } else {
    const ctx: PayloadContext = {
      notificationId: n.id,
      content: NotificationContent.parse(JSON.parse(n.content)),
      clientKey: n.client_key,
      apiUrl: s.config.publicUrl,
      urgency: n.urgency as Urgency,
      ttlSeconds: expiresAt === null ? 0 : Math.ceil((expiresAt - now) / 1000),
      expiresAt: expiresAt === null ? null : Math.floor(expiresAt / 1000),
    };
    const channels = new Map<string, Channel | null>();
    for (const platform of new Set(recipients.map((r) => r.platform))) {
      const channel = await engine.channels.get(n.application_id, platform as Channel['kind']);
      channels.set(platform, channel);
      if (!channel) s.log.error({ notificationId: n.id, applicationId: n.application_id, platform }, 'platform not configured or inactive: its deliveries fail');
    }
    // What each recipient is sent, built once per platform; a personal message's heading and text differ by player,
    // so its payload is built once per wording the batch needs (players with the same values share one).
    const names = personalNames(ctx.content.heading, ctx.content.content);
    const values = names.length ? await personalValues(s.db, n.application_id, payload, names) : null;
    const sends = new Map<string, Send>();
    const sendTo = (r: Recipient): Send | null => {
      const channel = channels.get(r.platform);
      if (!channel) return null;
      const mine = values?.get(r.playerId);
      const content = values ? { ...ctx.content, heading: personalize(ctx.content.heading, mine), content: personalize(ctx.content.content, mine) } : ctx.content;
      const key = values ? `${r.platform}\u0000${content.heading}\u0000${content.content}` : r.platform;
      let send = sends.get(key);
      if (!send) sends.set(key, (send = sendFor(channel, { ...ctx, content })));
      return send;
    };

    const refused = new Set<string>();
    let rateLimitedMs: number | null = null;
    let next = 0;
    const lane = async () => {
      while (next < recipients.length) {
        await writer.room(2 * options.flushEvery);
        if (rateLimitedMs !== null || engine.stopping.aborted || context.signal.aborted) return;
        const r = recipients[next++];
        const send = sendTo(r);
        if (!send || refused.has(r.platform)) {
          writer.add(r, { kind: 'failed', reason: 'auth' });
          continue;
        }
        if (!hasAddress(r)) {
          writer.add(r, { kind: 'failed', reason: 'no_address' });
          continue;
        }
        const result = await send(r);
        const outcome = classify(result, r.attempts, options.maxDeliveryAttempts, finalAttempt || round >= options.maxRateLimitRounds);
        if (!result.ok && result.reason === 'auth' && !refused.has(r.platform)) {
          refused.add(r.platform);
          s.log.error(
            { notificationId: n.id, applicationId: n.application_id, platform: r.platform, status: result.status, detail: result.detail },
            'PROVIDER REFUSED THE CREDENTIALS: the platform needs attention; this batch fails as auth',
          );
        }
        if (outcome.kind === 'retry' && outcome.reason === 'rate_limited' && !result.ok) {
          rateLimitedMs = Math.max(rateLimitedMs ?? 0, result.retryAfterMs ?? backoffDelayMs(round));
        }
        writer.add(r, outcome);
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.sendConcurrency, recipients.length) }, lane));
    await writer.flush();

    if (rateLimitedMs !== null && !engine.stopping.aborted && !context.signal.aborted) {
      await reportFailures(engine, n, payload, writer.failures);
      const continuation: BatchPayload = { ...payload, round: round + 1 };
      s.log.warn({ notificationId: n.id, retryAfterMs: rateLimitedMs, round: round + 1 }, 'rate limited: the rest of the batch waits');
      await engine.queue.add(SEND_QUEUE, 'deliver', continuation, {
        dedupeKey: batchKey(continuation),
        delayMs: rateLimitedMs,
        maxAttempts: options.maxBatchAttempts,
      });
      return;
    }
  }
  await writer.flush();
  await reportFailures(engine, n, payload, writer.failures);
  if (engine.stopping.aborted || context.signal.aborted) throw new RetryLater('stopping: the rest of the batch is sent after the restart');
  if (writer.retries > 0) throw new RetryLater(`${writer.retries} deliveries failed for now (5xx or network): retried with backoff`);
  await completeIfDone(s, n.id);
}

/**
 * The batch's last try failed in the engine itself (the database, content it can't read, a bug), not at a
 * provider: the deliveries it leaves queued fail as engine_error, counted on the message in the same
 * transaction, and the message completes once nothing else is queued, instead of running forever. Only
 * what is still queued moves, so running this again changes nothing. Never throws: the caller rethrows the
 * batch's own error for the queue to record.
 */
async function failLeftovers(engine: Engine, payload: BatchPayload, error: unknown): Promise<void> {
  const { s } = engine;
  const id = payload.notification_id;
  try {
    const failed = await s.db.transaction().execute(async (trx) => {
      // The batch's deliveries, as loadRecipients selects them.
      let query = trx
        .updateTable('deliveries')
        .set({ status: 'failed', reason: 'engine_error' satisfies FailureReason })
        .where('notification_id', '=', id)
        .where('player_id', '>', payload.from_id)
        .where('player_id', '<=', payload.to_id)
        .where('status', '=', 'queued');
      if (payload.offset !== null) query = query.where('tz_offset', '=', payload.offset);
      const count = Number((await query.executeTakeFirst()).numUpdatedRows);
      if (count > 0) {
        await trx
          .updateTable('notifications')
          .set((eb) => ({ failed: eb('failed', '+', count) }))
          .where('id', '=', id)
          .execute();
      }
      return count;
    });
    if (failed > 0) {
      s.log.error({ notificationId: id, failed, err: error }, 'delivery batch given up: its queued deliveries fail as engine_error');
      const n = await s.db.selectFrom('notifications').select(['id', 'application_id', 'name', 'type', 'tags']).where('id', '=', id).executeTakeFirst();
      if (n) await reportFailures(engine, n, payload, new Map([['engine_error', failed]]));
    }
    await completeIfDone(s, id);
  } catch (settleError) {
    // The message then stays running, its deliveries queued; the queue still records the job's own error.
    s.log.error({ notificationId: id, err: settleError }, 'could not fail the deliveries of a given-up batch');
  }
}

/** Raises delivery_failure with the counts by reason (and clears them: each failure is reported once). */
async function reportFailures(
  engine: Engine,
  n: { id: number; application_id: string; name: string; type: string; tags: string },
  payload: BatchPayload,
  failures: Map<FailureReason, number>,
): Promise<void> {
  if (!failures.size) return;
  const counts = Object.fromEntries(failures);
  engine.s.log.warn({ notificationId: n.id, counts }, 'deliveries failed');
  await emitDeliveryEvent(
    engine.s,
    n.application_id,
    'delivery_failure',
    { notification_id: n.id, name: n.name, type: n.type, failures: counts, batch: { from_player_id: payload.from_id, to_player_id: payload.to_id } },
    { tags: parseTags(n.tags) },
  );
  failures.clear();
}
