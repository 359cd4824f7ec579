import type { ContactButtonType } from '../../../shared/contract/widget';

/**
 * Each contact-button type: how its value becomes a link (a template; see contactButtonHref), its brand
 * colour, the badge drawn for it and its name. One table, because every byte of it ships to shoppers.
 * Templates without a scheme are https://. Template slots: {d} digits, {p} a number as dialled, {h} a handle,
 * {m} an email address, {t} a tawk.to property/widget pair; '' takes web addresses only. WhatsApp's and Viber's
 * links need the number with its country code: the storefront config and the console's preview give those numbers in
 * international form, read in the application's country for phone numbers (withInternationalNumbers in
 * shared/validation/phone.ts), so their digits are that.
 */
export const CHANNELS: Record<ContactButtonType, [template: string, color: string, badge: string, name: string]> = {
  zalo: ['zalo.me/{d}', '#0068ff', 'Zalo', 'Zalo'],
  facebook: ['m.me/{h}', '#0084ff', 'm', 'Messenger'],
  youtube: ['www.youtube.com/@{h}', '#ff0000', '▶', 'YouTube'],
  sms: ['sms:{p}', '#34c759', 'SMS', 'SMS'],
  mail: ['mailto:{m}', '#ea4335', '@', 'Email'],
  tawk: ['tawk.to/chat/{t}', '#03a84e', '•••', 'Live chat'],
  fanpage: ['www.facebook.com/{h}', '#1877f2', 'f', 'Fanpage'],
  fgroup: ['www.facebook.com/groups/{h}', '#1877f2', 'f', 'Facebook group'],
  cart: ['', '#f59e0b', '🛒', 'Cart'],
  twitter: ['x.com/{h}', '#000', '𝕏', 'X'],
  tiktok: ['www.tiktok.com/@{h}', '#000', '♪', 'TikTok'],
  instagram: ['www.instagram.com/{h}', '#e1306c', 'IG', 'Instagram'],
  linkedin: ['www.linkedin.com/in/{h}', '#0a66c2', 'in', 'LinkedIn'],
  telegram: ['t.me/{h}', '#229ed9', '✈', 'Telegram'],
  discord: ['discord.gg/{h}', '#5865f2', 'D', 'Discord'],
  line: ['line.me/R/ti/p/{h}', '#06c755', 'LINE', 'LINE'],
  whatapps: ['wa.me/{d}', '#25d366', 'WA', 'WhatsApp'],
  viber: ['viber://chat?number=%2B{d}', '#7360f2', 'V', 'Viber'],
  account: ['', '#6b7280', '👤', 'My account'],
};
