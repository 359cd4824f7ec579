import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

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
  };
}
