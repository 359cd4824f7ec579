import { Banner } from '@shopify/polaris';

export interface FailureBannerProps {
  /** The refusal, in the user's language; nothing shows while there is none. */
  message: string | null | undefined;
  onDismiss?(): void;
}

/** A refusal that belongs to no field, shown above the form or action it answers, until dismissed. */
export function FailureBanner({ message, onDismiss }: FailureBannerProps) {
  if (!message) return null;
  return (
    <Banner tone="critical" onDismiss={onDismiss}>
      <p>{message}</p>
    </Banner>
  );
}
