import { NavMenu, TitleBar } from '@shopify/app-bridge-react';
import { Banner, BlockStack, Button, Card, Page, Text } from '@shopify/polaris';
import { Suspense, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Redirect, Route, Switch, useParams } from 'wouter';
import { EmbedSession } from '../../shared/contract';
import { APPLICATION_ROUTES, type RouteMeta, canAccessRoute } from '../../shared/permissions';
import { ApiError, api, isApiError } from '../../admin/api';
import { ApplicationScope } from '../../admin/app/application-scope';
import { i18n } from '../../admin/app/i18n';
import { LanguageSwitch } from '../../admin/app/layout/language-switch';
import { APPLICATION_SCREENS } from '../../admin/app/routes';
import { useAppStore } from '../../admin/stores/store';
import { BridgeLoading } from './bridge-feedback';
import { type AppBridge, type EmbedApp, type EmbedNavItem, homeOf, navFor } from './entry';
import { LeaveGuard } from '../../admin/app/leave-guard';

interface SessionState {
  session?: EmbedSession;
  error?: ApiError;
}

/**
 * GET /api/embed/session: the application of the shop and the caller's roles in it. The roles go to the
 * store before the screens render, since every screen (and the client's viewer rule) reads them there.
 */
function useEmbedSession(): SessionState & { reload(): void } {
  const [state, setState] = useState<SessionState>({});
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setState({});
    api
      .get('/embed/session', EmbedSession, { quiet: true, signal: controller.signal })
      .then(({ data }) => {
        const store = useAppStore.getState();
        store.setAccess(data.application_id, { roles: data.roles, agency: null, permissions: [] });
        store.setAppName({ id: data.application_id, name: data.name });
        setState({ session: data });
      })
      .catch((cause: unknown) => {
        if (controller.signal.aborted) return;
        setState({ error: isApiError(cause) ? cause : new ApiError('NETWORK', i18n.t('common.unknownError')) });
      });
    return () => controller.abort();
    // Not on a language switch: asking again would unmount the screen and lose what is being edited.
  }, [generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { ...state, reload };
}

function applicationPath(applicationId: string): string {
  return `/application/${encodeURIComponent(applicationId)}`;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export interface EmbedMessageProps {
  /** i18n key of the heading. */
  titleKey: string;
  /** The explanation, translated. */
  body: string;
  tone?: 'critical' | 'warning';
  /** The one way on: a link (relative to the application) or an action. */
  action?: { content: string; url?: string; onAction?(): void };
}

/** A screen that can't be shown (not found, not for this role, no session): why, and the way on. */
export function EmbedMessage({ titleKey, body, tone = 'warning', action }: EmbedMessageProps) {
  const { t } = useTranslation();
  return (
    <Page narrowWidth>
      <Card>
        <BlockStack gap="400">
          <Banner tone={tone} title={t(titleKey)}>
            <p>{body}</p>
          </Banner>
          {action ? (
            <div>
              <Button url={action.url} onClick={action.onAction}>
                {action.content}
              </Button>
            </div>
          ) : null}
        </BlockStack>
      </Card>
    </Page>
  );
}

interface ScreenProps {
  route: RouteMeta;
  home: EmbedNavItem | undefined;
}

/** One screen of the full route set: its title in the platform's title bar, or a refusal where the role lacks it. */
function EmbedScreen({ route, home }: ScreenProps) {
  const { t } = useTranslation();
  const roles = useAppStore((state) => state.roles);
  const Screen = APPLICATION_SCREENS[route.path];
  const title = t(route.title);
  const allowed = canAccessRoute(roles, route);

  useEffect(() => {
    document.title = `${title} · ${t('common.appName')}`;
  }, [title, t]);

  if (!allowed) {
    return (
      <EmbedMessage
        titleKey="errorPages.unauthorizedTitle"
        body={t('errorPages.unauthorizedBody')}
        action={home ? { content: t('embed.toHome', { screen: t(home.labelKey) }), url: home.path } : undefined}
      />
    );
  }
  return (
    <>
      <TitleBar title={title} />
      <Screen />
    </>
  );
}

interface ApplicationScreensProps {
  app: EmbedApp;
  session: EmbedSession;
  bridge: AppBridge;
}

/** /shopify-…/application/:application_id/…: the screens of the shop's application, each as its role allows. */
function ApplicationScreens({ app, session, bridge }: ApplicationScreensProps) {
  const { t } = useTranslation();
  const params = useParams<{ application_id: string }>();
  const roles = useAppStore((state) => state.roles);
  const home = homeOf(app, roles);

  // The session answers for one shop; a link naming another application leads back to the shop's own.
  if (decoded(params.application_id ?? '') !== session.application_id) {
    return <Redirect to={`~${app.base}${applicationPath(session.application_id)}`} replace />;
  }

  const notFound = (
    <EmbedMessage
      titleKey="errorPages.notFoundTitle"
      body={t('errorPages.notFoundBody')}
      action={home ? { content: t('embed.toHome', { screen: t(home.labelKey) }), url: home.path } : undefined}
    />
  );

  return (
    <ApplicationScope>
      <Suspense fallback={<BridgeLoading bridge={bridge} />}>
        <Switch>
          <Route path="/">
            {home ? (
              <Redirect to={home.path} replace />
            ) : (
              <EmbedMessage titleKey="errorPages.unauthorizedTitle" body={t('errorPages.unauthorizedBody')} />
            )}
          </Route>
          {APPLICATION_ROUTES.filter((route) => route.built && APPLICATION_SCREENS[route.path]).map((route) => (
            <Route key={route.path} path={route.path}>
              <EmbedScreen route={route} home={home} />
            </Route>
          ))}
          <Route>{notFound}</Route>
        </Switch>
      </Suspense>
    </ApplicationScope>
  );
}

export interface EmbeddedAdminProps {
  app: EmbedApp;
  bridge: AppBridge;
}

/**
 * The embedded admin under its router (base /shopify-banner or /shopify-maxlead): the shop's session, the
 * app's menu in the platform's navigation, and the screens. The platform draws its own chrome around the
 * frame, so there is no sidebar or top bar here: only a slim row with the shop's name and the language.
 */
export function EmbeddedAdmin({ app, bridge }: EmbeddedAdminProps) {
  const { t } = useTranslation();
  const { session, error, reload } = useEmbedSession();
  const roles = useAppStore((state) => state.roles);

  if (error) {
    return (
      <EmbedMessage
        tone="critical"
        titleKey="embed.failed.title"
        body={`${error.message} ${t('embed.failed.body')}`}
        action={{ content: t('common.retry'), onAction: reload }}
      />
    );
  }
  if (!session) return <BridgeLoading bridge={bridge} fill />;

  const root = applicationPath(session.application_id);
  const home = homeOf(app, roles);

  return (
    <div className="nudge-embed">
      <NavMenu>
        <a href={app.base} rel="home">
          {t('common.appName')}
        </a>
        {navFor(app, roles).map((item) => (
          <a key={item.path} href={`${app.base}${root}${item.path}`}>
            {t(item.labelKey)}
          </a>
        ))}
      </NavMenu>
      <LeaveGuard />
      <div className="nudge-embed-bar">
        <Text as="p" variant="bodySm" tone="subdued" truncate>
          {session.name}
        </Text>
        <LanguageSwitch />
      </div>
      <Switch>
        <Route path="/application/:application_id" nest>
          <ApplicationScreens app={app} session={session} bridge={bridge} />
        </Route>
        <Route>
          {home ? (
            <Redirect to={`${root}${home.path}`} replace />
          ) : (
            <EmbedMessage titleKey="errorPages.unauthorizedTitle" body={t('errorPages.unauthorizedBody')} />
          )}
        </Route>
      </Switch>
    </div>
  );
}
