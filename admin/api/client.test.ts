import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Role } from '../../shared/permissions';
import { ApiError } from './api-error';
import { API_TIMEOUT_MS, SESSION_EXPIRY_DELAY_MS, createApiClient } from './client';

const MESSAGES: Record<string, string> = {
  'common.unknownError': 'Unknown error',
  'errors.NO_PERMISSION': 'NO PERMISSION',
  'api.timeout': 'The server took too long to answer.',
  'api.badAnswer': 'Bad answer',
};

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

interface Setup {
  token?: string | null;
  roles?: Role[];
  pageUrl?: string;
  answer?: (url: string, init: RequestInit) => Promise<Response>;
}

function setup({ token = 'tok_123', roles = ['super_user'], pageUrl = 'https://console.example/application', answer }: Setup = {}) {
  const fetch = vi.fn(answer ?? (async () => json({ success: true, data: {} })));
  const notify = vi.fn();
  const expireSession = vi.fn();
  const scheduled: { run: () => void; ms: number }[] = [];
  const client = createApiClient({
    fetch: fetch as unknown as typeof globalThis.fetch,
    session: () => ({ token, roles, language: 'en' }),
    pageUrl: () => pageUrl,
    t: (key) => MESSAGES[key] ?? key,
    notify,
    expireSession,
    schedule: (run, ms) => scheduled.push({ run, ms }),
  });
  const sent = () => {
    const [url, init] = fetch.mock.calls.at(-1) as [string, RequestInit];
    return { url: new URL(url), init, headers: init.headers as Record<string, string> };
  };
  return { client, fetch, notify, expireSession, scheduled, sent };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the API client', () => {
  describe('when a call is sent', () => {
    it('goes to /api with the stored token in X-Token and the UI language', async () => {
      const { client, sent } = setup();
      await client.get('/application', z.object({}), { query: { page: 2, q: '' } });
      const { url, headers } = sent();
      expect(url.pathname).toBe('/api/application');
      expect(url.searchParams.get('page')).toBe('2');
      expect(url.searchParams.has('q')).toBe(false);
      expect(headers['X-Token']).toBe('tok_123');
      expect(headers['Accept-Language']).toBe('en');
    });

    it('uses the access_token of the page URL instead of the stored token', async () => {
      const { client, sent } = setup({ pageUrl: 'https://console.example/application?access_token=link_tok' });
      await client.get('/user/me', z.object({}));
      const { url, headers } = sent();
      expect(url.searchParams.get('access_token')).toBe('link_tok');
      expect(headers['X-Token']).toBeUndefined();
    });

    it('sends a JSON body', async () => {
      const { client, sent } = setup();
      await client.post('/application', { application_id: 'shop', name: 'Shop' }, z.object({}));
      const { init, headers } = sent();
      expect(init.method).toBe('POST');
      expect(headers['Content-Type']).toBe('application/json');
      expect(JSON.parse(String(init.body))).toEqual({ application_id: 'shop', name: 'Shop' });
    });
  });

  describe('when the answer comes back', () => {
    it('returns data checked and shaped by the schema', async () => {
      const { client } = setup({ answer: async () => json({ success: true, data: { name: ' Shop ', extra: 1 }, message: 'Done' }) });
      const result = await client.get('/x', z.object({ name: z.string().trim() }));
      expect(result).toEqual({ data: { name: 'Shop' }, message: 'Done' });
    });

    it('refuses data that does not match the contract', async () => {
      const { client, notify } = setup({ answer: async () => json({ success: true, data: { name: 42 } }) });
      await expect(client.get('/x', z.object({ name: z.string() }))).rejects.toMatchObject({ code: 'BAD_ANSWER' });
      expect(notify).toHaveBeenCalledWith('Bad answer');
    });

    it("shows the server's message of a failure and rejects with its code and fields", async () => {
      const { client, notify } = setup({
        answer: async () =>
          json({ success: false, error: 'INVALID_PARAM', message: 'Some fields are not valid.', fields: [{ path: 'name', message: 'validation.name' }] }, 400),
      });
      const error = await client.post('/x', {}, z.unknown()).catch((e: ApiError) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'INVALID_PARAM', status: 400, fields: [{ path: 'name', message: 'validation.name' }] });
      expect(notify).toHaveBeenCalledWith('Some fields are not valid.');
    });

    it("shows 'Unknown error' for an HTTP failure without a message", async () => {
      const { client, notify } = setup({ answer: async () => new Response('<html>Bad gateway</html>', { status: 502 }) });
      await expect(client.get('/x', z.unknown())).rejects.toMatchObject({ code: 'HTTP', status: 502 });
      expect(notify).toHaveBeenCalledWith('Unknown error');
    });

    it("shows 'Unknown error' when the network fails", async () => {
      const { client, notify } = setup({ answer: async () => Promise.reject(new TypeError('Failed to fetch')) });
      await expect(client.get('/x', z.unknown())).rejects.toMatchObject({ code: 'NETWORK', message: 'Unknown error' });
      expect(notify).toHaveBeenCalledWith('Unknown error');
    });

    it('shows nothing for a quiet call: the caller shows the failure in its form', async () => {
      const { client, notify } = setup({ answer: async () => json({ success: false, error: 'OTP_REQUIRED', message: 'Enter the code' }, 400) });
      await expect(client.post('/user/login', {}, z.unknown(), { quiet: true })).rejects.toMatchObject({ code: 'OTP_REQUIRED' });
      expect(notify).not.toHaveBeenCalled();
    });
  });

  describe('when the server answers NOT_AUTHORIZED', () => {
    const expired = async () => json({ success: false, error: 'NOT_AUTHORIZED', message: 'Your session has expired' }, 401);

    it('shows the message, then after 5 s logs out and reloads', async () => {
      const { client, notify, expireSession, scheduled } = setup({ answer: expired });
      await expect(client.get('/user/me', z.unknown(), { quiet: true })).rejects.toMatchObject({ code: 'NOT_AUTHORIZED' });
      expect(notify).toHaveBeenCalledWith('Your session has expired');
      expect(scheduled).toHaveLength(1);
      expect(scheduled[0].ms).toBe(SESSION_EXPIRY_DELAY_MS);
      expect(expireSession).not.toHaveBeenCalled();
      scheduled[0].run();
      expect(expireSession).toHaveBeenCalledTimes(1);
    });

    it('logs out once when several calls fail together', async () => {
      const { client, scheduled } = setup({ answer: expired });
      await Promise.allSettled([client.get('/a', z.unknown()), client.get('/b', z.unknown())]);
      expect(scheduled).toHaveLength(1);
    });

    it('shows the message but keeps the page when access_token is in the URL', async () => {
      const { client, notify, scheduled } = setup({ answer: expired, pageUrl: 'https://console.example/x?access_token=abc' });
      await expect(client.get('/user/me', z.unknown())).rejects.toMatchObject({ code: 'NOT_AUTHORIZED' });
      expect(notify).toHaveBeenCalledWith('Your session has expired');
      expect(scheduled).toHaveLength(0);
    });
  });

  describe("when calls are authorized by the platform's session token (the embedded admin)", () => {
    function embedded(answer?: Setup['answer'], pageUrl = 'https://nudge.example/shopify-banner?shop=a.myshopify.com') {
      let issued = 0;
      const authorize = vi.fn(async () => ({ Authorization: `Bearer session-${++issued}`, 'X-Token': 'shopify-embedded' }));
      const fetch = vi.fn(answer ?? (async () => json({ success: true, data: {} })));
      const notify = vi.fn();
      const expireSession = vi.fn();
      const scheduled: { run: () => void; ms: number }[] = [];
      const client = createApiClient({
        fetch: fetch as unknown as typeof globalThis.fetch,
        session: () => ({ token: 'stored_tok', roles: ['super_user'], language: 'en' }),
        pageUrl: () => pageUrl,
        t: (key) => MESSAGES[key] ?? key,
        notify,
        expireSession,
        schedule: (run, ms) => scheduled.push({ run, ms }),
        authorize,
      });
      const headersOf = (call: number) => (fetch.mock.calls[call] as [string, RequestInit])[1].headers as Record<string, string>;
      return { client, fetch, authorize, notify, expireSession, scheduled, headersOf };
    }
    const refused = (retry: boolean) =>
      new Response(JSON.stringify({ success: false, error: 'NOT_AUTHORIZED', message: 'Your session has expired' }), {
        status: 401,
        headers: { 'content-type': 'application/json', ...(retry ? { 'X-Shopify-Retry-Invalid-Session-Request': '1' } : {}) },
      });

    it('sends a fresh Bearer token for each call with the placeholder X-Token, never the stored token', async () => {
      const { client, headersOf, authorize } = embedded();
      await client.get('/embed/session', z.object({}));
      await client.post('/application/a/widget', {}, z.object({}));
      expect(authorize).toHaveBeenCalledTimes(2);
      expect(headersOf(0)).toMatchObject({ Authorization: 'Bearer session-1', 'X-Token': 'shopify-embedded' });
      expect(headersOf(1)).toMatchObject({ Authorization: 'Bearer session-2', 'X-Token': 'shopify-embedded' });
    });

    it('ignores an access_token in the page URL', async () => {
      const { client, fetch } = embedded(undefined, 'https://nudge.example/shopify-banner?access_token=link_tok');
      await client.get('/x', z.unknown());
      const [url] = fetch.mock.calls[0] as [string, RequestInit];
      expect(new URL(url).searchParams.has('access_token')).toBe(false);
    });

    it('retries once with a fresh token when the 401 carries the retry header', async () => {
      const answers = [refused(true), json({ success: true, data: { ok: true } })];
      const { client, fetch, headersOf } = embedded(async () => answers.shift()!);
      const result = await client.post('/application/a/widget', { name: 'Sale' }, z.object({ ok: z.boolean() }));
      expect(result.data).toEqual({ ok: true });
      expect(fetch).toHaveBeenCalledTimes(2);
      expect(headersOf(0).Authorization).toBe('Bearer session-1');
      expect(headersOf(1).Authorization).toBe('Bearer session-2');
      expect((fetch.mock.calls[1] as [string, RequestInit])[1].body).toBe(JSON.stringify({ name: 'Sale' }));
    });

    it('retries only once, then fails with NOT_AUTHORIZED and keeps the page (there is no local session to end)', async () => {
      const { client, fetch, notify, scheduled, expireSession } = embedded(async () => refused(true));
      await expect(client.get('/x', z.unknown())).rejects.toMatchObject({ code: 'NOT_AUTHORIZED', status: 401 });
      expect(fetch).toHaveBeenCalledTimes(2);
      expect(notify).toHaveBeenCalledWith('Your session has expired');
      expect(scheduled).toHaveLength(0);
      expect(expireSession).not.toHaveBeenCalled();
    });

    it('does not retry a 401 without the retry header', async () => {
      const { client, fetch } = embedded(async () => refused(false));
      await expect(client.get('/x', z.unknown())).rejects.toMatchObject({ code: 'NOT_AUTHORIZED' });
      expect(fetch).toHaveBeenCalledTimes(1);
    });

    it('fails like a network failure when no session token can be had', async () => {
      const { fetch, notify } = embedded();
      const failing = createApiClient({
        fetch: fetch as unknown as typeof globalThis.fetch,
        session: () => ({ token: null, roles: ['super_user'], language: 'en' }),
        pageUrl: () => 'https://nudge.example/shopify-banner',
        t: (key) => MESSAGES[key] ?? key,
        notify,
        expireSession: vi.fn(),
        authorize: () => Promise.reject(new Error('App Bridge is not there')),
      });
      await expect(failing.get('/x', z.unknown())).rejects.toMatchObject({ code: 'NETWORK' });
      expect(fetch).not.toHaveBeenCalled();
      expect(notify).toHaveBeenCalledWith('Unknown error');
    });

    it('keeps the stored X-Token when authorize answers null (the hosted console)', async () => {
      const fetch = vi.fn(async () => json({ success: true, data: {} }));
      const client = createApiClient({
        fetch: fetch as unknown as typeof globalThis.fetch,
        session: () => ({ token: 'tok_123', roles: ['super_user'], language: 'en' }),
        pageUrl: () => 'https://console.example/application',
        t: (key) => key,
        notify: vi.fn(),
        expireSession: vi.fn(),
        authorize: () => null,
      });
      await client.get('/x', z.unknown());
      const headers = (fetch.mock.calls[0] as unknown as [string, RequestInit])[1].headers as Record<string, string>;
      expect(headers['X-Token']).toBe('tok_123');
      expect(headers.Authorization).toBeUndefined();
    });
  });

  describe('when the server takes longer than 30 s', () => {
    it('gives up with a timeout message', async () => {
      vi.useFakeTimers();
      const { client, notify } = setup({
        answer: (_url, init) =>
          new Promise((_resolve, reject) => {
            init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
          }),
      });
      const call = client.get('/slow', z.unknown()).catch((e: ApiError) => e);
      await vi.advanceTimersByTimeAsync(API_TIMEOUT_MS - 1);
      expect(notify).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(await call).toMatchObject({ code: 'TIMEOUT', message: 'The server took too long to answer.' });
      expect(notify).toHaveBeenCalledWith('The server took too long to answer.');
    });
  });

  describe('when the viewer sends a write', () => {
    it('refuses a POST to an application locally with NO PERMISSION', async () => {
      const { client, fetch, notify } = setup({ roles: ['viewer'] });
      await expect(client.post('/application/shop_one/user', { email: 'a@b.co' }, z.unknown())).rejects.toMatchObject({
        code: 'NO_PERMISSION',
        message: 'NO PERMISSION',
      });
      expect(fetch).not.toHaveBeenCalled();
      expect(notify).toHaveBeenCalledWith('NO PERMISSION');
    });

    it.each(['PUT', 'DELETE'] as const)('refuses a %s too', async (method) => {
      const { client, fetch } = setup({ roles: ['viewer'] });
      await expect(client.request('/application/shop_one/user/7', { method, schema: z.unknown() })).rejects.toMatchObject({ code: 'NO_PERMISSION' });
      expect(fetch).not.toHaveBeenCalled();
    });

    it('lets reads and /list calls through', async () => {
      const { client, fetch } = setup({ roles: ['viewer'] });
      await client.get('/application/shop_one/user', z.unknown());
      await client.post('/application/shop_one/notification/list', {}, z.unknown());
      expect(fetch).toHaveBeenCalledTimes(2);
    });

    it('judges a write by the roles the caller names for its application (the application list)', async () => {
      const { client, fetch } = setup({ roles: ['super_user'] });
      await expect(client.put('/application/shop_two', { name: 'x' }, z.unknown(), { roles: ['viewer'] })).rejects.toMatchObject({
        code: 'NO_PERMISSION',
      });
      expect(fetch).not.toHaveBeenCalled();
    });

    it('lets a manager write', async () => {
      const { client, fetch } = setup({ roles: ['manager'] });
      await client.post('/application/shop_one/user', {}, z.unknown());
      expect(fetch).toHaveBeenCalledTimes(1);
    });
  });
});
