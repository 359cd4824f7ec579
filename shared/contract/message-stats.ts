import { z } from 'zod';
import { ApplicationParams } from './application';
import { Timestamp } from './common';
import { DeliveryPlatform, NotificationStats, NotificationStatus, NotificationType } from './messaging';

/**
 * The dashboard's message statistics (GET /application/{id}/dashboard/messages): what the application's
 * messages did over the last 7, 30 or 90 UTC days, today included.
 */

export const MESSAGE_STATS_PERIODS = [7, 30, 90] as const;
export type MessageStatsPeriod = (typeof MESSAGE_STATS_PERIODS)[number];
export const MESSAGE_STATS_DEFAULT_PERIOD: MessageStatsPeriod = 30;
export const MESSAGE_STATS_TOP = 5;

export const MessageStatsQuery = z.object({
  days: z.enum(['7', '30', '90']).default('30'),
});
export const MessageStatsParams = ApplicationParams;

/** Recipients per UTC day: sent, delivered and clicked each count on the day it happened. */
export const MessageStatsDay = z.object({
  day: z.string(),
  sent: z.number().int(),
  delivered: z.number().int(),
  clicked: z.number().int(),
});
export type MessageStatsDay = z.infer<typeof MessageStatsDay>;

/** One channel's totals over the period (failed: deliveries of the period that failed). */
export const MessageStatsChannel = z.object({
  platform: DeliveryPlatform,
  sent: z.number().int(),
  delivered: z.number().int(),
  clicked: z.number().int(),
  failed: z.number().int(),
});
export type MessageStatsChannel = z.infer<typeof MessageStatsChannel>;

/** A message due in the period, with its counters and click-through rate. */
export const TopMessage = z.object({
  id: z.number().int(),
  /** Its name, else its heading, else the start of its content (messageTitle). */
  title: z.string(),
  type: NotificationType,
  status: NotificationStatus,
  send_at: Timestamp.nullable(),
  stats: NotificationStats,
  ctr: z.number(),
});
export type TopMessage = z.infer<typeof TopMessage>;

export const MessageStats = z.object({
  from: z.string(),
  to: z.string(),
  /** The application's timezone (minutes east of UTC), whose days these are. */
  utc_offset: z.number().int(),
  totals: z.object({
    sent: z.number().int(),
    delivered: z.number().int(),
    clicked: z.number().int(),
    failed: z.number().int(),
    /** Clicked over delivered (or sent, when no delivery was reported), in percent. */
    ctr: z.number(),
  }),
  /** Every day of the period, zeros included. */
  days: z.array(MessageStatsDay),
  /** Every delivery platform, in DeliveryPlatform order, zeros included. */
  by_channel: z.array(MessageStatsChannel),
  /** At most MESSAGE_STATS_TOP messages due in the period, most clicked first. */
  top_messages: z.array(TopMessage),
});
export type MessageStats = z.infer<typeof MessageStats>;

const TITLE_MAX = 80;

/** The name a message is listed by: its name, else its heading, else the start of its content. */
export function messageTitle(message: { name: string; content: { heading?: string; content: string } }): string {
  const text = message.name.trim() || message.content.heading?.trim() || message.content.content.trim();
  return text.length > TITLE_MAX ? `${text.slice(0, TITLE_MAX - 1)}…` : text;
}
