import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ApplicationParams,
  Empty,
  Player,
  PlayerDetail,
  PlayerEventsPage,
  PlayerEventsQuery,
  OwnPlayer,
  PlayerInfoParams,
  PlayerListQuery,
  PlayerPage,
  PlayerParams,
  PlayerTagParams,
  PlayerTagsBody,
  TAG_LIST_MAX,
  TagList,
  ok,
} from '../../shared/contract';
import {
  addPlayerTags,
  deletePlayer,
  getOwnPlayer,
  getPlayer,
  listPlayerEvents,
  listPlayers,
  listTags,
  PLAYER_EVENTS_PAGE,
  removePlayerTag,
  unsubscribeOwnPlayer,
} from '../domain/players';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['players'];
/** Spec §6: /player has no role list, so every member reads it; the domain keeps viewers and ads managers from writing. */
const config = { area: 'member' } as const;

/** The audience's players (devices) in the console, and the public page where a player sees their own record. */
export const playerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/player',
    {
      config,
      schema: {
        description:
          'Players (one per browser or app install), filtered and sorted; `q` finds an exact device id, user id, email or mobile number. `total` is an exact count.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        querystring: PlayerListQuery,
        response: { 200: ok(PlayerPage), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listPlayers(ctxOf(request), applicationOf(request), request.query) }),
  );

  app.get(
    '/application/:application_id/tag',
    {
      config,
      schema: {
        description: `The tags the application's players have, with how many have each: the most held first, then by name, at most ${TAG_LIST_MAX} (\`more\` when there are others). Tags are compared as written: \`VIP\` and \`vip\` are two tags.`,
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(TagList), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listTags(ctxOf(request), applicationOf(request)) }),
  );

  app.get(
    '/application/:application_id/player/:player_id',
    {
      config,
      schema: {
        description:
          `One player with every attribute (typed from the attribute definitions) and the first page of the player's events (the newest ${PLAYER_EVENTS_PAGE}; \`more\` when older ones follow: GET …/events for them).`,
        tags,
        security: signedIn,
        params: PlayerParams,
        response: { 200: ok(PlayerDetail), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getPlayer(ctxOf(request), applicationOf(request), request.params.player_id) }),
  );

  app.get(
    '/application/:application_id/player/:player_id/events',
    {
      config,
      schema: {
        description:
          `A player's events, newest first, ${PLAYER_EVENTS_PAGE} a page; \`more\` when older ones follow. The next page: \`before_at\` and \`before_id\`, the \`occurred_at\` and \`id\` of the last event shown (both, or neither for the newest page).`,
        tags,
        security: signedIn,
        params: PlayerParams,
        querystring: PlayerEventsQuery,
        response: { 200: ok(PlayerEventsPage), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listPlayerEvents(ctxOf(request), applicationOf(request), request.params.player_id, request.query),
    }),
  );

  app.post(
    '/application/:application_id/player/:player_id/tags',
    {
      config,
      schema: {
        description: 'Adds tags to a player (those it has stay). Super users, managers and users.',
        tags,
        security: signedIn,
        params: PlayerParams,
        body: PlayerTagsBody,
        response: { 200: ok(Player), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await addPlayerTags(ctxOf(request), applicationOf(request), request.params.player_id, request.body.tags),
    }),
  );

  app.delete(
    '/application/:application_id/player/:player_id/tags/:tag',
    {
      config,
      schema: {
        description: 'Removes one tag from a player; a tag it does not have is NOT_FOUND. Super users, managers and users.',
        tags,
        security: signedIn,
        params: PlayerTagParams,
        response: { 200: ok(Player), ...failures },
      },
    },
    async (request) => ({
      success: true as const,
      data: await removePlayerTag(ctxOf(request), applicationOf(request), request.params.player_id, request.params.tag),
    }),
  );

  app.delete(
    '/application/:application_id/player/:player_id',
    {
      config,
      schema: {
        description: 'Deletes a player with its tags, attributes, events and daily activity. Super users, managers and users.',
        tags,
        security: signedIn,
        params: PlayerParams,
        response: { 200: ok(Empty), ...failures },
      },
    },
    async (request) => {
      await deletePlayer(ctxOf(request), applicationOf(request), request.params.player_id);
      return { success: true as const, data: {} };
    },
  );

  const info = {
    public: true,
  } as const;
  const infoDescription =
    "No sign-in: the device id is the long random id the storefront SDK or app keeps on the device, and holding it is the credential (share it as you would an unsubscribe link). Rate limited per address and per application (RATE_LIMITED); an unknown application or device is NOT_FOUND.";

  app.get(
    '/public/application/:application_id/playerinfo/:device_id',
    {
      config: info,
      schema: {
        description: `A player's own record, for the public playerinfo page: the device and its subscription as the person knows them, with the name of the application (the shop) it is a visitor of. Nothing of the merchant's: no tags, identities, push token or marketing attribution (OwnPlayer). ${infoDescription}`,
        tags,
        params: PlayerInfoParams,
        response: { 200: ok(OwnPlayer), ...failures },
      },
    },
    async (request, reply) => {
      const data = await getOwnPlayer(ctxOf(request), request.params.application_id, request.params.device_id);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data };
    },
  );

  app.post(
    '/public/application/:application_id/playerinfo/:device_id/unsubscribe',
    {
      config: info,
      schema: {
        description: `The player unsubscribes from push: not subscribed any more, unsubscribed now, the push endpoint and keys forgotten. ${infoDescription}`,
        tags,
        params: PlayerInfoParams,
        response: { 200: ok(OwnPlayer), ...failures },
      },
    },
    async (request, reply) => {
      const data = await unsubscribeOwnPlayer(ctxOf(request), request.params.application_id, request.params.device_id);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data };
    },
  );
};
