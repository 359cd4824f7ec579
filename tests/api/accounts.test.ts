import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstLink, linkParam } from '../fakes/smtp';
import { PASSWORD, PUBLIC_URL, countRows, createUser, db, hasAuthLink, newEmail, startServer, type TestServer, type TestUser } from './helpers';

let server: TestServer;
let ann: TestUser;

beforeAll(async () => {
  server = await startServer();
  ann = await createUser(server, { name: 'Ann' });
});
afterAll(async () => server?.close());

describe('when someone registers', () => {
  it('answers the new account with the check-your-email message, and emails a verification link to /auth-redirect', async () => {
    const email = newEmail('reg');
    const answer = await server.call('POST', '/api/user/register', {
      lang: 'en',
      body: { name: '  Bao  ', email: `  ${email.toUpperCase()} `, password: PASSWORD, mobile_number: '+84 912 345 678' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      data: { id: expect.any(Number), name: 'Bao', email },
      message: 'Please check your email for verification info',
    });
    const mail = await server.smtp.waitFor(email, hasAuthLink);
    expect(mail.subject).toBe('Verify your Nudge account');
    expect(mail.text).toContain('Hello Bao,');
    expect(firstLink(mail)).toMatch(new RegExp(`^${PUBLIC_URL}/auth-redirect\\?hash=[A-Za-z0-9_-]{43}$`));
  });

  it('writes the verification email in Vietnamese when no language is asked for', async () => {
    const email = newEmail('vi');
    const answer = await server.call('POST', '/api/user/register', { body: { name: 'Chi', email, password: PASSWORD } });
    expect(answer.body.message).toBe('Vui lòng kiểm tra email để nhận thông tin xác thực');
    const mail = await server.smtp.waitFor(email, hasAuthLink);
    expect(mail.subject).toBe('Xác thực tài khoản Nudge của bạn');
    expect(mail.text).toContain('Xin chào Chi,');
  });

  it('refuses an email that already has an account with CONFLICT and creates nothing', async () => {
    const before = await countRows(server, 'users');
    const answer = await server.call('POST', '/api/user/register', {
      lang: 'en',
      body: { name: 'Other', email: ann.email.toUpperCase(), password: 'another password' },
    });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      success: false,
      error: 'CONFLICT',
      message: 'This email is already registered',
      fields: [{ path: 'email', message: 'This email is already registered' }],
    });
    expect(await countRows(server, 'users')).toBe(before);
  });

  it('answers INVALID_PARAM with every bad field, translated', async () => {
    const answer = await server.call('POST', '/api/user/register', {
      lang: 'en',
      body: { name: '   ', email: 'not-an-email', password: '12345', mobile_number: 'call me' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.success).toBe(false);
    expect(answer.body.error).toBe('INVALID_PARAM');
    expect(answer.body.fields).toEqual(
      expect.arrayContaining([
        { path: 'name', message: 'Please input name' },
        { path: 'email', message: 'Please enter the correct email' },
        { path: 'password', message: 'The password can not be less than 6 digits' },
        { path: 'mobile_number', message: 'Please enter a valid mobile number' },
      ]),
    );
    expect(answer.body.message).toBe(answer.body.fields[0].message);
  });

  it('says the same in Vietnamese by default', async () => {
    const answer = await server.call('POST', '/api/user/register', { body: { name: 'X', email: 'nope', password: PASSWORD } });
    expect(answer.body.fields).toEqual([{ path: 'email', message: 'Vui lòng nhập đúng email' }]);
    expect(answer.body.message).toBe('Vui lòng nhập đúng email');
  });

  it('names missing fields as required', async () => {
    const answer = await server.call('POST', '/api/user/register', { lang: 'en', body: {} });
    expect(answer.body.error).toBe('INVALID_PARAM');
    expect(answer.body.fields).toEqual(
      expect.arrayContaining([
        { path: 'name', message: 'This field is required' },
        { path: 'password', message: 'This field is required' },
      ]),
    );
  });
});

describe('when the verification link is opened', () => {
  it('signs the user in once, and the same link is then refused with LINK_INVALID', async () => {
    const email = newEmail('verify');
    await server.call('POST', '/api/user/register', { body: { name: 'Dung', email, password: PASSWORD } });
    const hash = linkParam(await server.smtp.waitFor(email, hasAuthLink), 'hash');

    const first = await server.call('POST', '/api/user/verify', { body: { hash } });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      auth_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      id: expect.any(Number),
      name: 'Dung',
      email,
      roles: [],
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const me = await server.call('GET', '/api/user/me', { token: first.body.data.auth_token });
    expect(me.body.data.email).toBe(email);

    const again = await server.call('POST', '/api/user/verify', { lang: 'en', body: { hash } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ success: false, error: 'LINK_INVALID', message: 'This link is invalid or has expired.' });
  });

  it('refuses a made-up hash with LINK_INVALID', async () => {
    const answer = await server.call('POST', '/api/user/verify', { body: { hash: 'x'.repeat(43) } });
    expect(answer.body.error).toBe('LINK_INVALID');
  });

  it('refuses a link older than 24 hours', async () => {
    const email = newEmail('late');
    await server.call('POST', '/api/user/register', { body: { name: 'Late', email, password: PASSWORD } });
    const hash = linkParam(await server.smtp.waitFor(email, hasAuthLink), 'hash');
    server.clock.advance(24 * 3600_000 + 1000);
    try {
      const answer = await server.call('POST', '/api/user/verify', { body: { hash } });
      expect(answer.body.error).toBe('LINK_INVALID');
    } finally {
      server.clock.advance(-(24 * 3600_000 + 1000));
    }
  });
});

describe('when a verification email is asked for again', () => {
  it('sends a fresh link to an unverified account, and the old link stops working', async () => {
    const email = newEmail('resend');
    await server.call('POST', '/api/user/register', { body: { name: 'Em', email, password: PASSWORD } });
    const oldHash = linkParam(await server.smtp.waitFor(email, hasAuthLink), 'hash');

    const answer = await server.call('POST', '/api/user/resend', { lang: 'en', body: { email } });
    expect(answer.body).toEqual({ success: true, data: { email }, message: 'Please check your email for verification info' });
    const newHash = linkParam(await server.smtp.waitFor(email, hasAuthLink), 'hash');
    expect(newHash).not.toBe(oldHash);

    expect((await server.call('POST', '/api/user/verify', { body: { hash: oldHash } })).body.error).toBe('LINK_INVALID');
    expect((await server.call('POST', '/api/user/verify', { body: { hash: newHash } })).status).toBe(200);
  });

  it('answers exactly the same for an unknown address and for a verified account, and sends nothing', async () => {
    const unknown = newEmail('ghost');
    const forUnknown = await server.call('POST', '/api/user/resend', { body: { email: unknown } });
    const forVerified = await server.call('POST', '/api/user/resend', { body: { email: ann.email } });
    expect(forUnknown.status).toBe(200);
    expect(forVerified.status).toBe(200);
    expect(forUnknown.body).toEqual({ ...forVerified.body, data: { email: unknown } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.smtp.messages().filter((m) => m.to.includes(unknown) || (m.to.includes(ann.email) && hasAuthLink(m)))).toHaveLength(1);
  });

  it('is throttled per address: the fourth request in 15 minutes answers RATE_LIMITED', async () => {
    const email = newEmail('spam');
    for (let i = 0; i < 3; i++) {
      expect((await server.call('POST', '/api/user/resend', { body: { email }, ip: '10.9.0.1' })).status).toBe(200);
    }
    const answer = await server.call('POST', '/api/user/resend', { lang: 'en', body: { email }, ip: '10.9.0.1' });
    expect(answer.status).toBe(429);
    expect(answer.body).toEqual({
      success: false,
      error: 'RATE_LIMITED',
      message: 'Too many attempts. Please wait a few minutes and try again.',
    });
  });
});

describe('when someone signs in', () => {
  it('accepts the email trimmed and in any case, and answers the token and the user', async () => {
    const answer = await server.call('POST', '/api/user/login', {
      body: { username: `  ${ann.email.toUpperCase()}  `, password: PASSWORD, otp: '' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    expect(answer.body.data).toMatchObject({ id: ann.id, name: 'Ann', email: ann.email, roles: [] });
    expect(answer.body.data.auth_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('gives an unknown email and a wrong password the very same answer, and stores no session', async () => {
    const sessions = await countRows(server, 'sessions');
    const unknown = await server.call('POST', '/api/user/login', { lang: 'en', body: { username: newEmail('none'), password: PASSWORD } });
    const wrong = await server.call('POST', '/api/user/login', { lang: 'en', body: { username: ann.email, password: 'wrong password' } });
    for (const answer of [unknown, wrong]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ success: false, error: 'INVALID_PARAM', message: 'Invalid email or password' });
      expect(answer.headers['x-token']).toBeUndefined();
    }
    expect(await countRows(server, 'sessions')).toBe(sessions);
  });

  it('answers the Vietnamese wording by default', async () => {
    const answer = await server.call('POST', '/api/user/login', { body: { username: ann.email, password: 'nope nope' } });
    expect(answer.body.message).toBe('Email hoặc mật khẩu không đúng');
  });

  it('takes about as long for an unknown email as for a wrong password', async () => {
    // The fastest of three tries each: a pause of the machine only ever lengthens one.
    const time = async (username: string) => {
      let fastest = Infinity;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const start = performance.now();
        await server.call('POST', '/api/user/login', { body: { username, password: 'wrong password' }, ip: '10.8.0.1' });
        fastest = Math.min(fastest, performance.now() - start);
      }
      return fastest;
    };
    const unknown = await time(newEmail('timing'));
    const known = await time(ann.email);
    // Both run one scrypt at OWASP cost (hundreds of ms); without the dummy hash the unknown email would
    // answer in about 1 ms. The loose factor leaves room for a busy machine.
    expect(unknown).toBeGreaterThan(known / 5);
    expect(known).toBeGreaterThan(unknown / 5);
  });

  it('tells an account whose email is not verified yet, but only once the password is right', async () => {
    const email = newEmail('unverified');
    await server.call('POST', '/api/user/register', { body: { name: 'Giang', email, password: PASSWORD } });
    const wrong = await server.call('POST', '/api/user/login', { body: { username: email, password: 'not it at all' } });
    expect(wrong.body.error).toBe('INVALID_PARAM');
    const right = await server.call('POST', '/api/user/login', { lang: 'en', body: { username: email, password: PASSWORD } });
    expect(right.status).toBe(403);
    expect(right.body).toEqual({
      success: false,
      error: 'EMAIL_NOT_VERIFIED',
      message: 'Please verify your email first: check your inbox for the link.',
    });
  });

  it('gives an invited address that has no account yet the same answer as an unknown one', async () => {
    const invited = newEmail('invitee');
    const now = new Date().toISOString();
    await db(server)
      .insertInto('users')
      .values({ email: invited, name: null, password_hash: null, mobile_number: null, agency: null, language: 'vi', email_verified_at: null, created_at: now, updated_at: now })
      .execute();
    const answer = await server.call('POST', '/api/user/login', { body: { username: invited, password: PASSWORD } });
    expect(answer.body).toEqual({ success: false, error: 'INVALID_PARAM', message: 'Email hoặc mật khẩu không đúng' });
  });

  it('after 10 failures for one email answers RATE_LIMITED for 15 minutes, even to the right password', async () => {
    const victim = await createUser(server, { name: 'Victim' });
    for (let i = 0; i < 10; i++) {
      const answer = await server.call('POST', '/api/user/login', { body: { username: victim.email, password: `guess ${i}` }, ip: `10.1.0.${i}` });
      expect(answer.body.error).toBe('INVALID_PARAM');
    }
    const blocked = await server.call('POST', '/api/user/login', { lang: 'en', body: { username: victim.email, password: PASSWORD }, ip: '10.1.1.1' });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({
      success: false,
      error: 'RATE_LIMITED',
      message: 'Too many attempts. Please wait a few minutes and try again.',
    });
    server.clock.advance(15 * 60_000 + 1000);
    try {
      const later = await server.call('POST', '/api/user/login', { body: { username: victim.email, password: PASSWORD }, ip: '10.1.1.1' });
      expect(later.status).toBe(200);
    } finally {
      server.clock.advance(-(15 * 60_000 + 1000));
    }
  });

  it('throttles an unknown email exactly like a real one, so the limit reveals nothing', async () => {
    const ghost = newEmail('ghost-throttle');
    for (let i = 0; i < 10; i++) {
      await server.call('POST', '/api/user/login', { body: { username: ghost, password: `guess ${i}` }, ip: `10.2.0.${i}` });
    }
    const blocked = await server.call('POST', '/api/user/login', { body: { username: ghost, password: 'guess' }, ip: '10.2.1.1' });
    expect(blocked.body.error).toBe('RATE_LIMITED');
  });
});

describe('when a signed-in user calls account routes', () => {
  it('GET /user/me answers the profile', async () => {
    const answer = await server.call('GET', '/api/user/me', { token: ann.token });
    expect(answer.body).toEqual({
      success: true,
      data: {
        id: ann.id,
        name: 'Ann',
        email: ann.email,
        roles: [],
        created: expect.any(String),
        agency: null,
        otp_enabled: false,
        mobile_number: null,
      },
    });
  });

  it('accepts the token as the access_token query parameter', async () => {
    const answer = await server.call('GET', `/api/user/me?access_token=${encodeURIComponent(ann.token)}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.email).toBe(ann.email);
  });

  it('answers NOT_AUTHORIZED without a token, with a made-up token, and in English when asked', async () => {
    for (const token of [undefined, 'made-up-token-made-up-token-made-up-token12']) {
      const answer = await server.call('GET', '/api/user/me', { token, lang: 'en-US,en;q=0.9' });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ success: false, error: 'NOT_AUTHORIZED', message: 'Your session has expired, please log in again.' });
    }
  });

  it('refuses an anonymous write with NOT_AUTHORIZED before looking at its body', async () => {
    const answer = await server.call('POST', '/api/user/password/change', { body: { nonsense: true } });
    expect(answer.body.error).toBe('NOT_AUTHORIZED');
  });
});

describe('when the user logs out', () => {
  it('revokes that token on the server, and only that one', async () => {
    const other = await server.call('POST', '/api/user/login', { body: { username: ann.email, password: PASSWORD } });
    const second = other.body.data.auth_token as string;
    const answer = await server.call('POST', '/api/user/logout', { token: second });
    expect(answer.body).toEqual({ success: true, data: {} });
    expect((await server.call('GET', '/api/user/me', { token: second })).body.error).toBe('NOT_AUTHORIZED');
    expect((await server.call('GET', '/api/user/me', { token: ann.token })).status).toBe(200);
  });
});
