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

/** The name of a country (region) or language code in the console's language; null when Intl has none. */
function nameOf(type: 'region' | 'language', code: string, language: string): string | null {
  try {
    const name = new Intl.DisplayNames([language], { type, fallback: 'none' }).of(code);
    return name && name !== code ? name : null;
  } catch {
    return null;
  }
}

/** A country code as its name in the console's language, with the code for search ("Việt Nam (VN)"). */
export function countryName(code: string | null, language: string): string | null {
  if (!code) return null;
  const upper = code.toUpperCase();
  const name = nameOf('region', upper, language);
  return name ? `${name} (${upper})` : upper;
}

/** A language code as its name in the console's language, with the code ("Tiếng Việt (vi)"). */
export function languageName(code: string | null, language: string): string | null {
  if (!code) return null;
  const lower = code.toLowerCase();
  const name = nameOf('language', lower, language);
  return name ? `${name} (${lower})` : lower;
}

/**
 * What a country field shows under the code being typed: the country's name once two letters name one, before
 * that `hint` (what to type). Under the field rather than as a placeholder, which the filter's narrow popover cuts
 * off on a phone and which typing hides.
 */
export function typedCountryName(text: string, language: string, hint: string): string {
  const code = text.trim();
  return (/^[A-Za-z]{2}$/.test(code) && nameOf('region', code.toUpperCase(), language) && countryName(code, language)) || hint;
}

/** The same for a language field: the language's name once the letters typed name one ("vi", "fil"). */
export function typedLanguageName(text: string, language: string, hint: string): string {
  const code = text.trim();
  return (/^[A-Za-z]{2,3}$/.test(code) && nameOf('language', code.toLowerCase(), language) && languageName(code, language)) || hint;
}

/** A dash for a value the player has not reported. */
export function Missing() {
  return (
    <Text as="span" tone="subdued">
      —
    </Text>
  );
}
