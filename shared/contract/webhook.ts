import { z } from 'zod';
import { PAYLOAD_URL_MAX_LENGTH, V, isPayloadUrl } from '../validation';
import { ApplicationParams } from './application';
import { TAG_MAX_LENGTH, Tag } from './audience';
import { Timestamp } from './common';

/**
 * Outbound webhooks (spec §2 /webhook, §3 "Webhook", §5 "Payload URL must be valid", §6 super users only).
 * Every request is signed the Standard Webhooks way (standardwebhooks.com): `webhook-id`, `webhook-timestamp`
 * and `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` under the webhook's `whsec_`
 * secret, and retried on the schedule below until the receiver answers 2xx.
 */

/** Spec §3: delivery failure, delivery started, delivery completed, message with tag limit, new lead. */
export const WEBHOOK_EVENT_TYPES = ['delivery_failure', 'delivery_started', 'delivery_completed', 'message_with_tag', 'new_lead'] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** What a message may carry: a subscribed event, or the "send test event" action's `test`. */
export const WEBHOOK_MESSAGE_TYPES = [...WEBHOOK_EVENT_TYPES, 'test'] as const;
export const WebhookMessageType = z.enum(WEBHOOK_MESSAGE_TYPES);
export type WebhookMessageType = z.infer<typeof WebhookMessageType>;

export const WEBHOOK_STATUSES = ['active', 'disabled'] as const;
export const WebhookStatus = z.enum(WEBHOOK_STATUSES);
export type WebhookStatus = z.infer<typeof WebhookStatus>;

/**
 * Why a webhook is off: switched off by a member (`manual`), failing without a success for 24 hours
 * (`failing`), several messages in a row failed for good (`consecutive_failures`), or the receiver answered
 * 410 Gone (`gone`).
 */
export const WEBHOOK_DISABLED_REASONS = ['manual', 'failing', 'consecutive_failures', 'gone'] as const;
export const WebhookDisabledReason = z.enum(WEBHOOK_DISABLED_REASONS);
export type WebhookDisabledReason = z.infer<typeof WebhookDisabledReason>;

/** Why an attempt got no answer; an attempt that got one carries its status code instead. */
export const WEBHOOK_ATTEMPT_ERRORS = ['timeout', 'connection', 'dns', 'address_not_allowed'] as const;
export const WebhookAttemptError = z.enum(WEBHOOK_ATTEMPT_ERRORS);
export type WebhookAttemptError = z.infer<typeof WebhookAttemptError>;

/** After an attempt: the message arrived, will be tried again, or was given up. */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['delivered', 'retrying', 'failed'] as const;
export const WebhookAttemptOutcome = z.enum(WEBHOOK_ATTEMPT_OUTCOMES);
export type WebhookAttemptOutcome = z.infer<typeof WebhookAttemptOutcome>;

/** Webhooks an application may have. */
export const WEBHOOK_MAX_PER_APPLICATION = 20;

/**
 * Delays before each attempt, in milliseconds: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (Standard
 * Webhooks' suggestion, cut at eight attempts, about 28 hours). Each delay gets up to 10 % random jitter.
 */
export const WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  10 * 3600_000,
];
/** A receiver gets this long to answer an attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** A webhook without a success for this long is disabled. */
export const WEBHOOK_FAILING_DISABLE_MS = 24 * 3600_000;
/** A webhook whose messages failed for good this many times in a row is disabled. */
export const WEBHOOK_CONSECUTIVE_FAILURES_DISABLE = 5;

/** Spec §5, §8 'Invalid Payload URL': http or https, a host, no credentials, at most 2000 characters. */
export const PayloadUrl = z
  .string()
  .trim()
  .min(1, { message: V.required })
  .max(PAYLOAD_URL_MAX_LENGTH, { message: V.tooLong })
  .refine((value) => isPayloadUrl(value), { message: V.payloadUrl });

/**
 * POST /application/{id}/webhook and PUT …/webhook/{webhook_id}. `tag` is required (spec §8 'Invalid tag
 * value') when `message_with_tag` is chosen, and ignored otherwise. `active: false` switches the webhook off;
 * `true` switches a disabled one back on.
 */
export const WebhookInput = z
  .object({
    url: PayloadUrl,
    event_types: z
      .array(WebhookEventType)
      .min(1, { message: V.eventTypes })
      .max(WEBHOOK_EVENT_TYPES.length, { message: V.outOfRange }),
    tag: z.string().trim().max(TAG_MAX_LENGTH, { message: V.tooLong }).nullable().default(null),
    active: z.boolean().default(true),
  })
  .superRefine((value, ctx) => {
    if (!value.event_types.includes('message_with_tag')) return;
    if (!value.tag) ctx.addIssue({ code: 'custom', path: ['tag'], message: V.required });
    else if (!Tag.safeParse(value.tag).success) ctx.addIssue({ code: 'custom', path: ['tag'], message: V.tag });
  });
export type WebhookInput = z.infer<typeof WebhookInput>;
export type WebhookInputDraft = z.input<typeof WebhookInput>;

/** The last attempt made to a webhook, for the list. */
export const WebhookLastAttempt = z.object({
  at: Timestamp,
  /** True when the receiver answered 2xx. */
  ok: z.boolean(),
  status_code: z.number().int().nullable(),
  error: WebhookAttemptError.nullable(),
});
export type WebhookLastAttempt = z.infer<typeof WebhookLastAttempt>;

/** A webhook as the console reads it. The signing secret only ever shows as a hint here. */
export const Webhook = z.object({
  id: z.number().int(),
  url: z.string(),
  event_types: z.array(WebhookEventType),
  tag: z.string().nullable(),
  status: WebhookStatus,
  disabled_reason: WebhookDisabledReason.nullable(),
  disabled_at: Timestamp.nullable(),
  /** `whsec_…` and the secret's last four characters. */
  secret_hint: z.string(),
  /** Messages in a row that failed for good since the last success. */
  consecutive_failures: z.number().int(),
  /** The first failed attempt since the last success; null while all is well. */
  failing_since: Timestamp.nullable(),
  last_attempt: WebhookLastAttempt.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;

/** The answer of create and rotate: the whole signing secret, shown this once. */
export const WebhookWithSecret = Webhook.extend({ signing_secret: z.string() });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

export const WebhookParams = ApplicationParams.extend({ webhook_id: z.coerce.number().int().positive() });

/** One attempt to deliver one message: the log of GET …/webhook/{webhook_id}/attempts and the test's answer. */
export const WebhookAttempt = z.object({
  id: z.number().int(),
  /** The message's `webhook-id`: the same on every attempt of one message. */
  msg_id: z.string(),
  event_type: WebhookMessageType,
  /** 1 for the first try. */
  attempt: z.number().int(),
  /** The receiver's status code; null when no answer came. */
  status_code: z.number().int().nullable(),
  error: WebhookAttemptError.nullable(),
  duration_ms: z.number().int(),
  outcome: WebhookAttemptOutcome,
  /** When the message is tried again (outcome `retrying`). */
  next_attempt_at: Timestamp.nullable(),
  created_at: Timestamp,
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

/** The JSON body every webhook request carries (Standard Webhooks' `type`, `timestamp`, `data`). */
export const WebhookPayload = z.object({
  type: WebhookMessageType,
  /** When the event happened, not when this attempt was made. */
  timestamp: Timestamp,
  application_id: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;
