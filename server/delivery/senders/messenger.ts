/**
 * Facebook Messenger through the Graph API Send API with a page access token and the person's page-scoped
 * id (PSID). A message is plain text, or one card of the generic template (title, subtitle, image, a link
 * the card opens, up to three link buttons). Outside the 24-hour window a message needs a tag; with one we
 * send MESSAGE_TAG, without one UPDATE. `checkPage` is the call the platform form makes when a page is saved.
 */
import { isHttpsUrl } from '../../../shared/validation';
import { HttpClient, parseJson, type HttpClientOptions } from './http';
import { failure, networkFailure, type SendFailureReason, type SendOptions, type SendResult, type Sender } from './types';

export const GRAPH_BASE_URL = 'https://graph.facebook.com/v19.0';

export interface MessengerTarget {
  /** Page-scoped id of the person. */
  psid: string;
}

/** The Send API's limits on a text message and on a generic template's card. */
export const MESSENGER_LIMITS = { text: 2000, title: 80, subtitle: 80, buttons: 3, buttonTitle: 20 } as const;

/** A link button of a card: opens `url` in Messenger's browser. */
export interface MessengerUrlButton {
  type: 'web_url';
  url: string;
  title: string;
}

/** One element of a generic template, as the Send API takes it. */
export interface MessengerCard {
  title: string;
  subtitle?: string;
  /** https only. */
  image_url?: string;
  /** What a tap on the card opens. */
  default_action?: { type: 'web_url'; url: string };
  buttons?: MessengerUrlButton[];
}

/** A message tag for sends outside the 24-hour window, e.g. POST_PURCHASE_UPDATE, ACCOUNT_UPDATE. */
export type MessengerTag = 'POST_PURCHASE_UPDATE' | 'ACCOUNT_UPDATE' | 'CONFIRMED_EVENT_UPDATE' | 'HUMAN_AGENT';

/** Plain text or a generic template card (the Send API takes exactly one of the two), with an optional tag. */
export type MessengerMessage = ({ text: string; card?: never } | { card: MessengerCard; text?: never }) & { tag?: MessengerTag };

/** What the Send API would refuse in a card (#100), or null. */
export function cardProblem(card: MessengerCard): string | null {
  const { title, subtitle, buttons = [] } = card;
  if (!title || title.length > MESSENGER_LIMITS.title) return `title must be 1 to ${MESSENGER_LIMITS.title} characters`;
  if (subtitle !== undefined && subtitle.length > MESSENGER_LIMITS.subtitle) return `subtitle over ${MESSENGER_LIMITS.subtitle} characters`;
  if (buttons.length > MESSENGER_LIMITS.buttons) return `more than ${MESSENGER_LIMITS.buttons} buttons`;
  if (buttons.some((button) => !button.title || button.title.length > MESSENGER_LIMITS.buttonTitle)) {
    return `button titles must be 1 to ${MESSENGER_LIMITS.buttonTitle} characters`;
  }
  if (buttons.some((button) => !isHttps(button.url))) return 'button links must be https';
  return null;
}

/** An https link with a host (the shared rule, shared/validation isHttpsUrl): the only links and images a card takes here. */
export function isHttps(url: string | undefined): url is string {
  return Boolean(url && isHttpsUrl(url));
}

export interface MessengerSenderOptions extends HttpClientOptions {
  pageToken: string;
  /** Graph base URL with version. Default https://graph.facebook.com/v19.0. */
  baseUrl?: string;
}

interface GraphError {
  error?: { message?: string; type?: string; code?: number; error_subcode?: number; fbtrace_id?: string };
}

/** Maps a Graph API error answer to a send result. */
export function mapGraphError(status: number, body: string): SendResult {
  const error = parseJson<GraphError>(body)?.error;
  const code = error?.code;
  const sub = error?.error_subcode;
  const detail = `${status} #${code ?? '?'}${sub ? `/${sub}` : ''} ${error?.message ?? body.slice(0, 200)}`.trim();
  if (code === 551 || sub === 1545041 || sub === 2018001) return failure('gone', detail, { status }); // person unavailable / no such user
  if (code === 190 || code === 200 || (code === 10 && sub !== 2018278)) return failure('auth', detail, { status });
  if (code === 4 || code === 17 || code === 32 || code === 613 || status === 429) return failure('rate_limited', detail, { status, retryAfterMs: 60_000 });
  if (code === 1 || code === 2 || code === 1200 || status >= 500) return failure('retryable', detail, { status });
  if (code === 10 && sub === 2018278) return failure('other', detail, { status }); // outside the 24-hour window without a tag
  if (code === 100) return failure('payload', detail, { status });
  return failure('other', detail, { status });
}

/** Sends Messenger messages as one Facebook page. */
export class MessengerSender implements Sender<MessengerTarget, MessengerMessage> {
  private readonly http: HttpClient;
  private readonly url: string;

  constructor(options: MessengerSenderOptions) {
    this.http = new HttpClient(options);
    this.url = `${(options.baseUrl ?? GRAPH_BASE_URL).replace(/\/+$/, '')}/me/messages?access_token=${encodeURIComponent(options.pageToken)}`;
  }

  async send(target: MessengerTarget, message: MessengerMessage, opts: SendOptions = {}): Promise<SendResult> {
    if (!target.psid) return failure('invalid', 'empty PSID');
    let content: Record<string, unknown>;
    if (message.card) {
      const problem = cardProblem(message.card);
      if (problem) return failure('payload', problem);
      content = { attachment: { type: 'template', payload: { template_type: 'generic', elements: [message.card] } } };
    } else {
      if (!message.text || message.text.length > MESSENGER_LIMITS.text) return failure('payload', `text must be 1 to ${MESSENGER_LIMITS.text} characters`);
      content = { text: message.text };
    }
    const body = {
      recipient: { id: target.psid },
      messaging_type: message.tag ? 'MESSAGE_TAG' : 'UPDATE',
      ...(message.tag ? { tag: message.tag } : {}),
      message: content,
    };
    try {
      const response = await this.http.request(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(body),
        signal: opts.signal,
      });
      if (response.status === 200) return { ok: true, providerId: parseJson<{ message_id?: string }>(response.body)?.message_id };
      return mapGraphError(response.status, response.body);
    } catch (error) {
      return networkFailure(error);
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** Result of checking a page id and token against the Graph API. */
export type PageCheck = { ok: true; id: string; name: string } | { ok: false; reason: SendFailureReason; detail: string };

/** Whether `token` is a working access token for page `pageId` (GET /{page_id}?fields=id,name). */
export async function checkPage(pageId: string, token: string, options: { baseUrl?: string } & HttpClientOptions = {}): Promise<PageCheck> {
  const http = new HttpClient({ connections: 1, ...options });
  const url = `${(options.baseUrl ?? GRAPH_BASE_URL).replace(/\/+$/, '')}/${encodeURIComponent(pageId)}?fields=id,name&access_token=${encodeURIComponent(token)}`;
  try {
    const response = await http.request(url, { method: 'GET' });
    if (response.status === 200) {
      const page = parseJson<{ id?: string; name?: string }>(response.body);
      if (page?.id === pageId) return { ok: true, id: page.id, name: page.name ?? '' };
      return { ok: false, reason: 'invalid', detail: `token belongs to ${page?.id ?? 'another object'}, not page ${pageId}` };
    }
    const mapped = mapGraphError(response.status, response.body);
    return mapped.ok ? { ok: false, reason: 'other', detail: 'unexpected' } : { ok: false, reason: mapped.reason, detail: mapped.detail };
  } catch (error) {
    const mapped = networkFailure(error);
    return { ok: false, reason: 'retryable', detail: mapped.ok ? '' : mapped.detail };
  } finally {
    await http.close();
  }
}
