import { Autocomplete, Icon, Text } from '@shopify/polaris';
import { SearchIcon } from '@shopify/polaris-icons';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PlayerDetail, PlayerPage } from '../../../shared/contract';
import { useApiQuery } from '../../api/use-api-query';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { playerLabel } from '../players/player-bits';

/** The player whose values a personal message's preview shows, as the picker found them. */
export interface PreviewPlayer {
  id: number;
  label: string;
}

/** How many players a search offers to preview for. */
const FOUND_SHOWN = 5;

/**
 * The values `player` has for a message's personal tags: each attribute's text as it was stored, which is what
 * the delivery writes (server/delivery/deliver.ts personalValues), so the preview reads as that player's message.
 * Undefined while no player is chosen, while they load, or when they could not be (`missing`).
 */
export function usePersonalValues(applicationId: string, player: PreviewPlayer | null): { values: ReadonlyMap<string, string> | undefined; loading: boolean; missing: boolean } {
  const detail = useApiQuery(player ? `/application/${encodeURIComponent(applicationId)}/player/${player.id}` : null, PlayerDetail, undefined, { showsFailure: true });
  const values = useMemo(() => {
    if (!player || !detail.data || detail.data.player.id !== player.id) return undefined;
    return new Map(detail.data.attributes.flatMap((attribute) => (attribute.text === null ? [] : [[attribute.name, attribute.text] as const])));
  }, [detail.data, player]);
  return { values, loading: player !== null && values === undefined && detail.loading, missing: player !== null && detail.error !== undefined };
}

export interface PreviewPlayerPickerProps {
  applicationId: string;
  player: PreviewPlayer | null;
  onChange(player: PreviewPlayer | null): void;
  /** The chosen player's values are loading. */
  loading: boolean;
  /** The chosen player's values could not be loaded (deleted since). */
  missing: boolean;
}

/**
 * "Preview for": a search of the application's players (the player list's own search: a whole device id, or the
 * beginning of a user id, email or number; the players it names whole first) to see a personal message as one of
 * them reads it; cleared, the preview shows the tags' defaults, as a player without those attributes reads it.
 */
export function PreviewPlayerPicker({ applicationId, player, onChange, loading, missing }: PreviewPlayerPickerProps) {
  const { t } = useTranslation();
  // null while the field shows the chosen player; the search typed otherwise.
  const [query, setQuery] = useState<string | null>(null);
  const search = useDebouncedValue((query ?? '').trim());
  const path = search ? `/application/${encodeURIComponent(applicationId)}/player` : null;
  // Whole names first: "customer-4" typed whole is that player, not the first five of those it begins.
  const whole = useApiQuery(path, PlayerPage, { q: search, match: 'whole', limit: FOUND_SHOWN }, { showsFailure: true, showsRefusal: true });
  const start = useApiQuery(path, PlayerPage, { q: search, limit: FOUND_SHOWN }, { showsFailure: true, showsRefusal: true });
  const players = useMemo(() => {
    if (!search) return [];
    const all = [...(whole.error ? [] : (whole.data?.items ?? [])), ...(start.error ? [] : (start.data?.items ?? []))];
    return all.filter((entry, index) => all.findIndex((other) => other.id === entry.id) === index).slice(0, FOUND_SHOWN);
  }, [search, whole.data, whole.error, start.data, start.error]);
  const searching = query !== null && query.trim() !== '' && (query.trim() !== search || whole.loading || start.loading);

  function choose(id: number) {
    const chosen = players.find((entry) => entry.id === id);
    setQuery(null);
    if (chosen) onChange({ id: chosen.id, label: playerLabel(chosen) });
  }

  const help = missing ? null : player ? t('notificationUi.preview.personal.asPlayer', { name: player.label }) : t('notificationUi.preview.personal.asDefault');
  return (
    <Autocomplete
      options={players.map((entry) => ({ value: String(entry.id), label: playerLabel(entry) }))}
      selected={player ? [String(player.id)] : []}
      onSelect={(selected) => {
        if (selected[0]) choose(Number(selected[0]));
      }}
      loading={searching}
      emptyState={
        search && !searching ? (
          <div style={{ padding: 'var(--p-space-200) var(--p-space-300)' }}>
            <Text as="p" tone="subdued">
              {t('notificationUi.preview.personal.noPlayer', { query: search })}
            </Text>
          </div>
        ) : undefined
      }
      textField={
        <Autocomplete.TextField
          label={t('notificationUi.preview.personal.label')}
          prefix={<Icon source={SearchIcon} tone="subdued" />}
          placeholder={t('notificationUi.preview.personal.placeholder')}
          value={query ?? player?.label ?? ''}
          onChange={setQuery}
          onBlur={() => {
            // The search erased and left: the defaults again. Otherwise the field shows the player chosen.
            if (query !== null && query.trim() === '') onChange(null);
            setQuery(null);
          }}
          clearButton
          onClearButtonClick={() => {
            setQuery(null);
            onChange(null);
          }}
          autoComplete="off"
          loading={loading}
          helpText={help}
          error={missing ? t('notificationUi.preview.personal.missing') : undefined}
        />
      }
    />
  );
}
