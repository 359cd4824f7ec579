import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * The tables, as Kysely sees them. Portable choices, the same on SQLite and PostgreSQL:
 * - timestamps are ISO 8601 UTC text with milliseconds (`2025-01-31T08:00:00.000Z`): they sort and compare
 *   as text in both databases, and travel to the API unchanged;
 * - booleans are integers 0/1;
 * - JSON lists are text holding JSON.
 */
export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  email_links: EmailLinksTable;
  otp_codes: OtpCodesTable;
  throttle_events: ThrottleEventsTable;
  applications: ApplicationsTable;
  memberships: MembershipsTable;
  players: PlayersTable;
  platforms: PlatformsTable;
  mail_outbox: MailOutboxTable;
}

export type Flag = 0 | 1;

export interface UsersTable {
  id: Generated<number>;
  /** Trimmed and lower-cased. */
  email: string;
  name: string | null;
  /** `scrypt$…`; null while the person was invited and has not registered yet. */
  password_hash: string | null;
  mobile_number: string | null;
  agency: string | null;
  /** The language of the emails the person receives when someone else triggers them (invitations). */
  language: string;
  is_admin: ColumnType<Flag, Flag | undefined, Flag>;
  otp_enabled: ColumnType<Flag, Flag | undefined, Flag>;
  email_verified_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 of the token, base64url. The token itself is never stored. */
  token_hash: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  revoked_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

export type LinkPurpose = 'verify' | 'reset';

export interface EmailLinksTable {
  id: Generated<number>;
  user_id: number;
  purpose: LinkPurpose;
  token_hash: string;
  /** For a reset: the hash of the pending new password, applied when the link is used. */
  payload: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export type OtpPurpose = 'login' | 'change_password';

export interface OtpCodesTable {
  id: Generated<number>;
  user_id: number;
  purpose: OtpPurpose;
  /** HMAC-SHA-256 of the code under SECRET_KEY. */
  code_hash: string;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ThrottleEventsTable {
  id: Generated<number>;
  bucket: string;
  created_at: string;
}

export interface ApplicationsTable {
  application_id: string;
  name: string;
  client_key: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  deleting_at: string | null;
}

export interface MembershipsTable {
  id: Generated<number>;
  application_id: string;
  user_id: number;
  role: string;
  organization: string | null;
  /** JSON array of the features this member may not use (spec §6 "permissions"). */
  permissions: ColumnType<string, string | undefined, string>;
  invited_by: number | null;
  created_at: string;
}

export interface PlayersTable {
  id: Generated<number>;
  application_id: string;
  created_at: string;
}

export interface PlatformsTable {
  id: Generated<number>;
  application_id: string;
  kind: string;
  created_at: string;
}

export interface MailOutboxTable {
  id: Generated<number>;
  recipient: string;
  subject: string;
  body: string;
  created_at: string;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type ApplicationRow = Selectable<ApplicationsTable>;
export type MembershipRow = Selectable<MembershipsTable>;
