import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { V } from '../validation';
import {
  Application,
  ApplicationAccess,
  ApplicationId,
  ApplicationListQuery,
  ApplicationName,
  ApplicationParams,
  AssignableRoles,
  CreateApplicationBody,
  InviteMemberBody,
  MemberParams,
  TeamMember,
  UpdateApplicationBody,
  UpdateMemberBody,
} from './application';

function problems(schema: z.ZodType, body: unknown): string[] {
  const result = schema.safeParse(body);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('CreateApplicationBody', () => {
  it('accepts an id and a name, trimming both', () => {
    expect(CreateApplicationBody.parse({ application_id: '  my_shop ', name: '  My Shop  ' })).toEqual({
      application_id: 'my_shop',
      name: 'My Shop',
    });
  });

  it('refuses a blank name with validation.applicationName', () => {
    for (const name of ['', '   ', '\t']) {
      expect(problems(CreateApplicationBody, { application_id: 'my_shop', name })).toEqual([`name: ${V.applicationName}`]);
    }
  });

  it('refuses a name over 100 characters with validation.tooLong, counted after trimming', () => {
    expect(problems(CreateApplicationBody, { application_id: 'my_shop', name: `  ${'n'.repeat(100)}  ` })).toEqual([]);
    expect(problems(CreateApplicationBody, { application_id: 'my_shop', name: 'n'.repeat(101) })).toEqual([
      `name: ${V.tooLong}`,
    ]);
  });

  it('refuses a bad id with validation.applicationId', () => {
    for (const id of ['ab', 'my-shop', 'my shop', 'a'.repeat(65), '']) {
      expect(problems(CreateApplicationBody, { application_id: id, name: 'Shop' }), id).toEqual([
        `application_id: ${V.applicationId}`,
      ]);
    }
  });

  it('accepts ids of 3 and 64 characters', () => {
    expect(problems(CreateApplicationBody, { application_id: 'abc', name: 'Shop' })).toEqual([]);
    expect(problems(CreateApplicationBody, { application_id: 'a'.repeat(64), name: 'Shop' })).toEqual([]);
  });

  it('reports a bad id and a blank name together', () => {
    expect(problems(CreateApplicationBody, { application_id: 'a-b', name: ' ' })).toEqual([
      `application_id: ${V.applicationId}`,
      `name: ${V.applicationName}`,
    ]);
  });

  it('refuses a name that is not text', () => {
    expect(CreateApplicationBody.safeParse({ application_id: 'my_shop', name: 42 }).success).toBe(false);
  });
});

describe('UpdateApplicationBody', () => {
  it('holds the name to the same rules', () => {
    expect(UpdateApplicationBody.parse({ name: ' Renamed ' })).toEqual({ name: 'Renamed' });
    expect(problems(UpdateApplicationBody, { name: '  ' })).toEqual([`name: ${V.applicationName}`]);
  });

  it('does not let the id change', () => {
    expect(UpdateApplicationBody.parse({ name: 'Shop', application_id: 'other' })).toEqual({ name: 'Shop' });
  });
});

describe('an application timezone (UtcOffset)', () => {
  it('is a UTC offset in use from UTC-12:00 to UTC+13:00, in minutes', () => {
    for (const utc_offset of [-720, -570, 0, 345, 420, 765, 780]) {
      expect(problems(UpdateApplicationBody, { name: 'Shop', utc_offset }), String(utc_offset)).toEqual([]);
    }
  });

  it('refuses any other number, or anything not a number, with validation.utcOffset', () => {
    for (const utc_offset of [7, 61, 840, -780, 420.5, '420', null, true]) {
      expect(problems(UpdateApplicationBody, { name: 'Shop', utc_offset }), String(utc_offset)).toEqual([`utc_offset: ${V.utcOffset}`]);
      expect(problems(CreateApplicationBody, { application_id: 'my_shop', name: 'Shop', utc_offset }), String(utc_offset)).toEqual([`utc_offset: ${V.utcOffset}`]);
    }
  });
});

describe('ApplicationId and ApplicationName on their own', () => {
  it('give the same answers as inside the body', () => {
    expect(ApplicationId.parse(' shop_1 ')).toBe('shop_1');
    expect(ApplicationName.parse(' Shop ')).toBe('Shop');
  });
});

describe('ApplicationParams', () => {
  it('refuses an id longer than any application id can be', () => {
    expect(ApplicationParams.safeParse({ application_id: 'a'.repeat(64) }).success).toBe(true);
    expect(ApplicationParams.safeParse({ application_id: 'a'.repeat(65) }).success).toBe(false);
  });
});

describe('ApplicationListQuery', () => {
  it('defaults to the first page of 20', () => {
    expect(ApplicationListQuery.parse({})).toEqual({ page: 1, limit: 20 });
  });

  it('reads numbers from the query string and trims the search', () => {
    expect(ApplicationListQuery.parse({ page: '3', limit: '50', q: '  shop ' })).toEqual({ page: 3, limit: 50, q: 'shop' });
  });

  it('refuses page 0, a limit over 100 and text where a number goes', () => {
    expect(ApplicationListQuery.safeParse({ page: '0' }).success).toBe(false);
    expect(ApplicationListQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(ApplicationListQuery.safeParse({ page: 'two' }).success).toBe(false);
  });
});

describe('Application', () => {
  const app = {
    application_id: 'my_shop',
    name: 'My Shop',
    client_key: 'ck_123',
    total_users: 0,
    platforms: [],
    created: '2024-03-05T00:00:00.000Z',
    deleting_at: null,
    role: 'super_user',
    plan: 'free',
    utc_offset: 420,
    phone_country: 'VN',
  };

  it('describes the columns of the application list (spec §2)', () => {
    expect(Application.safeParse(app).success).toBe(true);
  });

  it('refuses a role that cannot be held in an application', () => {
    expect(Application.safeParse({ ...app, role: 'admin' }).success).toBe(false);
    expect(Application.safeParse({ ...app, role: null }).success).toBe(true);
  });

  it('carries one of the plans, and nothing else', () => {
    expect(Application.safeParse({ ...app, plan: 'pay_as_you_go' }).success).toBe(true);
    expect(Application.safeParse({ ...app, plan: 'gold' }).success).toBe(false);
  });

  it('refuses a fractional user count', () => {
    expect(Application.safeParse({ ...app, total_users: 1.5 }).success).toBe(false);
  });
});

describe('ApplicationAccess', () => {
  it('carries roles, agency and permissions (spec §7)', () => {
    expect(ApplicationAccess.safeParse({ roles: ['viewer'], agency: null, permissions: ['push'] }).success).toBe(true);
    expect(ApplicationAccess.safeParse({ roles: ['owner'], agency: null, permissions: [] }).success).toBe(false);
    expect(ApplicationAccess.safeParse({ roles: [], agency: 'ipush' }).success).toBe(false);
  });
});

describe('InviteMemberBody', () => {
  it('trims and lower-cases the email and trims the organization', () => {
    expect(InviteMemberBody.parse({ email: ' Lan@Example.com ', role: 'viewer', organization: ' Agency X ' })).toEqual({
      email: 'lan@example.com',
      role: 'viewer',
      organization: 'Agency X',
    });
  });

  it('accepts every member role and refuses admin and unknown roles', () => {
    for (const role of ['super_user', 'manager', 'user', 'viewer', 'ads_manager']) {
      expect(problems(InviteMemberBody, { email: 'a@x.com', role }), role).toEqual([]);
    }
    expect(InviteMemberBody.safeParse({ email: 'a@x.com', role: 'admin' }).success).toBe(false);
    expect(InviteMemberBody.safeParse({ email: 'a@x.com', role: 'owner' }).success).toBe(false);
    expect(InviteMemberBody.safeParse({ email: 'a@x.com' }).success).toBe(false);
  });

  it('refuses a bad email with validation.email and a long organization with validation.tooLong', () => {
    expect(problems(InviteMemberBody, { email: 'lan@', role: 'viewer', organization: 'o'.repeat(101) })).toEqual([
      `email: ${V.email}`,
      `organization: ${V.tooLong}`,
    ]);
  });
});

describe('UpdateMemberBody', () => {
  it('changes the role and optionally the organization', () => {
    expect(UpdateMemberBody.parse({ role: 'manager' })).toEqual({ role: 'manager' });
    expect(UpdateMemberBody.safeParse({ role: 'admin' }).success).toBe(false);
  });
});

describe('MemberParams', () => {
  it('reads a positive whole user id from the path', () => {
    expect(MemberParams.parse({ application_id: 'my_shop', user_id: '7' })).toEqual({ application_id: 'my_shop', user_id: 7 });
    for (const userId of ['0', '-1', '1.5', 'abc']) {
      expect(MemberParams.safeParse({ application_id: 'my_shop', user_id: userId }).success, userId).toBe(false);
    }
  });
});

describe('TeamMember and AssignableRoles', () => {
  it('describe the team list (spec §3) and the roles one may hand out', () => {
    const member = {
      user_id: 7,
      email: 'lan@example.com',
      name: null,
      role: 'viewer',
      organization: null,
      joined: '2024-03-05T00:00:00.000Z',
      status: 'invited',
    };
    expect(TeamMember.safeParse(member).success).toBe(true);
    expect(TeamMember.safeParse({ ...member, status: 'pending' }).success).toBe(false);
    expect(AssignableRoles.safeParse({ roles: [{ role: 'viewer', label: 'roles.viewer' }] }).success).toBe(true);
    expect(AssignableRoles.safeParse({ roles: [{ role: 'admin', label: 'roles.admin' }] }).success).toBe(false);
  });
});
