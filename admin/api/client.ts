import type { z } from 'zod';
import { ErrorEnvelope, RETRY_INVALID_SESSION_HEADER } from '../../shared/contract';
import type { Language } from '../../shared/i18n';
import { type Role, isViewerWriteBlocked } from '../../shared/permissions';
import { ApiError } from './api-error';

/** Spec §7: every call goes to one base URL and gives up after 30 s. */
export const API_BASE_URL = '/api';
export const API_TIMEOUT_MS = 30_000;
/** Spec §8: the NOT_AUTHORIZED message stays 5 s, then the session ends. */
export const SESSION_EXPIRY_DELAY_MS = 5_000;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Query = Record<string, string | number | boolean | null | undefined>;

export interface CallOptions<T> {
  method?: Method;
  query?: Query;
  body?: unknown;
  /** The shape `data` must have (from shared/contract); an answer that does not match is refused. */
  schema: z.ZodType<T>;
  /**
   * The caller shows failures itself (inline, in a form): no toast. NOT_AUTHORIZED is handled regardless. A
   * function decides by the failure (a list that shows a refused search in place, but a lost connection by toast).
   */
  quiet?: boolean | ((error: ApiError) => boolean);
  /** Cancels the call (a screen that closed); a cancelled call rejects without a toast. */
  signal?: AbortSignal;
  /**
   * The caller's roles in the application this call writes to, when that is not the application the session
   * has loaded (the application list acts on every row's application).
   */
  roles?: readonly Role[];
}

export interface ApiResult<T> {
  data: T;
  /** The server's translated success text, when it sends one. */
  message?: string;
}

/** What the client reads from and does to the rest of the console; injected so tests can stub each part. */
export interface ApiClientDeps {
  baseUrl?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** The session as each call needs it. */
  session(): { token: string | null; roles: readonly Role[]; language: Language };
  /** The page's URL: an `access_token` in it replaces the stored token. */
  pageUrl(): string;
  t(key: string, params?: Record<string, string | number>): string;
  /** Shows a failure for 5 s. */
  notify(message: string): void;
  /** Ends the local session and reloads the page. */
  expireSession(): void;
  schedule?(run: () => void, ms: number): void;
  /**
   * Headers that authenticate a call in place of the stored token, asked for afresh for every call (the
   * embedded admin's session token); null, or no function, keeps the X-Token of the hosted console.
   */
  authorize?(): Promise<Record<string, string>> | null;
}

export interface ApiClient {
  request<T>(path: string, options: CallOptions<T>): Promise<ApiResult<T>>;
  get<T>(path: string, schema: z.ZodType<T>, options?: Omit<CallOptions<T>, 'schema' | 'method'>): Promise<ApiResult<T>>;
  post<T>(path: string, body: unknown, schema: z.ZodType<T>, options?: Omit<CallOptions<T>, 'schema' | 'method' | 'body'>): Promise<ApiResult<T>>;
  put<T>(path: string, body: unknown, schema: z.ZodType<T>, options?: Omit<CallOptions<T>, 'schema' | 'method' | 'body'>): Promise<ApiResult<T>>;
  delete<T>(path: string, schema: z.ZodType<T>, options?: Omit<CallOptions<T>, 'schema' | 'method'>): Promise<ApiResult<T>>;
}

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function messageOf(payload: unknown): string | undefined {
  if (payload && typeof payload === 'object' && 'message' in payload) {
    const { message } = payload as { message: unknown };
    if (typeof message === 'string' && message.trim() !== '') return message;
  }
  return undefined;
}

/** The one HTTP client of the console (spec §7–8). */
export function createApiClient(deps: ApiClientDeps): ApiClient {
  const baseUrl = deps.baseUrl ?? API_BASE_URL;
  const timeoutMs = deps.timeoutMs ?? API_TIMEOUT_MS;
  const schedule = deps.schedule ?? ((run, ms) => void setTimeout(run, ms));
  let expiring = false;

  function accessTokenInPage(): string | null {
    try {
      return new URL(deps.pageUrl()).searchParams.get('access_token');
    } catch {
      return null;
    }
  }

  /** `authorized`: the call carried the platform's session token, so there is no local session to end. */
  function fail(error: ApiError, quiet: CallOptions<unknown>['quiet'], authorized = false): never {
    if (error.code === 'NOT_AUTHORIZED') {
      deps.notify(error.message);
      // A link that carries its own access_token is not this console's session: nothing to sign out of.
      if (!authorized && !accessTokenInPage() && !expiring) {
        expiring = true;
        schedule(() => {
          expiring = false;
          deps.expireSession();
        }, SESSION_EXPIRY_DELAY_MS);
      }
    } else if (!(typeof quiet === 'function' ? quiet(error) : quiet)) {
      deps.notify(error.message);
    }
    throw error;
  }

  async function request<T>(path: string, options: CallOptions<T>): Promise<ApiResult<T>> {
    const method = options.method ?? 'GET';
    const session = deps.session();
    const { token, language } = session;
    const roles = options.roles ?? session.roles;

    // The same rule the server applies, checked first so a viewer's click never reaches it.
    if (isViewerWriteBlocked(roles, method, path)) {
      fail(new ApiError('NO_PERMISSION', deps.t('errors.NO_PERMISSION')), options.quiet);
    }

    const pageUrl = deps.pageUrl();
    const authorization = deps.authorize?.() ?? null;
    const authorized = authorization !== null;
    const accessToken = authorized ? null : accessTokenInPage();
    const url = new URL(joinUrl(baseUrl, path), pageUrl);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { Accept: 'application/json', 'Accept-Language': language };
    if (accessToken) url.searchParams.set('access_token', accessToken);
    else if (token && !authorized) headers['X-Token'] = token;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const failWith = (error: ApiError): never => fail(error, options.quiet, authorized);

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const cancel = () => controller.abort();
    options.signal?.addEventListener('abort', cancel);
    if (options.signal?.aborted) controller.abort();

    let response: Response;
    let payload: unknown;
    try {
      const fetcher = deps.fetch ?? globalThis.fetch;
      const send = async (extra: Promise<Record<string, string>> | null) =>
        fetcher(url.toString(), {
          method,
          headers: extra ? { ...headers, ...(await extra) } : headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: controller.signal,
        });
      response = await send(authorization);
      // A session token can expire on its way; the server then asks for a fresh one, and gets it once.
      if (authorized && response.status === 401 && response.headers.get(RETRY_INVALID_SESSION_HEADER) === '1') {
        response = await send(deps.authorize?.() ?? authorization);
      }
      try {
        payload = await response.json();
      } catch {
        // An HTML error page from a proxy, or an empty body: judged by the status below.
        if (controller.signal.aborted) throw new DOMException('aborted', 'AbortError');
        payload = undefined;
      }
    } catch (cause) {
      if (timedOut) failWith(new ApiError('TIMEOUT', deps.t('api.timeout')));
      if (options.signal?.aborted) throw cause;
      return failWith(new ApiError('NETWORK', deps.t('common.unknownError')));
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', cancel);
    }

    if (payload && typeof payload === 'object' && (payload as { success?: unknown }).success === false) {
      const envelope = ErrorEnvelope.safeParse(payload);
      if (envelope.success) {
        const { error, message, fields } = envelope.data;
        return failWith(new ApiError(error, message || deps.t('common.unknownError'), response.status, fields ?? []));
      }
      return failWith(new ApiError('HTTP', messageOf(payload) ?? deps.t('common.unknownError'), response.status));
    }
    if (!response.ok) {
      return failWith(new ApiError('HTTP', messageOf(payload) ?? deps.t('common.unknownError'), response.status));
    }
    if (!payload || typeof payload !== 'object' || (payload as { success?: unknown }).success !== true) {
      return failWith(new ApiError('BAD_ANSWER', deps.t('api.badAnswer'), response.status));
    }
    const checked = options.schema.safeParse((payload as { data?: unknown }).data);
    if (!checked.success) {
      return failWith(new ApiError('BAD_ANSWER', deps.t('api.badAnswer'), response.status));
    }
    return { data: checked.data, message: messageOf(payload) };
  }

  return {
    request,
    get: (path, schema, options) => request(path, { ...options, method: 'GET', schema }),
    post: (path, body, schema, options) => request(path, { ...options, method: 'POST', body, schema }),
    put: (path, body, schema, options) => request(path, { ...options, method: 'PUT', body, schema }),
    delete: (path, schema, options) => request(path, { ...options, method: 'DELETE', schema }),
  };
}
