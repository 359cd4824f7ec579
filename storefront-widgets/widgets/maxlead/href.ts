import type { ContactButtonType } from '../../../shared/contract/widget';
import { CHANNELS } from './channels';

const digits = (value: string) => value.replace(/\D/g, '');
const plus = (value: string) => value.startsWith('+');

/** What fills a template slot (see CHANNELS), or '' when the value can't. */
function fill(slot: string, v: string): string {
  const d = digits(v);
  if (slot === 'd') return d.length > 2 ? d : '';
  if (slot === 'p') return d.length > 2 ? (plus(v) ? '+' : '') + d : '';
  if (slot === 'm') return /^(mailto:)?([^\s@/?#]+@[^\s@/?#]+\.[^\s@/?#]+)$/i.exec(v)?.[2] ?? '';
  // tawk.to's direct chat link is property/widget: its slash is meant.
  if (slot === 't') return /^[\w-]+\/[\w-]+$/.test(v) ? v : '';
  // A handle as one path segment: no leading @ or slashes, everything else escaped.
  return encodeURIComponent(v.replace(/^[@/]+|\/+$/g, ''));
}

/**
 * The link a contact button opens: the merchant's value (a phone number, a username, a page id, an
 * address) made into the channel's deep link, or a web address given whole. Paths such as /cart resolve
 * against `base` (the shop's origin). Only http(s), tel:, sms:, mailto: and viber: come out, never
 * javascript: or data:; null when the value can't make a link.
 */
export function contactButtonHref(type: ContactButtonType, value: string, base?: string): string | null {
  const v = (value || '').trim();
  const template = CHANNELS[type]?.[0];
  if (!v || template === undefined) return null;
  if (/^https?:\/\//i.test(v) || (base && /^\/(?!\/)/.test(v))) {
    try {
      const url = new URL(v, base);
      return /^https?:$/.test(url.protocol) && url.hostname ? url.href : null;
    } catch {
      return null;
    }
  }
  const slot = /\{(\w)\}/.exec(template);
  const part = slot && fill(slot[1], v);
  return part ? (template.includes(':') ? '' : 'https://') + template.replace(slot[0], part) : null;
}

/** A hotline number as a tel: link, or null when it has no digits to dial. */
export const telHref = (number: string): string | null => {
  const part = fill('p', (number || '').trim());
  return part ? 'tel:' + part : null;
};
