/**
 * How an SMS body is split into parts: GSM 03.38 text takes 160 characters in one part and 153 a part when
 * split (the rest carries the joining header); anything outside it (Vietnamese diacritics, emoji) sends the
 * whole message as UCS-2: 70, then 67 a part. Extension characters (€, [, ] …) take two GSM places.
 */

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '^{}\\[~]|€\f';
const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

export type SmsEncoding = 'gsm7' | 'ucs2';

export interface SmsSize {
  encoding: SmsEncoding;
  /** Places the text takes in its encoding (GSM extension characters count two, UCS-2 counts UTF-16 units). */
  units: number;
  parts: number;
  /** Places one part holds at this length. */
  perPart: number;
}

export function smsSize(text: string): SmsSize {
  let gsm = 0;
  for (const char of text) {
    if (BASIC.has(char)) gsm += 1;
    else if (EXTENSION.has(char)) gsm += 2;
    else {
      gsm = -1;
      break;
    }
  }
  const [encoding, units, single, multi]: [SmsEncoding, number, number, number] =
    gsm >= 0 ? ['gsm7', gsm, 160, 153] : ['ucs2', text.length, 70, 67];
  if (units === 0) return { encoding, units, parts: 0, perPart: single };
  if (units <= single) return { encoding, units, parts: 1, perPart: single };
  return { encoding, units, parts: Math.ceil(units / multi), perPart: multi };
}
