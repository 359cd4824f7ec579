import webpush from 'web-push';
import {
  WebPushSettings,
  type PublicWebPush,
  type WebPushPlatform,
  type WebPushSettingsInput,
} from '../../shared/contract';
import { nowIso, type ApplicationContext, type Ctx, type Services } from '../context';
import type { Selectable } from 'kysely';
import type { PlatformsTable } from '../db/schema';
import { openSecret, sealSecret } from '../security/secret-box';

/*
 * Web push (issue 5): the application's settings and VAPID key pair in the `platforms` table (kind `web`).
 * Issue 6's sender reads the keys with `vapidKeys` and the subscriptions from `players` (push-subscriptions.ts).
 */

/** The platforms row kind of web push. */
export const WEB_PUSH_KIND = 'web';
/** The purpose the VAPID private key is sealed under (see server/security/secret-box.ts). */
const VAPID_PURPOSE = 'platform:web:vapid';

type PlatformRow = Selectable<PlatformsTable>;

async function webRow(ctx: Ctx, applicationId: string) {
  return ctx.s.db
    .selectFrom('platforms')
    .selectAll()
    .where('application_id', '=', applicationId)
    .where('kind', '=', WEB_PUSH_KIND)
    .executeTakeFirst();
}

/**
 * The application's web push row, made on first use with a fresh VAPID key pair (inactive, no settings).
 * Two first uses at once insert one row: the second insert does nothing and both read the winner's keys.
 */
async function ensureWebRow(ctx: Ctx, applicationId: string) {
  const existing = await webRow(ctx, applicationId);
  if (existing) return existing;
  const keys = webpush.generateVAPIDKeys();
  const now = nowIso(ctx.s);
  await ctx.s.db
    .insertInto('platforms')
    .values({
      application_id: applicationId,
      kind: WEB_PUSH_KIND,
      status: 'inactive',
      settings: '{}',
      secrets: sealSecret(ctx.s.config.secretKey, VAPID_PURPOSE, JSON.stringify({ vapid_private_key: keys.privateKey })),
      public_key: keys.publicKey,
      created_at: now,
      updated_at: null,
    })
    .onConflict((oc) => oc.columns(['application_id', 'kind']).doNothing())
    .execute();
  return (await webRow(ctx, applicationId))!;
}

/** The stored settings, or null while the merchant has never saved them. */
function settingsOf(row: Pick<PlatformRow, 'settings'>): WebPushSettings | null {
  const parsed = WebPushSettings.safeParse(JSON.parse(row.settings || '{}'));
  return parsed.success ? parsed.data : null;
}

function toPlatform(row: PlatformRow): WebPushPlatform {
  return { settings: settingsOf(row), vapid_public_key: row.public_key ?? '', updated_at: row.updated_at };
}

/** GET /application/{id}/platform/web_push: the settings and the public key (made on first read). */
export async function getWebPush(ctx: Ctx, app: ApplicationContext): Promise<WebPushPlatform> {
  return toPlatform(await ensureWebRow(ctx, app.application.application_id));
}

/** PUT /application/{id}/platform/web_push: saves the settings; `enabled` decides the platform's status. */
export async function saveWebPush(ctx: Ctx, app: ApplicationContext, body: WebPushSettingsInput): Promise<WebPushPlatform> {
  const settings = WebPushSettings.parse(body);
  const row = await ensureWebRow(ctx, app.application.application_id);
  await ctx.s.db
    .updateTable('platforms')
    .set({ settings: JSON.stringify(settings), status: settings.enabled ? 'active' : 'inactive', updated_at: nowIso(ctx.s) })
    .where('id', '=', row.id)
    .execute();
  return toPlatform((await webRow(ctx, app.application.application_id))!);
}

/** What the storefront config carries: only when web push is on, and only the public part. */
export async function publicWebPush(ctx: Ctx, applicationId: string): Promise<PublicWebPush | undefined> {
  const row = await webRow(ctx, applicationId);
  if (!row || row.status !== 'active' || !row.public_key) return undefined;
  const settings = settingsOf(row);
  if (!settings?.enabled) return undefined;
  return { vapid_public_key: row.public_key, sw_path: settings.sw_path, box: settings.box };
}

/** The VAPID key pair of an application's web push, for the sender (issue 6); null when there is none. */
export async function vapidKeys(s: Pick<Services, 'db' | 'config'>, applicationId: string): Promise<{ publicKey: string; privateKey: string } | null> {
  const row = await s.db
    .selectFrom('platforms')
    .select(['secrets', 'public_key'])
    .where('application_id', '=', applicationId)
    .where('kind', '=', WEB_PUSH_KIND)
    .executeTakeFirst();
  if (!row?.secrets || !row.public_key) return null;
  const opened = openSecret(s.config.secretKey, VAPID_PURPOSE, row.secrets);
  if (!opened) return null;
  return { publicKey: row.public_key, privateKey: (JSON.parse(opened) as { vapid_private_key: string }).vapid_private_key };
}
