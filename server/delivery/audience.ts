import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { APP_PLATFORMS, StoredNotificationAudience, StoredSegmentRule, type AppPlatform, type NotificationType, type SegmentRule } from '../../shared/contract';
import type { Services } from '../context';
import type { Database } from '../db/schema';
import { channelWhere, segmentWhere, type SegmentScope } from '../domain/segment-sql';
import { activePlatformKinds } from '../domain/platforms';

type Eb = ExpressionBuilder<Database, 'players'>;

/** Spec §9: promotional messages go only to players active in the last 24 hours. */
export const PROMOTIONAL_WINDOW_MS = 24 * 3600_000;

/** Who a message goes to, as a condition on `players`, and the channel each recipient's delivery goes through. */
export interface Audience {
  /** The delivery's platform: fixed for the type, or the player's own (ios/android) for mobile push. */
  platform: { fixed: 'web' | 'sms' | 'facebook' } | { column: 'players.platform' };
  where(eb: Eb): Expression<SqlBool>;
}

/** What of the message the audience depends on. */
export interface AudienceSource {
  id: number;
  application_id: string;
  type: string;
  /** JSON of NotificationAudience. */
  audience: string;
  promotional: number;
}

/**
 * The eligible players of a message: reachable on its type's channel (web push: a web subscription;
 * mobile push: an iOS/Android token whose platform is active; SMS: a number; Facebook: a PSID), AND the saved
 * segment, AND the extra filters, AND every audience tag, AND — when the audience names recipients directly
 * (player, device or external user ids) — one of them; promotional ones only if seen in the last 24 hours.
 * `now` is the moment the fan-out started, so a resumed fan-out chooses the same players. Null: nobody (the
 * segment was deleted, the audience can't be read, no mobile platform is active).
 */
export async function resolveAudience(s: Pick<Services, 'db' | 'dialect' | 'log'>, n: AudienceSource, now: Date): Promise<Audience | null> {
  const type = n.type as NotificationType;
  const parsed = StoredNotificationAudience.safeParse(JSON.parse(n.audience || '{}'));
  if (!parsed.success) {
    s.log.error({ notificationId: n.id, issues: parsed.error.issues }, 'message audience unreadable: sent to nobody');
    return null;
  }
  const audience = parsed.data;
  const scope: SegmentScope = { applicationId: n.application_id, now, dialect: s.dialect };

  let segment: SegmentRule | null = null;
  if (audience.segment_id !== null) {
    const row = await s.db
      .selectFrom('segments')
      .select('rule')
      .where('id', '=', audience.segment_id)
      .where('application_id', '=', n.application_id)
      .executeTakeFirst();
    const rule = row ? StoredSegmentRule.safeParse(JSON.parse(row.rule)) : null;
    if (!rule?.success) {
      s.log.warn({ notificationId: n.id, segmentId: audience.segment_id }, 'message segment missing: sent to nobody');
      return null;
    }
    segment = rule.data;
  }

  let mobileKinds: AppPlatform[] = [];
  if (type === 'mobile_push') {
    const active = await activePlatformKinds(s, n.application_id);
    mobileKinds = APP_PLATFORMS.filter((kind) => active.includes(kind));
    if (!mobileKinds.length) return null;
  }

  const direct = (eb: Eb): Expression<SqlBool>[] => {
    const named: Expression<SqlBool>[] = [];
    if (audience.player_ids?.length) named.push(eb('players.id', 'in', audience.player_ids));
    if (audience.device_ids?.length) named.push(eb('players.device_id', 'in', audience.device_ids));
    if (audience.external_user_ids?.length) named.push(eb('players.external_user_id', 'in', audience.external_user_ids));
    const listed = audience.player_ids || audience.device_ids || audience.external_user_ids;
    // A list that is present but empty names nobody.
    if (listed && !named.length) return [eb.lit(false) as unknown as Expression<SqlBool>];
    return named.length ? [eb.or(named)] : [];
  };

  return {
    platform: type === 'mobile_push' ? { column: 'players.platform' } : { fixed: type === 'web_push' ? 'web' : type },
    where(eb) {
      const all: Expression<SqlBool>[] = [eb('players.application_id', '=', n.application_id)];
      if (type === 'web_push') {
        all.push(eb('players.platform', '=', 'web'), channelWhere(eb, 'web_push'), eb('players.push_p256dh', 'is not', null), eb('players.push_auth', 'is not', null));
      } else if (type === 'mobile_push') {
        all.push(channelWhere(eb, 'mobile_push'), eb('players.platform', 'in', mobileKinds));
      } else {
        all.push(channelWhere(eb, type));
      }
      if (n.promotional) all.push(eb('players.last_seen_at', '>=', new Date(now.getTime() - PROMOTIONAL_WINDOW_MS).toISOString()));
      for (const tag of audience.tags) {
        all.push(
          eb(
            'players.id',
            'in',
            eb.selectFrom('player_tags').select('player_tags.player_id').where('player_tags.application_id', '=', n.application_id).where('player_tags.tag', '=', tag),
          ),
        );
      }
      all.push(...direct(eb));
      if (segment) all.push(segmentWhere(eb, segment, scope));
      if (audience.filters) all.push(segmentWhere(eb, audience.filters, scope));
      return eb.and(all);
    },
  };
}
