import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SpinRequest, SpinResult, SpinSlice } from '../../shared/contract';
import type { Ctx } from '../context';
import { isUniqueViolation } from '../db';
import type { Database } from '../db/schema';
import { AppError } from '../errors';
import type { Random } from '../security/random';
import { recordLead } from './leads';
import { applicationByKey, checkSdkLimits, isBot, liveWidget } from './storefront';
import { V, normalizeEmail } from '../../shared/validation';
import { internationalNumber, numberDigitForms } from '../../shared/validation/phone';

/*
 * The spin wheel's draw happens here, never in the browser: the odds, the stock and the codes are the
 * merchant's, and a visitor who could pick their own slice would empty the prize pool.
 */

interface SpinWheelSettings {
  gate: 'email' | 'phone';
  slices: SpinSlice[];
}

/**
 * One weighted draw among the slices with odds above 0 that are not excluded: a slice of weight 2 comes up
 * twice as often as one of weight 1. Null when no such slice is left.
 */
export function pickSlice(slices: readonly SpinSlice[], random: Random, excluded: ReadonlySet<string> = new Set()): SpinSlice | null {
  const candidates = slices.filter((slice) => slice.weight > 0 && !excluded.has(slice.id));
  const total = candidates.reduce((sum, slice) => sum + slice.weight, 0);
  if (candidates.length === 0 || total <= 0) return null;
  let point = random() * total;
  for (const slice of candidates) {
    point -= slice.weight;
    if (point < 0) return slice;
  }
  // Rounding can leave `point` a hair above 0 after the last slice; it belongs to that slice.
  return candidates[candidates.length - 1];
}

/**
 * Takes one prize of a slice with a stock, in a single conditional UPDATE: however many spins race for the
 * last prize, the database lets exactly one through, on SQLite and PostgreSQL alike.
 */
export async function claimStock(db: Kysely<Database>, widgetId: number, sliceId: string, stock: number): Promise<boolean> {
  if (stock <= 0) return false;
  await db
    .insertInto('spin_stock')
    .values({ widget_id: widgetId, slice_id: sliceId, given: 0 })
    .onConflict((oc) => oc.columns(['widget_id', 'slice_id']).doNothing())
    .execute();
  const result = await db
    .updateTable('spin_stock')
    .set((eb) => ({ given: eb('given', '+', 1) }))
    .where('widget_id', '=', widgetId)
    .where('slice_id', '=', sliceId)
    .where('given', '<', stock)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives a claimed prize back when its spin could not be stored. */
async function releaseStock(db: Kysely<Database>, widgetId: number, sliceId: string): Promise<void> {
  await db
    .updateTable('spin_stock')
    .set((eb) => ({ given: eb('given', '-', 1) }))
    .where('widget_id', '=', widgetId)
    .where('slice_id', '=', sliceId)
    .where('given', '>', 0)
    .execute();
}

/**
 * Draws with the configured odds; a prize out of stock is excluded and the draw repeats over the rest. When
 * nothing with odds is left, the wheel stops on a losing slice (odds 0 or not); a wheel with none left
 * answers CONFLICT spinSoldOut. A losing slice's stock means nothing: it hands out no prize.
 */
async function drawPrize(ctx: Ctx, widgetId: number, slices: readonly SpinSlice[]): Promise<{ slice: SpinSlice; claimed: boolean }> {
  const excluded = new Set<string>();
  for (;;) {
    let slice = pickSlice(slices, ctx.s.random, excluded);
    if (!slice) {
      const losers = slices.filter((candidate) => candidate.lose);
      if (losers.length === 0) throw new AppError('CONFLICT', 'errors.spinSoldOut');
      slice = losers[Math.min(losers.length - 1, Math.floor(ctx.s.random() * losers.length))];
    }
    if (slice.lose || slice.stock === null) return { slice, claimed: false };
    if (await claimStock(ctx.s.db, widgetId, slice.id, slice.stock)) return { slice, claimed: true };
    excluded.add(slice.id);
  }
}

/** No look-alikes (0/O, 1/I): codes are read off a screen and typed at checkout. 32 symbols, 5 bits each. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

/** A one-time code: the slice's prefix and 8 characters from the OS's CSPRNG (40 bits). */
export function prizeCode(prefix: string): string {
  const bytes = randomBytes(CODE_LENGTH);
  let code = prefix;
  // 256 is a multiple of 32, so taking 5 bits of each byte keeps every symbol equally likely.
  for (const byte of bytes) code += CODE_ALPHABET[byte & 31];
  return code;
}

/**
 * The forms one person's email or phone number takes, so "A@x.com " and "a@x.com" are one spin, and so are
 * "0912 345 678" and "+84912345678" read in the application's country for phone numbers: the first is the one a
 * spin is kept under (a number in its international form, internationalNumber); the others are the forms a spin
 * kept before numbers were kept international (version 0024) may have, as written without separators
 * (numberDigitForms: "84912345678", "0912345678"), looked for too.
 */
export function contactForms(gate: 'email' | 'phone', value: string, phoneCountry: string): [string, ...string[]] {
  if (gate === 'email') return [normalizeEmail(value)];
  const kept = internationalNumber(value, phoneCountry);
  return [kept, ...numberDigitForms(value, phoneCountry).filter((form) => form !== kept)];
}

/**
 * The visitor's earlier spin, answered again as it was (a retry, a reload, a second tab). The same email or
 * phone from another browser is refused with CONFLICT: answering it would hand one person's code to anyone
 * who types their address.
 */
async function earlierSpin(ctx: Ctx, widgetId: number, visitorId: string, contacts: readonly string[], gate: 'email' | 'phone'): Promise<SpinResult | null> {
  const rows = await ctx.s.db
    .selectFrom('spins')
    .select(['visitor_id', 'slice_id', 'prize', 'lose', 'code'])
    .where('widget_id', '=', widgetId)
    .where((eb) => eb.or([eb('visitor_id', '=', visitorId), eb('contact', 'in', contacts)]))
    .execute();
  if (rows.length === 0) return null;
  const own = rows.find((row) => row.visitor_id === visitorId);
  if (own) return { slice_id: own.slice_id, label: own.prize, lose: own.lose === 1, code: own.code };
  throw new AppError('CONFLICT', 'errors.alreadySpun', { fields: [{ path: gate, message: 'errors.alreadySpun' }] });
}

/** What a bot that filled the honeypot sees: a plausible losing result, and nothing stored or handed out. */
function decoy(settings: SpinWheelSettings, random: Random): SpinResult {
  const losers = settings.slices.filter((slice) => slice.lose);
  const slice = losers.length > 0 ? losers[Math.min(losers.length - 1, Math.floor(random() * losers.length))] : settings.slices[0];
  return { slice_id: slice.id, label: slice.label, lose: true, code: null };
}

const MAX_CODE_ATTEMPTS = 5;

/**
 * A visitor spins the wheel: the gate's email or phone is required, one spin per browser and per contact,
 * the prize drawn here, a one-time code for a winning slice, and the spin recorded as a lead.
 */
export async function spinWheel(ctx: Ctx, body: SpinRequest): Promise<SpinResult> {
  const application = await applicationByKey(ctx, body.key);
  await checkSdkLimits(ctx, 'spin', application, body.visitor_id);
  const widget = await liveWidget(ctx, application, body.widget_id, ['spin']);
  const settings = widget.settings as unknown as SpinWheelSettings;
  if (isBot(body.website)) return decoy(settings, ctx.s.random);

  const gate = settings.gate;
  const given = gate === 'email' ? body.email : body.phone;
  if (!given || given.trim() === '') {
    throw new AppError('INVALID_PARAM', V.required, { fields: [{ path: gate, message: V.required }] });
  }
  const contacts = contactForms(gate, given, application.phone_country);
  const [contact] = contacts;
  const earlier = await earlierSpin(ctx, widget.id, body.visitor_id, contacts, gate);
  if (earlier) return earlier;

  for (let attempt = 0; attempt < MAX_CODE_ATTEMPTS; attempt++) {
    const { slice, claimed } = await drawPrize(ctx, widget.id, settings.slices);
    const code = slice.lose ? null : prizeCode(slice.code_prefix);
    const now = ctx.s.clock();
    try {
      await ctx.s.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('spins')
          .values({
            widget_id: widget.id,
            visitor_id: body.visitor_id,
            contact,
            slice_id: slice.id,
            prize: slice.label,
            lose: slice.lose ? 1 : 0,
            code,
            created_at: now.toISOString(),
          })
          .execute();
        await recordLead(
          trx,
          widget,
          {
            source: 'spin',
            visitor_id: body.visitor_id,
            email: gate === 'email' ? given.trim() : null,
            phone: gate === 'phone' ? given.trim() : null,
            prize: slice.label,
            code,
          },
          now,
          application.utc_offset,
        );
      });
      return { slice_id: slice.id, label: slice.label, lose: slice.lose, code };
    } catch (error) {
      if (claimed) await releaseStock(ctx.s.db, widget.id, slice.id);
      if (!isUniqueViolation(error)) throw error;
      // Lost a race with this visitor's or this contact's other spin: answer as if it had come first.
      const first = await earlierSpin(ctx, widget.id, body.visitor_id, contacts, gate);
      if (first) return first;
      // Otherwise the code collided with one already handed out: draw again.
    }
  }
  throw new Error(`no unique prize code after ${MAX_CODE_ATTEMPTS} attempts`);
}
