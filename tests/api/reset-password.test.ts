import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstLink, linkParam } from '../fakes/smtp';
import { PUBLIC_URL, createUser, hasAuthLink, newEmail, startServer, type TestServer } from './helpers';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

const login = (email: string, password: string) => server.call('POST', '/api/user/login', { body: { username: email, password } });

describe('when someone asks to reset a password', () => {
  it('answers the same for an unknown address as for an account, and mails only the account', async () => {
    const user = await createUser(server);
    const ghost = newEmail('ghost');
    const forUser = await server.call('POST', '/api/user/resetPassword', { lang: 'en', body: { email: user.email, password: 'new secret 1' } });
    const forGhost = await server.call('POST', '/api/user/resetPassword', { lang: 'en', body: { email: ghost, password: 'new secret 1' } });
    expect(forUser.status).toBe(200);
    expect(forUser.body).toEqual({ success: true, data: { email: user.email }, message: 'Please check your email to confirm the new password' });
    expect(forGhost.body).toEqual({ ...forUser.body, data: { email: ghost } });

    const mail = await server.smtp.waitFor(user.email, hasAuthLink);
    expect(mail.subject).toBe('Confirm your new Nudge password');
    expect(firstLink(mail)).toMatch(new RegExp(`^${PUBLIC_URL}/auth-redirect\\?hash=`));
    expect(server.smtp.messages().some((m) => m.to.includes(ghost))).toBe(false);
  });

  it('keeps the old password until the emailed link is opened; the link then applies it, signs in and signs out everywhere else', async () => {
    const user = await createUser(server);
    await server.call('POST', '/api/user/resetPassword', { body: { email: user.email, password: 'after reset 1' } });
    const hash = linkParam(await server.smtp.waitFor(user.email, hasAuthLink), 'hash');

    expect((await login(user.email, user.password)).status).toBe(200);
    expect((await login(user.email, 'after reset 1')).body.error).toBe('INVALID_PARAM');

    const verified = await server.call('POST', '/api/user/verify', { body: { hash } });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ id: user.id, email: user.email });
    expect((await server.call('GET', '/api/user/me', { token: verified.body.data.auth_token })).status).toBe(200);
    expect((await server.call('GET', '/api/user/me', { token: user.token })).body.error).toBe('NOT_AUTHORIZED');

    expect((await login(user.email, user.password)).body.error).toBe('INVALID_PARAM');
    expect((await login(user.email, 'after reset 1')).status).toBe(200);
    expect((await server.call('POST', '/api/user/verify', { body: { hash } })).body.error).toBe('LINK_INVALID');
  });

  it('only the newest link counts when several were asked for', async () => {
    const user = await createUser(server);
    await server.call('POST', '/api/user/resetPassword', { body: { email: user.email, password: 'first choice' } });
    const first = linkParam(await server.smtp.waitFor(user.email, hasAuthLink), 'hash');
    await server.call('POST', '/api/user/resetPassword', { body: { email: user.email, password: 'second choice' } });
    const second = linkParam(await server.smtp.waitFor(user.email, hasAuthLink), 'hash');
    expect((await server.call('POST', '/api/user/verify', { body: { hash: first } })).body.error).toBe('LINK_INVALID');
    expect((await server.call('POST', '/api/user/verify', { body: { hash: second } })).status).toBe(200);
    expect((await login(user.email, 'second choice')).status).toBe(200);
  });

  it('a link older than 1 hour changes nothing', async () => {
    const user = await createUser(server);
    await server.call('POST', '/api/user/resetPassword', { body: { email: user.email, password: 'too late now' } });
    const hash = linkParam(await server.smtp.waitFor(user.email, hasAuthLink), 'hash');
    server.clock.advance(3600_000 + 1000);
    expect((await server.call('POST', '/api/user/verify', { body: { hash } })).body.error).toBe('LINK_INVALID');
    expect((await login(user.email, user.password)).status).toBe(200);
  });

  it('refuses a new password under 6 characters', async () => {
    const answer = await server.call('POST', '/api/user/resetPassword', { lang: 'en', body: { email: newEmail(), password: '12345' } });
    expect(answer.body).toEqual({
      success: false,
      error: 'INVALID_PARAM',
      message: 'The password can not be less than 6 digits',
      fields: [{ path: 'password', message: 'The password can not be less than 6 digits' }],
    });
  });

  it('an unverified account that resets its password is verified by the link', async () => {
    const email = newEmail('never-verified');
    await server.call('POST', '/api/user/register', { body: { name: 'Hoa', email, password: 'original 1' } });
    await server.smtp.waitFor(email, hasAuthLink);
    await server.call('POST', '/api/user/resetPassword', { body: { email, password: 'replaced 1' } });
    const hash = linkParam(await server.smtp.waitFor(email, hasAuthLink), 'hash');
    expect((await server.call('POST', '/api/user/verify', { body: { hash } })).status).toBe(200);
    expect((await login(email, 'replaced 1')).status).toBe(200);
  });
});
