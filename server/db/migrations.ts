import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';
import { APP_PLATFORMS, SEGMENT_NAME_MAX, segmentNameKey, storedAttribute } from '../../shared/contract/audience';
import { internationalNumber } from '../../shared/validation/phone';
import { DEFAULT_PHONE_COUNTRY } from '../../shared/validation/phone-countries';
import { withRows, type Column } from './rows';

export type Dialect = 'sqlite' | 'postgres';

/** Players' columns most players have no value in, looked up by value only: indexed where set (0016). */
const SPARSE_PLAYER_COLUMNS = ['external_user_id', 'email', 'push_endpoint', 'mobile_number'] as const;

/** Players' columns the player list's search finds by their beginning: indexed in byte order on PostgreSQL (0027). */
const PREFIX_SEARCHED_COLUMNS = ['external_user_id', 'email', 'mobile_number'] as const;

/**
 * SQLite (0017): player_days copied into a new table of the same columns and key, `options` after its definition
 * (`without rowid`, or nothing for a rowid table), which then takes its name.
 */
async function rebuildPlayerDays(db: Kysely<any>, options: 'without rowid' | ''): Promise<void> {
  await sql`create table player_days_rebuilt (
    application_id text not null references applications (application_id) on delete cascade,
    day text not null,
    player_id bigint not null references players (id) on delete cascade,
    sessions integer default 0 not null,
    page_views integer default 0 not null,
    events integer default 0 not null,
    constraint player_days_pk primary key (application_id, day, player_id)
  ) ${sql.raw(options)}`.execute(db);
  const columns = sql.raw('application_id, day, player_id, sessions, page_views, events');
  await sql`insert into player_days_rebuilt (${columns}) select ${columns} from player_days`.execute(db);
  await sql`drop table player_days`.execute(db);
  await sql`alter table player_days_rebuilt rename to player_days`.execute(db);
}

/**
 * The one migration set, for both dialects. Only the auto-increment key differs between them; everything else
 * is portable SQL (see schema.ts for the conventions). Migrations are append-only: never edit a released one.
 */
export function buildMigrations(dialect: Dialect): Record<string, Migration> {
  /** An auto-increment integer primary key; `big` where the table may outgrow 2^31 rows. */
  function withId<T extends string>(table: CreateTableBuilder<T, never>, big = false): CreateTableBuilder<T, 'id'> {
    if (dialect === 'postgres') return table.addColumn('id', big ? 'bigserial' : 'serial', (col) => col.primaryKey());
    return table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
  }
  const required = (col: ColumnDefinitionBuilder) => col.notNull();

  return {
    '0001_accounts_applications_team': {
      async up(db: Kysely<any>) {
        await withId(db.schema.createTable('users'))
          .addColumn('email', 'text', (col) => col.notNull().unique())
          .addColumn('name', 'text')
          .addColumn('password_hash', 'text')
          .addColumn('mobile_number', 'text')
          .addColumn('agency', 'text')
          .addColumn('language', 'text', (col) => col.notNull().defaultTo('vi'))
          .addColumn('is_admin', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('otp_enabled', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('email_verified_at', 'text')
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .execute();

        await withId(db.schema.createTable('sessions'))
          .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
          .addColumn('token_hash', 'text', (col) => col.notNull().unique())
          .addColumn('created_at', 'text', required)
          .addColumn('last_used_at', 'text', required)
          .addColumn('expires_at', 'text', required)
          .addColumn('revoked_at', 'text')
          .addColumn('ip', 'text')
          .addColumn('user_agent', 'text')
          .execute();
        await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();

        await withId(db.schema.createTable('email_links'))
          .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
          .addColumn('purpose', 'text', required)
          .addColumn('token_hash', 'text', (col) => col.notNull().unique())
          .addColumn('payload', 'text')
          .addColumn('created_at', 'text', required)
          .addColumn('expires_at', 'text', required)
          .addColumn('used_at', 'text')
          .execute();
        await db.schema.createIndex('email_links_user_purpose').on('email_links').columns(['user_id', 'purpose']).execute();

        await withId(db.schema.createTable('otp_codes'))
          .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
          .addColumn('purpose', 'text', required)
          .addColumn('code_hash', 'text', required)
          .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('created_at', 'text', required)
          .addColumn('expires_at', 'text', required)
          .addColumn('used_at', 'text')
          .execute();
        await db.schema.createIndex('otp_codes_user_purpose').on('otp_codes').columns(['user_id', 'purpose']).execute();

        await withId(db.schema.createTable('throttle_events'), true)
          .addColumn('bucket', 'text', required)
          .addColumn('created_at', 'text', required)
          .execute();
        await db.schema
          .createIndex('throttle_events_bucket_created')
          .on('throttle_events')
          .columns(['bucket', 'created_at'])
          .execute();

        await db.schema
          .createTable('applications')
          .addColumn('application_id', 'text', (col) => col.primaryKey())
          .addColumn('name', 'text', required)
          .addColumn('client_key', 'text', (col) => col.notNull().unique())
          .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .addColumn('deleting_at', 'text')
          .execute();
        // Ids differing only by case would be confusing in links and support tickets: one of them only.
        await db.schema
          .createIndex('applications_application_id_ci')
          .on('applications')
          .unique()
          .expression(sql`lower(application_id)`)
          .execute();
        await db.schema.createIndex('applications_created_at').on('applications').column('created_at').execute();

        await withId(db.schema.createTable('memberships'))
          .addColumn('application_id', 'text', (col) =>
            col.notNull().references('applications.application_id').onDelete('cascade'),
          )
          .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
          .addColumn('role', 'text', required)
          .addColumn('organization', 'text')
          .addColumn('permissions', 'text', (col) => col.notNull().defaultTo('[]'))
          .addColumn('invited_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
          .addColumn('created_at', 'text', required)
          .addUniqueConstraint('memberships_application_user', ['application_id', 'user_id'])
          .execute();
        await db.schema.createIndex('memberships_user_id').on('memberships').column('user_id').execute();

        await withId(db.schema.createTable('players'), true)
          .addColumn('application_id', 'text', (col) =>
            col.notNull().references('applications.application_id').onDelete('cascade'),
          )
          .addColumn('created_at', 'text', required)
          .execute();
        await db.schema.createIndex('players_application_id').on('players').column('application_id').execute();

        await withId(db.schema.createTable('platforms'))
          .addColumn('application_id', 'text', (col) =>
            col.notNull().references('applications.application_id').onDelete('cascade'),
          )
          .addColumn('kind', 'text', required)
          .addColumn('created_at', 'text', required)
          .execute();
        await db.schema.createIndex('platforms_application_id').on('platforms').column('application_id').execute();

        await withId(db.schema.createTable('mail_outbox'))
          .addColumn('recipient', 'text', required)
          .addColumn('subject', 'text', required)
          .addColumn('body', 'text', required)
          .addColumn('created_at', 'text', required)
          .execute();
      },
      async down(db: Kysely<any>) {
        for (const table of [
          'mail_outbox',
          'platforms',
          'players',
          'memberships',
          'applications',
          'throttle_events',
          'otp_codes',
          'email_links',
          'sessions',
          'users',
        ]) {
          await db.schema.dropTable(table).ifExists().execute();
        }
      },
    },

    '0002_widgets_leads': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('applications').addColumn('plan', 'text', (col) => col.notNull().defaultTo('free')).execute();

        await withId(db.schema.createTable('widgets'))
          .addColumn('application_id', 'text', (col) =>
            col.notNull().references('applications.application_id').onDelete('cascade'),
          )
          .addColumn('type', 'text', required)
          .addColumn('name', 'text', required)
          .addColumn('status', 'text', (col) => col.notNull().defaultTo('inactive'))
          .addColumn('settings', 'text', required)
          .addColumn('rules', 'text', required)
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .execute();
        await db.schema.createIndex('widgets_application_created').on('widgets').columns(['application_id', 'created_at']).execute();

        // One row per prize slice that has a stock: `given` only ever moves through a conditional UPDATE.
        await db.schema
          .createTable('spin_stock')
          .addColumn('widget_id', 'integer', (col) => col.notNull().references('widgets.id').onDelete('cascade'))
          .addColumn('slice_id', 'text', required)
          .addColumn('given', 'integer', (col) => col.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('spin_stock_pk', ['widget_id', 'slice_id'])
          .execute();

        await withId(db.schema.createTable('spins'))
          .addColumn('widget_id', 'integer', (col) => col.notNull().references('widgets.id').onDelete('cascade'))
          .addColumn('visitor_id', 'text', required)
          .addColumn('contact', 'text', required)
          .addColumn('slice_id', 'text', required)
          .addColumn('prize', 'text', required)
          .addColumn('lose', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('code', 'text')
          .addColumn('created_at', 'text', required)
          // One spin per browser and one per email or phone, whatever races the widget runs.
          .addUniqueConstraint('spins_widget_visitor', ['widget_id', 'visitor_id'])
          .addUniqueConstraint('spins_widget_contact', ['widget_id', 'contact'])
          .execute();
        await db.schema.createIndex('spins_code').on('spins').column('code').unique().execute();

        await withId(db.schema.createTable('leads'))
          .addColumn('application_id', 'text', (col) =>
            col.notNull().references('applications.application_id').onDelete('cascade'),
          )
          // A deleted widget leaves its leads behind: they are the merchant's customers.
          .addColumn('widget_id', 'integer', (col) => col.references('widgets.id').onDelete('set null'))
          .addColumn('visitor_id', 'text')
          .addColumn('source', 'text', required)
          .addColumn('name', 'text')
          .addColumn('email', 'text')
          .addColumn('phone', 'text')
          .addColumn('message', 'text')
          .addColumn('button_type', 'text')
          .addColumn('prize', 'text')
          .addColumn('code', 'text')
          .addColumn('page_url', 'text')
          .addColumn('created_at', 'text', required)
          .execute();
        await db.schema.createIndex('leads_application_created').on('leads').columns(['application_id', 'created_at']).execute();
        await db.schema.createIndex('leads_widget_id').on('leads').column('widget_id').execute();

        await db.schema
          .createTable('widget_stats')
          .addColumn('widget_id', 'integer', (col) => col.notNull().references('widgets.id').onDelete('cascade'))
          .addColumn('day', 'text', required)
          .addColumn('views', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('clicks', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('leads', 'integer', (col) => col.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('widget_stats_pk', ['widget_id', 'day'])
          .execute();

        await db.schema
          .createTable('widget_button_clicks')
          .addColumn('widget_id', 'integer', (col) => col.notNull().references('widgets.id').onDelete('cascade'))
          .addColumn('button_type', 'text', required)
          .addColumn('day', 'text', required)
          .addColumn('clicks', 'integer', (col) => col.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('widget_button_clicks_pk', ['widget_id', 'button_type', 'day'])
          .execute();

        await withId(db.schema.createTable('webhook_outbox'))
          .addColumn('application_id', 'text', (col) =>
            col.notNull().references('applications.application_id').onDelete('cascade'),
          )
          .addColumn('event', 'text', required)
          .addColumn('payload', 'text', required)
          .addColumn('created_at', 'text', required)
          .addColumn('delivered_at', 'text')
          .execute();
        await db.schema.createIndex('webhook_outbox_pending').on('webhook_outbox').columns(['delivered_at', 'id']).execute();
        await db.schema.createIndex('webhook_outbox_application_id').on('webhook_outbox').column('application_id').execute();

        // Fixed-window request counters of the public storefront API: one row per bucket and window.
        await db.schema
          .createTable('rate_windows')
          .addColumn('bucket', 'text', required)
          .addColumn('window_start', 'text', required)
          .addColumn('hits', 'integer', (col) => col.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('rate_windows_pk', ['bucket', 'window_start'])
          .execute();
        await db.schema.createIndex('rate_windows_window_start').on('rate_windows').column('window_start').execute();
      },
      async down(db: Kysely<any>) {
        for (const table of [
          'rate_windows',
          'webhook_outbox',
          'widget_button_clicks',
          'widget_stats',
          'leads',
          'spins',
          'spin_stock',
          'widgets',
        ]) {
          await db.schema.dropTable(table).ifExists().execute();
        }
        await db.schema.alterTable('applications').dropColumn('plan').execute();
      },
    },

    '0003_audience': {
      async up(db: Kysely<any>) {
        const application = (col: ColumnDefinitionBuilder) =>
          col.notNull().references('applications.application_id').onDelete('cascade');
        const player = (col: ColumnDefinitionBuilder) => col.notNull().references('players.id').onDelete('cascade');
        const zero = (col: ColumnDefinitionBuilder) => col.notNull().defaultTo(0);

        // 0001 only reserved the name: nothing could create a player before this migration.
        await db.schema.dropTable('players').execute();
        // One row per device (a browser, an app install). Profile fields are spec §3's player/device.
        await withId(db.schema.createTable('players'), true)
          .addColumn('application_id', 'text', application)
          // The id the device holds: the storefront SDK's visitor id, or the id a mobile app registered.
          .addColumn('device_id', 'text', required)
          .addColumn('platform', 'text', required)
          .addColumn('device_type', 'text', required)
          .addColumn('device_token', 'text')
          .addColumn('external_user_id', 'text')
          .addColumn('email', 'text')
          .addColumn('mobile_number', 'text')
          .addColumn('fb_psid', 'text')
          .addColumn('os', 'text')
          .addColumn('os_version', 'text')
          .addColumn('browser', 'text')
          .addColumn('app_version', 'text')
          .addColumn('device_model', 'text')
          .addColumn('gender', 'text')
          .addColumn('language', 'text')
          .addColumn('country', 'text')
          .addColumn('city', 'text')
          .addColumn('timezone', 'text')
          .addColumn('timezone_offset', 'integer')
          .addColumn('utm_source', 'text')
          .addColumn('utm_medium', 'text')
          .addColumn('utm_campaign', 'text')
          .addColumn('utm_term', 'text')
          .addColumn('utm_content', 'text')
          .addColumn('first_session_at', 'text')
          .addColumn('last_session_at', 'text')
          .addColumn('last_seen_at', 'text')
          .addColumn('session_count', 'integer', zero)
          .addColumn('page_views', 'integer', zero)
          .addColumn('subscribed', 'integer', zero)
          .addColumn('push_endpoint', 'text')
          .addColumn('push_p256dh', 'text')
          .addColumn('push_auth', 'text')
          .addColumn('subscribed_at', 'text')
          .addColumn('unsubscribed_at', 'text')
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .addUniqueConstraint('players_application_device', ['application_id', 'device_id'])
          .execute();
        for (const column of ['last_seen_at', 'created_at', 'country', 'external_user_id', 'email', 'push_endpoint']) {
          await db.schema.createIndex(`players_application_${column}`).on('players').columns(['application_id', column]).execute();
        }

        await db.schema
          .createTable('player_tags')
          .addColumn('player_id', 'bigint', player)
          .addColumn('application_id', 'text', application)
          .addColumn('tag', 'text', required)
          .addPrimaryKeyConstraint('player_tags_pk', ['player_id', 'tag'])
          .execute();
        await db.schema.createIndex('player_tags_application_tag').on('player_tags').columns(['application_id', 'tag']).execute();

        // Attribute values: `value` as sent (text), `number_value` when it is a number or a date (epoch ms),
        // so comparisons use an index whatever the type.
        await db.schema
          .createTable('player_attributes')
          .addColumn('player_id', 'bigint', player)
          .addColumn('application_id', 'text', application)
          .addColumn('name', 'text', required)
          .addColumn('value', 'text')
          .addColumn('number_value', 'double precision')
          .addColumn('updated_at', 'text', required)
          .addPrimaryKeyConstraint('player_attributes_pk', ['player_id', 'name'])
          .execute();
        await db.schema
          .createIndex('player_attributes_application_name_value')
          .on('player_attributes')
          .columns(['application_id', 'name', 'value'])
          .execute();
        await db.schema
          .createIndex('player_attributes_application_name_number')
          .on('player_attributes')
          .columns(['application_id', 'name', 'number_value'])
          .execute();

        await withId(db.schema.createTable('events'), true)
          .addColumn('application_id', 'text', application)
          .addColumn('player_id', 'bigint', player)
          .addColumn('name', 'text', required)
          .addColumn('properties', 'text')
          // The id the client made for the event: a retried batch inserts nothing twice.
          .addColumn('client_event_id', 'text', required)
          .addColumn('session_id', 'text')
          .addColumn('occurred_at', 'text', required)
          .addColumn('received_at', 'text', required)
          .addUniqueConstraint('events_application_client_event', ['application_id', 'client_event_id'])
          .execute();
        await db.schema.createIndex('events_player_name_occurred').on('events').columns(['player_id', 'name', 'occurred_at']).execute();
        await db.schema
          .createIndex('events_application_name_occurred')
          .on('events')
          .columns(['application_id', 'name', 'occurred_at'])
          .execute();

        // What the console lists under /event: names seen, counts, last seen, property names and types (JSON).
        await db.schema
          .createTable('event_definitions')
          .addColumn('application_id', 'text', application)
          .addColumn('name', 'text', required)
          .addColumn('count', 'bigint', zero)
          .addColumn('first_seen_at', 'text', required)
          .addColumn('last_seen_at', 'text', required)
          .addColumn('properties', 'text', (col) => col.notNull().defaultTo('{}'))
          .addPrimaryKeyConstraint('event_definitions_pk', ['application_id', 'name'])
          .execute();

        await withId(db.schema.createTable('attribute_definitions'))
          .addColumn('application_id', 'text', application)
          .addColumn('name', 'text', required)
          .addColumn('type', 'text', required)
          .addColumn('description', 'text')
          // 'console' when a member defined it, 'sdk' when it was first seen in data.
          .addColumn('source', 'text', required)
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .addUniqueConstraint('attribute_definitions_application_name', ['application_id', 'name'])
          .execute();

        await withId(db.schema.createTable('segments'))
          .addColumn('application_id', 'text', application)
          .addColumn('name', 'text', required)
          .addColumn('rule', 'text', required)
          .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .execute();
        await db.schema.createIndex('segments_application_id').on('segments').column('application_id').execute();

        // A segment's size, measured when it is saved and then daily: "size over time".
        await db.schema
          .createTable('segment_sizes')
          .addColumn('segment_id', 'integer', (col) => col.notNull().references('segments.id').onDelete('cascade'))
          .addColumn('day', 'text', required)
          .addColumn('size', 'bigint', required)
          .addColumn('measured_at', 'text', required)
          .addPrimaryKeyConstraint('segment_sizes_pk', ['segment_id', 'day'])
          .execute();

        // One row per player and UTC day they were active: active users per day, sessions and page views.
        await db.schema
          .createTable('player_days')
          .addColumn('application_id', 'text', application)
          .addColumn('day', 'text', required)
          .addColumn('player_id', 'bigint', player)
          .addColumn('sessions', 'integer', zero)
          .addColumn('page_views', 'integer', zero)
          .addColumn('events', 'integer', zero)
          .addPrimaryKeyConstraint('player_days_pk', ['application_id', 'day', 'player_id'])
          .execute();
      },
      async down(db: Kysely<any>) {
        for (const table of [
          'player_days',
          'segment_sizes',
          'segments',
          'attribute_definitions',
          'event_definitions',
          'events',
          'player_attributes',
          'player_tags',
          'players',
        ]) {
          await db.schema.dropTable(table).ifExists().execute();
        }
        await withId(db.schema.createTable('players'), true)
          .addColumn('application_id', 'text', (col) =>
            col.notNull().references('applications.application_id').onDelete('cascade'),
          )
          .addColumn('created_at', 'text', required)
          .execute();
      },
    },

    '0004_shop_platform': {
      async up(db: Kysely<any>) {
        // A shop of the shop platform and its application; the offline token is encrypted at rest.
        await db.schema
          .createTable('shops')
          .addColumn('shop', 'text', (col) => col.primaryKey())
          .addColumn('application_id', 'text', (col) =>
            col.notNull().unique().references('applications.application_id').onDelete('cascade'),
          )
          .addColumn('access_token', 'text')
          .addColumn('scopes', 'text', (col) => col.notNull().defaultTo(''))
          .addColumn('owner_user_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
          .addColumn('email', 'text')
          .addColumn('name', 'text')
          .addColumn('installed_at', 'text', required)
          .addColumn('uninstalled_at', 'text')
          .addColumn('updated_at', 'text', required)
          .execute();

        // Handled webhook deliveries: the key makes a redelivery (or two racing ones) do its work once.
        await db.schema
          .createTable('shop_webhooks')
          .addColumn('shop', 'text', required)
          .addColumn('webhook_id', 'text', required)
          .addColumn('topic', 'text', required)
          .addColumn('received_at', 'text', required)
          .addPrimaryKeyConstraint('shop_webhooks_pk', ['shop', 'webhook_id'])
          .execute();
        await db.schema.createIndex('shop_webhooks_received_at').on('shop_webhooks').column('received_at').execute();

        await db.schema
          .createTable('shop_orders')
          .addColumn('shop', 'text', (col) => col.primaryKey().references('shops.shop').onDelete('cascade'))
          .addColumn('orders', 'text', required)
          .addColumn('fetched_at', 'text', required)
          .addColumn('ok', 'integer', (col) => col.notNull().defaultTo(1))
          .execute();
      },
      async down(db: Kysely<any>) {
        for (const table of ['shop_orders', 'shop_webhooks', 'shops']) {
          await db.schema.dropTable(table).ifExists().execute();
        }
      },
    },

    '0006_audience_query': {
      async up(db: Kysely<any>) {
        // The segment compiler asks "which players" of these tables; with player_id in the index the answer
        // comes from the index alone. Each replaces an index of 0003 with the same leading columns, so
        // ingestion maintains no more indexes than before.
        const covering: [string, string, string[]][] = [
          ['events_application_name_occurred', 'events', ['application_id', 'name', 'occurred_at', 'player_id']],
          ['player_tags_application_tag', 'player_tags', ['application_id', 'tag', 'player_id']],
          ['player_attributes_application_name_value', 'player_attributes', ['application_id', 'name', 'value', 'player_id']],
          ['player_attributes_application_name_number', 'player_attributes', ['application_id', 'name', 'number_value', 'player_id']],
        ];
        for (const [old, table, columns] of covering) {
          await db.schema.dropIndex(old).ifExists().execute();
          await db.schema.createIndex(`${old}_player`).on(table).columns(columns).execute();
        }
        // The player list's search looks for an exact mobile number as well as device id, user id and email.
        await db.schema.createIndex('players_application_mobile_number').on('players').columns(['application_id', 'mobile_number']).execute();
        if (dialect === 'postgres') {
          // The list pages by (last_seen_at, id) with never-seen players last, as SQLite orders them; there the
          // rowid already ends every index, so the indexes of 0003 serve as they are.
          await db.schema.dropIndex('players_application_last_seen_at').ifExists().execute();
          await sql`create index players_application_last_seen_id on players (application_id, last_seen_at desc nulls last, id desc)`.execute(db);
          await db.schema.dropIndex('players_application_created_at').ifExists().execute();
          await db.schema.createIndex('players_application_created_id').on('players').columns(['application_id', 'created_at', 'id']).execute();
        }
      },
      async down(db: Kysely<any>) {
        await db.schema.dropIndex('players_application_mobile_number').ifExists().execute();
        const restored: [string, string, string[]][] = [
          ['events_application_name_occurred', 'events', ['application_id', 'name', 'occurred_at']],
          ['player_tags_application_tag', 'player_tags', ['application_id', 'tag']],
          ['player_attributes_application_name_value', 'player_attributes', ['application_id', 'name', 'value']],
          ['player_attributes_application_name_number', 'player_attributes', ['application_id', 'name', 'number_value']],
        ];
        if (dialect === 'postgres') {
          await db.schema.dropIndex('players_application_last_seen_id').ifExists().execute();
          await db.schema.dropIndex('players_application_created_id').ifExists().execute();
          restored.push(['players_application_last_seen_at', 'players', ['application_id', 'last_seen_at']]);
          restored.push(['players_application_created_at', 'players', ['application_id', 'created_at']]);
        }
        for (const [name, table, columns] of restored) {
          await db.schema.dropIndex(`${name}_player`).ifExists().execute();
          await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
        }
      },
    },

    '0007_web_push': {
      async up(db: Kysely<any>) {
        // 0001 reserved the platforms table (id, application, kind). Each kind of issue 5 and 6 (web, ios,
        // android, sms, facebook) keeps its status, its settings as JSON, its secrets sealed (VAPID private key,
        // provider credentials) and the public half of a key pair, one row per application and kind.
        await db.schema.alterTable('platforms').addColumn('status', 'text', (col) => col.notNull().defaultTo('inactive')).execute();
        await db.schema.alterTable('platforms').addColumn('settings', 'text', (col) => col.notNull().defaultTo('{}')).execute();
        await db.schema.alterTable('platforms').addColumn('secrets', 'text').execute();
        await db.schema.alterTable('platforms').addColumn('public_key', 'text').execute();
        await db.schema.alterTable('platforms').addColumn('updated_at', 'text').execute();
        await db.schema.dropIndex('platforms_application_id').ifExists().execute();
        await db.schema.createIndex('platforms_application_kind').unique().on('platforms').columns(['application_id', 'kind']).execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropIndex('platforms_application_kind').ifExists().execute();
        await db.schema.createIndex('platforms_application_id').ifNotExists().on('platforms').column('application_id').execute();
        for (const column of ['updated_at', 'public_key', 'secrets', 'settings', 'status']) {
          await db.schema.alterTable('platforms').dropColumn(column).execute();
        }
      },
    },
    '0008_messaging': {
      async up(db: Kysely<any>) {
        const application = (col: ColumnDefinitionBuilder) =>
          col.notNull().references('applications.application_id').onDelete('cascade');
        const zero = (col: ColumnDefinitionBuilder) => col.notNull().defaultTo(0);

        await withId(db.schema.createTable('campaigns'))
          .addColumn('application_id', 'text', application)
          .addColumn('name', 'text', required)
          .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .execute();
        await db.schema.createIndex('campaigns_application_id').on('campaigns').columns(['application_id', 'id']).execute();

        await withId(db.schema.createTable('templates'))
          .addColumn('application_id', 'text', application)
          .addColumn('name', 'text', required)
          .addColumn('type', 'text', required)
          .addColumn('content', 'text', required)
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .execute();
        await db.schema.createIndex('templates_application_id').on('templates').columns(['application_id', 'id']).execute();

        // One message (spec §3 Notification). Content, audience and schedule are JSON of shared/contract/messaging;
        // the counters are kept by the engine as batches finish.
        await withId(db.schema.createTable('notifications'))
          .addColumn('application_id', 'text', application)
          .addColumn('type', 'text', required)
          .addColumn('name', 'text', (col) => col.notNull().defaultTo(''))
          .addColumn('status', 'text', required)
          .addColumn('source', 'text', required)
          .addColumn('content', 'text', required)
          .addColumn('audience', 'text', required)
          .addColumn('schedule', 'text', required)
          .addColumn('ttl_seconds', 'integer', required)
          .addColumn('promotional', 'integer', zero)
          .addColumn('urgency', 'text', (col) => col.notNull().defaultTo('normal'))
          .addColumn('tags', 'text', (col) => col.notNull().defaultTo('[]'))
          .addColumn('template_id', 'integer', (col) => col.references('templates.id').onDelete('set null'))
          .addColumn('campaign_id', 'integer', (col) => col.references('campaigns.id').onDelete('set null'))
          .addColumn('send_at', 'text')
          .addColumn('started_at', 'text')
          .addColumn('finished_at', 'text')
          .addColumn('targeted', 'integer', zero)
          .addColumn('sent', 'integer', zero)
          .addColumn('delivered', 'integer', zero)
          .addColumn('failed', 'integer', zero)
          .addColumn('clicked', 'integer', zero)
          .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .execute();
        await db.schema.createIndex('notifications_application_id').on('notifications').columns(['application_id', 'id']).execute();
        await db.schema.createIndex('notifications_application_status').on('notifications').columns(['application_id', 'status', 'id']).execute();
        await db.schema.createIndex('notifications_due').on('notifications').columns(['status', 'send_at']).execute();
        await db.schema.createIndex('notifications_campaign_id').on('notifications').column('campaign_id').execute();

        // One row per (message, device): the unique pair is what keeps a retried or redelivered batch from
        // sending twice. Players are devices, so player_id is the device.
        await withId(db.schema.createTable('deliveries'), true)
          .addColumn('notification_id', 'integer', (col) => col.notNull().references('notifications.id').onDelete('cascade'))
          .addColumn('application_id', 'text', application)
          .addColumn('player_id', 'bigint', (col) => col.notNull().references('players.id').onDelete('cascade'))
          .addColumn('platform', 'text', required)
          .addColumn('status', 'text', required)
          .addColumn('reason', 'text')
          .addColumn('attempts', 'integer', zero)
          .addColumn('provider_id', 'text')
          .addColumn('sent_at', 'text')
          .addColumn('delivered_at', 'text')
          .addColumn('clicked_at', 'text')
          .addColumn('created_at', 'text', required)
          .execute();
        await db.schema.createIndex('deliveries_notification_player').unique().on('deliveries').columns(['notification_id', 'player_id']).execute();
        await db.schema.createIndex('deliveries_notification_status').on('deliveries').columns(['notification_id', 'status', 'id']).execute();
        await db.schema.createIndex('deliveries_application_id').on('deliveries').columns(['application_id', 'id']).execute();
        await db.schema.createIndex('deliveries_player_id').on('deliveries').columns(['player_id', 'id']).execute();

        // REST API keys (the send API's "Authorization: Key …"); stored as SHA-256, shown whole once.
        await withId(db.schema.createTable('api_keys'))
          .addColumn('application_id', 'text', application)
          .addColumn('key_hash', 'text', (col) => col.notNull().unique())
          .addColumn('prefix', 'text', required)
          .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
          .addColumn('created_at', 'text', required)
          .addColumn('last_used_at', 'text')
          .addColumn('revoked_at', 'text')
          .execute();
        await db.schema.createIndex('api_keys_application_id').on('api_keys').column('application_id').execute();

        // Idempotency-Key of the send API: the same key answers the same message, for IDEMPOTENCY_TTL_HOURS.
        await db.schema
          .createTable('idempotency_keys')
          .addColumn('application_id', 'text', application)
          .addColumn('key', 'text', required)
          .addColumn('request_hash', 'text', required)
          .addColumn('notification_id', 'integer', (col) => col.references('notifications.id').onDelete('cascade'))
          .addColumn('created_at', 'text', required)
          .addPrimaryKeyConstraint('idempotency_keys_pk', ['application_id', 'key'])
          .execute();
        await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute();

        // The embedded mode's durable job queue (server/jobs; BullMQ takes its place when REDIS_URL is set). A
        // job is claimed by setting locked_by/locked_until; a crashed worker's claim expires and another takes it.
        await withId(db.schema.createTable('jobs'), true)
          .addColumn('queue', 'text', required)
          .addColumn('name', 'text', required)
          .addColumn('payload', 'text', required)
          .addColumn('dedupe_key', 'text')
          .addColumn('run_at', 'text', required)
          .addColumn('attempts', 'integer', zero)
          .addColumn('max_attempts', 'integer', (col) => col.notNull().defaultTo(10))
          .addColumn('locked_by', 'text')
          .addColumn('locked_until', 'text')
          .addColumn('last_error', 'text')
          .addColumn('created_at', 'text', required)
          .execute();
        await db.schema.createIndex('jobs_due').on('jobs').columns(['queue', 'run_at', 'id']).execute();
        await db.schema.createIndex('jobs_dedupe_key').unique().on('jobs').column('dedupe_key').execute();
      },
      async down(db: Kysely<any>) {
        for (const table of ['jobs', 'idempotency_keys', 'api_keys', 'deliveries', 'notifications', 'templates', 'campaigns']) {
          await db.schema.dropTable(table).ifExists().execute();
        }
      },
    },
    '0009_webhooks': {
      async up(db: Kysely<any>) {
        const application = (col: ColumnDefinitionBuilder) =>
          col.notNull().references('applications.application_id').onDelete('cascade');
        const zero = (col: ColumnDefinitionBuilder) => col.notNull().defaultTo(0);

        // An application's outbound webhooks (server/webhooks). The signing secret is sealed; after a rotation
        // the previous one keeps signing beside it (a second signature) until previous_secret_until.
        await withId(db.schema.createTable('webhooks'))
          .addColumn('application_id', 'text', application)
          .addColumn('url', 'text', required)
          .addColumn('event_types', 'text', required)
          .addColumn('tag', 'text')
          .addColumn('secret', 'text', required)
          .addColumn('previous_secret', 'text')
          .addColumn('previous_secret_until', 'text')
          .addColumn('status', 'text', (col) => col.notNull().defaultTo('active'))
          .addColumn('consecutive_failures', 'integer', zero)
          .addColumn('failing_since', 'text')
          .addColumn('disabled_at', 'text')
          .addColumn('disabled_reason', 'text')
          .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
          .addColumn('created_at', 'text', required)
          .addColumn('updated_at', 'text', required)
          .execute();
        await db.schema.createIndex('webhooks_application_id').on('webhooks').columns(['application_id', 'id']).execute();

        // One event for one webhook. msg_id is its Standard Webhooks id, the same on every retry; a sender claims
        // a due message by moving claimed_until past now with a conditional UPDATE, so two never send it at once.
        await withId(db.schema.createTable('webhook_messages'), true)
          .addColumn('webhook_id', 'integer', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
          .addColumn('application_id', 'text', application)
          .addColumn('msg_id', 'text', (col) => col.notNull().unique())
          .addColumn('event_type', 'text', required)
          .addColumn('payload', 'text', required)
          .addColumn('attempts', 'integer', zero)
          .addColumn('next_attempt_at', 'text', required)
          .addColumn('status', 'text', required)
          .addColumn('last_status_code', 'integer')
          .addColumn('last_error', 'text')
          .addColumn('claimed_until', 'text')
          .addColumn('created_at', 'text', required)
          .addColumn('delivered_at', 'text')
          .execute();
        await db.schema.createIndex('webhook_messages_due').on('webhook_messages').columns(['status', 'next_attempt_at']).execute();
        await db.schema.createIndex('webhook_messages_webhook_id').on('webhook_messages').columns(['webhook_id', 'id']).execute();
        await db.schema.createIndex('webhook_messages_application_id').on('webhook_messages').column('application_id').execute();
        await db.schema.createIndex('webhook_messages_created_at').on('webhook_messages').column('created_at').execute();

        // Every attempt, for the console's log: what the receiver answered and what became of the message.
        await withId(db.schema.createTable('webhook_attempts'), true)
          .addColumn('message_id', 'bigint', (col) => col.notNull().references('webhook_messages.id').onDelete('cascade'))
          .addColumn('webhook_id', 'integer', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
          .addColumn('attempt', 'integer', required)
          .addColumn('status_code', 'integer')
          .addColumn('error', 'text')
          .addColumn('duration_ms', 'integer', zero)
          .addColumn('outcome', 'text', required)
          .addColumn('next_attempt_at', 'text')
          .addColumn('created_at', 'text', required)
          .execute();
        await db.schema.createIndex('webhook_attempts_webhook_id').on('webhook_attempts').columns(['webhook_id', 'id']).execute();
        await db.schema.createIndex('webhook_attempts_message_id').on('webhook_attempts').column('message_id').execute();
        await db.schema.createIndex('webhook_attempts_created_at').on('webhook_attempts').column('created_at').execute();
      },
      async down(db: Kysely<any>) {
        for (const table of ['webhook_attempts', 'webhook_messages', 'webhooks']) {
          await db.schema.dropTable(table).ifExists().execute();
        }
      },
    },
    '0010_messaging_api': {
      async up(db: Kysely<any>) {
        // The recipients' log (/message) filtered by status across an application's messages, newest first:
        // without it a rare status means walking every delivery of the application.
        await db.schema.createIndex('deliveries_application_status').on('deliveries').columns(['application_id', 'status', 'id']).execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropIndex('deliveries_application_status').ifExists().execute();
      },
    },
    '0012_engine': {
      async up(db: Kysely<any>) {
        // The delivery engine's fan-out progress (server/delivery/fanout.ts): the last player id whose deliveries
        // are written and handed to batch jobs, so a crashed fan-out resumes there; and when the last batch was
        // handed out, after which the message completes once no delivery is queued.
        await db.schema.alterTable('notifications').addColumn('fanout_cursor', 'bigint').execute();
        await db.schema.alterTable('notifications').addColumn('fanout_done_at', 'text').execute();
        // A local-time message's recipient: the UTC offset (minutes) whose local moment it goes out at.
        await db.schema.alterTable('deliveries').addColumn('tz_offset', 'integer').execute();
        // The fan-out pages through an application's players by id: without this, both databases pick an index
        // of the audience's conditions (push_endpoint, …) and sort the whole audience again for every page.
        await db.schema.createIndex('players_application_id_id').on('players').columns(['application_id', 'id']).execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropIndex('players_application_id_id').ifExists().execute();
        await db.schema.alterTable('deliveries').dropColumn('tz_offset').execute();
        await db.schema.alterTable('notifications').dropColumn('fanout_done_at').execute();
        await db.schema.alterTable('notifications').dropColumn('fanout_cursor').execute();
      },
    },
    '0013_audience_index': {
      async up(db: Kysely<any>) {
        // server/domain/audience-index.ts: the in-memory copy reads the players changed since its last read in
        // (updated_at, id) order, and rebuilds when deletions or bulk changes bump the epoch.
        await db.schema.alterTable('applications').addColumn('audience_epoch', 'integer', (col) => col.notNull().defaultTo(0)).execute();
        await db.schema.createIndex('players_application_updated_id').on('players').columns(['application_id', 'updated_at', 'id']).execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropIndex('players_application_updated_id').ifExists().execute();
        await db.schema.alterTable('applications').dropColumn('audience_epoch').execute();
      },
    },
    '0014_events_application_fk': {
      async up(db: Kysely<any>) {
        // Every event row carried two foreign-key checks, each a locking lookup run per inserted row: a third
        // of what PostgreSQL spent storing an event (tests/bench/ingest.ts). The application's is redundant:
        // an event's player belongs to the application, and deleting the application deletes its players and,
        // through events.player_id, their events. SQLite checks keys in process for little, and can drop a
        // constraint only by rebuilding the table, so it keeps it.
        if (dialect === 'postgres') await sql`alter table events drop constraint if exists events_application_id_fkey`.execute(db);
      },
      async down(db: Kysely<any>) {
        if (dialect === 'postgres') {
          await sql`alter table events add constraint events_application_id_fkey foreign key (application_id) references applications (application_id) on delete cascade`.execute(db);
        }
      },
    },
    '0015_player_language': {
      async up(db: Kysely<any>) {
        // Players are kept under the language alone (shared/validation languageCode): browsers had reported
        // "vi-VN", which a segment on language "vi" did not find. Applications whose players change get a new
        // audience epoch, so a process's in-memory copy (audience-index.ts) is rebuilt rather than left stale.
        const code =
          dialect === 'postgres'
            ? sql`lower(split_part(replace(language, '_', '-'), '-', 1))`
            : sql`lower(substr(replace(language, '_', '-'), 1, instr(replace(language, '_', '-') || '-', '-') - 1))`;
        await sql`update applications set audience_epoch = audience_epoch + 1 where application_id in (select distinct application_id from players where language <> ${code})`.execute(db);
        await sql`update players set language = ${code} where language <> ${code}`.execute(db);
      },
      async down() {
        // The region each player's browser reported is not kept: nothing to restore.
      },
    },
    '0016_players_sparse_indexes': {
      async up(db: Kysely<any>) {
        // Ingestion rewrites a player's row at least once a minute while it is active (last seen, updated at).
        // Those columns are indexed, so on PostgreSQL the update cannot be HOT and adds an entry to EVERY index of
        // players, whatever changed. The lookups by external user id, email, push endpoint and mobile number held
        // an entry for every player, though most players (web visitors) have none of them, and those lookups only
        // ever ask for a value (`=`, `IN`), which both databases answer from an index of the rows that have one.
        // Now an update of a player without them skips those four indexes: rewriting 49,466 such players of a
        // seeded 100,000 took 1.16–1.44 s instead of 1.47–1.69 s (alternating runs), and the indexes are smaller.
        for (const column of SPARSE_PLAYER_COLUMNS) {
          const name = `players_application_${column}`;
          await db.schema.dropIndex(name).ifExists().execute();
          await db.schema.createIndex(name).on('players').columns(['application_id', column]).where(sql.ref(column), 'is not', null).execute();
        }
      },
      async down(db: Kysely<any>) {
        for (const column of SPARSE_PLAYER_COLUMNS) {
          const name = `players_application_${column}`;
          await db.schema.dropIndex(name).ifExists().execute();
          await db.schema.createIndex(name).on('players').columns(['application_id', column]).execute();
        }
      },
    },
    '0017_player_days_layout': {
      async up(db: Kysely<any>) {
        // The dashboard sums a period's days, a range of the key (application, day). In a rowid table those rows
        // lie where they were written, and a seeded or imported history is written player by player: at a million
        // players, 30 days (1.7 million rows) read one page per row, 1.5 s. Stored in key order (WITHOUT ROWID)
        // the range is read in order: 0.2 s. Writes keep two trees (the table, the player index).
        if (dialect === 'sqlite') await rebuildPlayerDays(db, 'without rowid');
        // Deleting a player deletes its days (the foreign key's cascade), which without this read every row of
        // the table: 0.2 s per player on PostgreSQL at a million players, and growing with the history.
        await db.schema.createIndex('player_days_player').on('player_days').column('player_id').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropIndex('player_days_player').ifExists().execute();
        if (dialect === 'sqlite') await rebuildPlayerDays(db, '');
      },
    },
    '0018_application_utc_offset': {
      async up(db: Kysely<any>) {
        // An application's timezone (minutes east of UTC), whose days its dashboard and statistics count in.
        // Applications made before it counted UTC days, which their stored per-day activity keeps: they stay
        // at UTC until the merchant chooses (new applications get UTC+07:00, see createApplication).
        await db.schema.alterTable('applications').addColumn('utc_offset', 'integer', (col) => col.notNull().defaultTo(0)).execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('applications').dropColumn('utc_offset').execute();
      },
    },
    '0019_attribute_values_in_text': {
      async up(db: Kysely<any>) {
        // A number or boolean sent as text ("42", "TRUE") under an attribute defined as one was stored without
        // number_value until ingestion read such text (storedAttribute, with numberValue and booleanValue):
        // segments skipped it. Those stored before are stored as ingestion stores them now. Only values without a
        // number_value under such definitions are read, a page at a time in key order (an app that sent every
        // number as text to a million players has a million of them), and each page's changes are one UPDATE.
        let after: { player_id: number; name: string } | null = null;
        for (;;) {
          const from = after;
          const rows: { player_id: number | string; name: string; value: string; type: 'number' | 'boolean' }[] = await db
            .selectFrom('player_attributes as pa')
            .innerJoin('attribute_definitions as d', (join) => join.onRef('d.application_id', '=', 'pa.application_id').onRef('d.name', '=', 'pa.name'))
            .select(['pa.player_id', 'pa.name', 'pa.value', 'd.type'])
            .where('pa.number_value', 'is', null)
            .where('pa.value', 'is not', null)
            .where('d.type', 'in', ['number', 'boolean'])
            .$if(from !== null, (query) =>
              query.where((eb) => eb.or([eb('pa.player_id', '>', from!.player_id), eb.and([eb('pa.player_id', '=', from!.player_id), eb('pa.name', '>', from!.name)])])),
            )
            .orderBy('pa.player_id')
            .orderBy('pa.name')
            .limit(ATTRIBUTE_VALUES_PAGE)
            .execute();
          if (rows.length === 0) return;
          const last = rows[rows.length - 1];
          after = { player_id: Number(last.player_id), name: last.name };
          const changed = rows
            .map((row) => ({ player_id: Number(row.player_id), name: row.name, ...storedAttribute(row.type, row.value) }))
            .filter((row) => row.number_value !== null);
          if (changed.length > 0) {
            await withRows(
              db,
              dialect,
              ATTRIBUTE_VALUE_COLUMNS,
              changed.map((row) => [row.player_id, row.name, row.value, row.number_value]),
              'UPDATE player_attributes SET value = v.value, number_value = v.number_value FROM v WHERE player_attributes.player_id = v.player_id AND player_attributes.name = v.name',
            );
          }
        }
      },
      async down() {
        // Nothing to undo: the values read are what ingestion now stores.
      },
    },
    '0020_players_opted_out_at': {
      async up(db: Kysely<any>) {
        // When the person unsubscribed themselves on the playerinfo page, until they subscribe again. Their browser
        // keeps the notification permission, and renews its subscription by itself (the service worker's
        // pushsubscriptionchange, or a new endpoint the SDK finds on a later visit): that renewal must not subscribe
        // them again, while the renewal of a subscription that expired (the push service's 404/410) must.
        await db.schema.alterTable('players').addColumn('opted_out_at', 'text').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('players').dropColumn('opted_out_at').execute();
      },
    },
    '0021_players_push_expired_endpoint': {
      async up(db: Kysely<any>) {
        // The endpoint the push service refused for good (404/410). Chrome may keep handing out a subscription the
        // push service has dropped, without a pushsubscriptionchange; the SDK reporting it again is then told to
        // make a new one, where storing it again would only fail the next message the same way.
        await db.schema.alterTable('players').addColumn('push_expired_endpoint', 'text').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('players').dropColumn('push_expired_endpoint').execute();
      },
    },
    '0022_players_identity_stored_form': {
      async up(db: Kysely<any>) {
        // Players' emails are kept in lower case and their mobile numbers without spaces, dots and dashes from this
        // version on (normalizeEmail, normalizeMobileNumber), so that the player list's and the recipients' log's
        // search finds them however they are typed, and an SMS provider gets no separators. Those stored before are
        // brought in line. Emails are ASCII (isEmail), where SQLite's and PostgreSQL's lower() agree with JavaScript's.
        await sql`update players set email = lower(email) where email is not null and email <> lower(email)`.execute(db);
        const bare = sql`replace(replace(replace(mobile_number, ' ', ''), '.', ''), '-', '')`;
        await sql`update players set mobile_number = ${bare} where mobile_number is not null and mobile_number <> ${bare}`.execute(db);
      },
      async down() {
        // Nothing to undo: an address's case and a number's separators carry nothing.
      },
    },
    '0023_application_phone_country': {
      async up(db: Kysely<any>) {
        // The country an application's national mobile numbers are read in (shared/validation/phone.ts), so that
        // "0912 345 678" and "+84912345678" are one number to the search, the spin wheel and the SMS gateway (which
        // takes international numbers only: it refused the national form, and the number was then cleared as
        // invalid). Applications made before read them in Vietnam, as new ones do unless told otherwise.
        await db.schema
          .alterTable('applications')
          .addColumn('phone_country', 'text', (col) => col.notNull().defaultTo(DEFAULT_PHONE_COUNTRY))
          .execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('applications').dropColumn('phone_country').execute();
      },
    },
    '0024_players_mobile_numbers_international': {
      async up(db: Kysely<any>) {
        // Players' mobile numbers are kept in their international form from this version on (internationalNumber).
        // Those not yet international are read in their application's country for phone numbers, a page at a time
        // in id order, each page's changes one UPDATE; one no reading makes possible stays as it is.
        let after = 0;
        for (;;) {
          const rows: { id: number | string; mobile_number: string; phone_country: string }[] = await db
            .selectFrom('players')
            .innerJoin('applications', 'applications.application_id', 'players.application_id')
            .select(['players.id', 'players.mobile_number', 'applications.phone_country'])
            .where('players.id', '>', after)
            .where('players.mobile_number', 'is not', null)
            .where('players.mobile_number', 'not like', '+%')
            .orderBy('players.id')
            .limit(MOBILE_NUMBERS_PAGE)
            .execute();
          if (rows.length === 0) return;
          after = Number(rows[rows.length - 1].id);
          const changed = rows
            .map((row) => ({ id: Number(row.id), before: row.mobile_number, number: internationalNumber(row.mobile_number, row.phone_country) }))
            .filter((row) => row.number !== row.before);
          if (changed.length > 0) {
            await withRows(db, dialect, MOBILE_NUMBER_COLUMNS, changed.map((row) => [row.id, row.number]), 'UPDATE players SET mobile_number = v.mobile_number FROM v WHERE players.id = v.id');
          }
        }
      },
      async down() {
        // Nothing to undo: the national form a number was written in is not kept.
      },
    },
    '0025_player_days_without_events': {
      async up(db: Kysely<any>) {
        // A player's day kept a count of its custom events, which nothing read (the dashboard counts active players,
        // sessions and page views from player_days, and the period's events from events), and which made every
        // event rewrite the player's row of the day: on PostgreSQL a new row version per event group, and its
        // vacuum. A day is now rewritten only for a session or a page view; otherwise it is written once, the day
        // the player is first seen active (ingestion's ON CONFLICT DO NOTHING).
        await db.schema.alterTable('player_days').dropColumn('events').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('player_days').addColumn('events', 'integer', (col) => col.notNull().defaultTo(0)).execute();
      },
    },
    '0026_segment_names_unique': {
      async up(db: Kysely<any>) {
        // A segment's name is unique in its application from this version on, compared as segmentNameKey compares
        // names (case, spaces and Unicode form aside): a merchant choosing a message's audience saw five segments
        // called "Khách VN" and could not tell them apart. The key is computed here, not by the database: SQLite's
        // lower() folds ASCII only, so "KHÁCH" and "khách" would have been two names there and one on PostgreSQL.
        // Segments named alike before keep their rules and ids: the first made keeps its name, each later one is
        // renamed "name (2)", "name (3)"… with a number no other segment of the application is named with.
        await db.schema.alterTable('segments').addColumn('name_key', 'text').execute();
        // Segments are made by hand, a few per application: all of them are read at once.
        const rows: { id: number | string; application_id: string; name: string }[] = await db
          .selectFrom('segments')
          .select(['id', 'application_id', 'name'])
          .orderBy('application_id')
          .orderBy('id')
          .execute();
        const changed = distinctSegmentNames(rows.map((row) => ({ id: Number(row.id), application_id: row.application_id, name: row.name })));
        if (changed.length > 0) {
          await withRows(
            db,
            dialect,
            SEGMENT_NAME_COLUMNS,
            changed.map((row) => [row.id, row.name, row.name_key]),
            'UPDATE segments SET name = v.name, name_key = v.name_key FROM v WHERE segments.id = v.id',
          );
        }
        await db.schema.createIndex('segments_application_name_key').unique().on('segments').columns(['application_id', 'name_key']).execute();
      },
      async down(db: Kysely<any>) {
        // The renamed segments keep their new names: which of them were alike is not kept.
        await db.schema.dropIndex('segments_application_name_key').ifExists().execute();
        await db.schema.alterTable('segments').dropColumn('name_key').execute();
      },
    },
    '0027_players_identity_prefix_indexes': {
      async up(db: Kysely<any>) {
        // The player list finds players whose user id, email or mobile number begins with what was typed
        // (searchedIds): a range of each column's index in byte order. SQLite's columns compare so (BINARY).
        // PostgreSQL's default indexes are ordered by the database's collation, in which a range is no prefix (in
        // glibc's en_US, whose first level ignores punctuation, "customer10" lies between "customer-1" and
        // "customer-2"); text_pattern_ops orders by bytes, serves the pattern operators
        // (~>=~, ~<~) and the lookups by `=` all the same. Still only of the players that have a value (0016).
        if (dialect !== 'postgres') return;
        for (const column of PREFIX_SEARCHED_COLUMNS) {
          const name = `players_application_${column}`;
          await sql`drop index if exists ${sql.raw(name)}`.execute(db);
          await sql`create index ${sql.raw(name)} on players (application_id, ${sql.raw(column)} text_pattern_ops) where ${sql.raw(column)} is not null`.execute(db);
        }
      },
      async down(db: Kysely<any>) {
        if (dialect !== 'postgres') return;
        for (const column of PREFIX_SEARCHED_COLUMNS) {
          const name = `players_application_${column}`;
          await db.schema.dropIndex(name).ifExists().execute();
          await db.schema.createIndex(name).on('players').columns(['application_id', column]).where(sql.ref(column), 'is not', null).execute();
        }
      },
    },
    '0028_events_player_name_occurred_id': {
      async up(db: Kysely<any>) {
        // A player's newest events are read name by name (players.ts eventsPage), each name's newest first by
        // (occurred_at, id): with id ending the index, each name's page is read from it in order, never sorted.
        // SQLite's rowid (events.id) already ends every index. Without it PostgreSQL sorted a name's events whenever
        // its estimate of them was small (a player whose events came after the last ANALYZE): all 42,857 of one
        // name to show 51 (137 ms).
        if (dialect !== 'postgres') return;
        await db.schema.createIndex('events_player_name_occurred_id').on('events').columns(['player_id', 'name', 'occurred_at', 'id']).execute();
        await db.schema.dropIndex('events_player_name_occurred').ifExists().execute();
      },
      async down(db: Kysely<any>) {
        if (dialect !== 'postgres') return;
        await db.schema.createIndex('events_player_name_occurred').ifNotExists().on('events').columns(['player_id', 'name', 'occurred_at']).execute();
        await db.schema.dropIndex('events_player_name_occurred_id').ifExists().execute();
      },
    },
    '0029_players_device_token': {
      async up(db: Kysely<any>) {
        // A push token belongs to one app install: an install registering a token another player of the application
        // holds takes it from that player (settleAppSubscription, server/domain/push-subscriptions.ts), else the
        // phone gets every message once per player, as after a reinstall or a registration retried without its
        // device id. The lookup by token is this index. Tokens already held twice: the newest player (highest id)
        // keeps it, the others are unsubscribed.
        await db.schema.createIndex('players_application_device_token').on('players').columns(['application_id', 'device_token']).where(sql.ref('device_token'), 'is not', null).execute();
        const now = new Date().toISOString();
        await sql`update players set device_token = null, subscribed = 0, unsubscribed_at = case when subscribed = 1 then ${now} else unsubscribed_at end, updated_at = ${now}
          where device_token is not null and platform in (${sql.join([...APP_PLATFORMS])})
          and exists (select 1 from players newer where newer.application_id = players.application_id and newer.device_token = players.device_token and newer.id > players.id)`.execute(db);
      },
      async down(db: Kysely<any>) {
        await db.schema.dropIndex('players_application_device_token').ifExists().execute();
      },
    },
  };
}

/** Migration 0026's rows: a segment, its name and the name's key. */
const SEGMENT_NAME_COLUMNS: Column[] = [
  { name: 'id', type: 'integer' },
  { name: 'name', type: 'text' },
  { name: 'name_key', type: 'text' },
];

/**
 * Migration 0026: each segment's name made distinct in its application (by segmentNameKey), the rows given in the
 * order they were made (application, then id). The first of a name keeps it; a later one takes "name (n)" with the
 * lowest n from 2 that names no segment of the application, before or after (the name cut to leave room for the
 * number within SEGMENT_NAME_MAX). Returns every row with its name and key, renamed or not.
 */
export function distinctSegmentNames(rows: readonly { id: number; application_id: string; name: string }[]): { id: number; name: string; name_key: string }[] {
  const taken = new Map<string, Set<string>>();
  for (const row of rows) {
    let keys = taken.get(row.application_id);
    if (!keys) taken.set(row.application_id, (keys = new Set()));
    keys.add(segmentNameKey(row.name));
  }
  const seen = new Map<string, Set<string>>();
  return rows.map((row) => {
    let kept = seen.get(row.application_id);
    if (!kept) seen.set(row.application_id, (kept = new Set()));
    const key = segmentNameKey(row.name);
    if (!kept.has(key)) {
      kept.add(key);
      return { id: row.id, name: row.name, name_key: key };
    }
    const keys = taken.get(row.application_id)!;
    const base = row.name.trim();
    for (let n = 2; ; n += 1) {
      const suffix = ` (${n})`;
      const name = `${base.slice(0, SEGMENT_NAME_MAX - suffix.length).trimEnd()}${suffix}`;
      const candidate = segmentNameKey(name);
      if (keys.has(candidate)) continue;
      keys.add(candidate);
      kept.add(candidate);
      return { id: row.id, name, name_key: candidate };
    }
  });
}

/** Migration 0024's page: players' mobile numbers read, at most this many per SELECT and per UPDATE. */
const MOBILE_NUMBERS_PAGE = 1_000;

/** Migration 0024's rows: a player and its number in international form. */
const MOBILE_NUMBER_COLUMNS: Column[] = [
  { name: 'id', type: 'bigint' },
  { name: 'mobile_number', type: 'text' },
];

/** Migration 0019's page: attribute values read, at most this many per SELECT and per UPDATE. */
const ATTRIBUTE_VALUES_PAGE = 1_000;

/** Migration 0019's rows: the key of a player_attributes row and the value it is given. */
const ATTRIBUTE_VALUE_COLUMNS: Column[] = [
  { name: 'player_id', type: 'bigint' },
  { name: 'name', type: 'text' },
  { name: 'value', type: 'text' },
  { name: 'number_value', type: 'double precision' },
];
