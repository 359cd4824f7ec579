import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createUser, db, newEmail, PASSWORD, startServer, type TestServer } from './helpers';

describe('the API envelope and documents', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.close());

  it('answers an unknown /api path with the NOT_FOUND envelope, naming what was asked and where the routes are listed', async () => {
    const answer = await server.call('GET', '/api/no/such/thing?page=2', { lang: 'en' });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ success: false, error: 'NOT_FOUND', message: "There is no GET /api/no/such/thing. The API's routes are listed at /api/docs." });
    const post = await server.call('POST', '/api/nothing', { body: {} });
    expect(post.body).toEqual({ success: false, error: 'NOT_FOUND', message: 'Không có POST /api/nothing. Danh sách các đường dẫn của API ở /api/docs.' });
    // A wildcard route (the storefront's preflight answers OPTIONS on /api/sdk/*) is not the path's own.
    const sdk = await server.call('POST', '/api/sdk/nothing', { body: {}, lang: 'en' });
    expect(sdk.status).toBe(404);
    expect(sdk.body.message).toBe("There is no POST /api/sdk/nothing. The API's routes are listed at /api/docs.");
  });

  it('answers a route asked with a method it does not take with 405, Allow and the methods it takes', async () => {
    const post = await server.call('POST', '/api/v1/devices/device-0001/attributes', { body: { attributes: { vip: true } }, lang: 'en' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('PUT');
    expect(post.body).toEqual({ success: false, error: 'METHOD_NOT_ALLOWED', message: '/api/v1/devices/device-0001/attributes does not take POST; it takes PUT.' });
    const get = await server.call('GET', '/api/v1/devices', { lang: 'vi' });
    expect(get.status).toBe(405);
    expect(get.body.message).toBe('/api/v1/devices không nhận GET, chỉ nhận POST.');
  });

  it('answers malformed JSON with INVALID_PARAM', async () => {
    const answer = await server.call('POST', '/api/user/login', {
      headers: { 'content-type': 'application/json' },
      body: '{"username": ',
      lang: 'en',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, error: 'INVALID_PARAM', message: 'The request body is not valid JSON.' });
  });

  it('says what is wrong with a body it cannot read: too large, or not JSON at all', async () => {
    const large = await server.call('POST', '/api/user/login', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'x'.repeat(2 * 1024 * 1024) }),
      lang: 'en',
    });
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ success: false, error: 'INVALID_PARAM', message: 'The request body is too large.' });
    const xml = await server.call('POST', '/api/user/login', { headers: { 'content-type': 'application/xml' }, body: '<login/>' });
    expect(xml.status).toBe(415);
    expect(xml.body).toEqual({ success: false, error: 'INVALID_PARAM', message: 'Hãy gửi nội dung dạng JSON (Content-Type: application/json).' });
  });

  it('names the choices of a value that must be one of a list, in the caller’s language', async () => {
    const application = await createApplication(server, await createUser(server), 'choices_app');
    const register = (body: unknown, lang: 'en' | 'vi') =>
      server.call('POST', '/api/v1/devices', { headers: { authorization: `Key ${application.client_key}` }, body, lang });
    const missing = await register({ device_id: 'device-0001' }, 'en');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      success: false,
      error: 'INVALID_PARAM',
      message: 'Must be one of: web, ios, android',
      fields: [{ path: 'platform', message: 'Must be one of: web, ios, android' }],
    });
    const unknown = await register({ device_id: 'device-0001', platform: 'blackberry' }, 'vi');
    expect(unknown.body.fields).toEqual([{ path: 'platform', message: 'Phải là một trong: web, ios, android' }]);
  });

  it('says which kind of value a field takes when it gets another kind, in the caller’s language', async () => {
    const application = await createApplication(server, await createUser(server), 'kinds_app');
    const register = (body: unknown, lang: 'en' | 'vi') =>
      server.call('POST', '/api/v1/devices', { headers: { authorization: `Key ${application.client_key}` }, body, lang });
    const fields = async (body: unknown, lang: 'en' | 'vi' = 'en') => {
      const answer = await register(body, lang);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      return answer.body.fields;
    };
    expect(await fields({ platform: 'android', timezone_offset: 420.5 })).toEqual([{ path: 'timezone_offset', message: 'Must be a whole number' }]);
    expect(await fields({ platform: 'android', timezone_offset: '420' })).toEqual([{ path: 'timezone_offset', message: 'Must be a number' }]);
    expect(await fields({ platform: 'android', subscribed: 'yes' }, 'vi')).toEqual([{ path: 'subscribed', message: 'Phải là true hoặc false' }]);
    expect(await fields({ platform: 'android', os: 14 })).toEqual([{ path: 'os', message: 'Must be text' }]);
    expect(await fields([{ platform: 'android' }])).toEqual([{ path: '', message: 'Must be an object ({ … })' }]);
    const events = await server.call('POST', '/api/v1/devices/device-0001/events', { headers: { authorization: `Key ${application.client_key}` }, body: { events: { id: 'evt-00000001', name: 'x' } }, lang: 'en' });
    expect(events.body.fields).toEqual([{ path: 'events', message: 'Must be a list (a JSON array)' }]);
    expect(await db(server).selectFrom('players').select('id').where('application_id', '=', 'kinds_app').execute()).toEqual([]);
  });

  it('takes a JSON content type with no body as no body, as clients send on logout', async () => {
    const user = await createUser(server);
    const answer = await server.app.inject({
      method: 'POST',
      url: '/api/user/logout',
      headers: { 'x-token': user.token, 'content-type': 'application/json' },
    });
    expect(answer.json()).toEqual({ success: true, data: {} });
    const login = await server.call('POST', '/api/user/login', { headers: { 'content-type': 'application/json' }, body: '', lang: 'en' });
    expect(login.body).toMatchObject({ success: false, error: 'INVALID_PARAM', message: 'This field is required' });
  });

  it('refuses JSON that tries to poison prototypes', async () => {
    const answer = await server.call('POST', '/api/user/login', {
      headers: { 'content-type': 'application/json' },
      body: '{"username":"a@b.co","password":"x","__proto__":{"admin":true}}',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INVALID_PARAM');
  });

  it('speaks the first language of Accept-Language it knows, and Vietnamese otherwise', async () => {
    const ask = (lang: string) => server.call('GET', '/api/user/me', { lang }).then((a) => a.body.message);
    expect(await ask('en-GB,en;q=0.8')).toBe('Your session has expired, please log in again.');
    expect(await ask('fr-FR,vi;q=0.5')).toBe('Phiên đăng nhập đã hết hạn, vui lòng đăng nhập lại.');
    expect(await ask('de')).toBe('Phiên đăng nhập đã hết hạn, vui lòng đăng nhập lại.');
  });

  it('publishes the OpenAPI document at /api/docs/json with every route of the slice and the X-Token scheme', async () => {
    const answer = await server.call('GET', '/api/docs/json');
    expect(answer.status).toBe(200);
    const paths = Object.keys(answer.body.paths);
    for (const path of [
      '/api/user/register',
      '/api/user/verify',
      '/api/user/resend',
      '/api/user/login',
      '/api/user/resetPassword',
      '/api/user/logout',
      '/api/user/me',
      '/api/user/security',
      '/api/user/password/change',
      '/api/application',
      '/api/application/{application_id}',
      '/api/application/{application_id}/access',
      '/api/application/{application_id}/user',
      '/api/application/{application_id}/user/role',
      '/api/application/{application_id}/user/{user_id}',
      '/api/info',
    ]) {
      expect(paths).toContain(path);
    }
    expect(answer.body.components.securitySchemes.token).toEqual({ type: 'apiKey', in: 'header', name: 'X-Token' });
    const login = answer.body.paths['/api/user/login'].post;
    expect(Object.keys(login.requestBody.content['application/json'].schema.properties)).toEqual(['username', 'password', 'otp']);
    expect(login.description).toMatch(/OTP_REQUIRED/);
  });

  it('serves Swagger UI at /api/docs', async () => {
    const answer = await server.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/text\/html/);
    expect(answer.body).toContain('swagger');
  });

  it('tells the console what it may link to', async () => {
    const answer = await server.call('GET', '/api/info');
    expect(answer.body).toEqual({ success: true, data: { guide_url: null, api_docs_url: '/api/docs', version: expect.any(String) } });
  });

  it('never writes an access_token from the URL into the log', async () => {
    const user = await createUser(server);
    const answer = await server.call('GET', `/api/user/me?access_token=${user.token}`);
    expect(answer.status).toBe(200);
    await server.call('GET', `/api/application?page=1&access_token=${user.token}&limit=5`);
    const logs = server.logs.join('\n');
    expect(logs).toContain('access_token=[redacted]');
    expect(logs).not.toContain(user.token);
  });

  it('hides what went wrong in a 5xx behind INTERNAL, and logs it with the request id', async () => {
    const user = await createUser(server);
    await createApplication(server, user, 'broken_app');
    // Break the database under the running server: something no client can do.
    await db(server).schema.alterTable('platforms').renameTo('platforms_gone').execute();
    try {
      const answer = await server.call('GET', '/api/application', { token: user.token, lang: 'en' });
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ success: false, error: 'INTERNAL', message: 'Something went wrong on our side. Please try again.' });
      const line = server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
      expect(line).toMatchObject({ level: 50, reqId: expect.any(String), err: expect.objectContaining({ message: expect.stringMatching(/platforms/) }) });
    } finally {
      await db(server).schema.alterTable('platforms_gone').renameTo('platforms').execute();
    }
  });
});

describe('without SMTP_URL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ smtp: false });
  });
  afterAll(async () => server?.close());

  it('keeps each email in the mail_outbox table and prints it to the log for the one running the server', async () => {
    const email = newEmail('outbox');
    await server.call('POST', '/api/user/register', { lang: 'en', body: { name: 'Out', email, password: PASSWORD } });
    let row: { recipient: string; subject: string; body: string } | undefined;
    for (let i = 0; i < 50 && !row; i++) {
      row = await db(server).selectFrom('mail_outbox').selectAll().where('recipient', '=', email).executeTakeFirst();
      if (!row) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(row).toMatchObject({ recipient: email, subject: 'Verify your Nudge account' });
    const hash = /hash=([A-Za-z0-9_-]+)/.exec(row!.body)![1];
    const line = server.logs.map((l) => JSON.parse(l)).find((l) => l.to === email);
    expect(line).toMatchObject({ level: 30, subject: 'Verify your Nudge account' });
    expect(line.msg).toContain(`auth-redirect?hash=${hash}`);
    // The link from the outbox works like an emailed one.
    expect((await server.call('POST', '/api/user/verify', { body: { hash } })).status).toBe(200);
  });
});

describe('with a built console in STATIC_DIR', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Nudge</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'main-3f9a2B1c.js'), 'console.log("hashed")');
    writeFileSync(join(dir, 'sw.js'), 'self.addEventListener("push", () => {})');
    server = await startServer({ env: { STATIC_DIR: dir, GUIDE_URL: 'https://docs.example.com/guide' } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string) => server.app.inject({ method: 'GET', url });

  it('serves index.html at / without caching', async () => {
    const answer = await get('/');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('<div id="root">');
    expect(answer.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets for a year, and other files revalidated', async () => {
    const hashed = await get('/assets/main-3f9a2B1c.js');
    expect(hashed.statusCode).toBe(200);
    expect(hashed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const worker = await get('/sw.js');
    expect(worker.headers['cache-control']).toBe('no-cache');
  });

  it('answers any other page path with index.html, for the console’s router', async () => {
    for (const path of ['/login', '/application/shop/permission', '/redirect/a/b']) {
      const answer = await get(path);
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-type']).toMatch(/text\/html/);
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.body).toContain('<div id="root">');
    }
  });

  it('answers a missing file (an old chunk after a deploy) with 404, not the page', async () => {
    const answer = await get('/assets/main-0ld0ld0ld.js');
    expect(answer.statusCode).toBe(404);
    expect(answer.body).not.toContain('<div id="root">');
  });

  it('still answers unknown /api paths with the JSON envelope', async () => {
    const answer = await get('/api/unknown');
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ success: false, error: 'NOT_FOUND' });
    // The console's files are served by a GET on every path: that is not an API route taking GET.
    const post = await server.app.inject({ method: 'POST', url: '/api/unknown', headers: { 'accept-language': 'en' } });
    expect(post.statusCode).toBe(404);
    expect(post.json().message).toBe("There is no POST /api/unknown. The API's routes are listed at /api/docs.");
  });

  it('passes GUIDE_URL to the console', async () => {
    const answer = await server.call('GET', '/api/info');
    expect(answer.body.data.guide_url).toBe('https://docs.example.com/guide');
  });
});

describe('with tight limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      env: { RATE_LIMIT_MAX: '40' },
      limits: {
        loginPerIp: { max: 3, windowMs: 15 * 60_000 },
        registerPerIp: { max: 2, windowMs: 60 * 60_000 },
      },
    });
  });
  afterAll(async () => server?.close());

  it('after 3 failed logins from one address, that address is refused for any email, others are not', async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await server.call('POST', '/api/user/login', { body: { username: newEmail('ip'), password: 'wrong pass' }, ip: '10.7.0.1' });
      expect(answer.body.error).toBe('INVALID_PARAM');
    }
    const blocked = await server.call('POST', '/api/user/login', { body: { username: newEmail('ip'), password: 'wrong pass' }, ip: '10.7.0.1' });
    expect(blocked.body.error).toBe('RATE_LIMITED');
    const elsewhere = await server.call('POST', '/api/user/login', { body: { username: newEmail('ip'), password: 'wrong pass' }, ip: '10.7.0.2' });
    expect(elsewhere.body.error).toBe('INVALID_PARAM');
  });

  it('limits registrations per address', async () => {
    for (let i = 0; i < 2; i++) {
      const answer = await server.call('POST', '/api/user/register', { body: { name: 'R', email: newEmail('reg'), password: PASSWORD }, ip: '10.7.1.1' });
      expect(answer.status).toBe(200);
    }
    const third = await server.call('POST', '/api/user/register', { body: { name: 'R', email: newEmail('reg'), password: PASSWORD }, ip: '10.7.1.1' });
    expect(third.body.error).toBe('RATE_LIMITED');
  });

  it('answers RATE_LIMITED in the envelope once an address passes the global request limit', async () => {
    let last;
    for (let i = 0; i < 41; i++) last = await server.call('GET', '/api/info', { ip: '10.7.2.1', lang: 'en' });
    expect(last!.status).toBe(429);
    expect(last!.body).toEqual({ success: false, error: 'RATE_LIMITED', message: 'Too many attempts. Please wait a few minutes and try again.' });
    expect((await server.call('GET', '/api/info', { ip: '10.7.2.2' })).status).toBe(200);
  });
});

describe('a session', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.close());

  it('lasts 30 days from its last use', async () => {
    const user = await createUser(server);
    const day = 24 * 3600_000;
    server.clock.advance(20 * day);
    expect((await server.call('GET', '/api/user/me', { token: user.token })).status).toBe(200);
    server.clock.advance(20 * day);
    expect((await server.call('GET', '/api/user/me', { token: user.token })).status).toBe(200);
    server.clock.advance(31 * day);
    expect((await server.call('GET', '/api/user/me', { token: user.token })).body.error).toBe('NOT_AUTHORIZED');
  });

  it('is stored only as a hash', async () => {
    const user = await createUser(server);
    const rows = await db(server).selectFrom('sessions').select('token_hash').execute();
    expect(rows.some((row) => row.token_hash === user.token)).toBe(false);
    expect(rows.every((row) => /^[A-Za-z0-9_-]{43}$/.test(row.token_hash))).toBe(true);
  });
});
