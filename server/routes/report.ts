import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DeviceNotificationParams, DeviceNotificationReport, Empty, ok } from '../../shared/contract';
import { reportDeviceNotification } from '../delivery/device-reports';
import { failures } from './common';
import { applicationOfKey, checkLimits, deviceRouteOptions } from './track';

/**
 * What apps report about the pushes they get (the service worker's reports come through /api/sdk/push/report):
 * part of the REST device API, with its key, limits and quiet logging (see server/routes/track.ts).
 */
export const reportRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/devices/:device_id/notifications/:notification_id/report',
    {
      ...deviceRouteOptions,
      schema: {
        description:
          'The app showed (`delivered`) or opened (`clicked`, with the button’s `action` id) the push of message `notification_id` on the device: the message’s statistics move (a click counts as delivered too; each recipient counts once, repeats change nothing) and the device’s `$push_delivered` / `$push_clicked` event is recorded. The push’s `data.notification_id` (FCM) or `notification_id` (APNs) names the message. NOT_FOUND for an unregistered device or a message not sent to it. Authenticated by `Authorization: Key <client_key>`: the application’s public client key.',
        tags: ['devices'],
        security: [{ clientKey: [] }],
        params: DeviceNotificationParams,
        body: DeviceNotificationReport,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      const application = applicationOfKey(request);
      const { device_id: deviceId, notification_id: notificationId } = request.params;
      checkLimits(request, `${application.applicationId}:${deviceId}`);
      await reportDeviceNotification(request.server.services, application, deviceId, notificationId, request.body);
      return { success: true as const, data: {} };
    },
  );
};
