/**
 * A local Firebase Cloud Messaging HTTP v1 service with Google's OAuth2 token endpoint.
 *
 * Knobs:
 * - `start({ tokenLifetimeSeconds = 3599, clock, record })`.
 * - `serviceAccount`: a freshly generated service-account JSON (RSA key) whose token_uri is this fake.
 * - `registerToken()`: a registration token FCM knows; `unregister(token)` makes it answer 404 UNREGISTERED.
 *   Well-formed unknown tokens answer 404 UNREGISTERED too; malformed ones 400 INVALID_ARGUMENT.
 * - `failNext(token | '*', { status: 429 | 500 | 503 | 401 | 403, retryAfter? }, times = 1)`: Google's error
 *   body for that status (QUOTA_EXCEEDED, INTERNAL, UNAVAILABLE, UNAUTHENTICATED, PERMISSION_DENIED).
 * - `revokeAccessTokens()`: every issued access token is refused with 401 UNAUTHENTICATED.
 * - `tokenRequests()`: how many access tokens were issued.
 * Checks: the assertion is RS256, signed by the account's key, iss = client_email, aud = token_uri, scope
 * includes firebase.messaging, exp − iat ≤ 1 h, iat not in the future (400 invalid_grant); sends carry a
 * live bearer token (401), the account's project (403), a message with a token and string-valued data (400).
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { importSPKI, jwtVerify } from 'jose';
import { FailureScript, closeServer, listen, readBody, sendJson } from './http-util';

export interface ReceivedFcm {
  token: string;
  message: Record<string, unknown>;
  receivedAt: Date;
}

export interface FcmFailure {
  status: number;
  retryAfter?: string;
}

export interface FcmFake {
  url: string;
  serviceAccount: { type: 'service_account'; project_id: string; private_key_id: string; private_key: string; client_email: string; client_id: string; token_uri: string };
  received: ReceivedFcm[];
  count(): number;
  tokenRequests(): number;
  registerToken(): string;
  unregister(token: string): void;
  failNext(target: string, failure: FcmFailure, times?: number): void;
  revokeAccessTokens(): void;
  close(): Promise<void>;
}

const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';

function googleError(status: number, grpc: string, message: string, errorCode?: string, extra: unknown[] = []) {
  return { error: { code: status, message, status: grpc, details: [...(errorCode ? [{ '@type': FCM_ERROR, errorCode }] : []), ...extra] } };
}

const SCRIPTED: Record<number, ReturnType<typeof googleError>> = {
  400: googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'INVALID_ARGUMENT'),
  401: googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'),
  403: googleError(403, 'PERMISSION_DENIED', 'Permission denied.', 'SENDER_ID_MISMATCH'),
  404: googleError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'),
  429: googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for quota metric.', 'QUOTA_EXCEEDED'),
  500: googleError(500, 'INTERNAL', 'Internal error encountered.', 'INTERNAL'),
  503: googleError(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'UNAVAILABLE'),
};

export async function start(options: { tokenLifetimeSeconds?: number; clock?: () => number; record?: boolean } = {}): Promise<FcmFake> {
  const clock = options.clock ?? Date.now;
  const record = options.record ?? true;
  const lifetime = options.tokenLifetimeSeconds ?? 3599;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const verifyKey = await importSPKI(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'RS256');
  const projectId = 'nudge-test';
  const accessTokens = new Map<string, number>(); // token → expires at (ms)
  const registered = new Set<string>();
  const failures = new FailureScript<FcmFailure>();
  const received: ReceivedFcm[] = [];
  let accepted = 0;
  let issued = 0;
  let url = '';
  const serviceAccount = {
    type: 'service_account' as const,
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    client_email: `firebase-adminsdk@${projectId}.iam.gserviceaccount.com`,
    client_id: String(Math.floor(Math.random() * 1e20)),
    token_uri: '',
  };

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams((await readBody(req)).toString());
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
    }
    const invalid = (why: string) => sendJson(res, 400, { error: 'invalid_grant', error_description: why });
    try {
      const { payload } = await jwtVerify(form.get('assertion') ?? '', verifyKey, {
        algorithms: ['RS256'],
        issuer: serviceAccount.client_email,
        audience: serviceAccount.token_uri,
        currentDate: new Date(clock()),
      });
      if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return invalid('Invalid JWT: iat and exp are required');
      if (payload.exp - payload.iat > 3600) return invalid('Invalid JWT: Token must be a short-lived token (60 minutes)');
      if (payload.iat > clock() / 1000 + 60) return invalid('Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
      const scopes = String(payload.scope ?? '').split(' ');
      if (!scopes.includes('https://www.googleapis.com/auth/firebase.messaging') && !scopes.includes('https://www.googleapis.com/auth/cloud-platform')) {
        return invalid('Invalid JWT: scope does not allow FCM');
      }
    } catch (error) {
      return invalid(`Invalid JWT Signature or claims: ${(error as Error).message}`);
    }
    const value = `ya29.${randomBytes(48).toString('base64url')}`;
    accessTokens.set(value, clock() + lifetime * 1000);
    issued += 1;
    sendJson(res, 200, { access_token: value, expires_in: lifetime, token_type: 'Bearer' });
  }

  async function send(req: IncomingMessage, res: ServerResponse, project: string): Promise<void> {
    const raw = await readBody(req);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expires = bearer ? accessTokens.get(bearer) : undefined;
    if (!expires || expires <= clock()) {
      return sendJson(res, 401, SCRIPTED[401], { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' });
    }
    if (project !== projectId) return sendJson(res, 403, googleError(403, 'PERMISSION_DENIED', `Permission denied on project ${project}`));
    let message: Record<string, unknown> | undefined;
    try {
      message = (JSON.parse(raw.toString()) as { message?: Record<string, unknown> }).message;
    } catch {
      return sendJson(res, 400, googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
    }
    const deviceToken = typeof message?.token === 'string' ? message.token : '';
    if (!message || !deviceToken) {
      return sendJson(res, 400, googleError(400, 'INVALID_ARGUMENT', 'Recipient of the message is not set.', 'INVALID_ARGUMENT'));
    }
    const data = message.data as Record<string, unknown> | undefined;
    if (data && Object.values(data).some((v) => typeof v !== 'string')) {
      return sendJson(res, 400, googleError(400, 'INVALID_ARGUMENT', 'Invalid value at \'message.data\': values must be strings', 'INVALID_ARGUMENT', [
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'message.data', description: 'Invalid value' }] },
      ]));
    }
    const scripted = failures.take(deviceToken);
    if (scripted) {
      return sendJson(res, scripted.status, SCRIPTED[scripted.status] ?? googleError(scripted.status, 'UNKNOWN', 'scripted'), scripted.retryAfter ? { 'retry-after': scripted.retryAfter } : {});
    }
    if (!/^[A-Za-z0-9_:-]{64,}$/.test(deviceToken)) {
      return sendJson(res, 400, googleError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT', [
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'message.token', description: 'Invalid registration token' }] },
      ]));
    }
    if (!registered.has(deviceToken)) return sendJson(res, 404, SCRIPTED[404]);
    accepted += 1;
    if (record) received.push({ token: deviceToken, message, receivedAt: new Date() });
    sendJson(res, 200, { name: `projects/${projectId}/messages/${randomUUID()}` });
  }

  const server = createServer({ keepAlive: true }, (req, res) => {
    const path = req.url ?? '';
    const match = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path);
    const work =
      req.method === 'POST' && path === '/token'
        ? token(req, res)
        : req.method === 'POST' && match
          ? send(req, res, decodeURIComponent(match[1]))
          : Promise.resolve(sendJson(res, 404, googleError(404, 'NOT_FOUND', 'Not found')));
    work.catch((error) => sendJson(res, 500, googleError(500, 'INTERNAL', String(error))));
  });
  server.keepAliveTimeout = 60_000;
  const port = await listen(server);
  url = `http://127.0.0.1:${port}`;
  serviceAccount.token_uri = `${url}/token`;

  return {
    url,
    serviceAccount,
    received,
    count: () => accepted,
    tokenRequests: () => issued,
    registerToken() {
      const value = `${randomBytes(11).toString('base64url')}:APA91b${randomBytes(105).toString('base64url')}`;
      registered.add(value);
      return value;
    },
    unregister: (value) => void registered.delete(value),
    failNext: (target, failure, times = 1) => failures.add(target, failure, times),
    revokeAccessTokens: () => accessTokens.clear(),
    close: () => closeServer(server),
  };
}
