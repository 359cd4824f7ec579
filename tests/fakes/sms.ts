/**
 * A local SMS gateway speaking the JSON API documented in server/delivery/senders/sms.ts.
 *
 * Knobs:
 * - `start({ username = 'nudge', password = 'secret', brandNames = ['NUDGE'] })`: the account it accepts
 *   (401 UNAUTHORIZED otherwise) and its approved brand names (403 BRAND_NAME_NOT_APPROVED otherwise).
 * - `optOut(phone)`: that number answers 422 NUMBER_OPTED_OUT.
 * - `failNext(phone | '*', { status, code?, retryAfter? }, times = 1)`: e.g. 429 with Retry-After, 500,
 *   402 INSUFFICIENT_BALANCE.
 * Checks: Basic auth, JSON body with brandName, an E.164 `to` (400 INVALID_NUMBER), text 1–1530 chars
 * (400 TEXT_TOO_LONG / INVALID_REQUEST). Success: 200 { id, status: 'queued' }.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { FailureScript, closeServer, listen, readBody, sendJson } from './http-util';

export interface ReceivedSms {
  brandName: string;
  to: string;
  text: string;
  receivedAt: Date;
}

export interface SmsFailure {
  status: number;
  code?: string;
  retryAfter?: string;
}

export interface SmsFake {
  url: string;
  username: string;
  password: string;
  brandName: string;
  received: ReceivedSms[];
  optOut(phone: string): void;
  failNext(target: string, failure: SmsFailure, times?: number): void;
  close(): Promise<void>;
}

export async function start(options: { username?: string; password?: string; brandNames?: string[] } = {}): Promise<SmsFake> {
  const username = options.username ?? 'nudge';
  const password = options.password ?? 'secret';
  const brandNames = options.brandNames ?? ['NUDGE'];
  const optedOut = new Set<string>();
  const failures = new FailureScript<SmsFailure>();
  const received: ReceivedSms[] = [];
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

  const server = createServer({ keepAlive: true }, (req, res) => {
    readBody(req)
      .then((raw) => {
        if (req.method !== 'POST' || req.url !== '/v1/sms') return sendJson(res, 404, { error: { code: 'NOT_FOUND' } });
        if (req.headers.authorization !== expected) return sendJson(res, 401, { error: { code: 'UNAUTHORIZED', message: 'Bad username or password' } });
        let body: { brandName?: unknown; to?: unknown; text?: unknown };
        try {
          body = JSON.parse(raw.toString());
        } catch {
          return sendJson(res, 400, { error: { code: 'INVALID_REQUEST', message: 'Body is not JSON' } });
        }
        if (typeof body.brandName !== 'string' || !brandNames.includes(body.brandName)) {
          return sendJson(res, 403, { error: { code: 'BRAND_NAME_NOT_APPROVED', message: `Brand name ${String(body.brandName)} is not approved` } });
        }
        const to = typeof body.to === 'string' ? body.to : '';
        if (!/^\+?[1-9]\d{6,14}$/.test(to)) return sendJson(res, 400, { error: { code: 'INVALID_NUMBER', message: 'Invalid phone number' } });
        if (typeof body.text !== 'string' || body.text.length === 0) return sendJson(res, 400, { error: { code: 'INVALID_REQUEST', message: 'text is required' } });
        if (body.text.length > 1530) return sendJson(res, 400, { error: { code: 'TEXT_TOO_LONG', message: 'Text is too long' } });
        const scripted = failures.take(to);
        if (scripted) {
          return sendJson(res, scripted.status, { error: { code: scripted.code ?? `HTTP_${scripted.status}`, message: 'scripted' } }, scripted.retryAfter ? { 'retry-after': scripted.retryAfter } : {});
        }
        if (optedOut.has(to)) return sendJson(res, 422, { error: { code: 'NUMBER_OPTED_OUT', message: 'The subscriber opted out' } });
        received.push({ brandName: body.brandName, to, text: body.text, receivedAt: new Date() });
        sendJson(res, 200, { id: randomUUID(), status: 'queued' });
      })
      .catch((error) => sendJson(res, 500, { error: { code: 'INTERNAL', message: String(error) } }));
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    username,
    password,
    brandName: brandNames[0],
    received,
    optOut: (phone) => void optedOut.add(phone),
    failNext: (target, failure, times = 1) => failures.add(target, failure, times),
    close: () => closeServer(server),
  };
}
