import { Banner, BlockStack, Button, InlineStack, Modal, SkeletonBodyText, Text } from '@shopify/polaris';
import type { i18n as I18n } from 'i18next';
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { useParams, useSearch } from 'wouter';
import { z } from 'zod';
import { OwnPlayer, isAppPlatform } from '../../../shared/contract';
import { relativeTime } from '../../../shared/format';
import type { Language } from '../../../shared/i18n';
import { type ApiClient, type ApiError, isApiError } from '../../api';
import { createApiClient } from '../../api/client';
import { createI18n } from '../../app/i18n';
import { countryName } from '../../components/code-names';
import { FailureBanner } from '../../components/failure-banner';
import { useAppStore } from '../../stores/store';
import { PlatformLabel, SubscribedBadge } from '../players/player-bits';
import { browserLanguages, rememberVisitorChoice, visitorChoice, visitorLanguage } from './visitor-language';
import { LanguageButtons } from '../../app/layout/language-switch';
import { AuthLayout } from '../auth/auth-layout';

/** The public address of one device's record. */
export function playerInfoPath(applicationId: string, deviceId: string): string {
  return `/public/application/${encodeURIComponent(applicationId)}/playerinfo/${encodeURIComponent(deviceId)}`;
}

// Not a member's write: the viewer rule of the console (spec §6) doesn't apply to a visitor's own record.
const PUBLIC_CALL = { quiet: true, roles: [] } as const;

/**
 * The page's own API client: the server's messages in the page's language (Accept-Language), the client's own in
 * it too, and no console session: a public call has no use for a signed-in member's token, so it does not carry it.
 */
function createVisitorClient(language: () => Language, i18n: () => I18n): ApiClient {
  return createApiClient({
    session: () => ({ token: null, roles: [], language: language() }),
    pageUrl: () => window.location.href,
    t: (key, params) => i18n().t(key, params),
    // Every call is quiet: the page shows its failures itself; and there is no session to end.
    notify: () => undefined,
    expireSession: () => undefined,
  });
}

function Line({ label, children }: { label: string; children: ReactNode }) {
  return (
    <InlineStack align="space-between" gap="200" blockAlign="center">
      <Text as="span" tone="subdued">
        {label}
      </Text>
      <div style={{ textAlign: 'right', minWidth: 0, overflowWrap: 'anywhere' }}>{typeof children === 'string' ? <Text as="span">{children}</Text> : children}</div>
    </InlineStack>
  );
}

type State = { kind: 'loading' } | { kind: 'missing' } | { kind: 'failed'; error: ApiError | null } | { kind: 'ready'; player: OwnPlayer };

/**
 * /application/:application_id/playerinfo?device=…: a visitor's own record (the link the SDK gives them),
 * in plain words, with a way to unsubscribe. Open to anyone: the device id is the key.
 *
 * A shopper reads it, not a member: it speaks the visitor's language (visitorLanguage: their browser's, else their
 * record's), or the one they pick on its switch (remembered on the device, visitorChoice), with its own
 * translations and Polaris' own strings in it, and it never reads or writes the console's language setting.
 */
export function PlayerInfoPage() {
  const [chosen, setChosen] = useState<Language | null>(visitorChoice);
  const [recordLanguage, setRecordLanguage] = useState<string | null>(null);
  const language = chosen ?? visitorLanguage(browserLanguages(), recordLanguage);
  // One instance a language, made once: switching gives the page the other one, already translated.
  const [instances] = useState<Record<Language, I18n>>(() => ({ vi: createI18n('vi'), en: createI18n('en') }));
  const current = useRef(language);
  current.current = language;
  const [client] = useState(() =>
    createVisitorClient(
      () => current.current,
      () => instances[current.current],
    ),
  );

  // The document (screen readers, the browser's translate offer) and Polaris' own words around the page (the
  // frame's "skip to content" link, a banner's dismiss, the dialog's close) speak it while it is shown (app/i18n.ts).
  useLayoutEffect(() => {
    useAppStore.getState().setPageLanguage(language);
    return () => useAppStore.getState().setPageLanguage(null);
  }, [language]);

  function choose(next: Language) {
    setChosen(next);
    rememberVisitorChoice(next);
    useAppStore.getState().showToast(instances[next].t('common.switchLanguageSuccess'));
  }

  return (
    <I18nextProvider i18n={instances[language]}>
      <PlayerInfo client={client} language={language} onLanguage={choose} onRecordLanguage={setRecordLanguage} />
    </I18nextProvider>
  );
}

function PlayerInfo({
  client,
  language,
  onLanguage,
  onRecordLanguage,
}: {
  client: ApiClient;
  language: Language;
  onLanguage(language: Language): void;
  onRecordLanguage(language: string | null): void;
}) {
  const { t } = useTranslation();
  const { application_id: applicationId = '' } = useParams<{ application_id: string }>();
  const deviceId = new URLSearchParams(useSearch()).get('device')?.trim() ?? '';
  const [state, setState] = useState<State>(deviceId ? { kind: 'loading' } : { kind: 'missing' });
  const [confirming, setConfirming] = useState(false);
  const [unsubscribing, setUnsubscribing] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  // The visitor came from a shop's page to this one, on Nudge's address: the page names the shop it speaks for,
  // once a record has said which (and keeps it while the record loads again after unsubscribing).
  const [shop, setShop] = useState<string | null>(null);

  const load = useCallback(
    (signal?: AbortSignal) => {
      if (!deviceId) {
        setState({ kind: 'missing' });
        return;
      }
      setState({ kind: 'loading' });
      client
        .get(playerInfoPath(applicationId, deviceId), OwnPlayer, { ...PUBLIC_CALL, signal })
        .then(({ data }) => {
          setShop(data.application_name);
          onRecordLanguage(data.language);
          setState({ kind: 'ready', player: data });
        })
        .catch((cause: unknown) => {
          if (signal?.aborted) return;
          setState({ kind: 'failed', error: isApiError(cause) ? cause : null });
        });
    },
    [applicationId, deviceId, client, onRecordLanguage],
  );

  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [load]);

  async function unsubscribe() {
    setFailure(null);
    setUnsubscribing(true);
    try {
      await client.post(`${playerInfoPath(applicationId, deviceId)}/unsubscribe`, {}, z.unknown(), PUBLIC_CALL);
      setConfirming(false);
      setDone(true);
      load();
    } catch (cause) {
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setUnsubscribing(false);
    }
  }

  let body: ReactNode;
  if (state.kind === 'missing') {
    body = (
      <Banner tone="warning" title={t('playerinfo.missing.title')}>
        <p>{t('playerinfo.missing.body')}</p>
      </Banner>
    );
  } else if (state.kind === 'loading') {
    body = <SkeletonBodyText lines={6} />;
  } else if (state.kind === 'failed') {
    // A device id the server refuses as malformed (a link cut short) is, to the visitor, a device it does not know.
    const unknown = state.error?.status === 404 || state.error?.code === 'NOT_FOUND' || state.error?.code === 'INVALID_PARAM';
    body = (
      <BlockStack gap="300">
        <Banner tone={unknown ? 'warning' : 'critical'} title={unknown ? t('playerinfo.unknown.title') : t('playerinfo.failed')}>
          <p>{unknown ? t('playerinfo.unknown.body') : state.error?.message ?? t('common.unknownError')}</p>
        </Banner>
        {unknown ? null : (
          <InlineStack>
            <Button onClick={() => load()}>{t('common.retry')}</Button>
          </InlineStack>
        )}
      </BlockStack>
    );
  } else {
    const { player } = state;
    const software = [player.os && [player.os, player.os_version].filter(Boolean).join(' '), player.browser].filter(Boolean).join(' · ');
    const place = [player.city, countryName(player.country, language)].filter(Boolean).join(', ');
    // No tags: they are the merchant's own labels for its segments ("cart_abandoner", "wholesale"), not the
    // visitor's interests, and the server does not send them here (OwnPlayer).
    body = (
      <BlockStack gap="400">
        {done ? (
          <Banner tone="success" onDismiss={() => setDone(false)}>
            <p>{t('playerinfo.unsubscribed', { name: shop })}</p>
          </Banner>
        ) : null}
        <BlockStack gap="300">
          <Line label={t('playerinfo.fields.device')}>
            <PlatformLabel platform={player.platform} deviceType={player.device_type} />
          </Line>
          <Line label={t('playerinfo.fields.deviceType')}>{t(`players.deviceTypes.${player.device_type}`)}</Line>
          {software ? <Line label={t('playerinfo.fields.software')}>{software}</Line> : null}
          {place ? <Line label={t('playerinfo.fields.location')}>{place}</Line> : null}
          <Line label={t('playerinfo.fields.lastSeen')}>{player.last_seen_at ? relativeTime(player.last_seen_at, Date.now(), t) : '—'}</Line>
          <Line label={t('playerinfo.fields.subscribed')}>
            <SubscribedBadge subscribed={player.subscribed} />
          </Line>
          <Text as="p" tone="subdued" variant="bodySm">
            <span style={{ overflowWrap: 'anywhere' }}>{t('playerinfo.deviceId', { id: player.device_id })}</span>
          </Text>
        </BlockStack>
        {player.subscribed ? (
          <Button variant="primary" tone="critical" fullWidth onClick={() => setConfirming(true)}>
            {t('playerinfo.unsubscribe.open')}
          </Button>
        ) : (
          <BlockStack gap="200">
            <Text as="p" tone="subdued">
              {t('playerinfo.notSubscribed', { name: shop })}
            </Text>
            {/* Unsubscribed here: renewals no longer subscribe them (opted_out_at), so say what does. */}
            {player.opted_out_at ? (
              <Text as="p" tone="subdued">
                {t(isAppPlatform(player.platform) ? 'playerinfo.againApp' : 'playerinfo.againWeb', { name: shop })}
              </Text>
            ) : null}
          </BlockStack>
        )}
      </BlockStack>
    );
  }

  // The account pages' frame, with this page's own language switch.
  return (
    <AuthLayout
      title="playerinfo.title"
      subtitle={shop === null ? t('playerinfo.subtitle') : t('playerinfo.subtitleOf', { name: shop })}
      language={<LanguageButtons language={language} onChange={onLanguage} />}
    >
      {body}
      {confirming && shop !== null ? (
        <Modal
          open
          onClose={() => setConfirming(false)}
          title={t('playerinfo.unsubscribe.title')}
          primaryAction={{ content: t('playerinfo.unsubscribe.submit'), onAction: () => void unsubscribe(), loading: unsubscribing, destructive: true }}
          secondaryActions={[{ content: t('common.cancel'), onAction: () => setConfirming(false), disabled: unsubscribing }]}
        >
          <Modal.Section>
            <BlockStack gap="300">
              <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
              <Text as="p">{t('playerinfo.unsubscribe.body', { name: shop })}</Text>
            </BlockStack>
          </Modal.Section>
        </Modal>
      ) : null}
    </AuthLayout>
  );
}
