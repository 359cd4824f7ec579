import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApplicationParams, Empty, Template, TemplateInput, TemplateListQuery, TemplateParams, ok, page } from '../../shared/contract';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, updateTemplate } from '../domain/templates';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['templates'];
/** Templates belong to the Notifications area (spec §6); a viewer reads only. */
const config = { area: 'notifications' } as const;

const contentRules =
  "The content keeps only its type's fields and follows a message's rules (a heading for web and mobile push, an SMS within 640 characters, the plan's button cap as PLAN_LIMIT).";

/** Saved contents the console fills a new message's form from. */
export const templateRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/template',
    {
      config,
      schema: {
        description: 'Templates, newest first, by type (or all) and a name search (`q`).',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: TemplateListQuery,
        response: { 200: ok(page(Template)), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listTemplates(ctxOf(request), applicationOf(request), request.query) }),
  );

  app.post(
    '/application/:application_id/template',
    {
      config,
      schema: {
        description: `Saves a template for one type. ${contentRules}`,
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: TemplateInput,
        response: { 200: ok(Template), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await createTemplate(ctxOf(request), applicationOf(request), request.body) }),
  );

  app.get(
    '/application/:application_id/template/:template_id',
    {
      config,
      schema: { description: 'One template.', tags, security: signedIn, params: TemplateParams, response: { 200: ok(Template), ...failures } },
    },
    async (request) => ({ success: true as const, data: await getTemplate(ctxOf(request), applicationOf(request), request.params.template_id) }),
  );

  app.put(
    '/application/:application_id/template/:template_id',
    {
      config,
      schema: {
        description: `Replaces a template's name, type and content. ${contentRules}`,
        tags,
        security: signedIn,
        params: TemplateParams,
        body: TemplateInput,
        response: { 200: ok(Template), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateTemplate(ctxOf(request), applicationOf(request), request.params.template_id, request.body),
    }),
  );

  app.delete(
    '/application/:application_id/template/:template_id',
    {
      config,
      schema: {
        description: 'Deletes a template. Messages made from it keep their content.',
        tags,
        security: signedIn,
        params: TemplateParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await deleteTemplate(ctxOf(request), applicationOf(request), request.params.template_id);
      return { success: true as const, data: {} };
    },
  );
};
