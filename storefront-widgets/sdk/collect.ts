import type { DeviceInfo, ScalarValue, TrackItem, Utm } from '../../shared/contract/audience';
import { isDateFieldName, isDateValue, isEmail, isLanguageTag, isMobileNumber, isName, languageCode } from '../../shared/validation';
import { BATCH_BYTES, byteLength } from './outbox';

/*
 * The pure part of collection: what an item looks like, which scroll quarters are new, what the landing URL
 * says of UTM, what the shop's `nudge(...)` calls may carry. Kept apart from the page wiring so that tests
 * can check every rule without a browser.
 */

/** A client id for an item: unique enough per browser, and of the characters the server accepts. */
export const itemId = (): string => Date.now().toString(36) + Math.random().toString(36).slice(2, 12);

/** The scroll quarters (25, 50, 75, 100) newly reached at this depth, each reported once per page. */
export function newQuarters(fraction: number, reported: number[]): (25 | 50 | 75 | 100)[] {
  // Within 2 %: the end of a page is rarely reached to the pixel (as the widgets' scroll rule).
  return ([25, 50, 75, 100] as const).filter((q) => fraction >= q * 0.0098 && !reported.includes(q));
}

/** The utm_* parameters of a URL, when it has any. */
export function utmOf(href: string): Utm | undefined {
  const params = new URL(href).searchParams;
  const utm: Record<string, string> = {};
  for (const name of ['source', 'medium', 'campaign', 'term', 'content']) {
    const value = params.get(`utm_${name}`);
    if (value) utm[`utm_${name}`] = value.slice(0, 200);
  }
  return Object.keys(utm).length ? utm : undefined;
}

/** An event, attribute or property name the server takes (shared/validation's isName, the contract's Name). */
export const validName = (name: unknown): name is string => typeof name === 'string' && isName(name);

const isScalar = (value: unknown): value is ScalarValue =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' || value === null;

/** Bytes (UTF-8 JSON) of one item's properties or attributes: with its other fields the item still fits one request. */
export const PROPERTIES_BYTES = BATCH_BYTES - 4 * 1024;

/**
 * Property and attribute values as the server takes them: scalars only (dates as ISO text or epoch numbers under
 * a `.date` name, Date objects converted, other values of such a name left out), at most 50, long text cut, at most PROPERTIES_BYTES in all (the values past it
 * left out: an item larger than a request could never be sent). Anything else is left out rather than making
 * the whole batch fail.
 */
export function scalars(input: unknown): Record<string, ScalarValue> {
  const out: Record<string, ScalarValue> = {};
  if (!input || typeof input !== 'object') return out;
  // The braces, then each `"name":value` and its comma.
  let bytes = 2;
  for (const [name, raw] of Object.entries(input as Record<string, unknown>)) {
    if (Object.keys(out).length >= 50) break;
    if (!validName(name)) continue;
    const given = raw instanceof Date ? raw.toISOString() : raw;
    const value = typeof given === 'string' ? given.slice(0, 1000) : given;
    if (!isScalar(value)) continue;
    // A `.date` name's value that the server would not read as a date ("12/05/1990"): it refuses the batch for it.
    if (isDateFieldName(name) && !isDateValue(value)) continue;
    const size = byteLength(JSON.stringify(name)) + byteLength(JSON.stringify(value)) + 2;
    if (bytes + size > PROPERTIES_BYTES) continue;
    bytes += size;
    out[name] = value;
  }
  return out;
}

const IDENTITY_MAX = { external_user_id: 128, email: 254, mobile_number: 32 } as const;
/** The rules the server checks identity with (shared/contract/audience.ts, Identity). */
const IDENTITY_VALID: Partial<Record<keyof typeof IDENTITY_MAX, (value: string) => boolean>> = { email: isEmail, mobile_number: isMobileNumber };

/**
 * `nudge('identify', id)` or `nudge('identify', { external_user_id, email, mobile_number })`, trimmed and bounded.
 * An email or mobile number the server would refuse (a shopper's typo in the shop's form) is left out: the server
 * refuses the whole batch for it, and the batch's page views and events would go with it.
 */
export function identityOf(input: unknown): Partial<Record<keyof typeof IDENTITY_MAX, string>> | undefined {
  const given = typeof input === 'string' || typeof input === 'number' ? { external_user_id: String(input) } : input;
  if (!given || typeof given !== 'object') return undefined;
  const identity: Partial<Record<keyof typeof IDENTITY_MAX, string>> = {};
  for (const field of Object.keys(IDENTITY_MAX) as (keyof typeof IDENTITY_MAX)[]) {
    const value = (given as Record<string, unknown>)[field];
    if ((typeof value === 'string' || typeof value === 'number') && String(value).trim()) {
      const text = String(value).trim().slice(0, IDENTITY_MAX[field]);
      if (IDENTITY_VALID[field]?.(text) ?? true) identity[field] = text;
    }
  }
  return Object.keys(identity).length ? identity : undefined;
}

/**
 * Turns one `nudge(...)` call into its item: ('event', name, props), ('set', attributes), ('identify', …).
 * Undefined for a call that is not collection's or that carries nothing valid.
 */
export function itemOfCall(args: ArrayLike<unknown>, session: string, now: number): TrackItem | undefined {
  const [command, a, b] = [args[0], args[1], args[2]];
  const id = itemId();
  if (command === 'event' && validName(a)) {
    return { type: 'event', id, at: now, session_id: session, name: a, properties: scalars(b) };
  }
  if (command === 'set') {
    const attributes = scalars(a);
    return Object.keys(attributes).length ? { type: 'set', id, at: now, attributes } : undefined;
  }
  if (command === 'identify') {
    const identity = identityOf(a);
    return identity ? { type: 'identify', id, at: now, identity } : undefined;
  }
  return undefined;
}

/** The page's device facts for the batches that carry them (track.ts, SENT_DEVICE): language, timezone (IANA name, minutes east of UTC), device type, UA. */
export function deviceFacts(mobile: boolean, ua: { os?: string; os_version?: string; browser?: string }, now = new Date()): DeviceInfo {
  const facts: DeviceInfo = { platform: 'web', device_type: mobile ? 'mobile' : 'desktop', ...ua };
  try {
    facts.timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    // an engine without Intl: the offset still says enough
  }
  facts.timezone_offset = -now.getTimezoneOffset() || 0;
  // The language alone, as the server keeps it ("vi-VN" → "vi"); a tag it would refuse is left out, not the batch.
  if (isLanguageTag(navigator.language || '')) facts.language = languageCode(navigator.language);
  return facts;
}
