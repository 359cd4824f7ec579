import { Badge, Tooltip } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import type { WebhookAttemptError } from '../../../shared/contract';

export interface AttemptResultProps {
  /** The receiver's status code; null when no answer came. */
  statusCode: number | null;
  /** Why no answer came. */
  error: WebhookAttemptError | null;
}

/** What the receiver answered to one attempt: its HTTP status, green for 2xx, or why nothing came back. */
export function AttemptResult({ statusCode, error }: AttemptResultProps) {
  const { t } = useTranslation();
  if (statusCode === null) return <Badge tone="critical">{t(`webhook.attemptErrors.${error ?? 'connection'}`)}</Badge>;
  const badge = <Badge tone={statusCode >= 200 && statusCode < 300 ? 'success' : 'critical'}>{t('webhook.attempts.status', { code: statusCode })}</Badge>;
  // A redirect is a failure: the URL should be updated instead (Standard Webhooks).
  if (statusCode >= 300 && statusCode < 400) return <Tooltip content={t('webhook.attempts.redirect')}>{badge}</Tooltip>;
  return badge;
}
