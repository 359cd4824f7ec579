import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { INTERNATIONAL_NUMBER_BUTTONS, type ContactButton } from '../contract/widget';
import { isMobileNumber, normalizeMobileNumber } from './index';
import { PHONE_COUNTRIES, isPhoneCountry } from './phone-countries';

/**
 * Mobile numbers in their international form (E.164, "+84912345678"), the one form players, spins and SMS gateways
 * get. People write their own number the way their country does ("0912 345 678" in Vietnam, "07700 900123" in
 * the United Kingdom): read in the application's country for phone numbers (`phone_country`), that is the same
 * number as "+84 912 345 678", so a search typed either way finds it, one person gets one spin of the wheel, and
 * the SMS gateway, which takes international numbers only, is given one it can text. Read with libphonenumber-js
 * and its metadata of every country's numbering plan (the "min" set: lengths and prefixes, not each number's type).
 *
 * Kept apart from ./index: the contract and most of the console need the countries alone (./phone-countries), not
 * their numbering plans. The server uses it, and of the console only the contact buttons' screen, in its own chunk
 * (withInternationalNumbers, for its preview).
 */

/** `value` read as a phone number, a national one in `country` when the plan is known; null when it is no possible number. */
function possibleNumber(value: string, country: string) {
  const number = parsePhoneNumberFromString(normalizeMobileNumber(value), isPhoneCountry(country) ? country : undefined);
  return number?.isPossible() ? number : null;
}

/**
 * A mobile number (isMobileNumber) in its international form: "+84912345678" for "0912 345 678", "0084912345678",
 * "84912345678" or "+84 912-345.678" read in Vietnam. A number already international keeps its country whatever
 * `country` is. A number no reading makes a possible one (too short or too long for the country's plan) is kept as
 * written, without separators (normalizeMobileNumber): the gateway's answer on it is the one that counts.
 */
export function internationalNumber(value: string, country: string): string {
  const number = possibleNumber(value, country);
  return number ? number.number : normalizeMobileNumber(value);
}

/**
 * How the beginning of a number, typed as someone would ("0912 3", "+84 91", "0084 9"), begins in the forms numbers
 * are stored in: as typed without separators, and for the digits of a national ("0912…") or 00-prefixed number, the
 * international form's beginning ("+84912…" in Vietnam: 0 is the trunk prefix of most countries' plans, and a
 * form with it where it is not, "+10…" in the United States, begins no number). A whole
 * number also gives its international form (internationalNumber), whatever way it was typed. The player list's search.
 */
export function numberPrefixes(value: string, country: string): string[] {
  const typed = normalizeMobileNumber(value);
  const forms = [typed, internationalNumber(value, country)];
  const code = PHONE_COUNTRIES.get(country);
  if (/^00\d/.test(typed)) forms.push(`+${typed.slice(2)}`);
  else if (/^0\d/.test(typed) && code) forms.push(`+${code}${typed.slice(1)}`);
  return [...new Set(forms)];
}

/**
 * The digits one number may have been kept under, for matching it in text written any way ("+84 90-123 4567",
 * "0901234567"): its international form without the + ("84901234567") and the way its own country writes it
 * ("0901234567"), `value` read in `country` when national; only its digits when no reading makes it a possible number.
 */
export function numberDigitForms(value: string, country: string): string[] {
  const digits = value.replace(/\D/g, '');
  const number = possibleNumber(value, country);
  if (!number) return [digits];
  return [...new Set([number.number.slice(1), number.formatNational().replace(/\D/g, ''), digits])];
}

/**
 * Contact buttons as a shop's browser gets them: the numbers of those whose links need the country code
 * (INTERNATIONAL_NUMBER_BUTTONS: wa.me/…, viber://…) in international form, a national one read in `country`, so
 * "081 234 5678" of a shop in Thailand opens +66 81 234 5678. The storefront config (server/domain/storefront.ts)
 * and the console's preview of the buttons give the same links. The other buttons are kept as the merchant wrote them.
 */
export function withInternationalNumbers(buttons: readonly ContactButton[], country: string): ContactButton[] {
  return buttons.map((button) =>
    INTERNATIONAL_NUMBER_BUTTONS.includes(button.type) && isMobileNumber(button.value) ? { ...button, value: internationalNumber(button.value, country) } : button,
  );
}
