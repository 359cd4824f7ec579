import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ApplicationParams,
  Empty,
  Notification,
  NotificationInput,
  NotificationListQuery,
  NotificationParams,
  NotificationReport,
  ok,
  page,
} from '../../shared/contract';
import { notificationReport } from '../domain/deliveries';
import {
  changeNotificationStatus,
  createNotification,
  deleteNotification,
  getNotification,
  listNotifications,
  updateNotification,
  type NotificationAction,
} from '../domain/notifications';
import { applicationOf, ctxOf, principalOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['notifications'];
/** Spec §6: super users, managers, users and viewers; a viewer reads only. */
const config = { area: 'notifications' } as const;

const rules =
  "Checked on create, update and send (spec §5): the type's platform must be configured and active (INVALID_PARAM naming it, field `type`); the content's per-type rules (web and mobile push need a heading, an SMS fits 640 characters); no more buttons than the plan allows (PLAN_LIMIT); the segment, template and campaign must be this application's; an `at` moment more than a minute in the past, or a `local_time` already past in every timezone, is refused.";

const statuses =
  'Statuses: new (draft) → waiting (due at send_at) → running → executed → opened; new and waiting can be canceled; waiting can go back to new. A change the status does not allow, or that another request made first, is CONFLICT.';

/** The console's messages: list, create, edit, send, cancel, back to draft, delete, and the detail's report. */
export const notificationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/notification',
    {
      config,
      schema: {
        description: 'Messages, newest first, filtered by status (or all), source (dashboard, api), type, campaign and a name search (`q`), with their counters.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: NotificationListQuery,
        response: { 200: ok(page(Notification)), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listNotifications(ctxOf(request), applicationOf(request), request.query) }),
  );

  app.post(
    '/application/:application_id/notification',
    {
      config,
      schema: {
        description: `Creates a message from the console: a draft (status new) with \`draft: true\`, else waiting, due at its schedule (send_at; for local_time the moment the first timezone, UTC+14, reaches it). Nothing is sent here: the delivery engine starts due messages. ${rules}`,
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: NotificationInput,
        response: { 200: ok(Notification), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await createNotification(ctxOf(request), applicationOf(request), principalOf(request).userId, request.body),
    }),
  );

  app.get(
    '/application/:application_id/notification/:notification_id',
    {
      config,
      schema: {
        description: 'One message with its content, audience, schedule, status and counters.',
        tags,
        security: signedIn,
        params: NotificationParams,
        response: { 200: ok(Notification), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getNotification(ctxOf(request), applicationOf(request), request.params.notification_id) }),
  );

  app.put(
    '/application/:application_id/notification/:notification_id',
    {
      config,
      schema: {
        description: `Replaces a draft or a scheduled message that has not started (otherwise CONFLICT). \`draft\` decides whether it stays or becomes a draft (new) or is due at its schedule (waiting). ${rules}`,
        tags,
        security: signedIn,
        params: NotificationParams,
        body: NotificationInput,
        response: { 200: ok(Notification), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateNotification(ctxOf(request), applicationOf(request), request.params.notification_id, request.body),
    }),
  );

  const actions: { action: NotificationAction; description: string }[] = [
    { action: 'send', description: `Sends a draft: new → waiting, due at its schedule, after the same checks as a create. ${statuses}` },
    { action: 'cancel', description: `Cancels a draft or a scheduled message that has not started: new or waiting → canceled. A running message can't be canceled. ${statuses}` },
    { action: 'draft', description: `Takes a scheduled message that has not started back to draft: waiting → new. ${statuses}` },
  ];
  for (const { action, description } of actions) {
    app.post(
      `/application/:application_id/notification/:notification_id/${action}`,
      {
        config,
        schema: { description, tags, security: signedIn, params: NotificationParams, response: { 200: ok(Notification), ...failures } },
      },
      async (request) => ({
        success: true as const,
        data: await changeNotificationStatus(ctxOf(request), applicationOf(request), request.params.notification_id, action),
      }),
    );
  }

  app.delete(
    '/application/:application_id/notification/:notification_id',
    {
      config,
      schema: {
        description: 'Deletes a draft or a canceled message with its delivery records; any other status is CONFLICT.',
        tags,
        security: signedIn,
        params: NotificationParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await deleteNotification(ctxOf(request), applicationOf(request), request.params.notification_id);
      return { success: true as const, data: {} };
    },
  );

  app.get(
    '/application/:application_id/notification/:notification_id/report',
    {
      config,
      schema: {
        description:
          "A message's numbers for its detail page: its counters and click-through rate, the same per platform, failures by reason, and sent/delivered/clicked per hour of the application's timezone (`utc_offset`) from the first (up to 31 days).",
        tags,
        security: signedIn,
        params: NotificationParams,
        response: { 200: ok(NotificationReport), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await notificationReport(ctxOf(request), applicationOf(request), request.params.notification_id) }),
  );
};
