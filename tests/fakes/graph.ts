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
 * MESSAGE_TAG (with a tag), and a message of either text (1–2000 characters) or an attachment, never both;
 * a template attachment is a generic template of 1–10 elements, each with a title of 1–80 characters, a
 * subtitle of at most 80, at most 3 buttons of type web_url with an https url and a title of 1–20, and an
 * https default_action url without a title (else 400 #100 OAuthException, Graph's wording).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { FailureScript, closeServer, listen, readBody, sendJson } from './http-util';

export interface MessengerButton {
  type: string;
  url?: string;
  title?: string;
}

export interface MessengerElement {
  title?: string;
  subtitle?: string;
  image_url?: string;
  default_action?: { type?: string; url?: string; title?: string };
  buttons?: MessengerButton[];
}

export interface MessengerTemplate {
  template_type: string;
  elements: MessengerElement[];
}

export interface ReceivedMessenger {
  pageId: string;
  psid: string;
  messagingType: string;
  tag: string | null;
  /** A text message's text; null for an attachment. */
  text: string | null;
  /** A template attachment's payload; null for text. */
  template: MessengerTemplate | null;
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

const isHttpsUrl = (value: unknown) => typeof value === 'string' && /^https:\/\/[^/?#\s]+\S*$/i.test(value);

/** What the Send API refuses in a message (the #100 message), or null. */
function messageProblem(message: { text?: unknown; attachment?: { type?: unknown; payload?: unknown } } | undefined): string | null {
  if (!message || (message.text === undefined && message.attachment === undefined)) return '(#100) Must send either message or sender action';
  if (message.text !== undefined && message.attachment !== undefined) return '(#100) Only one of text or attachment can be specified';
  if (message.text !== undefined) {
    if (typeof message.text !== 'string' || message.text.length === 0) return '(#100) Param message[text] must be a non-empty UTF-8 encoded string';
    if (message.text.length > 2000) return '(#100) Length of param message[text] must be less than or equal to 2000';
    return null;
  }
  const attachment = message.attachment!;
  if (attachment.type !== 'template') return `(#100) Unsupported attachment type in this fake: ${String(attachment.type)}`;
  const payload = attachment.payload as Partial<MessengerTemplate> | undefined;
  if (payload?.template_type !== 'generic') return '(#100) param message[attachment][payload][template_type] must be one of {generic, button, media, receipt, ...}';
  const elements = payload.elements;
  if (!Array.isArray(elements) || elements.length === 0) return '(#100) param message[attachment][payload][elements] must be non-empty.';
  if (elements.length > 10) return '(#100) param message[attachment][payload][elements] has too many elements.';
  for (const [i, element] of elements.entries()) {
    const at = `message[attachment][payload][elements][${i}]`;
    if (typeof element.title !== 'string' || element.title.length === 0) return `(#100) param ${at}[title] must be a non-empty UTF-8 encoded string`;
    if (element.title.length > 80) return `(#100) param ${at}[title] must be at most 80 characters`;
    if (element.subtitle !== undefined && (typeof element.subtitle !== 'string' || element.subtitle.length > 80)) return `(#100) param ${at}[subtitle] must be at most 80 characters`;
    if (element.image_url !== undefined && !isHttpsUrl(element.image_url)) return `(#100) param ${at}[image_url] must be a valid https URL`;
    if (element.default_action !== undefined) {
      if (element.default_action.type !== 'web_url' || !isHttpsUrl(element.default_action.url)) return `(#100) param ${at}[default_action][url] must be a valid https URL`;
      if (element.default_action.title !== undefined) return `(#100) param ${at}[default_action] cannot have a title`;
    }
    const buttons = element.buttons ?? [];
    if (!Array.isArray(buttons)) return `(#100) param ${at}[buttons] must be an array`;
    if (buttons.length > 3) return `(#100) param ${at}[buttons] has too many elements.`;
    for (const [j, button] of buttons.entries()) {
      if (button.type !== 'web_url') return `(#100) param ${at}[buttons][${j}][type] is not supported by this fake`;
      if (!isHttpsUrl(button.url)) return `(#100) param ${at}[buttons][${j}][url] must be a valid https URL`;
      if (typeof button.title !== 'string' || button.title.length === 0 || button.title.length > 20) return `(#100) param ${at}[buttons][${j}][title] must be 1 to 20 characters`;
    }
  }
  return null;
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
        let body: { recipient?: { id?: string }; messaging_type?: string; tag?: string; message?: { text?: string; attachment?: { type?: string; payload?: MessengerTemplate } } };
        try {
          body = JSON.parse(raw.toString());
        } catch {
          return reply(graphError(400, 100, 'Invalid JSON'));
        }
        const psid = body.recipient?.id ?? '';
        const type = body.messaging_type ?? '';
        if (!['RESPONSE', 'UPDATE', 'MESSAGE_TAG'].includes(type)) return reply(graphError(400, 100, '(#100) Param messaging_type must be one of {RESPONSE, UPDATE, MESSAGE_TAG}'));
        if (type === 'MESSAGE_TAG' && !body.tag) return reply(graphError(400, 100, '(#100) Tag is required for MESSAGE_TAG messaging type'));
        const problem = messageProblem(body.message);
        if (problem) return reply(graphError(400, 100, problem));
        const scripted = failures.take(psid);
        if (scripted) return reply(graphError(scripted.status, scripted.code, scripted.message ?? `(#${scripted.code}) scripted`, scripted.subcode));
        const person = people.get(psid);
        if (!person || person.pageId !== page.id) return reply(graphError(400, 100, '(#100) No matching user found', 2018001));
        if (person.blocked) return reply(graphError(400, 551, "(#551) This person isn't available right now.", 1545041));
        const message = body.message!;
        received.push({ pageId: page.id, psid, messagingType: type, tag: body.tag ?? null, text: message.text ?? null, template: message.attachment?.payload ?? null, receivedAt: new Date() });
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
