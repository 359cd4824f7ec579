import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../server/db/schema';
import { bumpAudienceEpoch } from '../../server/domain/audience-index';
import { numberDigitForms } from '../../shared/validation/phone';
import { DEFAULT_PHONE_COUNTRY } from '../../shared/validation/phone-countries';

/*
 * The platform's three mandatory privacy webhooks, on what this app keeps about a shop's customers: the leads
 * its widgets collected (`leads`), the storefront audience (`players`, whose tags, attributes, events and
 * days go with them) and the spin-wheel draws (`spins`, keyed by the email or phone of the gate).
 * A customer is matched by email (case-insensitive) or by phone: digits only, in its international form and the
 * way its country writes it (numberDigitForms), so the platform's `+84901234567` matches a lead's `0901 234 567`,
 * read in the application's country for phone numbers, and a spin kept as `+84 90-123 4567`.
 */

/** Who a customers/* webhook is about, as the platform sends it. */
export interface CustomerRef {
  email: string | null;
  /** The digits the customer's number may be kept under (numberDigitForms); empty without a number. */
  phones: string[];
}

/** The customer of a `customers/data_request` or `customers/redact` payload, a national number read in `phoneCountry`. */
export function customerOf(payload: unknown, phoneCountry: string): CustomerRef {
  const customer = (payload as { customer?: { email?: unknown; phone?: unknown } } | null)?.customer;
  const email = typeof customer?.email === 'string' && customer.email.trim() ? customer.email.trim().toLowerCase() : null;
  const phone = typeof customer?.phone === 'string' ? customer.phone : '';
  // Fewer than 6 digits match too much to be anyone's number.
  return { email, phones: numberDigitForms(phone, phoneCountry).filter((digits) => digits.length >= 6) };
}

/** The country an application's national numbers are read in (applications.phone_country). */
export async function phoneCountryOf(db: Kysely<Database>, applicationId: string): Promise<string> {
  const row = await db.selectFrom('applications').select('phone_country').where('application_id', '=', applicationId).executeTakeFirst();
  return row?.phone_country ?? DEFAULT_PHONE_COUNTRY;
}

/** A column's value with the usual phone punctuation removed, in SQL both dialects speak. */
function digitsOf(column: string): RawBuilder<string> {
  let expression: RawBuilder<string> = sql<string>`${sql.ref(column)}`;
  for (const mark of [' ', '-', '.', '+', '(', ')']) expression = sql<string>`replace(${expression}, ${mark}, '')`;
  return expression;
}

function matches(customer: CustomerRef, emailColumn: string, phoneColumn: string) {
  return sql<boolean>`(${sql.join(
    [
      customer.email ? sql`lower(${sql.ref(emailColumn)}) = ${customer.email}` : sql`1 = 0`,
      customer.phones.length > 0 ? sql`${digitsOf(phoneColumn)} in (${sql.join(customer.phones)})` : sql`1 = 0`,
    ],
    sql` or `,
  )})`;
}

/** Everything kept about one customer of an application, for a data request. */
export interface CustomerData {
  leads: Record<string, unknown>[];
  players: Record<string, unknown>[];
  spins: Record<string, unknown>[];
}

/** Finds the customer's leads, audience records and spins in the application. */
export async function findCustomerData(db: Kysely<Database>, applicationId: string, customer: CustomerRef): Promise<CustomerData> {
  if (!customer.email && customer.phones.length === 0) return { leads: [], players: [], spins: [] };
  const leads = await db
    .selectFrom('leads')
    .select(['source', 'name', 'email', 'phone', 'message', 'button_type', 'prize', 'code', 'page_url', 'created_at'])
    .where('application_id', '=', applicationId)
    .where(matches(customer, 'email', 'phone'))
    .orderBy('created_at')
    .execute();
  const players = await db
    .selectFrom('players')
    .select([
      'device_id', 'platform', 'device_type', 'external_user_id', 'email', 'mobile_number', 'os', 'browser',
      'language', 'country', 'city', 'timezone', 'first_session_at', 'last_session_at', 'session_count', 'page_views',
      'subscribed', 'created_at',
    ])
    .where('application_id', '=', applicationId)
    .where(matches(customer, 'email', 'mobile_number'))
    .orderBy('created_at')
    .execute();
  const spins = await db
    .selectFrom('spins')
    .innerJoin('widgets', 'widgets.id', 'spins.widget_id')
    .select(['spins.contact', 'spins.prize', 'spins.code', 'spins.created_at'])
    .where('widgets.application_id', '=', applicationId)
    .where(matches(customer, 'spins.contact', 'spins.contact'))
    .orderBy('spins.created_at')
    .execute();
  return { leads, players, spins };
}

/** How many records an erasure removed. */
export interface Erased {
  leads: number;
  players: number;
  spins: number;
}

/** Deletes the customer's leads, audience records and spins in the application (customers/redact). */
export async function eraseCustomer(db: Kysely<Database>, applicationId: string, customer: CustomerRef): Promise<Erased> {
  if (!customer.email && customer.phones.length === 0) return { leads: 0, players: 0, spins: 0 };
  const leads = await db
    .deleteFrom('leads')
    .where('application_id', '=', applicationId)
    .where(matches(customer, 'email', 'phone'))
    .executeTakeFirst();
  const players = await db
    .deleteFrom('players')
    .where('application_id', '=', applicationId)
    .where(matches(customer, 'email', 'mobile_number'))
    .executeTakeFirst();
  if (Number(players.numDeletedRows) > 0) await bumpAudienceEpoch(db, applicationId);
  const spins = await db
    .deleteFrom('spins')
    .where('widget_id', 'in', (eb) => eb.selectFrom('widgets').select('id').where('application_id', '=', applicationId))
    .where(matches(customer, 'contact', 'contact'))
    .executeTakeFirst();
  return { leads: Number(leads.numDeletedRows), players: Number(players.numDeletedRows), spins: Number(spins.numDeletedRows) };
}

/**
 * Deletes every customer record of the application (shop/redact, 48 hours after an uninstall). The application,
 * its widgets' settings and their counters stay: the merchant's configuration, not anyone's personal data.
 */
export async function eraseShopCustomers(db: Kysely<Database>, applicationId: string): Promise<Erased> {
  const leads = await db.deleteFrom('leads').where('application_id', '=', applicationId).executeTakeFirst();
  const players = await db.deleteFrom('players').where('application_id', '=', applicationId).executeTakeFirst();
  await bumpAudienceEpoch(db, applicationId);
  const spins = await db
    .deleteFrom('spins')
    .where('widget_id', 'in', (eb) => eb.selectFrom('widgets').select('id').where('application_id', '=', applicationId))
    .executeTakeFirst();
  // Outbound webhook payloads carry copies of the leads.
  await db.deleteFrom('webhook_outbox').where('application_id', '=', applicationId).execute();
  await db.deleteFrom('webhook_messages').where('application_id', '=', applicationId).execute();
  return { leads: Number(leads.numDeletedRows), players: Number(players.numDeletedRows), spins: Number(spins.numDeletedRows) };
}
