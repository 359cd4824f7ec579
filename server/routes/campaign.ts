import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ApplicationParams,
  Campaign,
  CampaignDeleteBody,
  CampaignInput,
  CampaignListQuery,
  CampaignParams,
  Empty,
  ok,
  page,
} from '../../shared/contract';
import { createCampaign, deleteCampaign, getCampaign, listCampaigns, updateCampaign } from '../domain/campaigns';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['campaigns'];
/** Campaigns belong to the Notifications area (spec §6); a viewer reads only. */
const config = { area: 'notifications' } as const;

/** Campaigns: named groups of messages with their totals (spec §2 /campaign/:campaign_id). */
export const campaignRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/campaign',
    {
      config,
      schema: {
        description: 'Campaigns, newest first, each with its number of messages and their summed counters; `q` searches the name.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: CampaignListQuery,
        response: { 200: ok(page(Campaign)), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listCampaigns(ctxOf(request), applicationOf(request), request.query) }),
  );

  app.post(
    '/application/:application_id/campaign',
    {
      config,
      schema: {
        description: 'Creates a campaign. Messages join it with their `campaign_id`.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: CampaignInput,
        response: { 200: ok(Campaign), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await createCampaign(ctxOf(request), applicationOf(request), request.body) }),
  );

  app.get(
    '/application/:application_id/campaign/:campaign_id',
    {
      config,
      schema: {
        description: "One campaign with its totals; its messages are GET …/notification?campaign_id=….",
        tags,
        security: signedIn,
        params: CampaignParams,
        response: { 200: ok(Campaign), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getCampaign(ctxOf(request), applicationOf(request), request.params.campaign_id) }),
  );

  app.put(
    '/application/:application_id/campaign/:campaign_id',
    {
      config,
      schema: {
        description: "Renames a campaign or changes its description.",
        tags,
        security: signedIn,
        params: CampaignParams,
        body: CampaignInput,
        response: { 200: ok(Campaign), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateCampaign(ctxOf(request), applicationOf(request), request.params.campaign_id, request.body),
    }),
  );

  app.delete(
    '/application/:application_id/campaign/:campaign_id',
    {
      config,
      schema: {
        description:
          "Deletes a campaign once its name is typed exactly as `confirm_name` (spec §5; otherwise INVALID_PARAM on that field and nothing changes). Its messages stay, outside any campaign. This can't be undone.",
        tags,
        security: signedIn,
        params: CampaignParams,
        body: CampaignDeleteBody,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await deleteCampaign(ctxOf(request), applicationOf(request), request.params.campaign_id, request.body.confirm_name);
      return { success: true as const, data: {} };
    },
  );
};
