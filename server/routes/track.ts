import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  DeviceAttributesBody,
  DeviceEventsBody,
  DeviceIdentityBody,
  DeviceParams,
  DeviceRegister,
  DeviceRegistered,
  DeviceSessionBody,
  TrackAccepted,
  TrackBatch,
  ok,
  type TrackItem,
} from '../../shared/contract';
import type { Services } from '../context';
import { AppError, isAppError } from '../errors';
import { INGEST_QUEUE, applicationForKey, fromTrackItems, ingest, closeIngest, type IngestBatch, type IngestResult, type KeyApplication } from '../domain/ingest';
import { TokenBuckets } from '../domain/ingest-limits';
import { QueueFullError } from '../domain/ingest-queue';
import { appSubscriptionBefore, settleAppSubscription } from '../domain/push-subscriptions';
import { allowAnyOrigin, failures, parseTextAsJson } from './common';

/** A batch of 50 items with long page URLs stays well under this. */
const TRACK_BODY_LIMIT = 64 * 1024;

/**
 * The queue is full or its writes have fallen behind: 503 with Retry-After (the queue's own bound on waiting, in
 * whole seconds: see INGEST_QUEUE), the envelope's code RATE_LIMITED (the client should back off).
 */
class IngestBusy extends AppError {
  override readonly statusCode = 503;
  constructor() {
    super('RATE_LIMITED', 'ingest.busy', { retryAfterSeconds: Math.ceil(INGEST_QUEUE.maxWaitMs / 1000) });
  }
}

const buckets = new WeakMap<Services, TokenBuckets>();

/**
 * Ingestion's rate limits: in-memory token buckets per visitor (or device) and per address. Not the
 * database-backed rate_windows of the other public calls: that costs a write per request, more than the
 * ingestion it would guard (see server/domain/ingest-limits.ts).
 */
export function checkLimits(request: FastifyRequest, who: string): void {
  const s = request.server.services;
  let limiter = buckets.get(s);
  if (!limiter) buckets.set(s, (limiter = new TokenBuckets()));
  const checks = [
    { key: `who:${who}`, rule: s.limits.sdkTrackPerVisitor },
    { key: `ip:${request.ip}`, rule: s.limits.sdkTrackPerIp },
  ];
  const nowMs = s.clock().getTime();
  if (!limiter.take(checks, nowMs)) {
    // Retry-After: when the emptiest of its buckets has a token again (whole seconds, at least one).
    const seconds = Math.max(1, Math.ceil(limiter.waitMs(checks, nowMs) / 1000));
    // Its own words: the generic RATE_LIMITED asks to wait "a few minutes", where this wait is seconds.
    throw new AppError('RATE_LIMITED', 'ingest.rateLimited', { params: { seconds }, retryAfterSeconds: seconds });
  }
}

/** Hands the batch to the group-commit queue and waits until it is stored. */
async function store(request: FastifyRequest, batch: IngestBatch): Promise<IngestResult> {
  try {
    return await ingest(request.server.services, batch);
  } catch (error) {
    if (error instanceof QueueFullError) {
      request.server.services.log.warn('ingestion queue full: answering 503');
      throw new IngestBusy();
    }
    throw error;
  }
}

/**
 * The device API's first step (its routes' onRequest, see deviceRouteOptions): the application of
 * `Authorization: Key <client_key>`, before the body is read, so a call without a valid key hears about the key and
 * nothing else. Anything else is NOT_AUTHORIZED, with a message that names the client key (NOT_AUTHORIZED's own one
 * speaks of a console session, which an app has not).
 */
export async function authenticateClientKey(request: FastifyRequest): Promise<void> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Key\s+(\S{1,64})\s*$/i.exec(header) : null;
  if (!match) throw new AppError('NOT_AUTHORIZED', 'ingest.badKey');
  try {
    request.clientKeyApplication = await applicationForKey(request.server.services, match[1]);
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND') throw new AppError('NOT_AUTHORIZED', 'ingest.badKey');
    throw error;
  }
}

/** The application authenticateClientKey found for this request. */
export function applicationOfKey(request: FastifyRequest): KeyApplication {
  if (!request.clientKeyApplication) throw new AppError('NOT_AUTHORIZED', 'ingest.badKey');
  return request.clientKeyApplication;
}

/**
 * What every call on a registered device starts with: the application of the key, the limits of that device,
 * and the device itself, which must have registered (NOT_FOUND otherwise).
 */
async function registeredDevice(request: FastifyRequest, deviceId: string): Promise<KeyApplication> {
  const application = applicationOfKey(request);
  const { applicationId } = application;
  checkLimits(request, `${applicationId}:${deviceId}`);
  const row = await request.server.services.db
    .selectFrom('players')
    .select('id')
    .where('application_id', '=', applicationId)
    .where('device_id', '=', deviceId)
    .executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND', 'ingest.deviceNotRegistered');
  return application;
}

/*
 * Both surfaces skip the global @fastify/rate-limit (`rateLimit: false`): its per-address 1,200/min would
 * throttle a busy shop's visitors behind one carrier address long before ingestion's own, per-visitor limits,
 * and would cap the load benchmark at 20 requests a second. Their requests get no request lines (`quietRequestLog`,
 * see QuietRoutes in server/app.ts): thousands of "request completed" lines a second drown the log and cost a fifth
 * of the throughput; a 5xx is still logged.
 */
const routeOptions = { config: { public: true, rateLimit: false, quietRequestLog: true } } as const;
/** The options of every REST device API route: ingestion's, and the client key checked before the body is read. */
export const deviceRouteOptions = { ...routeOptions, onRequest: authenticateClientKey } as const;

/**
 * Ingestion: the storefront SDK's batches (POST /api/sdk/track) and the REST device API for mobile apps and
 * servers (/api/v1/devices…). Every write goes through the same group-commit queue (server/domain/ingest.ts):
 * a 200 means stored.
 */
export const trackRoutes: FastifyPluginAsyncZod = async (app) => {
  parseTextAsJson(app);
  app.addHook('onClose', async () => closeIngest(app.services));

  app.post(
    '/sdk/track',
    {
      ...routeOptions,
      bodyLimit: TRACK_BODY_LIMIT,
      onRequest: allowAnyOrigin,
      schema: {
        description:
          "The storefront SDK's batch (up to 50 items) from one browser, as JSON (text/plain accepted, for sendBeacon): sessions, page views, scroll depths, events, attributes and identity. Answered once stored; `accepted` counts the items, a retried item (same `id`) is stored once. Item times are clamped to the last 7 days … now + 5 minutes. Rate limited per visitor and address (RATE_LIMITED, 429); when the server is saturated 503 with Retry-After. An unknown key is NOT_FOUND.",
        tags: ['storefront'],
        body: TrackBatch,
        response: { 200: ok(TrackAccepted), ...failures },
      },
    },
    async (request, reply) => {
      const body = request.body;
      checkLimits(request, `${body.key}:${body.visitor_id}`);
      const { applicationId, utcOffset, phoneCountry } = await applicationForKey(request.server.services, body.key);
      const items = fromTrackItems(body.items, request.server.services.clock(), phoneCountry);
      await store(request, { applicationId, utcOffset, deviceId: body.visitor_id, device: body.device, items });
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: { accepted: items.length } };
    },
  );

  const devices = ['devices'];
  // What parseTextAsJson takes, as the storefront's beacons send it.
  const consumes = ['application/json', 'text/plain'];
  const security = [{ clientKey: [] }];
  const keyNote =
    ' Authenticated by `Authorization: Key <client_key>`: the application’s public client key, the same one the storefront script carries. Apps ship it, so it can only write device data, never read it. The body is JSON (`application/json`, or `text/plain` holding JSON). Rate limited per device and per address: RATE_LIMITED (429) with Retry-After in seconds; when the server is saturated, 503 with Retry-After. Retry after the time it gives: a retried call with the same ids stores nothing twice.';

  /** Runs device items through the SDK's normalisation and the one ingestion queue. */
  async function deviceWrite(request: FastifyRequest, { applicationId, utcOffset, phoneCountry }: KeyApplication, deviceId: string, items: TrackItem[]): Promise<number> {
    const now = request.server.services.clock();
    await store(request, { applicationId, utcOffset, deviceId, items: fromTrackItems(items, now, phoneCountry) });
    return items.length;
  }

  app.post(
    '/v1/devices',
    {
      ...deviceRouteOptions,
      schema: {
        description: `Registers a device (an app install, a browser, a server-side user) or updates it: its push token, platform (ios, android, web), OS and version, app version, model, language, country, timezone. \`device_id\` is the app's own id for the install; when absent the server makes one and returns it (keep it: the other calls name the device by it). Fields left out keep their stored value.${keyNote}`,
        tags: devices,
        consumes,
        security,
        body: DeviceRegister,
        response: { 200: ok(DeviceRegistered), ...failures },
      },
    },
    async (request) => {
      const { applicationId, utcOffset } = applicationOfKey(request);
      const { device_id, ...device } = request.body;
      const deviceId = device_id ?? randomUUID();
      checkLimits(request, `${applicationId}:${deviceId}`);
      const s = request.server.services;
      const { subscribed: _permission, ...facts } = device;
      const before = await appSubscriptionBefore(s, applicationId, deviceId);
      const result = await store(request, { applicationId, utcOffset, deviceId, device: facts, items: [], seenAt: s.clock().toISOString() });
      const subscribed = await settleAppSubscription(s, applicationId, deviceId, before, device);
      return { success: true as const, data: { player_id: result.playerId, device_id: deviceId, created: result.created, subscribed } };
    },
  );

  app.post(
    '/v1/devices/:device_id/sessions',
    {
      ...deviceRouteOptions,
      schema: {
        description: `Records that a session started on the device (\`at\` in epoch milliseconds, or seconds when 10 digits or fewer; now when absent; the landing UTM and referrer when known): the session count, first and last session and the day's activity move. Give \`id\` to make retries safe; with no body at all, a session starting now. An unregistered device is NOT_FOUND.${keyNote}`,
        tags: devices,
        consumes,
        security,
        params: DeviceParams,
        body: DeviceSessionBody,
        response: { 200: ok(TrackAccepted), ...failures },
      },
    },
    async (request) => {
      const deviceId = request.params.device_id;
      const application = await registeredDevice(request, deviceId);
      const body = request.body ?? {};
      const id = body.id ?? randomUUID();
      const at = body.at ?? request.server.services.clock().getTime();
      const accepted = await deviceWrite(request, application, deviceId, [
        { type: 'session', id, at, session_id: body.session_id ?? id, utm: body.utm, referrer: body.referrer },
      ]);
      return { success: true as const, data: { accepted } };
    },
  );

  app.post(
    '/v1/devices/:device_id/events',
    {
      ...deviceRouteOptions,
      schema: {
        description: `Records up to 50 events of the device, each with the client's own \`id\` (a retry with the same ids stores nothing twice), a name, \`at\` (epoch milliseconds, or seconds when 10 digits or fewer; now when absent) and up to 50 scalar properties (names as event names; a name ending in \`.date\` takes an ISO 8601 date or time, a time without a zone being UTC, or an epoch time, and anything else is INVALID_PARAM naming it). An unregistered device is NOT_FOUND.${keyNote}`,
        tags: devices,
        consumes,
        security,
        params: DeviceParams,
        body: DeviceEventsBody,
        response: { 200: ok(TrackAccepted), ...failures },
      },
    },
    async (request) => {
      const deviceId = request.params.device_id;
      const application = await registeredDevice(request, deviceId);
      const now = request.server.services.clock().getTime();
      const accepted = await deviceWrite(
        request,
        application,
        deviceId,
        request.body.events.map((event) => ({ type: 'event', id: event.id, at: event.at ?? now, session_id: event.session_id, name: event.name, properties: event.properties })),
      );
      return { success: true as const, data: { accepted } };
    },
  );

  app.put(
    '/v1/devices/:device_id/attributes',
    {
      ...deviceRouteOptions,
      schema: {
        description: `Sets up to 50 attributes of the device's player (text, number, boolean; names ending in \`.date\` take an ISO 8601 date or time, a time without a zone being UTC, or epoch milliseconds, or seconds when 10 digits or fewer, and anything else is INVALID_PARAM naming it); null removes one. A name seen for the first time is defined with the type of its value; a later value sent as text that reads as the attribute's type (\`"42"\` for a number, \`"true"\` for a boolean) counts as one in segments. An unregistered device is NOT_FOUND.${keyNote}`,
        tags: devices,
        consumes,
        security,
        params: DeviceParams,
        body: DeviceAttributesBody,
        response: { 200: ok(TrackAccepted), ...failures },
      },
    },
    async (request) => {
      const deviceId = request.params.device_id;
      const application = await registeredDevice(request, deviceId);
      const at = request.server.services.clock().getTime();
      await deviceWrite(request, application, deviceId, [{ type: 'set', id: randomUUID(), at, attributes: request.body.attributes }]);
      return { success: true as const, data: { accepted: Object.keys(request.body.attributes).length } };
    },
  );

  app.put(
    '/v1/devices/:device_id/identity',
    {
      ...deviceRouteOptions,
      schema: {
        description: `Sets who the device belongs to: the app's own user id (\`external_user_id\`), email, mobile number, Facebook PSID. At least one; email and mobile number are checked (INVALID_PARAM naming the field). Fields left out keep their stored value. An unregistered device is NOT_FOUND.${keyNote}`,
        tags: devices,
        consumes,
        security,
        params: DeviceParams,
        body: DeviceIdentityBody,
        response: { 200: ok(TrackAccepted), ...failures },
      },
    },
    async (request) => {
      const deviceId = request.params.device_id;
      const application = await registeredDevice(request, deviceId);
      const at = request.server.services.clock().getTime();
      await deviceWrite(request, application, deviceId, [{ type: 'identify', id: randomUUID(), at, identity: request.body }]);
      return { success: true as const, data: { accepted: 1 } };
    },
  );
};
