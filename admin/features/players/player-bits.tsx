import { Badge, Icon, InlineStack, Text } from '@shopify/polaris';
import { DesktopIcon, GlobeIcon, MobileIcon } from '@shopify/polaris-icons';
import { useTranslation } from 'react-i18next';
import type { DeviceType, Player, PlayerPlatform } from '../../../shared/contract';
import { PLAYER_CODE_FIELDS, type PlayerCodeField } from '../../../shared/validation';
import { codeName } from '../../components/code-names';

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

/**
 * The fields that take a code, as players carry it: the country in capitals (VN), the language in small letters
 * (vi). Where a code is typed (a segment's "contains" condition) the input says so: a placeholder, and under it
 * `hint` (what to type) until the letters typed name a country or language, then its name ("Thái Lan (TH)"). Under
 * the field rather than as a placeholder, which typing hides. Where one is chosen whole ("is", "is not", the player
 * list's filter) it is chosen by name instead: components/code-picker.tsx, filter-fields.tsx.
 */
export const CODE_FIELDS = {
  country: { ...PLAYER_CODE_FIELDS.country, placeholder: 'VN', hint: 'common.countryCodeHint', type: 'region' },
  language: { ...PLAYER_CODE_FIELDS.language, placeholder: 'vi', hint: 'common.languageCodeHint', type: 'language' },
} as const satisfies Record<PlayerCodeField, unknown>;

/** What a code field shows under the text typed: the name it gives, else `hint`. */
export function typedCodeName(field: PlayerCodeField, text: string, language: string, hint: string): string {
  const { valid, type, normalise } = CODE_FIELDS[field];
  const code = normalise(text.trim());
  return (valid(code) && codeName(type, code, language)) || hint;
}

/** A player named in one line: their user id, email or number where known, else their device id. */
export function playerLabel(player: Pick<Player, 'external_user_id' | 'email' | 'mobile_number' | 'device_id'>): string {
  return player.external_user_id ?? player.email ?? player.mobile_number ?? player.device_id;
}

/** A dash for a value the player has not reported. */
export function Missing() {
  return (
    <Text as="span" tone="subdued">
      —
    </Text>
  );
}
