import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { V } from '../validation';
import {
  ChangePasswordForm,
  Email,
  LoginAnswer,
  LoginBody,
  NewPassword,
  Otp,
  PasswordChangeBody,
  Profile,
  RegisterBody,
  ResendBody,
  ResetPasswordBody,
  ResetPasswordForm,
  SecuritySettings,
  VerifyBody,
} from './user';

/** The field problems a user would see: "path: message key", in order. */
function problems(schema: z.ZodType, body: unknown): string[] {
  const result = schema.safeParse(body);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const goodForm = { old_password: 'old secret', new_password: 'new secret', confirm_password: 'new secret', otp: '123456' };

describe('Email', () => {
  it('trims and lower-cases the address', () => {
    expect(Email.parse('  Ann.Lee@Example.COM ')).toBe('ann.lee@example.com');
  });

  it('refuses an invalid address with validation.email', () => {
    expect(problems(Email, 'a..b@x.com')).toEqual([`: ${V.email}`]);
    expect(problems(Email, '')).toEqual([`: ${V.email}`]);
  });

  it('refuses an address longer than 254 characters with validation.email, even padded with spaces', () => {
    const long = `${'l'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.com`;
    expect(long.length).toBeGreaterThan(254);
    expect(problems(Email, `  ${long}  `)).toEqual([`: ${V.email}`]);
  });
});

describe('NewPassword', () => {
  it('accepts 6 characters and refuses 5 with validation.passwordLength', () => {
    expect(problems(NewPassword, '123456')).toEqual([]);
    expect(problems(NewPassword, '12345')).toEqual([`: ${V.passwordLength}`]);
  });

  it('accepts 128 characters and refuses 129 with validation.passwordTooLong', () => {
    expect(problems(NewPassword, 'p'.repeat(128))).toEqual([]);
    expect(problems(NewPassword, 'p'.repeat(129))).toEqual([`: ${V.passwordTooLong}`]);
  });

  it('keeps spaces, which are part of the password', () => {
    expect(NewPassword.parse('  pass word  ')).toBe('  pass word  ');
  });
});

describe('Otp', () => {
  it('trims a pasted code and refuses anything but 6 digits with validation.otp', () => {
    expect(Otp.parse(' 123456 ')).toBe('123456');
    expect(problems(Otp, '12345')).toEqual([`: ${V.otp}`]);
    expect(problems(Otp, '12 3456')).toEqual([`: ${V.otp}`]);
  });
});

describe('LoginBody', () => {
  it('trims the username (spec §5) and keeps the password as typed', () => {
    expect(LoginBody.parse({ username: '  ann@example.com ', password: ' secret ', otp: '' })).toEqual({
      username: 'ann@example.com',
      password: ' secret ',
      otp: '',
    });
  });

  it('needs no otp', () => {
    expect(problems(LoginBody, { username: 'ann@example.com', password: 'secret' })).toEqual([]);
  });

  it('refuses a blank username and an empty password with their keys', () => {
    expect(problems(LoginBody, { username: '   ', password: '' })).toEqual([
      `username: ${V.email}`,
      `password: ${V.required}`,
    ]);
  });
});

describe('RegisterBody', () => {
  it('trims and lower-cases the email and trims the name', () => {
    expect(RegisterBody.parse({ name: '  Ann Lee ', email: ' Ann@Example.COM ', password: 'secret' })).toEqual({
      name: 'Ann Lee',
      email: 'ann@example.com',
      password: 'secret',
    });
  });

  it('accepts a mobile number, an empty one, or none', () => {
    expect(problems(RegisterBody, { name: 'Ann', email: 'a@x.com', password: 'secret', mobile_number: '+84 901 234 567' })).toEqual([]);
    expect(problems(RegisterBody, { name: 'Ann', email: 'a@x.com', password: 'secret', mobile_number: '  ' })).toEqual([]);
    expect(problems(RegisterBody, { name: 'Ann', email: 'a@x.com', password: 'secret' })).toEqual([]);
  });

  it('names every bad field with its message key at once', () => {
    expect(problems(RegisterBody, { name: '   ', email: 'ann@', password: '12345', mobile_number: '12ab' })).toEqual([
      `name: ${V.name}`,
      `email: ${V.email}`,
      `password: ${V.passwordLength}`,
      `mobile_number: ${V.mobileNumber}`,
    ]);
  });

  it('refuses a name over 100 characters with validation.tooLong', () => {
    expect(problems(RegisterBody, { name: 'n'.repeat(101), email: 'a@x.com', password: 'secret' })).toEqual([
      `name: ${V.tooLong}`,
    ]);
  });

  it('refuses a missing field', () => {
    expect(problems(RegisterBody, { name: 'Ann', password: 'secret' })).toHaveLength(1);
  });
});

describe('ResetPasswordBody and ResendBody', () => {
  it('trim and lower-case the email (spec §5)', () => {
    expect(ResetPasswordBody.parse({ email: ' Ann@X.com ', password: 'secret' })).toEqual({ email: 'ann@x.com', password: 'secret' });
    expect(ResendBody.parse({ email: ' Ann@X.com ' })).toEqual({ email: 'ann@x.com' });
  });

  it('hold the new password to the same rule as registration', () => {
    expect(problems(ResetPasswordBody, { email: 'a@x.com', password: '12345' })).toEqual([`password: ${V.passwordLength}`]);
  });
});

describe('VerifyBody', () => {
  it('takes the hash of an emailed link, trimmed, and refuses a short one', () => {
    expect(VerifyBody.parse({ hash: ` ${'h'.repeat(32)} ` })).toEqual({ hash: 'h'.repeat(32) });
    expect(VerifyBody.safeParse({ hash: 'short' }).success).toBe(false);
    expect(VerifyBody.safeParse({ hash: 'h'.repeat(201) }).success).toBe(false);
  });
});

describe('ResetPasswordForm', () => {
  const good = { email: 'lan@example.vn', password: 'new secret', confirm_password: 'new secret' };

  it('accepts the address and the same new password twice', () => {
    expect(ResetPasswordForm.parse(good)).toEqual(good);
  });

  it('puts a mismatch on confirm_password, and reports a bad address and a short password with it', () => {
    expect(problems(ResetPasswordForm, { ...good, confirm_password: 'new secrets' })).toEqual([`confirm_password: ${V.confirmPassword}`]);
    expect(problems(ResetPasswordForm, { email: 'lan@', password: '123', confirm_password: '1234' })).toEqual([
      `email: ${V.email}`,
      `password: ${V.passwordLength}`,
      `confirm_password: ${V.confirmPassword}`,
    ]);
  });
});

describe('ChangePasswordForm', () => {
  it('accepts a complete form', () => {
    expect(ChangePasswordForm.parse(goodForm)).toEqual(goodForm);
  });

  it('puts a confirmation mismatch on confirm_password with validation.confirmPassword', () => {
    expect(problems(ChangePasswordForm, { ...goodForm, confirm_password: 'new secret!' })).toEqual([
      `confirm_password: ${V.confirmPassword}`,
    ]);
  });

  it('reports a short new password and the mismatch together, so the user fixes both at once', () => {
    expect(problems(ChangePasswordForm, { ...goodForm, new_password: '123', confirm_password: '1234' })).toEqual([
      `new_password: ${V.passwordLength}`,
      `confirm_password: ${V.confirmPassword}`,
    ]);
  });

  it('needs the old password and a 6-digit code', () => {
    expect(problems(ChangePasswordForm, { ...goodForm, old_password: '', otp: '12' })).toEqual([
      `old_password: ${V.required}`,
      `otp: ${V.otp}`,
    ]);
  });
});

describe('PasswordChangeBody', () => {
  it('accepts {init: true}, which asks for the emailed code', () => {
    expect(PasswordChangeBody.parse({ init: true })).toEqual({ init: true });
  });

  it('accepts {otp_enabled} with either boolean', () => {
    expect(PasswordChangeBody.parse({ otp_enabled: true })).toEqual({ otp_enabled: true });
    expect(PasswordChangeBody.parse({ otp_enabled: false })).toEqual({ otp_enabled: false });
  });

  it('accepts the change-password form', () => {
    expect(PasswordChangeBody.parse(goodForm)).toEqual(goodForm);
  });

  it.each([
    ['an empty body', {}],
    ['init: false', { init: false }],
    ['init as text', { init: 'true' }],
    ['otp_enabled as text', { otp_enabled: 'yes' }],
    ['init mixed with otp_enabled', { init: true, otp_enabled: true }],
    ['init with an extra field', { init: true, email: 'a@x.com' }],
    ['otp_enabled with an extra field', { otp_enabled: true, roles: ['admin'] }],
    ['half a form', { old_password: 'old secret', new_password: 'new secret' }],
    ['null', null],
  ])('refuses %s', (_label, body) => {
    expect(PasswordChangeBody.safeParse(body).success).toBe(false);
  });

  it('keeps the form’s own message keys when the form is wrong', () => {
    expect(problems(PasswordChangeBody, { ...goodForm, confirm_password: 'other' })).toEqual([
      `confirm_password: ${V.confirmPassword}`,
    ]);
  });
});

describe('answers', () => {
  it('LoginAnswer needs the token and the user of spec §7', () => {
    const user = { id: 1, name: 'Ann', email: 'ann@x.com', roles: ['super_user'], created: '2024-03-05T00:00:00.000Z' };
    expect(LoginAnswer.safeParse({ ...user, auth_token: 'tok' }).success).toBe(true);
    expect(LoginAnswer.safeParse(user).success).toBe(false);
    expect(LoginAnswer.safeParse({ ...user, auth_token: 'tok', roles: ['owner'] }).success).toBe(false);
  });

  it('SecuritySettings and Profile carry otp_enabled as a boolean', () => {
    expect(SecuritySettings.safeParse({ otp_enabled: true }).success).toBe(true);
    expect(SecuritySettings.safeParse({ otp_enabled: 'true' }).success).toBe(false);
    const profile = {
      id: 1,
      name: 'Ann',
      email: 'ann@x.com',
      roles: [],
      created: '2024-03-05T00:00:00.000Z',
      agency: null,
      otp_enabled: false,
      mobile_number: null,
    };
    expect(Profile.safeParse(profile).success).toBe(true);
    expect(Profile.safeParse({ ...profile, otp_enabled: undefined }).success).toBe(false);
  });
});
