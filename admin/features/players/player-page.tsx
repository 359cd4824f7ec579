import {
  Badge,
  BlockStack,
  Button,
  Card,
  Divider,
  InlineGrid,
  InlineStack,
  Layout,
  Link,
  Page,
  Tag,
  Text,
  TextField,
} from '@shopify/polaris';
import { DeleteIcon } from '@shopify/polaris-icons';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useParams } from 'wouter';
import { z } from 'zod';
import { type Delivery, DeliveryPage, type Player, type PlayerAttribute, PlayerDetail, type PlayerEvent, PlayerEventsPage, readTag } from '../../../shared/contract';
import { formatDate, formatNumber, formatUtcOffset, relativeTime } from '../../../shared/format';
import { AREA_ROLES, canAccessRoute, isViewerOnly } from '../../../shared/permissions';
import { api, isApiError } from '../../api';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { asLeft } from '../../stores/visited-views-slice';
import { Missing, PlatformLabel, SubscribedBadge, playerLabel } from './player-bits';
import { filtersFromSearch, searchOf, withFilter } from './player-filters';
import { countryName, languageName } from '../../components/code-names';
import { AttributeTypeBadge } from '../../components/attribute-type-badge';
import { TagField, useApplicationTags } from '../../components/tag-field';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { LoadFailedPage, PageSkeleton, QueryState, recordLoadFailure, recordId } from '../../components/query-state';
import { SectionCard } from '../../components/section-card';
import { DeliveryStatusBadge } from '../messages/delivery-status';
import { useLanguage } from '../../app/i18n';
import { usePageLabel } from '../../app/layout/use-page-label';

type Lang = 'vi' | 'en';

/**
 * One "label: value" line of a field list; an unknown value shows a dash. A value wraps between its words, and
 * breaks within one only when that word alone is wider than the column (a device token), never where it would fit.
 */
function Field({ label, children }: { label: string; children: ReactNode }) {
  const empty = children === null || children === undefined || children === '';
  return (
    <div style={{ display: 'grid', gridTemplateColumns: 'minmax(110px, 40%) 1fr', gap: 8, alignItems: 'baseline' }}>
      <Text as="dt" tone="subdued">
        {label}
      </Text>
      <dd style={{ margin: 0, minWidth: 0, overflowWrap: 'break-word' }}>{empty ? <Missing /> : typeof children === 'string' ? <Text as="span">{children}</Text> : children}</dd>
    </div>
  );
}

/**
 * An email address that, when the column is too narrow for it, wraps before its @ ("customer2670" / "@example.com"),
 * as addresses are broken in print, rather than inside its domain ("customer2670@example." / "com"). Within a
 * Field, whose words break only when one alone is wider than the column.
 */
export function EmailAddress({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  if (at <= 0) return <Text as="span">{email}</Text>;
  return (
    <Text as="span">
      {email.slice(0, at)}
      <wbr />
      {email.slice(at)}
    </Text>
  );
}

function FieldCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card>
      <section aria-label={title}>
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            {title}
          </Text>
          <dl style={{ margin: 0, display: 'grid', gap: 8 }}>{children}</dl>
        </BlockStack>
      </section>
    </Card>
  );
}

/**
 * A date with its relative form, e.g. "2025-03-02 09:30 (2 hours ago)". Past two days the relative form is the day
 * itself, which the date already says: then the date alone, not "2025-03-02 09:30 (2025-03-02)".
 */
function When({ value, lang, t }: { value: string | null; lang: Lang; t: (key: string, params?: Record<string, string | number>) => string }) {
  if (!value) return <Missing />;
  const exact = formatDate(value, '{y}-{m}-{d} {h}:{i}', { lang });
  const relative = relativeTime(value, Date.now(), t);
  return (
    <Text as="span">
      {exact}
      {relative && !exact.startsWith(relative) && (
        <>
          {' '}
          <Text as="span" tone="subdued">
            ({relative})
          </Text>
        </>
      )}
    </Text>
  );
}

/** An attribute's or property's value as its type reads: dates as dates, booleans in words. */
function scalarText(value: unknown, type: string, lang: Lang, t: (key: string) => string): string {
  if (value === null || value === undefined) return '—';
  if (type === 'date') return formatDate(value as string | number, '{y}-{m}-{d}', { lang }) || String(value);
  if (typeof value === 'boolean') return value ? t('players.detail.true') : t('players.detail.false');
  if (typeof value === 'number') return formatNumber(value, lang);
  return String(value);
}

/**
 * Whether a value is of its attribute's type. The server gives a number or a boolean typed when the stored value
 * reads as one, and a date as ISO text (server/domain/players.ts attributeValue); anything else came as text that
 * is not of the type, which segments leave out of their comparisons.
 */
function fitsType(value: PlayerAttribute['value'], type: PlayerAttribute['type']): boolean {
  if (value === null || type === 'text') return true;
  if (type === 'number') return typeof value === 'number';
  if (type === 'boolean') return typeof value === 'boolean';
  return typeof value !== 'boolean' && formatDate(value, '{y}') !== '';
}

function AttributesCard({ attributes, lang }: { attributes: PlayerAttribute[]; lang: Lang }) {
  const { t } = useTranslation();
  return (
    <Card>
      <section aria-label={t('players.detail.attributes')}>
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            {t('players.detail.attributes')}
          </Text>
          {attributes.length === 0 ? (
            <Text as="p" tone="subdued">
              {t('players.detail.noAttributes')}
            </Text>
          ) : (
            <dl style={{ margin: 0, display: 'grid', gap: 8 }}>
              {attributes.map((attribute) => (
                <Field key={attribute.name} label={attribute.name}>
                  <InlineStack gap="200" blockAlign="center">
                    <Text as="span">{scalarText(attribute.value, attribute.type, lang, t)}</Text>
                    <AttributeTypeBadge type={attribute.type} size="small" />
                    {fitsType(attribute.value, attribute.type) ? null : (
                      <Badge size="small" tone="warning">
                        {t(`players.detail.notOfType.${attribute.type}`)}
                      </Badge>
                    )}
                  </InlineStack>
                </Field>
              ))}
            </dl>
          )}
        </BlockStack>
      </section>
    </Card>
  );
}

/** Entries newest first with a divider between them, or `empty` when there are none. */
function Entries<T extends { id: number }>({ items, empty, entry }: { items: T[]; empty: string; entry: (item: T) => ReactNode }) {
  if (items.length === 0) {
    return (
      <Text as="p" tone="subdued">
        {empty}
      </Text>
    );
  }
  return (
    <BlockStack gap="300">
      {items.map((item, index) => (
        <BlockStack key={item.id} gap="100">
          {index > 0 ? <Divider /> : null}
          {entry(item)}
        </BlockStack>
      ))}
    </BlockStack>
  );
}

/**
 * The player's events, newest first: the first page comes with the player, older pages on asking (keyset: the page
 * after the last event shown). Remounted (keyed) when the first page ends elsewhere, so pages never leave a gap.
 */
function EventsCard({ first, base, lang }: { first: PlayerEventsPage; base: string; lang: Lang }) {
  const { t } = useTranslation();
  const [older, setOlder] = useState<PlayerEvent[]>([]);
  const [more, setMore] = useState(first.more);
  const [busy, setBusy] = useState(false);
  const events = older.length > 0 ? [...first.items, ...older] : first.items;

  async function loadOlder() {
    const last = events[events.length - 1];
    setBusy(true);
    try {
      const { data } = await api.get(`${base}/events`, PlayerEventsPage, { query: { before_at: last.occurred_at, before_id: last.id } });
      setOlder((shown) => [...shown, ...data.items]);
      setMore(data.more);
    } catch {
      // The client has said what went wrong (a toast); the button stays for another try.
    } finally {
      setBusy(false);
    }
  }

  return (
    <SectionCard gap="300" title={t('players.detail.events')}>
      <Entries
        items={events}
        empty={t('players.detail.noEvents')}
        entry={(event) => (
          <>
            <InlineStack align="space-between" gap="200" blockAlign="center">
              <Text as="span" fontWeight="semibold">
                <span className="nudge-mono">{event.name}</span>
              </Text>
              <Text as="span" tone="subdued" variant="bodySm">
                {formatDate(event.occurred_at, '{y}-{m}-{d} {h}:{i}', { lang })}
              </Text>
            </InlineStack>
            {event.properties && Object.keys(event.properties).length > 0 ? (
              <InlineStack gap="100">
                {Object.entries(event.properties).map(([name, value]) => (
                  <Tag key={name}>{`${name}: ${scalarText(value, name.endsWith('.date') ? 'date' : typeof value, lang, t)}`}</Tag>
                ))}
              </InlineStack>
            ) : null}
          </>
        )}
      />
      {more ? (
        <InlineStack>
          <Button onClick={() => void loadOlder()} loading={busy}>
            {t('players.detail.olderEvents')}
          </Button>
        </InlineStack>
      ) : null}
    </SectionCard>
  );
}

interface TagsCardProps {
  player: Player;
  base: string;
  readOnly: boolean;
  onChanged(): void;
}

/** The player's tags: add one (checked with the contract's Tag rule), remove one with its ×. */
function TagsCard({ player, base, readOnly, onChanged }: TagsCardProps) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The application's tags the player has not, offered as one is typed (the same tag for every player, in one case).
  const all = useApplicationTags(!readOnly);
  const suggested = useMemo(() => all.data?.items.filter((entry) => !player.tags.includes(entry.tag)), [all.data, player.tags]);

  async function add() {
    const { tag, problem } = readTag(text);
    if (problem !== undefined) {
      setError(problem);
      return;
    }
    if (player.tags.includes(tag)) {
      setText('');
      return;
    }
    setError(null);
    setBusy(true);
    try {
      await api.post(`${base}/tags`, { tags: [tag] }, z.unknown(), { quiet: true });
      setText('');
      onChanged();
      // The tags' counts moved (and the tag may be new): the next one typed is offered with them.
      all.reload();
    } catch (cause) {
      setError(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setBusy(false);
    }
  }

  async function remove(tag: string) {
    setBusy(true);
    try {
      await api.delete(`${base}/tags/${encodeURIComponent(tag)}`, z.unknown());
      showToast(t('players.detail.tagRemoved', { tag }));
      onChanged();
      all.reload();
    } catch {
      // The client has shown the failure.
    } finally {
      setBusy(false);
    }
  }

  return (
    <SectionCard gap="300" title={t('players.detail.tags')}>
      {player.tags.length === 0 ? (
        <Text as="p" tone="subdued">
          {t('players.detail.noTags')}
        </Text>
      ) : (
        <InlineStack gap="200">
          {player.tags.map((tag) => (
            <Tag key={tag} accessibilityLabel={tag} disabled={busy} onRemove={readOnly ? undefined : () => void remove(tag)}>
              {/* The players who have the tag too: the list filtered by it. */}
              <Link url={`/player?${searchOf(withFilter(filtersFromSearch(''), 'tag', tag))}`} monochrome removeUnderline accessibilityLabel={t('players.detail.tagPlayers', { tag })}>
                {tag}
              </Link>
            </Tag>
          ))}
        </InlineStack>
      )}
      {readOnly ? null : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void add();
          }}
        >
          <TagField
            label={t('players.detail.addTag')}
            value={text}
            onChange={(value) => {
              setText(value);
              setError(null);
            }}
            tags={suggested}
            error={error ? t(error) : undefined}
            helpText={t('players.detail.tagHelp')}
            connectedRight={
              <Button submit loading={busy} disabled={text.trim() === ''}>
                {t('players.detail.add')}
              </Button>
            }
          />
        </form>
      )}
    </SectionCard>
  );
}

/** The confirmation before a player and everything recorded about them is deleted. */
function DeletePlayerModal({ player, base, onClose, onDone }: { player: Player; base: string; onClose(): void; onDone(): void }) {
  const { t } = useTranslation();
  return (
    <ConfirmDeleteModal
      path={base}
      title={t('players.delete.title')}
      body={t('players.delete.body', { device: player.device_id })}
      confirmLabel={t('players.delete.submit')}
      onClose={onClose}
      onDone={onDone}
    />
  );
}

/** How many of a player's messages their page shows; the rest are one link away in the recipients' log. */
export const PLAYER_MESSAGES_SHOWN = 5;

/**
 * The messages a player received, newest first, from the recipients' log (`player_id`), with each one's status;
 * for roles that may read the log (spec §6's notifications area).
 */
function MessagesCard({ player, lang }: { player: Player; lang: Lang }) {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const mayRead = canAccessRoute(useAppStore((state) => state.roles), { roles: AREA_ROLES.notifications });
  const log = useApiQuery(mayRead ? `/application/${encodeURIComponent(applicationId)}/message` : null, DeliveryPage, { player_id: player.id, limit: PLAYER_MESSAGES_SHOWN }, { showsFailure: true });
  const items = log.data?.items ?? [];
  const total = log.data?.total ?? 0;
  const date = (value: string) => formatDate(value, '{y}-{m}-{d} {h}:{i}', { lang });
  const entry = (delivery: Delivery) => (
    <>
      <InlineStack align="space-between" gap="200" blockAlign="start" wrap={false}>
        <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
          <Link url={`/notification/${delivery.notification_id}/detail`} removeUnderline>
            {delivery.notification_name || `#${delivery.notification_id}`}
          </Link>
        </div>
        <DeliveryStatusBadge delivery={delivery} />
      </InlineStack>
      <Text as="span" tone="subdued" variant="bodySm">
        {[
          t(`messageUi.platforms.${delivery.platform}`),
          delivery.sent_at ? t('messageUi.sentAt', { date: date(delivery.sent_at) }) : date(delivery.created_at),
          delivery.clicked_at ? t('messageUi.clickedAt', { date: date(delivery.clicked_at) }) : null,
        ]
          .filter(Boolean)
          .join(' · ')}
      </Text>
    </>
  );
  return (
    <SectionCard gap="300" title={t('players.detail.messages')}>
      {!mayRead ? (
        <Text as="p" tone="subdued">
          {t('players.detail.messagesNotAllowed')}
        </Text>
      ) : (
        <QueryState query={log} lines={3}>
          {() => (
            <BlockStack gap="300">
              <Entries items={items} empty={t('players.detail.noMessages')} entry={entry} />
              {total > items.length ? (
                <Link url={`/message?q=${encodeURIComponent(player.device_id)}`}>
                  {t(log.data?.total_capped ? 'players.detail.allMessagesMore' : 'players.detail.allMessages', { count: total })}
                </Link>
              ) : null}
            </BlockStack>
          )}
        </QueryState>
      )}
    </SectionCard>
  );
}

/**
 * /player/:player_id: every field of a player (spec §3) by group, its attributes with their types, recent
 * events, the messages it received and its tags; add or remove a tag, delete the player.
 */
export function PlayerPage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const { player_id: playerId = '' } = useParams<{ player_id: string }>();
  const [, navigate] = useLocation();
  const showToast = useAppStore((state) => state.showToast);
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  const [confirming, setConfirming] = useState(false);
  const lang = useLanguage();
  const id = recordId(playerId);
  const base = `/application/${encodeURIComponent(applicationId)}/player/${id}`;
  const detail = useApiQuery(id !== null ? base : null, PlayerDetail, undefined, { showsFailure: true });
  // The list as it was left: the search, filters and page that found this player (its path inside the application).
  const applicationPath = `/application/${encodeURIComponent(applicationId)}`;
  const toList = (options?: { replace: boolean }) =>
    navigate(asLeft(useAppStore.getState().visitedViews, `${applicationPath}/player`).slice(applicationPath.length), options);
  const backAction = { content: t('menu.players'), onAction: () => toList() };
  // The tab and the window name this player (not "Player details", as every player's page would be): "Player #42"
  // until they load, then as the player list names them (playerLabel); a player that can't be found keeps the
  // route's title.
  usePageLabel(id === null || (detail.error && !detail.data) ? undefined : detail.data ? playerLabel(detail.data.player) : t('players.detail.label', { id }));

  if (id === null || (detail.error && !detail.data)) {
    return (
      <LoadFailedPage
        title={t('menu.player')}
        backAction={backAction}
        {...recordLoadFailure(detail.error, t('players.detail.notFound'), detail.reload)}
      />
    );
  }
  if (!detail.data) return <PageSkeleton title={t('menu.player')} backAction aside={5} />;

  const { player, attributes, events } = detail.data;
  const when = (value: string | null) => <When value={value} lang={lang} t={t} />;
  const text = (value: string | null) => value ?? null;

  return (
    <Page
      title={player.device_id}
      titleMetadata={<SubscribedBadge subscribed={player.subscribed} />}
      subtitle={player.external_user_id ?? player.email ?? undefined}
      backAction={backAction}
      secondaryActions={[
        {
          content: t('players.delete.open'),
          icon: DeleteIcon,
          destructive: true,
          disabled: readOnly,
          helpText: readOnly ? t('errors.NO_PERMISSION') : undefined,
          onAction: () => setConfirming(true),
        },
      ]}
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <InlineGrid columns={{ xs: 1, md: 2 }} gap="400">
              <FieldCard title={t('players.detail.identity')}>
                <Field label={t('players.fields.device_id')}>
                  <span className="nudge-mono">{player.device_id}</span>
                </Field>
                <Field label={t('players.fields.external_user_id')}>{text(player.external_user_id)}</Field>
                <Field label={t('players.fields.email')}>{player.email ? <EmailAddress email={player.email} /> : null}</Field>
                <Field label={t('players.fields.mobile_number')}>{text(player.mobile_number)}</Field>
                <Field label={t('players.fields.fb_psid')}>{text(player.fb_psid)}</Field>
                <Field label={t('players.fields.device_token')}>
                  {player.device_token ? (
                    <span className="nudge-mono" title={player.device_token}>
                      {player.device_token.length > 40 ? `${player.device_token.slice(0, 40)}…` : player.device_token}
                    </span>
                  ) : null}
                </Field>
              </FieldCard>
              <FieldCard title={t('players.detail.device')}>
                <Field label={t('players.fields.platform')}>
                  <PlatformLabel platform={player.platform} deviceType={player.device_type} />
                </Field>
                <Field label={t('players.fields.device_type')}>{t(`players.deviceTypes.${player.device_type}`)}</Field>
                <Field label={t('players.fields.os')}>{[player.os, player.os_version].filter(Boolean).join(' ') || null}</Field>
                <Field label={t('players.fields.browser')}>{text(player.browser)}</Field>
                <Field label={t('players.fields.app_version')}>{text(player.app_version)}</Field>
                <Field label={t('players.fields.device_model')}>{text(player.device_model)}</Field>
                <Field label={t('players.fields.language')}>{languageName(player.language, lang)}</Field>
                <Field label={t('players.fields.gender')}>{text(player.gender)}</Field>
              </FieldCard>
              <FieldCard title={t('players.detail.location')}>
                <Field label={t('players.fields.country')}>{countryName(player.country, lang)}</Field>
                <Field label={t('players.fields.city')}>{text(player.city)}</Field>
                <Field label={t('players.fields.timezone')}>{text(player.timezone)}</Field>
                <Field label={t('players.fields.timezone_offset')}>{player.timezone_offset === null ? null : formatUtcOffset(player.timezone_offset)}</Field>
              </FieldCard>
              <FieldCard title={t('players.detail.sessions')}>
                <Field label={t('players.fields.first_session_at')}>{when(player.first_session_at)}</Field>
                <Field label={t('players.fields.last_session_at')}>{when(player.last_session_at)}</Field>
                <Field label={t('players.fields.last_seen_at')}>{when(player.last_seen_at)}</Field>
                <Field label={t('players.fields.session_count')}>{formatNumber(player.session_count, lang)}</Field>
                <Field label={t('players.fields.page_views')}>{formatNumber(player.page_views, lang)}</Field>
                <Field label={t('players.fields.created_at')}>{when(player.created_at)}</Field>
              </FieldCard>
              <FieldCard title={t('players.detail.utm')}>
                <Field label="utm_source">{text(player.utm_source)}</Field>
                <Field label="utm_medium">{text(player.utm_medium)}</Field>
                <Field label="utm_campaign">{text(player.utm_campaign)}</Field>
                <Field label="utm_term">{text(player.utm_term)}</Field>
                <Field label="utm_content">{text(player.utm_content)}</Field>
              </FieldCard>
              <FieldCard title={t('players.detail.subscription')}>
                <Field label={t('players.fields.subscribed')}>
                  <SubscribedBadge subscribed={player.subscribed} />
                </Field>
                <Field label={t('players.fields.subscribed_at')}>{when(player.subscribed_at)}</Field>
                <Field label={t('players.fields.unsubscribed_at')}>{when(player.unsubscribed_at)}</Field>
                {player.opted_out_at && <Field label={t('players.fields.opted_out_at')}>{when(player.opted_out_at)}</Field>}
                <Field label={t('players.fields.channels')}>
                  {player.channels.length > 0 ? (
                    <InlineStack gap="100">
                      {player.channels.map((channel) => (
                        <Badge key={channel} tone="info">
                          {t(`players.channels.${channel}`)}
                        </Badge>
                      ))}
                    </InlineStack>
                  ) : null}
                </Field>
              </FieldCard>
            </InlineGrid>
            <EventsCard key={events.items[events.items.length - 1]?.id ?? 0} first={events} base={base} lang={lang} />
          </BlockStack>
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <BlockStack gap="400">
            <TagsCard player={player} base={base} readOnly={readOnly} onChanged={detail.reload} />
            <AttributesCard attributes={attributes} lang={lang} />
            <MessagesCard player={player} lang={lang} />
          </BlockStack>
        </Layout.Section>
      </Layout>
      {confirming ? (
        <DeletePlayerModal
          player={player}
          base={base}
          onClose={() => setConfirming(false)}
          onDone={() => {
            showToast(t('players.delete.done', { device: player.device_id }));
            toList({ replace: true });
            // A tab for a player that no longer exists would only lead to "not found".
            useAppStore.getState().removeVisitedView(base);
          }}
        />
      ) : null}
    </Page>
  );
}
