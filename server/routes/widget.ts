import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ApplicationParams,
  Empty,
  Widget,
  WidgetBody,
  WidgetListQuery,
  WidgetParams,
  WidgetStatusBody,
  ok,
  page,
} from '../../shared/contract';
import { createWidget, deleteWidget, getWidget, listWidgets, setWidgetStatus, updateWidget } from '../domain/widgets';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['widgets'];
/** Spec §6: banner, suggestion, fake_noti, maxlead and feature share the notifications roles; viewers only read. */
const config = { area: 'notifications' } as const;

/** Storefront widgets (banners, flash sales, forms, spin wheels, suggestions, fake-buyer notices, contact buttons). */
export const widgetRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/widget',
    {
      config,
      schema: {
        description:
          'The widgets, newest first, with all-time views, clicks and leads. `types` is a comma-separated list of widget types (`schedule,banner,contact,spin` for the banner screen).',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: WidgetListQuery,
        response: { 200: ok(page(Widget)), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listWidgets(ctxOf(request), applicationOf(request), request.query),
    }),
  );

  app.post(
    '/application/:application_id/widget',
    {
      config,
      schema: {
        description:
          'Creates a widget of one type with its settings and display rules. Contact buttons are checked against the plan (PLAN_LIMIT).',
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: WidgetBody,
        response: { 200: ok(Widget), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await createWidget(ctxOf(request), applicationOf(request), request.body),
    }),
  );

  app.get(
    '/application/:application_id/widget/:widget_id',
    {
      config,
      schema: {
        description: 'One widget with its counters.',
        tags,
        security: signedIn,
        params: WidgetParams,
        response: { 200: ok(Widget), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getWidget(ctxOf(request), applicationOf(request), request.params.widget_id),
    }),
  );

  app.put(
    '/application/:application_id/widget/:widget_id',
    {
      config,
      schema: {
        description:
          "Replaces a widget's name, status, settings and rules. Its type cannot change. Contact buttons are checked against the plan (PLAN_LIMIT).",
        tags,
        security: signedIn,
        params: WidgetParams,
        body: WidgetBody,
        response: { 200: ok(Widget), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateWidget(ctxOf(request), applicationOf(request), request.params.widget_id, request.body),
    }),
  );

  app.post(
    '/application/:application_id/widget/:widget_id/status',
    {
      config,
      schema: {
        description: 'Switches a widget on (`active`) or off (`inactive`). Switching contact buttons on checks the plan again.',
        tags,
        security: signedIn,
        params: WidgetParams,
        body: WidgetStatusBody,
        response: { 200: ok(Widget), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await setWidgetStatus(ctxOf(request), applicationOf(request), request.params.widget_id, request.body.status),
    }),
  );

  app.delete(
    '/application/:application_id/widget/:widget_id',
    {
      config,
      schema: {
        description: 'Deletes a widget with its counters and spins. The leads it collected stay, without a widget.',
        tags,
        security: signedIn,
        params: WidgetParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await deleteWidget(ctxOf(request), applicationOf(request), request.params.widget_id);
      return { success: true as const, data: {} };
    },
  );
};
