import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AndroidPlatformEntry,
  AndroidPlatformInput,
  ApplicationParams,
  FacebookPlatformEntry,
  FacebookPlatformInput,
  IosPlatformEntry,
  IosPlatformInput,
  PROVIDER_PLATFORM_KINDS,
  PlatformList,
  SmsPlatformEntry,
  SmsPlatformInput,
  WebPushPlatform,
  WebPushSettings,
  ok,
} from '../../shared/contract';
import { getPlatform, listPlatforms, savePlatform } from '../domain/platforms';
import { getWebPush, saveWebPush } from '../domain/web-push';
import { applicationOf, ctxOf } from '../plugins/auth';
import { failures, signedIn } from './common';

const tags = ['platform'];
/** Spec §6: platform settings belong to super users and ads managers. */
const config = { area: 'platform' } as const;

const keeps =
  'A secret left out of the body keeps its stored value (the console sends one only when the merchant replaces it); the first save must send it. Secrets are sealed at rest and read back masked, never whole. A refused save changes nothing.';

/** The platforms whose credentials the merchant brings: their schemas and OpenAPI texts. */
const PROVIDERS = {
  ios: {
    body: IosPlatformInput,
    entry: IosPlatformEntry,
    read: 'iOS (APNs): environment, bundle id and how the server authenticates, the .p8 key or the certificate masked; for a certificate, its subject, issuer and validity.',
    save: `Saves iOS (APNs): the environment (development sends to the sandbox), the bundle id (the apns-topic), and either token auth (\`key_id\`, \`team_id\`, the .p8 key's PEM) or certificate auth (a PEM file with the certificate and its private key, and the key's passphrase if it is encrypted). The key must parse (an EC P-256 key for .p8); the certificate must match its key and not have expired. ${keeps}`,
  },
  android: {
    body: AndroidPlatformInput,
    entry: AndroidPlatformEntry,
    read: 'Android (FCM HTTP v1): the project id and client email of the service account; the private key masked.',
    save: `Saves Android (FCM): the service-account key file's JSON text (spec "FCM key"): type service_account, project_id, client_email and an RSA private key in PEM. ${keeps}`,
  },
  sms: {
    body: SmsPlatformInput,
    entry: SmsPlatformEntry,
    read: 'SMS: the provider username and brand name; the password masked.',
    save: `Saves the SMS provider account: username, password and brand name (the sender id: at most 11 letters and digits). ${keeps}`,
  },
  facebook: {
    body: FacebookPlatformInput,
    entry: FacebookPlatformEntry,
    read: "Facebook page: the page id and the page's name as the Graph API answered it; the page access token masked.",
    save: `Saves the Facebook page: its id (digits) and a page access token. When the token or page changes, or the page is active, the server asks the Graph API for that page with that token first; if it can't, it answers INVALID_PARAM "Can not connect to your page. Retry please!" (spec §8). ${keeps}`,
  },
} as const;

/** The application's sending platforms (spec §3 "Platform setting"): web push, iOS, Android, SMS, Facebook page. */
export const platformRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/application/:application_id/platform',
    {
      config,
      schema: {
        description:
          'Every platform of the application, in the order web, ios, android, sms, facebook: its state (active, inactive, or not_configured until first saved), when it was last saved, and its settings with secrets masked.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(PlatformList), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await listPlatforms(ctxOf(request), applicationOf(request)) }),
  );

  app.get(
    '/application/:application_id/platform/web_push',
    {
      config,
      schema: {
        description:
          "Web push: the settings (null until first saved) and the application's VAPID public key, made on the first read and kept. The private key never leaves the server.",
        tags,
        security: signedIn,
        params: ApplicationParams,
        response: { 200: ok(WebPushPlatform), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await getWebPush(ctxOf(request), applicationOf(request)) }),
  );

  app.put(
    '/application/:application_id/platform/web_push',
    {
      config,
      schema: {
        description:
          'Saves the web push settings: on or off (`enabled`), the HTTPS site URL and icon URL (spec §5: "Site Url must be HTTPS", "Icon Url must be HTTPS"), the service worker path on the shop (default /nudge-sw.js) and the subscription box. When on, the storefront config carries the public key, the path and the box.',
        tags,
        security: signedIn,
        params: ApplicationParams,
        body: WebPushSettings,
        response: { 200: ok(WebPushPlatform), ...failures },
      },
    },
    async (request) => ({ success: true as const, data: await saveWebPush(ctxOf(request), applicationOf(request), request.body) }),
  );

  for (const kind of PROVIDER_PLATFORM_KINDS) {
    const provider = PROVIDERS[kind];
    app.get(
      `/application/:application_id/platform/${kind}`,
      {
        config,
        schema: {
          description: `${provider.read} State not_configured and settings null until first saved.`,
          tags,
          security: signedIn,
          params: ApplicationParams,
          response: { 200: ok(provider.entry), ...failures },
        },
      },
      async (request) => ({ success: true as const, data: await getPlatform(ctxOf(request), applicationOf(request), kind) }),
    );

    app.put(
      `/application/:application_id/platform/${kind}`,
      {
        config,
        schema: {
          description: provider.save,
          tags,
          security: signedIn,
          params: ApplicationParams,
          body: provider.body,
          response: { 200: ok(provider.entry), ...failures },
        },
      },
      async (request) => ({ success: true as const, data: await savePlatform(ctxOf(request), applicationOf(request), kind, request.body) }),
    );
  }
};
