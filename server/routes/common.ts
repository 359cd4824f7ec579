import { ErrorEnvelope } from '../../shared/contract';

/** Every route documents its failures as the one envelope. */
export const failures = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope } as const;

/** OpenAPI security of the routes that need a signed-in user: X-Token header or access_token query. */
export const signedIn: { [scheme: string]: string[] }[] = [{ token: [] }, { accessToken: [] }];
