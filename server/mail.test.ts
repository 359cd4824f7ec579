import { describe, expect, it } from 'vitest';
import { composeMail } from './mail';

describe('composeMail', () => {
  it('writes the verification email with the greeting, the link on its own line and the signature', () => {
    const mail = composeMail('en', 'an@example.com', { kind: 'verify', name: 'An', link: 'https://x.test/auth-redirect?hash=abc' });
    expect(mail.subject).toBe('Verify your Nudge account');
    expect(mail.text.split('\n')).toEqual([
      'Hello An,',
      '',
      'Welcome to Nudge! Open this link to verify your email address (it expires in 24 hours):',
      '',
      'https://x.test/auth-redirect?hash=abc',
      '',
      'The Nudge team',
      '',
    ]);
    expect(mail.html).toContain('<a href="https://x.test/auth-redirect?hash=abc">');
  });

  it('puts the code in the body of a code email, in Vietnamese when asked', () => {
    const mail = composeMail('vi', 'an@example.com', { kind: 'loginOtp', name: 'An', code: '042917' });
    expect(mail.subject).toBe('Mã đăng nhập Nudge của bạn');
    expect(mail.text).toContain('Mã đăng nhập của bạn là 042917.');
  });

  it('escapes names in the HTML part, so a name cannot inject markup', () => {
    const mail = composeMail('en', 'x@example.com', {
      kind: 'invite',
      inviter: '<b>Eve</b>',
      application: 'Shop & Co',
      role: 'viewer',
      link: 'https://x.test/register?email=x%40example.com',
    });
    expect(mail.subject).toBe('You have been invited to Shop & Co on Nudge');
    expect(mail.html).toContain('&lt;b&gt;Eve&lt;/b&gt; invited you to the application Shop &amp; Co as Viewer.');
    expect(mail.html).not.toContain('<b>Eve</b>');
  });
});
