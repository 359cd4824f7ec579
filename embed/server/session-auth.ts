import type { FastifyReply, FastifyRequest } from 'fastify';
import { RETRY_INVALID_SESSION_HEADER } from '../../shared/contract';
import type { Principal } from '../../server/context';
import { AppError } from '../../server/errors';
import { PlatformRefused } from './admin-api';
import { bearerToken, InvalidSessionToken, verifySessionToken } from './session-token';
import { shopForSessionToken, shopPrincipal } from './shops';

/** Refuses a fetch whose session token failed: 401 NOT_AUTHORIZED, and the header that makes App Bridge retry once. */
export function refuseSessionToken(reply: FastifyReply): AppError {
  reply.header(RETRY_INVALID_SESSION_HEADER, '1');
  return new AppError('NOT_AUTHORIZED');
}

/**
 * The principal of an API call carrying `Authorization: Bearer <session token>`: undefined when it carries none
 * (or embedding is off), the shop's owner when the token is valid (installing the shop by token exchange
 * first if needed), and a thrown 401 with the retry header when the token is present but fails any check.
 */
export async function principalFromSessionToken(request: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> {
  const config = request.server.services.config.shopify;
  const token = bearerToken(request.headers.authorization);
  if (!config || token === null) return undefined;
  const { services } = request.server;
  let shop: string;
  try {
    ({ shop } = await verifySessionToken(config, token, services.clock()));
  } catch (error) {
    if (!(error instanceof InvalidSessionToken)) throw error;
    request.log.info({ reason: error.message }, 'session token refused');
    throw refuseSessionToken(reply);
  }
  try {
    const row = await shopForSessionToken(services, shop, token);
    const principal = await shopPrincipal(services.db, row);
    if (!principal) throw refuseSessionToken(reply);
    return principal;
  } catch (error) {
    // The platform would not exchange the token (revoked, app uninstalled): as good as an invalid token.
    if (error instanceof PlatformRefused) {
      request.log.warn({ shop, err: error }, 'token exchange refused');
      throw refuseSessionToken(reply);
    }
    throw error;
  }
}
