import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ApplicationParams,
  Empty,
  PageQuery,
  Segment,
  SegmentBody,
  SegmentCount,
  SegmentCountBody,
  SegmentDetail,
  SegmentParams,
  ok,
  page,
} from '../../shared/contract';
import { countRule, createSegment, deleteSegment, getSegment, listSegments, updateSegment } from '../domain/segments';
import { applicationOf, ctxOf, principalOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['segments'];
/** Spec §6: segments are for super users, managers and ads managers. */
const config = { area: 'segments' } as const;

const ruleHelp =
  'A rule is `{ any: [{ all: [condition…] }] }`: a player matches when any group matches, a group when all its conditions do. Empty rules, groups and condition values are INVALID_PARAM with the field path (spec §5).';
const nameHelp =
  "A name another segment of the application has is CONFLICT (409) on the field `name`; names are compared trimmed, with runs of spaces as one, in one Unicode form, and case-insensitively (\"KHÁCH VN\" is \"khách vn\").";

/** Saved segments with their size over time, and the live count of a rule being edited. */
export const segmentRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/segment',
    {
      config,
      schema: {
        description: 'Segments, newest first, each with its latest size (measured on save, and again on the first read of each day).',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: PageQuery,
        response: { 200: ok(page(Segment)), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listSegments(ctxOf(request), applicationOf(request), request.query) }),
  );

  app.post(
    '/application/:application_id/segment',
    {
      config,
      schema: {
        description: `Saves a segment and measures its size. ${ruleHelp} ${nameHelp}`,
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: SegmentBody,
        response: { 200: ok(Segment), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await createSegment(ctxOf(request), applicationOf(request), principalOf(request).userId, request.body),
    }),
  );

  app.post(
    '/application/:application_id/segment/count',
    {
      config,
      schema: {
        description: `The number of players a rule matches now, and the application's players in total: the editor's live count. ${ruleHelp}`,
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: SegmentCountBody,
        response: { 200: ok(SegmentCount), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await countRule(ctxOf(request), applicationOf(request), request.body.rule) }),
  );

  app.get(
    '/application/:application_id/segment/:segment_id',
    {
      config,
      schema: {
        description: 'One segment with its daily sizes over the last year, oldest first.',
        tags,
        security: signedIn,
        params: SegmentParams,
        response: { 200: ok(SegmentDetail), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getSegment(ctxOf(request), applicationOf(request), request.params.segment_id) }),
  );

  app.put(
    '/application/:application_id/segment/:segment_id',
    {
      config,
      schema: {
        description: `Replaces a segment's name and rule and measures it again. ${ruleHelp} ${nameHelp}`,
        tags,
        security: signedIn,
        params: SegmentParams,
        body: SegmentBody,
        response: { 200: ok(Segment), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateSegment(ctxOf(request), applicationOf(request), request.params.segment_id, request.body),
    }),
  );

  app.delete(
    '/application/:application_id/segment/:segment_id',
    {
      config,
      schema: {
        description: 'Deletes a segment with its size history.',
        tags,
        security: signedIn,
        params: SegmentParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await deleteSegment(ctxOf(request), applicationOf(request), request.params.segment_id);
      return { success: true as const, data: {} };
    },
  );
};
