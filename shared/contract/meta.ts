import { z } from 'zod';

/** GET /info: what the console needs to know about the server it talks to (public). */
export const ServerInfo = z.object({
  /** The integration guide; null when the operator set none, and the console then hides its link. */
  guide_url: z.string().nullable(),
  /** The REST API documentation (OpenAPI UI). */
  api_docs_url: z.string(),
  version: z.string(),
});
export type ServerInfo = z.infer<typeof ServerInfo>;
