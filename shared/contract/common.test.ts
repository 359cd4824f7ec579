import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorCode, ErrorEnvelope, PageQuery, ok, page } from './common';

describe('ErrorCode', () => {
  it('holds the stable codes the console and the error catalogue rely on (spec §8)', () => {
    for (const code of ['NOT_AUTHORIZED', 'INVALID_PARAM', 'NO_PERMISSION', 'NOT_FOUND', 'APPLICATION_DELETING', 'PLAN_LIMIT']) {
      expect(ErrorCode.options).toContain(code);
    }
  });
});

describe('ErrorEnvelope', () => {
  it('accepts a failure with a code, a message and optional field problems', () => {
    expect(ErrorEnvelope.safeParse({ success: false, error: 'NO_PERMISSION', message: 'NO PERMISSION' }).success).toBe(true);
    expect(
      ErrorEnvelope.safeParse({
        success: false,
        error: 'INVALID_PARAM',
        message: 'Some fields are not valid.',
        fields: [{ path: 'email', message: 'validation.email' }],
      }).success,
    ).toBe(true);
  });

  it('refuses an unknown code and success: true', () => {
    expect(ErrorEnvelope.safeParse({ success: false, error: 'OOPS', message: 'x' }).success).toBe(false);
    expect(ErrorEnvelope.safeParse({ success: true, error: 'NOT_FOUND', message: 'x' }).success).toBe(false);
  });
});

describe('ok()', () => {
  it('wraps data in the success envelope, with an optional message', () => {
    const answer = ok(z.object({ id: z.number() }));
    expect(answer.parse({ success: true, data: { id: 1 } })).toEqual({ success: true, data: { id: 1 } });
    expect(answer.safeParse({ success: true, data: { id: 1 }, message: 'Success!' }).success).toBe(true);
    expect(answer.safeParse({ success: false, data: { id: 1 } }).success).toBe(false);
    expect(answer.safeParse({ success: true, data: { id: 'one' } }).success).toBe(false);
  });
});

describe('page()', () => {
  it('describes one page of a list', () => {
    const list = page(z.string());
    expect(list.safeParse({ items: ['a'], total: 1, page: 1, limit: 20 }).success).toBe(true);
    expect(list.safeParse({ items: [1], total: 1, page: 1, limit: 20 }).success).toBe(false);
  });
});

describe('PageQuery', () => {
  it('defaults to page 1 of 20 and caps the limit at 100', () => {
    expect(PageQuery.parse({})).toEqual({ page: 1, limit: 20 });
    expect(PageQuery.parse({ page: '2', limit: '100' })).toEqual({ page: 2, limit: 100 });
    expect(PageQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(PageQuery.safeParse({ limit: '0' }).success).toBe(false);
  });
});

describe('when a check has no message of its own', () => {
  it('answers an i18n key rather than zod’s English', async () => {
    const { z } = await import('zod');
    const { VerifyBody, PasswordChangeBody } = await import('./user');
    const { PageQuery } = await import('./common');
    expect(VerifyBody.safeParse({}).error?.issues[0].message).toBe('validation.required');
    expect(VerifyBody.safeParse({ hash: 'short' }).error?.issues[0].message).toBe('validation.tooShort');
    expect(PageQuery.safeParse({ limit: 1000 }).error?.issues[0].message).toBe('validation.outOfRange');
    expect(PasswordChangeBody.safeParse({ nothing: 1 }).error?.issues[0].message).toBe('validation.invalid');
    // A value of another kind than the field takes says which kind it takes.
    expect(z.string().safeParse(5).error?.issues[0].message).toBe('validation.expectedText');
    expect(z.number().int().safeParse(1.5).error?.issues[0].message).toBe('validation.expectedInteger');
    expect(z.coerce.number().safeParse('abc').error?.issues[0].message).toBe('validation.expectedNumber');
    expect(z.array(z.string()).safeParse({}).error?.issues[0].message).toBe('validation.expectedList');
  });
});
