import { z } from 'zod';
import { V } from '../validation';

/** The message of a value of the wrong kind, by the kind zod expected (an integer is zod's `int`). */
const EXPECTED_KIND = {
  number: V.expectedNumber,
  int: V.expectedInteger,
  string: V.expectedText,
  boolean: V.expectedBoolean,
  array: V.expectedList,
  object: V.expectedObject,
  record: V.expectedObject,
} as const;

/**
 * Every message of the contract is an i18n key. Checks that name their own key keep it; zod's built-in
 * English (a missing field, a wrong type, a bound without a message) maps to these keys instead, so no
 * untranslated text reaches a form or an API answer.
 */
z.config({
  customError: (issue) => {
    // Fastify hands a request without a body to the schema as null: that is a missing value too.
    if (issue.code === 'invalid_type' && (issue.input === undefined || issue.input === null)) return V.required;
    // A value of another kind than the field takes (text for a number, an object for a list): say which it takes.
    if (issue.code === 'invalid_type' && issue.expected in EXPECTED_KIND) return EXPECTED_KIND[issue.expected as keyof typeof EXPECTED_KIND];
    if (issue.code === 'too_small' && issue.origin === 'string') {
      return Number(issue.minimum) <= 1 ? V.required : V.tooShort;
    }
    if (issue.code === 'too_big' && issue.origin === 'string') return V.tooLong;
    if (issue.code === 'too_small' || issue.code === 'too_big') return V.outOfRange;
    return V.invalid;
  },
});

/** Stable error codes of the API envelope. The console translates them through `errors.<CODE>`. */
export const ErrorCode = z.enum([
  'NOT_AUTHORIZED',
  'INVALID_PARAM',
  'NO_PERMISSION',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'APPLICATION_DELETING',
  'PLAN_LIMIT',
  'OTP_REQUIRED',
  'OTP_INVALID',
  'EMAIL_NOT_VERIFIED',
  'LINK_INVALID',
  'RATE_LIMITED',
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** One field's problem: the path of the field and the i18n key of its message. */
export const FieldError = z.object({ path: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** The failure envelope: `message` is already translated into the request's language. */
export const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: ErrorCode,
  message: z.string(),
  fields: z.array(FieldError).optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** The success envelope around a call's data. */
export function ok<T extends z.ZodTypeAny>(data: T) {
  return z.object({ success: z.literal(true), data, message: z.string().optional() });
}

/** The largest page a list gives (`limit`). */
export const PAGE_LIMIT_MAX = 100;

/** Paging query shared by every list. */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(20),
});
export type PageQuery = z.infer<typeof PageQuery>;

export function page<T extends z.ZodTypeAny>(item: T) {
  return z.object({ items: z.array(item), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
}

/** Timestamps travel as ISO 8601 strings. */
export const Timestamp = z.string();

export const Empty = z.object({});
