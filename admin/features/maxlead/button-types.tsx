import type { ContactButtonType } from '../../../shared/contract';
import { V, isEmail, isExternalLink, isMobileNumber } from '../../../shared/validation';

/** What a button's value is, which decides its field's label, hint and check. */
export type ButtonValueKind = 'phone' | 'email' | 'handle' | 'path' | 'tawk';

/** Each of the 19 contact-button types of spec §3: its value kind and the badge drawn for it (brand colour, mark). */
export const BUTTON_TYPES: Record<ContactButtonType, { kind: ButtonValueKind; color: string; mark: string }> = {
  zalo: { kind: 'phone', color: '#0068ff', mark: 'Zalo' },
  facebook: { kind: 'handle', color: '#0084ff', mark: 'm' },
  youtube: { kind: 'handle', color: '#ff0000', mark: '▶' },
  sms: { kind: 'phone', color: '#34c759', mark: 'SMS' },
  mail: { kind: 'email', color: '#ea4335', mark: '@' },
  tawk: { kind: 'tawk', color: '#03a84e', mark: '💬' },
  fanpage: { kind: 'handle', color: '#1877f2', mark: 'f' },
  fgroup: { kind: 'handle', color: '#1877f2', mark: 'f' },
  cart: { kind: 'path', color: '#f59e0b', mark: '🛒' },
  twitter: { kind: 'handle', color: '#000000', mark: '𝕏' },
  tiktok: { kind: 'handle', color: '#000000', mark: '♪' },
  instagram: { kind: 'handle', color: '#e1306c', mark: 'IG' },
  linkedin: { kind: 'handle', color: '#0a66c2', mark: 'in' },
  telegram: { kind: 'handle', color: '#229ed9', mark: '✈' },
  discord: { kind: 'handle', color: '#5865f2', mark: 'D' },
  line: { kind: 'handle', color: '#06c755', mark: 'LINE' },
  whatapps: { kind: 'phone', color: '#25d366', mark: 'WA' },
  viber: { kind: 'phone', color: '#7360f2', mark: 'V' },
  account: { kind: 'path', color: '#6b7280', mark: '👤' },
};

const isWebLink = (value: string) => /^https?:\/\//i.test(value) && isExternalLink(value);

/**
 * The i18n key of what is wrong with a button's value, or null. Any type takes a full web address; besides,
 * a phone channel takes a number, mail an address, tawk.to its property/widget pair, cart and account a
 * path of the shop, the others a username or page id.
 */
export function buttonValueProblem(type: ContactButtonType, raw: string): string | null {
  const value = raw.trim();
  if (value === '') return V.required;
  if (isWebLink(value)) return null;
  switch (BUTTON_TYPES[type].kind) {
    case 'phone':
      return isMobileNumber(value) ? null : V.mobileNumber;
    case 'email':
      return isEmail(value.replace(/^mailto:/i, '')) ? null : V.email;
    case 'tawk':
      return /^[\w-]+\/[\w-]+$/.test(value) ? null : 'maxlead.values.tawkInvalid';
    case 'path':
      return /^\/(?!\/)\S*$/.test(value) ? null : 'maxlead.values.pathInvalid';
    case 'handle':
      return /^@?[A-Za-z0-9._~-]+$/.test(value) ? null : 'maxlead.values.handleInvalid';
  }
}

/** A button type's round badge, as the shop shows it (the widget draws its own). */
export function ButtonTypeBadge({ type, size = 32 }: { type: ContactButtonType; size?: number }) {
  const { color, mark } = BUTTON_TYPES[type];
  return (
    <span
      aria-hidden="true"
      style={{
        display: 'inline-grid',
        placeItems: 'center',
        flex: `0 0 ${size}px`,
        width: size,
        height: size,
        borderRadius: '50%',
        background: color,
        color: '#fff',
        fontWeight: 700,
        fontSize: mark.length > 2 ? 9 : 13,
        lineHeight: 1,
      }}
    >
      {mark}
    </span>
  );
}
