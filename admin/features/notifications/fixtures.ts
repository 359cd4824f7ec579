import { vi } from 'vitest';
import type { Notification, NotificationReport } from '../../../shared/contract';
import { answer } from '../../test-utils';
import { application } from '../players/fixtures';

/** Test data of the messaging screens, as the API sends it, and a fake API that records every call. */

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
};

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export type Handler = (call: Call) => unknown;

/**
 * Stubs fetch with handlers by "METHOD /api/path" (a handler returns the `data`, or a Response for a
 * refusal); the application itself answers with `app`. Unknown calls answer NOT_FOUND. Returns the calls made.
 */
export function fakeApi(handlers: Record<string, Handler>, app: object = webApplication): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const parsed = new URL(url);
      const call: Call = {
        method: init.method ?? 'GET',
        path: parsed.pathname,
        query: parsed.searchParams,
        body: init.body ? JSON.parse(String(init.body)) : undefined,
      };
      calls.push(call);
      if (call.method === 'GET' && call.path === '/api/application/shop_one') return answer({ success: true, data: app });
      const handler = handlers[`${call.method} ${call.path}`];
      if (!handler) return answer({ success: false, error: 'NOT_FOUND', message: 'Not found.' }, 404);
      const data = handler(call);
      return data instanceof Response ? data : answer({ success: true, data });
    }),
  );
  return calls;
}

/** A page of items as the list routes answer. */
export const pageOf = <T>(items: T[], total = items.length) => ({ items, total, page: 1, limit: 20 });
