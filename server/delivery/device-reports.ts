import type { DeviceNotificationReport } from '../../shared/contract';
import type { Services } from '../context';
import { AppError } from '../errors';
import type { KeyApplication } from '../domain/ingest';
import { recordPushEvent } from '../domain/push-subscriptions';
import { recordDeliveryReport } from './reports';

/**
 * POST /api/v1/devices/{device_id}/notifications/{notification_id}/report: an app's push was shown or opened
 * on the device. Moves the device's delivery of that message forward (counted once, server/delivery/reports.ts)
 * and records the `$push_delivered` / `$push_clicked` event, as the service worker's reports do. NOT_FOUND for
 * a device the application doesn't know or a message that wasn't sent to it.
 */
export async function reportDeviceNotification(
  s: Services,
  { applicationId, utcOffset }: KeyApplication,
  deviceId: string,
  notificationId: number,
  body: DeviceNotificationReport,
): Promise<void> {
  const player = await s.db
    .selectFrom('players')
    .select('id')
    .where('application_id', '=', applicationId)
    .where('device_id', '=', deviceId)
    .executeTakeFirst();
  if (!player) throw new AppError('NOT_FOUND', 'ingest.deviceNotRegistered');
  const delivery = await s.db
    .selectFrom('deliveries')
    .select('id')
    .where('notification_id', '=', notificationId)
    .where('player_id', '=', player.id)
    .where('application_id', '=', applicationId)
    .executeTakeFirst();
  if (!delivery) throw new AppError('NOT_FOUND');
  await recordDeliveryReport(s, Number(delivery.id), body.kind);
  await recordPushEvent(s, {
    applicationId,
    utcOffset,
    deviceId,
    playerId: Number(player.id),
    kind: body.kind,
    messageId: `n_${notificationId}`,
    notificationId,
    action: body.action,
  });
}
