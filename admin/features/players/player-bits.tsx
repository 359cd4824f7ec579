import { Badge, Icon, InlineStack, Text } from '@shopify/polaris';
import { DesktopIcon, GlobeIcon, MobileIcon } from '@shopify/polaris-icons';
import { useTranslation } from 'react-i18next';
import type { DeviceType, PlayerPlatform } from '../../../shared/contract';

/** A player's platform as an icon and its name: a browser, an iOS or an Android install. */
export function PlatformLabel({ platform, deviceType }: { platform: PlayerPlatform; deviceType?: DeviceType }) {
  const { t } = useTranslation();
  const source = platform === 'web' ? (deviceType === 'mobile' ? GlobeIcon : DesktopIcon) : MobileIcon;
  return (
    <InlineStack gap="100" blockAlign="center" wrap={false}>
      <span style={{ display: 'inline-flex' }} aria-hidden>
        <Icon source={source} tone="subdued" />
      </span>
      <Text as="span">{t(`players.platforms.${platform}`)}</Text>
    </InlineStack>
  );
}

/** Subscribed or not, as a badge. */
export function SubscribedBadge({ subscribed }: { subscribed: boolean }) {
  const { t } = useTranslation();
  return <Badge tone={subscribed ? 'success' : undefined}>{subscribed ? t('players.subscribed.yes') : t('players.subscribed.no')}</Badge>;
}

/** A country code as its name in the console's language, with the code for search ("Việt Nam (VN)"). */
export function countryName(code: string | null, language: string): string | null {
  if (!code) return null;
  try {
    const names = new Intl.DisplayNames([language], { type: 'region' });
    const name = names.of(code.toUpperCase());
    return name && name !== code.toUpperCase() ? `${name} (${code.toUpperCase()})` : code.toUpperCase();
  } catch {
    return code.toUpperCase();
  }
}

/**
 * What a country field shows under the code being typed: the country's name once two letters are in, before that
 * `hint` (what to type). Under the field rather than as a placeholder, which the filter's narrow popover cuts off on
 * a phone and which typing hides.
 */
export function typedCountryName(text: string, language: string, hint: string): string {
  const code = text.trim();
  return (code.length === 2 && countryName(code, language)) || hint;
}

/** A dash for a value the player has not reported. */
export function Missing() {
  return (
    <Text as="span" tone="subdued">
      —
    </Text>
  );
}
