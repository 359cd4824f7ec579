import { EMBEDDED_TOKEN_PLACEHOLDER } from '../../shared/contract';
import type { Authorize } from '../../admin/api';
import type { AppBridge } from './entry';

/**
 * How every call of the embedded admin authenticates (spec §1): the platform's session token, asked of App
 * Bridge for each call (it lasts a minute, and App Bridge hands out a fresh one when it nears its end), as
 * `Authorization: Bearer`, with the fixed placeholder where the hosted console sends its own token.
 */
export function sessionTokenAuthorization(bridge: Pick<AppBridge, 'idToken'>): Authorize {
  return async () => ({
    Authorization: `Bearer ${await bridge.idToken()}`,
    'X-Token': EMBEDDED_TOKEN_PLACEHOLDER,
  });
}
