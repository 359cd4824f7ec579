import { isMobileNumber } from '../../../shared/validation';

/** What is wrong with a field, as a key of the widgets' strings. */
export type Problem = 'required' | 'email' | 'phone';

/**
 * Checks a visitor's input before it leaves the page. Phone numbers follow the shared rule; email gets
 * a light check (something@something.tld) that catches typos in a fraction of the shared rule's bytes.
 * The server applies the full rules, and what it refuses comes back as a field error shown the same way.
 */
export function checkField(field: string, value: string, required: boolean): Problem | undefined {
  const v = value.trim();
  if (!v) return required ? 'required' : undefined;
  if (field === 'email' && !/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(v)) return 'email';
  if (field === 'phone' && !isMobileNumber(v)) return 'phone';
  return undefined;
}

/**
 * What to show for a field the server refused: its rule's message in the visitor's language when the
 * server names a validation rule (`validation.email`), or the server's own sentence (already in the
 * visitor's language, from Accept-Language) for anything else, such as "this email has already spun".
 */
export function fieldMessage(message: string, strings: Record<Problem, string>): string {
  if (!/^validation\./.test(message)) return message;
  return strings[/email/i.test(message) ? 'email' : /mobile|phone/i.test(message) ? 'phone' : 'required'];
}
