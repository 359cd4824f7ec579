import type { z } from 'zod';
import type { FieldError } from '../../shared/contract';

/** A form's problems by field: each value is an i18n key (shared/validation) or an already translated text. */
export type FieldErrors = Partial<Record<string, string>>;

/** The first problem of each field of a failed zod check. */
export function zodFieldErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? '');
    if (field && !errors[field]) errors[field] = issue.message;
  }
  return errors;
}

/** The server's `fields` of an INVALID_PARAM answer, by field. */
export function apiFieldErrors(fields: readonly FieldError[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const { path, message } of fields) {
    const field = path.split('.')[0];
    if (field && !errors[field]) errors[field] = message;
  }
  return errors;
}
