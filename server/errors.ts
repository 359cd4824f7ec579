import type { ErrorCode, FieldError } from '../shared/contract';

/**
 * HTTP status of each error code. Only NOT_AUTHORIZED is 401, because the console signs out on it; a login
 * that needs its emailed code is not a lost session.
 */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  NOT_AUTHORIZED: 401,
  INVALID_PARAM: 400,
  NO_PERMISSION: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  APPLICATION_DELETING: 409,
  PLAN_LIMIT: 403,
  OTP_REQUIRED: 400,
  OTP_INVALID: 400,
  EMAIL_NOT_VERIFIED: 403,
  LINK_INVALID: 400,
  RATE_LIMITED: 429,
  INTERNAL: 500,
};

/** An expected failure: it becomes the `{ success:false, error, message, fields? }` envelope. */
export class AppError extends Error {
  readonly code: ErrorCode;
  /** i18n key of the message; `errors.<code>` unless a more precise one applies. */
  readonly key: string;
  readonly params: Record<string, string | number>;
  /** Field problems; their messages are i18n keys too. */
  readonly fields?: FieldError[];
  readonly statusCode: number;
  /** How long the client should wait before trying again, sent as Retry-After. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ErrorCode,
    key: string = `errors.${code}`,
    options: { params?: Record<string, string | number>; fields?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(`${code}: ${key}`);
    this.name = 'AppError';
    this.code = code;
    this.key = key;
    this.params = options.params ?? {};
    this.fields = options.fields;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.statusCode = ERROR_STATUS[code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** The kinds of thing an API path names by its id (i18n `errors.noSuch.<kind>`). */
export type NamedThing = 'player' | 'segment' | 'template' | 'campaign' | 'widget' | 'attribute' | 'message' | 'event' | 'tag';

/**
 * NOT_FOUND saying what was asked for and that the caller's application has none: "There is no segment 42 in this
 * application." (an id of another application is answered the same, so it says nothing of that one). `more` fills
 * the message's other blanks ("Player 7 has no tag {tag}").
 */
export const noSuch = (kind: NamedThing, id: string | number, more: Record<string, string> = {}): AppError =>
  new AppError('NOT_FOUND', `errors.noSuch.${kind}`, { params: { ...more, id } });
