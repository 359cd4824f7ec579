import type { ErrorCode, FieldError } from '../../shared/contract';

/** Failures the client detects itself, beside the server's error codes. */
export type ClientErrorCode = 'NETWORK' | 'TIMEOUT' | 'HTTP' | 'BAD_ANSWER';

/** A failed call: the server's `{ error, message, fields }`, or what went wrong on the way. */
export class ApiError extends Error {
  /** The server's stable code, or the client's own for transport failures. */
  readonly code: ErrorCode | ClientErrorCode;
  /** HTTP status, when an answer came. */
  readonly status: number | undefined;
  /** Per-field problems; each message is an i18n key or an already translated text. */
  readonly fields: FieldError[];

  constructor(code: ErrorCode | ClientErrorCode, message: string, status?: number, fields: FieldError[] = []) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.fields = fields;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
