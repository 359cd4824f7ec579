import type { WebhookDisabledReason } from '../../shared/contract';
import { type Language, isLanguage, translate } from '../../shared/i18n';
import type { Services } from '../context';
import type { MailMessage } from '../mail';

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface DisabledNotice {
  name: string;
  application: string;
  url: string;
  reason: WebhookDisabledReason;
  /** The application's /webhook screen. */
  link: string;
}

/** The email telling a super user that a webhook was switched off, in the reader's language. */
export function composeDisabledMail(lang: Language, to: string, notice: DisabledNotice): MailMessage {
  const reason = translate(lang, `webhook.disabledReasons.${notice.reason}`);
  const subject = translate(lang, 'webhook.mail.disabledSubject', { application: notice.application });
  const body = translate(lang, 'webhook.mail.disabledBody', { application: notice.application, url: notice.url, reason });
  const action = translate(lang, 'webhook.mail.disabledAction');
  const greeting = translate(lang, 'mail.greeting', { name: notice.name });
  const signature = translate(lang, 'mail.signature');
  const text = [greeting, '', body, '', action, notice.link, '', signature, ''].join('\n');
  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(body)}</p>`,
    `<p>${escapeHtml(action)}<br><a href="${escapeHtml(notice.link)}">${escapeHtml(notice.link)}</a></p>`,
    `<p>${escapeHtml(signature)}</p>`,
  ].join('\n');
  return { to, subject, text, html };
}

/** Mails every super user of the webhook's application, each in their own language, in the background. */
export async function mailWebhookDisabled(
  s: Services,
  webhook: { application_id: string; url: string },
  reason: WebhookDisabledReason,
): Promise<void> {
  const application = await s.db
    .selectFrom('applications')
    .select(['application_id', 'name'])
    .where('application_id', '=', webhook.application_id)
    .executeTakeFirst();
  if (!application) return;
  const recipients = await s.db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.email', 'users.name', 'users.language'])
    .where('memberships.application_id', '=', webhook.application_id)
    .where('memberships.role', '=', 'super_user')
    .execute();
  const link = `${s.config.publicUrl}/application/${encodeURIComponent(application.application_id)}/webhook`;
  for (const recipient of recipients) {
    const lang: Language = isLanguage(recipient.language) ? recipient.language : 'vi';
    const notice = { name: recipient.name ?? recipient.email, application: application.name, url: webhook.url, reason, link };
    s.mailer.dispatch(composeDisabledMail(lang, recipient.email, notice));
  }
}
