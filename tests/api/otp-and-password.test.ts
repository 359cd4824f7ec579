import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { firstCode, type ReceivedMail } from '../fakes/smtp';
import { PASSWORD, createUser, startServer, type TestServer, type TestUser } from './helpers';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

const isCode = (mail: ReceivedMail) => firstCode(mail) !== null;

async function login(user: TestUser, otp?: string, lang?: string) {
  return server.call('POST', '/api/user/login', { lang, body: { username: user.email, password: user.password, ...(otp !== undefined ? { otp } : {}) } });
}

async function turnOtpOn(user: TestUser) {
  const answer = await server.call('POST', '/api/user/password/change', { token: user.token, lang: 'en', body: { otp_enabled: true } });
  expect(answer.body).toEqual({ success: true, data: { otp_enabled: true }, message: 'Changed' });
}

/** Asks for a sign-in code and returns it from the email. */
async function loginCode(user: TestUser): Promise<string> {
  const first = await login(user, '');
  expect(first.body.error).toBe('OTP_REQUIRED');
  return firstCode(await server.smtp.waitFor(user.email, isCode))!;
}

describe('the security settings', () => {
  it('load with email OTP off, and the switch turns it on and off', async () => {
    const user = await createUser(server);
    expect((await server.call('GET', '/api/user/security', { token: user.token })).body).toEqual({ success: true, data: { otp_enabled: false } });
    await turnOtpOn(user);
    expect((await server.call('GET', '/api/user/security', { token: user.token })).body.data).toEqual({ otp_enabled: true });
    const off = await server.call('POST', '/api/user/password/change', { token: user.token, body: { otp_enabled: false } });
    expect(off.body).toEqual({ success: true, data: { otp_enabled: false }, message: 'Đã thay đổi' });
    expect((await server.call('GET', '/api/user/me', { token: user.token })).body.data.otp_enabled).toBe(false);
  });

  it('refuses a switch value that is not a boolean', async () => {
    const user = await createUser(server);
    const answer = await server.call('POST', '/api/user/password/change', { token: user.token, body: { otp_enabled: 'yes' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INVALID_PARAM');
    expect(answer.body.fields[0].path).toBe('otp_enabled');
  });
});

describe('when an account with email OTP on signs in', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser(server);
    await turnOtpOn(user);
  });
  // Each case asks for several codes; moving past the 15-minute window keeps the send limit out of the way.
  beforeEach(() => server.clock.advance(16 * 60_000));

  it('the password alone answers OTP_REQUIRED, stores no session, and emails a 6-digit code', async () => {
    const answer = await login(user, undefined, 'en');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, error: 'OTP_REQUIRED', message: 'Enter the code we emailed you.' });
    const mail = await server.smtp.waitFor(user.email, isCode);
    expect(mail.subject).toBe('Your Nudge sign-in code');
    expect(firstCode(mail)).toMatch(/^\d{6}$/);
  });

  it('the emailed code signs in, once', async () => {
    const code = await loginCode(user);
    const answer = await login(user, code);
    expect(answer.status).toBe(200);
    expect(answer.body.data.auth_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await login(user, code, 'en')).body).toEqual({
      success: false,
      error: 'OTP_INVALID',
      message: 'The code is wrong or has expired.',
    });
  });

  it('a wrong password with a code still gets the plain invalid-login answer', async () => {
    const answer = await server.call('POST', '/api/user/login', { body: { username: user.email, password: 'wrong one', otp: '123456' } });
    expect(answer.body.error).toBe('INVALID_PARAM');
  });

  it('a new code replaces the one sent before', async () => {
    const older = await loginCode(user);
    const newer = await loginCode(user);
    if (older !== newer) expect((await login(user, older)).body.error).toBe('OTP_INVALID');
    expect((await login(user, newer)).status).toBe(200);
  });

  it('after 5 wrong tries the code is dead, even the right one', async () => {
    const code = await loginCode(user);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await login(user, wrong)).body.error).toBe('OTP_INVALID');
    expect((await login(user, code)).body.error).toBe('OTP_INVALID');
    // A fresh code works again.
    expect((await login(user, await loginCode(user))).status).toBe(200);
  });

  it('a code older than 10 minutes is refused', async () => {
    const code = await loginCode(user);
    server.clock.advance(10 * 60_000 + 1000);
    expect((await login(user, code)).body.error).toBe('OTP_INVALID');
  });

  it('the emailed code is in Vietnamese when the sign-in asked in Vietnamese', async () => {
    await login(user);
    const mail = await server.smtp.waitFor(user.email, isCode);
    expect(mail.subject).toBe('Mã đăng nhập Nudge của bạn');
    expect(mail.text).toContain(`Mã đăng nhập của bạn là ${firstCode(mail)}`);
  });

  it('no more than 5 codes are emailed in 15 minutes', async () => {
    const flooded = await createUser(server);
    await turnOtpOn(flooded);
    for (let i = 0; i < 5; i++) expect((await login(flooded)).body.error).toBe('OTP_REQUIRED');
    expect((await login(flooded)).body.error).toBe('RATE_LIMITED');
  });
});

describe('when a signed-in user changes the password', () => {
  let user: TestUser;
  let otherSession: string;

  beforeAll(async () => {
    user = await createUser(server);
    otherSession = (await login(user)).body.data.auth_token;
  });

  async function changeCode(): Promise<string> {
    const answer = await server.call('POST', '/api/user/password/change', { token: user.token, lang: 'en', body: { init: true } });
    expect(answer.body).toEqual({ success: true, data: { otp_enabled: false }, message: 'We emailed you a code' });
    const mail = await server.smtp.waitFor(user.email, isCode);
    expect(mail.subject).toBe('Your Nudge password change code');
    return firstCode(mail)!;
  }

  it('refuses a confirmation that does not match with validation.confirmPassword', async () => {
    const answer = await server.call('POST', '/api/user/password/change', {
      token: user.token,
      lang: 'en',
      body: { old_password: PASSWORD, new_password: 'new password 1', confirm_password: 'new password 2', otp: '123456' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      error: 'INVALID_PARAM',
      message: 'Confirm password does not match',
      fields: [{ path: 'confirm_password', message: 'Confirm password does not match' }],
    });
  });

  it('refuses a wrong old password with errors.wrongOldPassword and keeps the code usable', async () => {
    const code = await changeCode();
    const answer = await server.call('POST', '/api/user/password/change', {
      token: user.token,
      lang: 'en',
      body: { old_password: 'not my password', new_password: 'new password 1', confirm_password: 'new password 1', otp: code },
    });
    expect(answer.body).toEqual({
      success: false,
      error: 'INVALID_PARAM',
      message: 'The old password is wrong',
      fields: [{ path: 'old_password', message: 'The old password is wrong' }],
    });
  });

  it('refuses a wrong code with OTP_INVALID and changes nothing', async () => {
    await changeCode();
    const answer = await server.call('POST', '/api/user/password/change', {
      token: user.token,
      body: { old_password: PASSWORD, new_password: 'new password 1', confirm_password: 'new password 1', otp: '999999' },
    });
    expect(answer.body.error).toBe('OTP_INVALID');
    expect((await login(user)).status).toBe(200);
  });

  it('with the old password and the code, changes it, says so, and signs out the other sessions only', async () => {
    const code = await changeCode();
    const answer = await server.call('POST', '/api/user/password/change', {
      token: user.token,
      lang: 'en',
      body: { old_password: PASSWORD, new_password: 'brand new secret', confirm_password: 'brand new secret', otp: code },
    });
    expect(answer.body).toEqual({ success: true, data: { otp_enabled: false }, message: 'Password has been changed' });

    expect((await server.call('GET', '/api/user/me', { token: user.token })).status).toBe(200);
    expect((await server.call('GET', '/api/user/me', { token: otherSession })).body.error).toBe('NOT_AUTHORIZED');
    expect((await login(user)).body.error).toBe('INVALID_PARAM');
    expect((await login({ ...user, password: 'brand new secret' })).status).toBe(200);
  });

  it('answers in Vietnamese by default', async () => {
    const answer = await server.call('POST', '/api/user/password/change', { token: user.token, body: { init: true } });
    expect(answer.body.message).toBe('Chúng tôi đã gửi mã vào email của bạn');
    await server.smtp.waitFor(user.email, isCode);
  });
});
