import type { Notification, NotificationReport } from '../../../shared/contract';
import { application } from '../players/fixtures';

/** Test data of the messaging screens, as the API sends it. */

export const webApplication = { ...application, platforms: ['web'] };

export function message(fields: Partial<Notification> = {}): Notification {
  return {
    id: 12,
    application_id: 'shop_one',
    type: 'web_push',
    name: '',
    content: {
      heading: 'Tết sale',
      content: 'Everything 30% off until Sunday',
      target_url: 'https://shop.example.vn/sale',
      buttons: [],
      utm: {},
    },
    audience: { segment_id: null, filters: null, tags: [] },
    schedule: { mode: 'now' },
    ttl_seconds: 259_200,
    promotional: false,
    urgency: 'normal',
    tags: [],
    template_id: null,
    campaign_id: null,
    status: 'executed',
    source: 'dashboard',
    stats: { targeted: 1200, sent: 1150, delivered: 1000, failed: 50, clicked: 120 },
    send_at: '2025-03-01T08:00:00.000Z',
    started_at: '2025-03-01T08:00:01.000Z',
    finished_at: '2025-03-01T08:02:00.000Z',
    created_by: null,
    created_at: '2025-03-01T07:50:00.000Z',
    updated_at: '2025-03-01T08:02:00.000Z',
    audience_segment: null,
    ...fields,
  };
}

export const report: NotificationReport = {
  stats: { targeted: 1200, sent: 1150, delivered: 1000, failed: 50, clicked: 120 },
  ctr: 12,
  by_platform: [
    { platform: 'web', stats: { targeted: 1000, sent: 960, delivered: 850, failed: 40, clicked: 100 } },
    { platform: 'android', stats: { targeted: 200, sent: 190, delivered: 150, failed: 10, clicked: 20 } },
  ],
  failures: [
    { reason: 'unsubscribed', count: 45 },
    { reason: 'expired', count: 5 },
  ],
  timeline: [
    { at: '2025-03-01T08:00:00.000Z', sent: 1100, delivered: 900, clicked: 80 },
    { at: '2025-03-01T09:00:00.000Z', sent: 50, delivered: 100, clicked: 40 },
  ],
  utc_offset: 420,
};
