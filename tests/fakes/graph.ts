/**
 * A local Facebook Graph API: the Messenger Send API and the page lookup, with Graph's error bodies.
 *
 * Knobs:
 * - `start({ version = 'v19.0' })`; `url` includes the version, like GRAPH_BASE_URL.
 * - `addPage(name?)`: `{ id, name, token }`, a page and its page access token.
 * - `addPerson(pageId)`: a PSID that can receive messages from that page; `block(psid)`: it answers
 *   #551 "This person isn't available right now".
 * - `failNext(psid | '*', { status, code, subcode?, message? }, times = 1)`: e.g. 400 #613 rate, 500 #2.
 * Checks: `access_token` is a known page token (400 #190 OAuthException); GET /{page_id}?fields=id,name
 * for that page (the token of another page answers 400 #100); POST /me/messages with recipient.id a PSID
 * of that page (400 #100 subcode 2018001 "No matching user found"), messaging_type RESPONSE/UPDATE/
 * MESSAGE_TAG (with a tag), message.text present (400 #100).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { FailureScript, closeServer, listen, readBody, sendJson } from './http-util';

export interface ReceivedMessenger {
  pageId: string;
  psid: string;
  messagingType: string;
  tag: string | null;
  text: string;
  receivedAt: Date;
}

export interface GraphFailure {
  status: number;
  code: number;
  subcode?: number;
  message?: string;
}

export interface GraphFake {
  /** http://127.0.0.1:<port>/v19.0 */
  url: string;
  received: ReceivedMessenger[];
  addPage(name?: string): { id: string; name: string; token: string };
  addPerson(pageId: string): string;
  block(psid: string): void;
  failNext(target: string, failure: GraphFailure, times?: number): void;
  close(): Promise<void>;
}

function graphError(status: number, code: number, message: string, subcode?: number) {
  return [status, { error: { message, type: 'OAuthException', code, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: randomBytes(8).toString('base64url') } }] as const;
}

export async function start(options: { version?: string } = {}): Promise<GraphFake> {
  const version = options.version ?? 'v19.0';
  const pages = new Map<string, { id: string; name: string }>(); // token → page
  const people = new Map<string, { pageId: string; blocked: boolean }>();
  const failures = new FailureScript<GraphFailure>();
  const received: ReceivedMessenger[] = [];

  const server = createServer({ keepAlive: true }, (req, res) => {
    readBody(req)
      .then((raw) => {
        const url = new URL(req.url ?? '/', 'http://graph.local');
        const reply = ([status, body]: readonly [number, unknown]) => sendJson(res, status, body);
        if (!url.pathname.startsWith(`/${version}/`)) return reply(graphError(400, 2635, `Unsupported version in ${url.pathname}`));
        const path = url.pathname.slice(version.length + 2);
        const page = pages.get(url.searchParams.get('access_token') ?? '');
        if (!page) return reply(graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token'));
        if (req.method === 'GET' && path !== 'me/messages') {
          if (path !== page.id) return reply(graphError(400, 100, `Unsupported get request. Object with ID '${path}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, 33));
          return sendJson(res, 200, { id: page.id, name: page.name });
        }
        if (req.method !== 'POST' || path !== 'me/messages') return reply(graphError(400, 100, 'Unknown path components'));
        let body: { recipient?: { id?: string }; messaging_type?: string; tag?: string; message?: { text?: string } };
        try {
          body = JSON.parse(raw.toString());
        } catch {
          return reply(graphError(400, 100, 'Invalid JSON'));
        }
        const psid = body.recipient?.id ?? '';
        const type = body.messaging_type ?? '';
        if (!['RESPONSE', 'UPDATE', 'MESSAGE_TAG'].includes(type)) return reply(graphError(400, 100, '(#100) Param messaging_type must be one of {RESPONSE, UPDATE, MESSAGE_TAG}'));
        if (type === 'MESSAGE_TAG' && !body.tag) return reply(graphError(400, 100, '(#100) Tag is required for MESSAGE_TAG messaging type'));
        if (!body.message?.text) return reply(graphError(400, 100, '(#100) Must send either message or sender action'));
        const scripted = failures.take(psid);
        if (scripted) return reply(graphError(scripted.status, scripted.code, scripted.message ?? `(#${scripted.code}) scripted`, scripted.subcode));
        const person = people.get(psid);
        if (!person || person.pageId !== page.id) return reply(graphError(400, 100, '(#100) No matching user found', 2018001));
        if (person.blocked) return reply(graphError(400, 551, "(#551) This person isn't available right now.", 1545041));
        received.push({ pageId: page.id, psid, messagingType: type, tag: body.tag ?? null, text: body.message.text, receivedAt: new Date() });
        sendJson(res, 200, { recipient_id: psid, message_id: `m_${randomBytes(24).toString('base64url')}` });
      })
      .catch((error) => sendJson(res, 500, { error: { message: String(error), code: 1 } }));
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/${version}`,
    received,
    addPage(name = 'Nudge Shop') {
      const id = String(100_000_000_000_000 + Math.floor(Math.random() * 1e14));
      const token = `EAAG${randomBytes(60).toString('base64url')}`;
      pages.set(token, { id, name });
      return { id, name, token };
    },
    addPerson(pageId) {
      const psid = String(2_000_000_000_000_000 + Math.floor(Math.random() * 1e15));
      people.set(psid, { pageId, blocked: false });
      return psid;
    },
    block(psid) {
      const person = people.get(psid);
      if (person) person.blocked = true;
    },
    failNext: (target, failure, times = 1) => failures.add(target, failure, times),
    close: () => closeServer(server),
  };
}
