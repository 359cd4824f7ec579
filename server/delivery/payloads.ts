import { withUtm, type NotificationContent, type URGENCIES } from '../../shared/contract';
import { MESSENGER_LIMITS, isHttps, type ApnsMessage, type FcmMessage, type MessengerCard, type MessengerMessage } from './senders';

/*
 * What each channel carries, built once per batch from the message's content. Every link goes out with the
 * message's UTM parameters. Push payloads name the message so the reports that come back find their row:
 * web push per delivery (`d_<delivery id>`, the service worker echoes it), apps per message (they report
 * through the device API with their own device id).
 */

export type Urgency = (typeof URGENCIES)[number];

/** What a batch knows besides the content. */
export interface PayloadContext {
  notificationId: number;
  content: NotificationContent;
  /** The application's public client key and this server's public URL: where the service worker reports. */
  clientKey: string;
  apiUrl: string;
  /** The web push platform's default icon. */
  iconUrl?: string | null;
  urgency: Urgency;
  /** Seconds the push services keep trying an offline device, counted from now. */
  ttlSeconds: number;
  /** UNIX seconds after which the message is pointless (APNs apns-expiration); null for none. */
  expiresAt: number | null;
}

/** The message id the service worker echoes in its reports: the delivery's id. */
export function webMessageId(deliveryId: number): string {
  return `d_${deliveryId}`;
}

/** The delivery id of a service-worker report's message id, or null when it names none. */
export function deliveryIdOf(messageId: string | undefined): number | null {
  const match = /^d_([1-9]\d{0,15})$/.exec(messageId ?? '');
  return match ? Number(match[1]) : null;
}

const link = (url: string | undefined, content: NotificationContent) => (url ? withUtm(url, content.utm) : undefined);

/** The additional data JSON object, or an empty one. */
export function additionalData(content: NotificationContent): Record<string, unknown> {
  if (!content.additional_data?.trim()) return {};
  try {
    const parsed = JSON.parse(content.additional_data);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function buttonsOf(content: NotificationContent) {
  return content.buttons.map((button) => ({
    action: button.action_id,
    title: button.button_text,
    ...(button.launch_url ? { url: link(button.launch_url, content) } : {}),
    ...(button.icon_url ? { icon: button.icon_url } : {}),
  }));
}

/**
 * The web push payload (the format storefront-widgets/sw.ts reads), as a function of the delivery id: the
 * JSON is built once and only the message id differs per recipient.
 */
export function webPushPayload(ctx: PayloadContext): (deliveryId: number) => string {
  const { content } = ctx;
  const data = additionalData(content);
  const body: Record<string, unknown> = {
    title: content.heading,
    body: content.content,
    ...(content.thumbnail_url || ctx.iconUrl ? { icon: content.thumbnail_url || ctx.iconUrl } : {}),
    ...(content.image_url ? { image: content.image_url } : {}),
    ...(content.target_url ? { url: link(content.target_url, content) } : {}),
    ...(content.buttons.length ? { buttons: buttonsOf(content) } : {}),
    ...(Object.keys(data).length ? { data } : {}),
    key: ctx.clientKey,
    api: ctx.apiUrl,
  };
  const head = JSON.stringify(body).slice(0, -1);
  return (deliveryId) => `${head},"message_id":"${webMessageId(deliveryId)}"}`;
}

/** FCM's reserved data keys (and prefixes) an app's additional data can't use. */
const FCM_RESERVED = /^(from|notification|message_type|collapse_key)$|^(google|gcm)/i;

/** The FCM HTTP v1 message for Android: notification, data (string values only), android TTL, priority, image. */
export function fcmMessage(ctx: PayloadContext): FcmMessage {
  const { content } = ctx;
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(additionalData(content))) {
    if (!FCM_RESERVED.test(key) && value !== undefined) data[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  data.notification_id = String(ctx.notificationId);
  if (content.target_url) data.url = link(content.target_url, content)!;
  if (content.thumbnail_url) data.thumbnail_url = content.thumbnail_url;
  if (content.buttons.length) data.buttons = JSON.stringify(buttonsOf(content));
  return {
    notification: { title: content.heading, body: content.content, ...(content.image_url ? { image: content.image_url } : {}) },
    data,
    android: {
      ttl: `${Math.max(0, Math.floor(ctx.ttlSeconds))}s`,
      priority: ctx.urgency === 'high' || ctx.urgency === 'normal' ? 'HIGH' : 'NORMAL',
      ...(content.image_url ? { notification: { image: content.image_url } } : {}),
    },
  };
}

/** The APNs notification: alert, mutable-content (so the app's extension can attach the image), expiry, priority. */
export function apnsMessage(ctx: PayloadContext): ApnsMessage {
  const { content } = ctx;
  const custom: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(additionalData(content))) if (key !== 'aps') custom[key] = value;
  return {
    payload: {
      ...custom,
      aps: { alert: { title: content.heading, body: content.content }, sound: 'default', 'mutable-content': 1 },
      notification_id: ctx.notificationId,
      ...(content.target_url ? { url: link(content.target_url, content) } : {}),
      ...(content.image_url ? { image_url: content.image_url } : {}),
      ...(content.thumbnail_url ? { thumbnail_url: content.thumbnail_url } : {}),
      ...(content.buttons.length ? { buttons: buttonsOf(content) } : {}),
    },
    pushType: 'alert',
    priority: ctx.urgency === 'high' || ctx.urgency === 'normal' ? 10 : 5,
    // 0 tells APNs to try once and not store it: the message had no time to live left.
    expiration: ctx.expiresAt ?? 0,
  };
}

/** The SMS text: the content, then the target link (with UTM) when there is one. */
export function smsText(content: NotificationContent): string {
  const url = link(content.target_url, content);
  return url ? `${content.content} ${url}` : content.content;
}

/** Messenger's limit on a text message. */
export const MESSENGER_TEXT_MAX = MESSENGER_LIMITS.text;

/** `text` cut to `max` characters with an ellipsis (never through an emoji's surrogate pair). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uDC00-\uDFFF]/.test(text[end])) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

/**
 * The Messenger message. One with more than text — a target link, an https image (the large one, else the
 * thumbnail), buttons with links — is a generic template card: title the heading (or, without one, the
 * start of the content, and no subtitle), subtitle the content, each cut to 80 characters; the image; a tap
 * opens the target link; up to 3 link buttons titled in 20 characters. Links carry the UTM as everywhere.
 * Plain text otherwise, and also when a link is not https (a card takes only https): the text carries every
 * link.
 */
export function messengerMessage(content: NotificationContent): MessengerMessage {
  const card = messengerCard(content);
  return card ? { card } : { text: messengerText(content) };
}

function messengerCard(content: NotificationContent): MessengerCard | null {
  const target = content.target_url || undefined;
  const linked = content.buttons.filter((button) => button.launch_url);
  const image = [content.image_url, content.thumbnail_url].find(isHttps);
  if (!target && !image && !linked.length) return null;
  if ((target && !isHttps(target)) || linked.some((button) => !isHttps(button.launch_url))) return null;
  const heading = content.heading.trim();
  const buttons = linked.slice(0, MESSENGER_LIMITS.buttons).map((button) => ({
    type: 'web_url' as const,
    url: link(button.launch_url, content)!,
    title: clip(button.button_text, MESSENGER_LIMITS.buttonTitle),
  }));
  return {
    title: clip(heading || content.content, MESSENGER_LIMITS.title),
    ...(heading ? { subtitle: clip(content.content, MESSENGER_LIMITS.subtitle) } : {}),
    ...(image ? { image_url: image } : {}),
    ...(target ? { default_action: { type: 'web_url' as const, url: link(target, content)! } } : {}),
    ...(buttons.length ? { buttons } : {}),
  };
}

/**
 * The Messenger text: heading, content, the target link and each button's link (Messenger shows links as
 * previews), cut to Messenger's 2,000 characters by shortening the content, never a link.
 */
function messengerText(content: NotificationContent): string {
  const links = [
    link(content.target_url, content),
    ...content.buttons.filter((button) => button.launch_url).map((button) => `${button.button_text}: ${link(button.launch_url, content)}`),
  ].filter((line): line is string => Boolean(line));
  const tail = links.length ? `\n\n${links.join('\n')}` : '';
  const head = content.heading ? `${content.heading}\n\n` : '';
  const room = MESSENGER_TEXT_MAX - head.length - tail.length;
  const body = content.content.length <= room ? content.content : `${content.content.slice(0, Math.max(0, room - 1))}…`;
  return `${head}${body}${tail}`.slice(0, MESSENGER_TEXT_MAX);
}
