import { z } from 'zod';
import { FEATURES, MEMBER_ROLES, ROLES } from './index';
import { PLAN_NAMES } from './plans';

export const Role = z.enum(ROLES);
export const MemberRole = z.enum(MEMBER_ROLES);
export const Feature = z.enum(FEATURES);
/** An application's plan (shared/permissions/plans.ts). */
export const Plan = z.enum(PLAN_NAMES);
