import { z } from 'zod';
import { FEATURES, MEMBER_ROLES, ROLES } from './index';

export const Role = z.enum(ROLES);
export const MemberRole = z.enum(MEMBER_ROLES);
export const Feature = z.enum(FEATURES);
