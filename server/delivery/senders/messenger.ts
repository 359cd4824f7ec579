/**
 * Facebook Messenger through the Graph API Send API with a page access token and the person's page-scoped
 * id (PSID). Outside the 24-hour window a message needs a tag; with one we send MESSAGE_TAG, without one
 * UPDATE. `checkPage` is the call the platform form makes when a page is saved.
 */
import { HttpClient, parseJson, type HttpClientOptions } from './http';
import { failure, networkFailure, type SendFailureReason, type SendOptions, type SendResult, type Sender } from './types';

export const GRAPH_BASE_URL = 'https://graph.facebook.com/v19.0';

export interface MessengerTarget {
  /** Page-scoped id of the person. */
  psid: string;
}

export interface MessengerMessage {
  text: string;
  /** A message tag for sends outside the 24-hour window, e.g. POST_PURCHASE_UPDATE, ACCOUNT_UPDATE. */
  tag?: 'POST_PURCHASE_UPDATE' | 'ACCOUNT_UPDATE' | 'CONFIRMED_EVENT_UPDATE' | 'HUMAN_AGENT';
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
    if (!message.text || message.text.length > 2000) return failure('payload', 'text must be 1 to 2000 characters');
    const body = {
      recipient: { id: target.psid },
      messaging_type: message.tag ? 'MESSAGE_TAG' : 'UPDATE',
      ...(message.tag ? { tag: message.tag } : {}),
      message: { text: message.text },
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
