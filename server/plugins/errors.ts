import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorCode, ErrorEnvelope, FieldError } from '../../shared/contract';
import { translate } from '../../shared/i18n';
import { AppError, ERROR_STATUS, isAppError } from '../errors';
import { V } from '../../shared/validation';

/** Our own messages are i18n keys; zod's built-in ones are English sentences, so they map onto keys here. */
function messageKey(code: string, message: string, params: Record<string, unknown>): string {
  if (/^(validation|errors)\.[\w.]+$/.test(message)) return message;
  // A contract check's key of another namespace (webPush.swPathInvalid, platform.errors.p8Shape) is a key too.
  if (/^[A-Za-z]\w*(\.\w+)+$/.test(message) && translate('en', message) !== message) return message;
  if (code === 'invalid_type' && / (undefined|null)$/.test(message)) return V.required;
  if (code === 'too_small' && params.origin === 'string' && params.minimum === 1) return V.required;
  if (code === 'too_big') return V.tooLong;
  return 'errors.invalidValue';
}

/** A field's problem as an i18n key, with the values its text names. */
interface KeyedField extends FieldError {
  params?: Record<string, string>;
}

/**
 * An enum or a literal (zod says the same when the value is left out), or a discriminated union's tag (a message's
 * `type`), that is none of its choices: instead of the contract's plain "not valid", the API's caller is told the
 * choices. The console offers those values in selects, so only a hand-made request meets this.
 */
function keyed(code: string, message: string, params: Record<string, unknown>): Omit<KeyedField, 'path'> {
  const choices = code === 'invalid_value' ? params.values : code === 'invalid_union' ? params.options : undefined;
  const key = messageKey(code, message, params);
  if (Array.isArray(choices) && choices.length > 0 && (key === V.invalid || key === 'errors.invalidValue')) {
    return { message: 'validation.oneOf', params: { values: choices.map(String).join(', ') } };
  }
  // A number past an inclusive bound (a page of 0, a limit of 1,000): the bound, instead of "out of range".
  if (key === V.outOfRange && params.origin === 'number' && params.inclusive === true) {
    if (code === 'too_small' && typeof params.minimum === 'number') return { message: V.atLeast, params: { min: String(params.minimum) } };
    if (code === 'too_big' && typeof params.maximum === 'number') return { message: V.atMost, params: { max: String(params.maximum) } };
  }
  return { message: key };
}

interface Issue {
  code?: string;
  keyword?: string;
  path?: (string | number)[];
  message: string;
  errors?: Issue[][];
  [key: string]: unknown;
}

function collect(out: KeyedField[], path: (string | number)[], code: string, message: string, params: Issue): void {
  if (code === 'invalid_union' && Array.isArray(params.errors) && params.errors.length > 0) {
    // Report the alternative the input came closest to (fewest problems), not "invalid input".
    const closest = params.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
    for (const issue of closest) collect(out, [...path, ...(issue.path ?? [])], issue.code ?? '', issue.message, issue);
    return;
  }
  const keyIssues = params.issues;
  if (code === 'invalid_key' && Array.isArray(keyIssues) && keyIssues.length > 0) {
    // A record's key (an attribute's name) that breaks its rule: that rule's message, not "invalid key".
    const [first] = keyIssues as Issue[];
    // An empty name has no path of its own to be "required" at: say what is empty.
    const message = messageKey(first.code ?? '', first.message, first) === V.required ? V.nameEmpty : first.message;
    collect(out, path, first.code ?? '', message, first);
    return;
  }
  out.push({ path: path.join('.'), ...keyed(code, message, params) });
}

/**
 * The field problems of a request that failed its zod schema, with i18n keys as messages: the first one of each
 * field, as the console's forms show it (an empty name is "required", not also "use letters a–z…").
 */
export function validationFields(error: FastifyError): KeyedField[] {
  const out: KeyedField[] = [];
  for (const item of error.validation ?? []) {
    const path = item.instancePath.split('/').filter(Boolean);
    collect(out, path, item.keyword, item.message ?? '', { ...(item.params as Record<string, unknown>), message: item.message ?? '' });
  }
  return out.filter((field, index) => out.findIndex((other) => other.path === field.path) === index);
}

function envelope(request: FastifyRequest, code: ErrorCode, key: string, params?: Record<string, string | number>, fields?: KeyedField[]): ErrorEnvelope {
  const body: ErrorEnvelope = { success: false, error: code, message: translate(request.lang, key, params) };
  if (fields && fields.length > 0) {
    body.fields = fields.map((field) => ({ path: field.path, message: translate(request.lang, field.message, field.params) }));
  }
  return body;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) {
    // Exposed to scripts of other origins too: the storefront SDK posts from the shop's pages and waits as told.
    reply.header('retry-after', String(error.retryAfterSeconds)).header('access-control-expose-headers', 'retry-after');
  }
  return reply.status(error.statusCode).send(envelope(request, error.code, error.key, error.params, error.fields));
}

/** What is wrong with a body Fastify could not read, said to the API's caller (the console never sends one). */
const BODY_PROBLEMS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'errors.bodyNotJson',
  FST_ERR_CTP_BODY_TOO_LARGE: 'errors.bodyTooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'errors.bodyMediaType',
};

/**
 * Every failure answers the envelope. Validation problems become INVALID_PARAM with their fields; anything
 * unexpected becomes INTERNAL, with its details in the log (with the request id) and never in the answer.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isAppError(error)) return sendError(request, reply, error);

    if (hasZodFastifySchemaValidationErrors(error)) {
      const fields = validationFields(error);
      return reply.status(400).send(envelope(request, 'INVALID_PARAM', fields[0]?.message ?? 'errors.INVALID_PARAM', fields[0]?.params, fields));
    }

    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      // Malformed JSON, wrong content type, body too large: the client's fault, said plainly.
      request.log.info({ code: error.code, message: error.message }, 'request rejected');
      const code: ErrorCode = status === 404 ? 'NOT_FOUND' : status === 429 ? 'RATE_LIMITED' : status === 401 ? 'NOT_AUTHORIZED' : 'INVALID_PARAM';
      return reply.status(status).send(envelope(request, code, BODY_PROBLEMS[error.code] ?? `errors.${code}`));
    }

    request.log.error({ err: error, reqId: request.id }, 'request failed');
    return reply.status(ERROR_STATUS.INTERNAL).send(envelope(request, 'INTERNAL', 'errors.INTERNAL'));
  });
}
