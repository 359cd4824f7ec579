import { createHash, randomUUID } from 'node:crypto';
import { APP_PLATFORMS, isAppPlatform, type PushReportBody, type PushSubscribeBody, type PushSubscribeResult, type PushUnsubscribeBody } from '../../shared/contract';
import { nowIso, type Ctx, type Services } from '../context';
import { deliveryIdOf } from '../delivery/payloads';
import { recordDeliveryReport } from '../delivery/reports';
import { AppError } from '../errors';
import { ingest } from './ingest';
import { mobileTokenEnded, upsertPlayer, webSubscriptionEnded } from './players-write';
import { applicationByKey, checkSdkLimits } from './storefront';
import { publicWebPush } from './web-push';

/*
 * What shoppers' browsers and service workers tell us about web push: a subscription, its end, a
 * notification shown or clicked. A subscription lives on the visitor's player (push_endpoint, push_p256dh,
 * push_auth, subscribed, subscribed_at, unsubscribed_at).
 */

/**
 * POST /api/sdk/push/subscribe: stores the browser's subscription on its visitor's player (made if this is
 * the visitor's first contact, through players-write's upsert), subscribed from now. An endpoint belongs to
 * one browser: a player that held it before (the same browser under a cleared visitor id) loses it. A renewed
 * subscription of a subscribed player keeps its first subscribed_at. Web push must be on (else NOT_FOUND).
 *
 * A visitor who unsubscribed on the playerinfo page (opted_out_at) is subscribed again only by their yes in the
 * subscription box (`opt_in`); a subscription their browser renewed by itself changes nothing for them. One that
 * ended otherwise (expired at the push service, the permission withdrawn) is renewed.
 *
 * The endpoint the push service refused for good (push_expired_endpoint, set by the delivery engine) is not
 * stored again: the answer's `renew` tells the browser to drop it and subscribe anew, and the new endpoint is
 * then stored as any other.
 */
export async function subscribePush(ctx: Ctx, body: PushSubscribeBody): Promise<PushSubscribeResult> {
  const application = await applicationByKey(ctx, body.key);
  await checkSdkLimits(ctx, 'event', application, body.visitor_id);
  const applicationId = application.application_id;
  if (!(await publicWebPush(ctx, applicationId))) throw new AppError('NOT_FOUND');
  const clock = ctx.s.clock();
  const now = clock.toISOString();
  const { endpoint, keys } = body.subscription;

  return ctx.s.db.transaction().execute(async (trx) => {
    // The visitor's subscription as it stands (the upsert below leaves it alone); none on a first contact.
    const before = await trx
      .selectFrom('players')
      .select(['subscribed', 'subscribed_at', 'opted_out_at', 'push_expired_endpoint'])
      .where('application_id', '=', applicationId)
      .where('device_id', '=', body.visitor_id)
      .executeTakeFirst();
    if (before?.push_expired_endpoint === endpoint) return { subscribed: false, renew: true };
    if (before?.opted_out_at && !body.opt_in) return { subscribed: false, renew: false };
    await trx
      .updateTable('players')
      .set(webSubscriptionEnded(now))
      .where('application_id', '=', applicationId)
      .where('push_endpoint', '=', endpoint)
      .where('device_id', '!=', body.visitor_id)
      .execute();
    const { id } = await upsertPlayer(
      trx,
      ctx.s.dialect,
      { applicationId, deviceId: body.visitor_id, device: { platform: 'web', ...body.device }, seenAt: now },
      clock,
    );
    await trx
      .updateTable('players')
      .set({
        push_endpoint: endpoint,
        push_p256dh: keys.p256dh,
        push_auth: keys.auth,
        subscribed: 1,
        subscribed_at: before?.subscribed === 1 && before.subscribed_at ? before.subscribed_at : now,
        opted_out_at: null,
        push_expired_endpoint: null,
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
    return { subscribed: true, renew: false };
  });
}

/** What an app install's player says of its push subscription, read before its registration is stored. */
export interface AppSubscriptionBefore {
  subscribed: number;
  device_token: string | null;
  unsubscribed_at: string | null;
  opted_out_at: string | null;
}

/** What a registration says that bears on the subscription. */
interface AppRegistration {
  platform: string;
  device_token?: string;
  subscribed?: boolean;
}

const isSubscribed = (before: AppSubscriptionBefore | undefined) => Number(before?.subscribed ?? 0) === 1;

export async function appSubscriptionBefore(s: Services, applicationId: string, deviceId: string): Promise<AppSubscriptionBefore | undefined> {
  return s.db
    .selectFrom('players')
    .select(['subscribed', 'device_token', 'unsubscribed_at', 'opted_out_at'])
    .where('application_id', '=', applicationId)
    .where('device_id', '=', deviceId)
    .executeTakeFirst();
}

/**
 * What POST /api/v1/devices does to an app install's mobile push subscription (mobile push goes to subscribed
 * iOS and Android players with a device token):
 * - `subscribed: false` (the person turned notifications off) unsubscribes it;
 * - `subscribed: true` subscribes it (the contract asks for a device token in the same call);
 * - left out, sending a device token subscribes an install that is not, unless it was unsubscribed with that same
 *   token by `subscribed: false`, or unsubscribed on the playerinfo page at all: an app sends its token at every
 *   launch, which must not undo either. After `subscribed: false`, a new token (the old one refused by FCM or
 *   APNs, which clears it) subscribes again; after the playerinfo page, whose person never told the app, only
 *   `subscribed: true` does (FCM and APNs renew tokens by themselves, as browsers renew web push subscriptions).
 * Web browsers subscribe through web push (subscribePush), never by a token.
 */
function appSubscriptionChange(
  before: AppSubscriptionBefore | undefined,
  body: AppRegistration,
): 'subscribe' | 'unsubscribe' | null {
  const subscribed = isSubscribed(before);
  if (body.subscribed === false) return subscribed ? 'unsubscribe' : null;
  const token = body.device_token?.trim();
  if (!isAppPlatform(body.platform) || !token || subscribed) return null;
  const unsubscribedThisToken = before !== undefined && before.unsubscribed_at !== null && before.device_token === token;
  const optedOut = before !== undefined && before.opted_out_at !== null;
  return body.subscribed === true || !(unsubscribedThisToken || optedOut) ? 'subscribe' : null;
}

/**
 * Applies what the registration `body` means for the subscription (appSubscriptionChange) to the player, stored
 * by now, that read `before`; returns whether it is subscribed after. A push token belongs to one install: the
 * application's other iOS and Android players holding the token registered lose it and are unsubscribed (a
 * reinstall, or a registration retried without its device id, made a second player with it, and the phone got
 * every message once per player). Index: migration 0029.
 */
export async function settleAppSubscription(
  s: Services,
  applicationId: string,
  deviceId: string,
  before: AppSubscriptionBefore | undefined,
  body: AppRegistration,
): Promise<boolean> {
  const now = nowIso(s);
  // The token as ingestion stored it (trimmed, see players-write.ts).
  const token = body.device_token?.trim();
  if (isAppPlatform(body.platform) && token) {
    await s.db
      .updateTable('players')
      // An install unsubscribed before keeps the moment it was.
      .set((eb) => mobileTokenEnded(now, eb.case().when('subscribed', '=', 1).then(now).else(eb.ref('unsubscribed_at')).end()))
      .where('application_id', '=', applicationId)
      .where('device_token', '=', token)
      .where('device_id', '!=', deviceId)
      .where('platform', 'in', [...APP_PLATFORMS])
      .execute();
  }
  const change = appSubscriptionChange(before, body);
  if (change === null) return isSubscribed(before);
  const subscribe = change === 'subscribe';
  await s.db
    .updateTable('players')
    .set(subscribe ? { subscribed: 1, subscribed_at: now, opted_out_at: null, updated_at: now } : { subscribed: 0, unsubscribed_at: now, updated_at: now })
    .where('application_id', '=', applicationId)
    .where('device_id', '=', deviceId)
    .where('subscribed', '=', subscribe ? 0 : 1)
    .execute();
  return subscribe;
}

/**
 * POST /api/sdk/push/unsubscribe: the visitor's browser no longer takes pushes. With `endpoint`, only that
 * subscription ends (a newer one stays). An unknown visitor is nothing to do.
 */
export async function unsubscribePush(ctx: Ctx, body: PushUnsubscribeBody): Promise<void> {
  const application = await applicationByKey(ctx, body.key);
  await checkSdkLimits(ctx, 'event', application, body.visitor_id);
  const now = nowIso(ctx.s);
  let query = ctx.s.db
    .updateTable('players')
    .set(webSubscriptionEnded(now))
    .where('application_id', '=', application.application_id)
    .where('device_id', '=', body.visitor_id)
    .where('subscribed', '=', 1);
  if (body.endpoint) query = query.where('push_endpoint', '=', body.endpoint);
  await query.execute();
}

const REPORT_EVENTS = { delivered: '$push_delivered', clicked: '$push_clicked' } as const;

/**
 * POST /api/sdk/push/report: the service worker showed a notification or the visitor clicked it. The player is
 * the one holding the endpoint; a report for an endpoint no player holds is dropped. A message id of the
 * engine's (`d_<delivery id>`) of that player's delivery moves the delivery forward and counts on the message's
 * statistics (server/delivery/reports.ts). Either way it is recorded through ingestion as the player's
 * `$push_delivered` / `$push_clicked` event (message_id, notification_id, action), once per message id.
 */
export async function reportPush(ctx: Ctx, body: PushReportBody): Promise<void> {
  const application = await applicationByKey(ctx, body.key);
  if (!body.endpoint) return;
  const applicationId = application.application_id;
  const player = await ctx.s.db
    .selectFrom('players')
    .select(['id', 'device_id'])
    .where('application_id', '=', applicationId)
    .where('push_endpoint', '=', body.endpoint)
    .executeTakeFirst();
  if (!player) return;
  await checkSdkLimits(ctx, 'event', application, player.device_id);
  const deliveryId = deliveryIdOf(body.message_id);
  const delivery =
    deliveryId === null
      ? undefined
      : await ctx.s.db
          .selectFrom('deliveries')
          .select('notification_id')
          .where('id', '=', deliveryId)
          .where('player_id', '=', player.id)
          .where('application_id', '=', applicationId)
          .executeTakeFirst();
  if (delivery) await recordDeliveryReport(ctx.s, deliveryId!, body.kind);
  await recordPushEvent(ctx.s, {
    applicationId,
    utcOffset: application.utc_offset,
    deviceId: player.device_id,
    playerId: Number(player.id),
    kind: body.kind,
    messageId: body.message_id,
    notificationId: delivery ? Number(delivery.notification_id) : undefined,
    action: body.action,
  });
}

/** A push report as the player's `$push_delivered` / `$push_clicked` event; with a message id, once per player. */
export async function recordPushEvent(
  s: Services,
  report: {
    applicationId: string;
    /** The application's timezone (IngestBatch's). */
    utcOffset: number;
    deviceId: string;
    playerId: number;
    kind: 'delivered' | 'clicked';
    messageId?: string;
    notificationId?: number;
    action?: string;
  },
): Promise<void> {
  const properties: Record<string, string | number> = {};
  if (report.messageId) properties.message_id = report.messageId;
  if (report.notificationId !== undefined) properties.notification_id = report.notificationId;
  if (report.action) properties.action = report.action;
  // A bounded id of the allowed characters, whatever the message id looks like.
  const unique = report.messageId ? `${report.messageId}\u0000${report.playerId}` : randomUUID();
  const clientId = `push-${report.kind}-${createHash('sha256').update(unique).digest('base64url').slice(0, 32)}`;
  await ingest(s, {
    applicationId: report.applicationId,
    utcOffset: report.utcOffset,
    deviceId: report.deviceId,
    items: [
      {
        kind: 'event',
        counts: 'none',
        clientId,
        name: REPORT_EVENTS[report.kind],
        properties: Object.keys(properties).length ? properties : null,
        sessionId: null,
        at: s.clock().toISOString(),
      },
    ],
  });
}
