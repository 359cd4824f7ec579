import { z } from 'zod';
import { Role } from '../permissions/schema';

/**
 * The shop-platform (Shopify) embedding (spec §1): inside the platform's admin frame the console sends this
 * fixed X-Token instead of a session token of ours, and authenticates every call with the platform's own
 * session token (`Authorization: Bearer`). The placeholder authenticates nothing by itself.
 */
export const EMBEDDED_TOKEN_PLACEHOLDER = 'shopify-embedded';

/** The retry header of a fetch whose session token was refused: App Bridge retries once with a fresh token. */
export const RETRY_INVALID_SESSION_HEADER = 'X-Shopify-Retry-Invalid-Session-Request';

/** GET /api/embed/session: which application the embedded console opens for the shop of the session token. */
export const EmbedSession = z.object({
  application_id: z.string(),
  /** The shop's domain, `name.myshopify.com`. */
  shop: z.string(),
  /** The application's name (the shop's name at install). */
  name: z.string(),
  /** The caller's roles in the application. */
  roles: z.array(Role),
});
export type EmbedSession = z.infer<typeof EmbedSession>;
