import { isExternalLink } from '../../../shared/validation';

/** A link a shopper may follow: http(s), mailto: or tel:. Anything else (javascript:, data:, garbage) is dropped. */
export const safeLink = (value: unknown): string | undefined =>
  typeof value === 'string' && isExternalLink(value) ? value.trim() : undefined;

/** An image address: http(s) only. */
export const safeImage = (value: unknown): string | undefined => {
  const link = safeLink(value);
  return link && /^https?:/i.test(link) ? link : undefined;
};
