import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ApplicationParams,
  AssignableRoles,
  Empty,
  InviteMemberBody,
  MemberParams,
  PageQuery,
  TeamMember,
  UpdateMemberBody,
  ok,
  page,
} from '../../shared/contract';
import { getAssignableRoles, inviteMember, listMembers, removeMember, updateMember } from '../domain/team';
import { applicationOf, ctxOf, principalOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['team'];
const config = { area: 'team' } as const;

/** The team of an application (Super User, Manager): list, invite, change role, remove. */
export const teamRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/user',
    {
      config,
      schema: {
        description: 'The members: email, role, organization, joined, and whether they have registered yet.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: PageQuery,
        response: { 200: ok(page(TeamMember)), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listMembers(ctxOf(request), applicationOf(request), request.query),
    }),
  );

  app.get(
    '/application/:application_id/user/role',
    {
      config,
      schema: {
        description: 'The roles the caller may hand out here, with the i18n keys of their labels.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(AssignableRoles), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: getAssignableRoles(applicationOf(request)) }),
  );

  app.post(
    '/application/:application_id/user',
    {
      config,
      schema: {
        description:
          'Adds a member. An existing account joins at once and is notified; an unknown address is invited to register. Nobody hands out a role above their own.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: InviteMemberBody,
        response: { 200: ok(TeamMember), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await inviteMember(ctxOf(request), principalOf(request), applicationOf(request), request.body),
    }),
  );

  app.put(
    '/application/:application_id/user/:user_id',
    {
      config,
      schema: {
        description:
          "Changes a member's role or organization. Nobody changes their own role; the application keeps at least one Super User.",
        tags,
        security: signedIn,
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: ok(TeamMember), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateMember(
        ctxOf(request),
        principalOf(request),
        applicationOf(request),
        request.params.user_id,
        request.body,
      ),
    }),
  );

  app.delete(
    '/application/:application_id/user/:user_id',
    {
      config,
      schema: {
        description: 'Removes a member. The application keeps at least one Super User.',
        tags,
        security: signedIn,
        params: MemberParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await removeMember(ctxOf(request), applicationOf(request), request.params.user_id);
      return { success: true as const, data: {} };
    },
  );
};
