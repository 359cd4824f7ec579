import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import nodemailer from 'nodemailer';
import { ROLE_LABEL_KEYS, type MemberRole } from '../shared/permissions';
import { translate, type Language } from '../shared/i18n';
import type { Database } from './db/schema';

/** The emails the server sends, with what each needs. */
export type MailKind =
  | { kind: 'verify'; name: string; link: string }
  | { kind: 'reset'; name: string; link: string }
  | { kind: 'loginOtp'; name: string; code: string }
  | { kind: 'changePasswordOtp'; name: string; code: string }
  | { kind: 'invite'; inviter: string; application: string; role: MemberRole; link: string }
  | { kind: 'added'; name: string; inviter: string; application: string; role: MemberRole; link: string };

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Builds the subject and body of one email from the mail.* strings, in the recipient's language. */
export function composeMail(lang: Language, to: string, mail: MailKind): MailMessage {
  const t = (key: string, params: Record<string, string | number> = {}) => translate(lang, `mail.${key}`, params);
  let subject: string;
  let greetingName: string;
  let body: string;
  /** The link or code the reader acts on, set apart on its own line. */
  let action: { link: string } | { code: string };
  switch (mail.kind) {
    case 'verify':
      subject = t('verifySubject');
      greetingName = mail.name;
      body = t('verifyBody');
      action = { link: mail.link };
      break;
    case 'reset':
      subject = t('resetSubject');
      greetingName = mail.name;
      body = t('resetBody');
      action = { link: mail.link };
      break;
    case 'loginOtp':
      subject = t('loginOtpSubject');
      greetingName = mail.name;
      body = t('loginOtpBody', { code: mail.code });
      action = { code: mail.code };
      break;
    case 'changePasswordOtp':
      subject = t('changePasswordOtpSubject');
      greetingName = mail.name;
      body = t('changePasswordOtpBody', { code: mail.code });
      action = { code: mail.code };
      break;
    case 'invite': {
      const params = { inviter: mail.inviter, application: mail.application, role: translate(lang, ROLE_LABEL_KEYS[mail.role]) };
      subject = t('inviteSubject', params);
      greetingName = to;
      body = t('inviteBody', params);
      action = { link: mail.link };
      break;
    }
    case 'added': {
      const params = { inviter: mail.inviter, application: mail.application, role: translate(lang, ROLE_LABEL_KEYS[mail.role]) };
      subject = t('addedSubject', params);
      greetingName = mail.name;
      body = t('addedBody', params);
      action = { link: mail.link };
      break;
    }
  }
  const greeting = t('greeting', { name: greetingName });
  const signature = t('signature');
  const actionText = 'link' in action ? action.link : action.code;
  const text = [greeting, '', body, '', actionText, '', signature, ''].join('\n');
  const actionHtml =
    'link' in action
      ? `<p><a href="${escapeHtml(action.link)}">${escapeHtml(action.link)}</a></p>`
      : `<p style="font-size:24px;letter-spacing:4px;font-weight:bold">${escapeHtml(action.code)}</p>`;
  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(body)}</p>`,
    actionHtml,
    `<p>${escapeHtml(signature)}</p>`,
  ].join('\n');
  return { to, subject, text, html };
}

export interface Mailer {
  /** Sends now; rejects when the SMTP server refuses. */
  send(message: MailMessage): Promise<void>;
  /**
   * Sends in the background and logs a failure. Used where the answer must not wait for (or reveal) whether
   * an email went out, e.g. a password reset for an address that may have no account.
   */
  dispatch(message: MailMessage): void;
  /** Waits for background sends, then closes the SMTP connection. */
  close(): Promise<void>;
  readonly mode: 'smtp' | 'outbox';
}

/**
 * Mail over SMTP when SMTP_URL is set; otherwise each message becomes a row of `mail_outbox` (where a local
 * operator reads the codes and links) and an info line with the message, for the one running it locally.
 */
export function createMailer(options: {
  smtpUrl: string | null;
  from: string;
  db: Kysely<Database>;
  log: FastifyBaseLogger;
}): Mailer {
  const { smtpUrl, from, db, log } = options;
  const transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  const pending = new Set<Promise<void>>();

  async function send(message: MailMessage): Promise<void> {
    if (transport) {
      const info = await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      log.info({ to: message.to, subject: message.subject, messageId: info.messageId }, 'mail sent');
      return;
    }
    await db
      .insertInto('mail_outbox')
      .values({ recipient: message.to, subject: message.subject, body: message.text, created_at: new Date().toISOString() })
      .execute();
    // Without SMTP the person running this one machine is the only reader of account mail (verification
    // links, sign-in codes): the log is where they look, and the same text already sits in the table.
    log.info({ to: message.to, subject: message.subject }, `mail written to the outbox table (SMTP_URL is not set):\n${message.text}`);
  }

  return {
    mode: transport ? 'smtp' : 'outbox',
    send,
    dispatch(message) {
      const job = send(message)
        .catch((error: unknown) => log.error({ err: error, to: message.to, subject: message.subject }, 'mail could not be sent'))
        .finally(() => pending.delete(job));
      pending.add(job);
    },
    async close() {
      await Promise.allSettled([...pending]);
      transport?.close();
    },
  };
}
