import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the fake SMTP server received it, decoded. */
export interface ReceivedMail {
  /** The envelope sender (MAIL FROM). */
  from: string;
  /** The envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  subject: string;
  /** The text/plain part (or the whole body of a single-part text message). */
  text: string;
  /** The text/html part, when there is one. */
  html: string | null;
  /** Top-level headers, names lower-cased, values unfolded and decoded. */
  headers: Record<string, string>;
  raw: string;
  receivedAt: Date;
}

export interface Smtp {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  port: number;
  /** Every message received so far, oldest first. */
  messages(): ReceivedMail[];
  /**
   * The next message to `to` (matching `predicate`) that no earlier waitFor returned: one already received,
   * or the next to arrive within `timeoutMs`. Each message is handed out once, so a flow that mails the
   * same person twice reads the two messages in turn.
   */
  waitFor(to: string, predicate?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Forgets every message received so far. */
  clear(): void;
  close(): Promise<void>;
}

// ---- a small MIME reader: enough for what nodemailer (and most senders) write ----

function splitHeaderBlock(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const unfolded = block.replace(/\r?\n[ \t]+/g, ' ');
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!(name in headers)) headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

function charsetDecode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset.toLowerCase() || 'utf-8').decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

function quotedPrintableBytes(text: string, inHeader = false): Buffer {
  const source = inHeader ? text.replace(/_/g, ' ') : text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(source.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(source.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`), adjacent ones joined. */
export function decodeHeaderValue(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_whole, charset: string, encoding: string, data: string) =>
      charsetDecode(encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : quotedPrintableBytes(data, true), charset),
    );
}

function param(header: string | undefined, name: string): string | null {
  if (!header) return null;
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]*))`, 'i').exec(header);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

interface Part {
  type: string;
  body: string;
}

function decodeBody(body: string, headers: Record<string, string>): string {
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const charset = param(headers['content-type'], 'charset') ?? 'utf-8';
  if (encoding === 'base64') return charsetDecode(Buffer.from(body.replace(/\s+/g, ''), 'base64'), charset);
  if (encoding === 'quoted-printable') return charsetDecode(quotedPrintableBytes(body), charset);
  return body;
}

function leafParts(entity: string): Part[] {
  const split = /\r?\n\r?\n/.exec(entity);
  const headerBlock = split ? entity.slice(0, split.index) : entity;
  const body = split ? entity.slice(split.index + split[0].length) : '';
  const headers = splitHeaderBlock(headerBlock);
  const type = (headers['content-type'] ?? 'text/plain').split(';')[0].trim().toLowerCase();
  if (type.startsWith('multipart/')) {
    const boundary = param(headers['content-type'], 'boundary');
    if (!boundary) return [];
    const sections = body.split(new RegExp(`\\r?\\n?--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*\\r?\\n?`));
    return sections.slice(1).filter((section) => section.trim() !== '').flatMap(leafParts);
  }
  return [{ type, body: decodeBody(body, headers) }];
}

/** Decodes a raw RFC 5322 message. */
export function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const split = /\r?\n\r?\n/.exec(raw);
  const headers = splitHeaderBlock(split ? raw.slice(0, split.index) : raw);
  for (const key of Object.keys(headers)) headers[key] = decodeHeaderValue(headers[key]);
  const parts = leafParts(raw);
  const text = parts.find((part) => part.type === 'text/plain')?.body ?? '';
  const html = parts.find((part) => part.type === 'text/html')?.body ?? null;
  return {
    from: envelope.from,
    to: envelope.to.map((address) => address.toLowerCase()),
    subject: headers.subject ?? '',
    text: text.replace(/\r\n/g, '\n'),
    html,
    headers,
    raw,
    receivedAt: new Date(),
  };
}

// ---- what tests pull out of a message ----

/** The first http(s) link of the message's text (or its HTML when it has no text part). */
export function firstLink(mail: Pick<ReceivedMail, 'text' | 'html'>): string | null {
  const match = /https?:\/\/[^\s"'<>]+/.exec(mail.text || mail.html || '');
  return match ? match[0].replace(/[).,;]+$/, '') : null;
}

/** The first standalone 6-digit code of the message's text. */
export function firstCode(mail: Pick<ReceivedMail, 'text' | 'html'>): string | null {
  const match = /(?<![\d])\d{6}(?![\d])/.exec(mail.text || mail.html || '');
  return match ? match[0] : null;
}

/** A query parameter of the first link (e.g. the `hash` of a verification link). */
export function linkParam(mail: Pick<ReceivedMail, 'text' | 'html'>, name: string): string | null {
  const link = firstLink(mail);
  return link ? new URL(link).searchParams.get(name) : null;
}

/**
 * A real SMTP server on 127.0.0.1 and a free port, with no authentication and no TLS (so clients send in the
 * clear, as a local relay would accept), that keeps and decodes what it receives.
 */
export async function startSmtp(): Promise<Smtp> {
  const received: ReceivedMail[] = [];
  const handedOut = new WeakSet<ReceivedMail>();
  const waiters = new Set<() => void>();

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: 10 * 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        received.push(parseMail(Buffer.concat(chunks).toString('utf8'), { from, to }));
        for (const wake of [...waiters]) wake();
        callback();
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  function take(to: string, predicate?: (mail: ReceivedMail) => boolean): ReceivedMail | undefined {
    const address = to.toLowerCase();
    const found = received.find((mail) => !handedOut.has(mail) && mail.to.includes(address) && (!predicate || predicate(mail)));
    if (found) handedOut.add(found);
    return found;
  }

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages: () => [...received],
    waitFor(to, predicate, timeoutMs = 10_000) {
      const now = take(to, predicate);
      if (now) return Promise.resolve(now);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${received.map((m) => `${m.to.join(',')}: ${m.subject}`).join(' | ') || 'none'})`));
        }, timeoutMs);
        function check() {
          const mail = take(to, predicate);
          if (!mail) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(mail);
        }
        waiters.add(check);
      });
    },
    clear() {
      received.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
