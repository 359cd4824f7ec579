import { z } from 'zod';
import { MemberRole, Plan, Role } from '../permissions/schema';
import { APPLICATION_ID_MAX_LENGTH, V, isApplicationId, isNotBlank, isUtcOffset } from '../validation';
import { isPhoneCountry } from '../validation/phone-countries';
import { Email } from './user';
import { PageQuery, Timestamp } from './common';

export const ApplicationId = z.string().trim().refine(isApplicationId, { message: V.applicationId });

export const ApplicationName = z
  .string()
  .refine(isNotBlank, { message: V.applicationName })
  .transform((value) => value.trim())
  .pipe(z.string().max(100, { message: V.tooLong }));

/**
 * An application's timezone, minutes east of UTC: one of UTC_OFFSETS (spec §9). Its days on the dashboard and in
 * its statistics are this timezone's days.
 */
export const UtcOffset = z.number({ error: V.utcOffset }).refine(isUtcOffset, { message: V.utcOffset });

/**
 * The country an application's players write their mobile numbers in (ISO 3166-1 alpha-2, "VN"): a national number
 * ("0912 345 678") is read there and kept in its international form ("+84912345678"; shared/validation/phone.ts).
 */
export const PhoneCountry = z
  .string({ error: V.phoneCountry })
  .trim()
  .transform((value) => value.toUpperCase())
  .refine(isPhoneCountry, { message: V.phoneCountry });

/** An application as the list shows it (spec §2, §3). */
export const Application = z.object({
  application_id: z.string(),
  name: z.string(),
  client_key: z.string(),
  total_users: z.number().int(),
  platforms: z.array(z.string()),
  created: Timestamp,
  /** Set while a deletion is pending (spec §4): actions are blocked until it is cancelled. */
  deleting_at: Timestamp.nullable(),
  /** The caller's role in it. */
  role: MemberRole.nullable(),
  /** Its plan, whose caps (PLANS) the console shows ahead of a save; read-only, billing sets it. */
  plan: Plan,
  /** Its timezone (UtcOffset). */
  utc_offset: z.number().int(),
  /** Its country for phone numbers (PhoneCountry). */
  phone_country: z.string(),
});
export type Application = z.infer<typeof Application>;

/** POST /application. Without a timezone, UTC+07:00, and without a country for phone numbers, Vietnam (the console's default language is Vietnamese). */
export const CreateApplicationBody = z.object({
  application_id: ApplicationId,
  name: ApplicationName,
  utc_offset: UtcOffset.optional(),
  phone_country: PhoneCountry.optional(),
});
export type CreateApplicationBody = z.infer<typeof CreateApplicationBody>;

/**
 * PUT /application/{application_id}. A timezone or country left out is kept. A new country reads the numbers that
 * come after; those already kept are international and stay as they are.
 */
export const UpdateApplicationBody = z.object({ name: ApplicationName, utc_offset: UtcOffset.optional(), phone_country: PhoneCountry.optional() });
export type UpdateApplicationBody = z.infer<typeof UpdateApplicationBody>;

export const ApplicationParams = z.object({ application_id: z.string().max(APPLICATION_ID_MAX_LENGTH) });

export const ApplicationListQuery = PageQuery.extend({ q: z.string().trim().max(100).optional() });
export type ApplicationListQuery = z.infer<typeof ApplicationListQuery>;

/** The user's standing in one application: GET /application/{application_id}/access (spec §7). */
export const ApplicationAccess = z.object({
  roles: z.array(Role),
  agency: z.string().nullable(),
  permissions: z.array(z.string()),
});
export type ApplicationAccess = z.infer<typeof ApplicationAccess>;

/** A team member (spec §3): email, role, organization, joined date. */
export const TeamMember = z.object({
  user_id: z.number().int(),
  email: z.string(),
  name: z.string().nullable(),
  role: MemberRole,
  organization: z.string().nullable(),
  joined: Timestamp,
  /** invited: the person has no account yet; the invitation is taken up when they register. */
  status: z.enum(['active', 'invited']),
});
export type TeamMember = z.infer<typeof TeamMember>;

export const Organization = z.string().trim().max(100, { message: V.tooLong });

/** POST /application/{application_id}/user. */
export const InviteMemberBody = z.object({
  email: Email,
  role: MemberRole,
  organization: Organization.optional(),
});
export type InviteMemberBody = z.infer<typeof InviteMemberBody>;

/** PUT /application/{application_id}/user/{user_id}. */
export const UpdateMemberBody = z.object({ role: MemberRole, organization: Organization.optional() });
export type UpdateMemberBody = z.infer<typeof UpdateMemberBody>;

export const MemberParams = ApplicationParams.extend({ user_id: z.coerce.number().int().positive() });

/** GET /application/{application_id}/user/role: the roles the caller may hand out, with their label keys. */
export const AssignableRoles = z.object({
  roles: z.array(z.object({ role: MemberRole, label: z.string() })),
});
export type AssignableRoles = z.infer<typeof AssignableRoles>;
