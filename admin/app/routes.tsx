import { type ComponentType, Suspense, lazy, useEffect } from 'react';
import { Redirect, Route, Switch, useLocation, useParams, useSearch } from 'wouter';
import { APPLICATION_ROUTES } from '../../shared/permissions';
import { PageLoading } from '../components/page-loading';
import { ApplicationScope } from './application-scope';
import { NOT_FOUND_PATH } from './guard';

// One chunk per screen: each loads when its route is first opened ("split per route").
const LoginPage = lazy(() => import('../features/auth/login-page').then((m) => ({ default: m.LoginPage })));
const RegisterPage = lazy(() => import('../features/auth/register-page').then((m) => ({ default: m.RegisterPage })));
const ForgotPasswordPage = lazy(() =>
  import('../features/auth/forgot-password-page').then((m) => ({ default: m.ForgotPasswordPage })),
);
const AuthRedirectPage = lazy(() =>
  import('../features/auth/auth-redirect-page').then((m) => ({ default: m.AuthRedirectPage })),
);
const NotFoundPage = lazy(() => import('../features/errors/not-found-page').then((m) => ({ default: m.NotFoundPage })));
const UnauthorizedPage = lazy(() =>
  import('../features/errors/unauthorized-page').then((m) => ({ default: m.UnauthorizedPage })),
);
const ApplicationsPage = lazy(() =>
  import('../features/applications/applications-page').then((m) => ({ default: m.ApplicationsPage })),
);
const ChangePasswordPage = lazy(() =>
  import('../features/account/change-password-page').then((m) => ({ default: m.ChangePasswordPage })),
);
const TeamPage = lazy(() => import('../features/team/team-page').then((m) => ({ default: m.TeamPage })));
const BannersPage = lazy(() => import('../features/banners/banners-page').then((m) => ({ default: m.BannersPage })));
const BannerCreatePage = lazy(() =>
  import('../features/banners/banner-create-page').then((m) => ({ default: m.BannerCreatePage })),
);
const SuggestionsPage = lazy(() =>
  import('../features/suggestions/suggestions-page').then((m) => ({ default: m.SuggestionsPage })),
);
const FakeNotiPage = lazy(() => import('../features/fake-noti/fake-noti-page').then((m) => ({ default: m.FakeNotiPage })));
const MaxleadPage = lazy(() => import('../features/maxlead/maxlead-pages').then((m) => ({ default: m.MaxleadPage })));
const FeaturePage = lazy(() => import('../features/maxlead/maxlead-pages').then((m) => ({ default: m.FeaturePage })));
const LeadsReportPage = lazy(() =>
  import('../features/leads/leads-report-page').then((m) => ({ default: m.LeadsReportPage })),
);
const DashboardPage = lazy(() => import('../features/dashboard/dashboard-page').then((m) => ({ default: m.DashboardPage })));
const PlayersPage = lazy(() => import('../features/players/players-page').then((m) => ({ default: m.PlayersPage })));
const PlayerPage = lazy(() => import('../features/players/player-page').then((m) => ({ default: m.PlayerPage })));
const EventsPage = lazy(() => import('../features/events/events-page').then((m) => ({ default: m.EventsPage })));
const AttributesPage = lazy(() => import('../features/attributes/attributes-page').then((m) => ({ default: m.AttributesPage })));
const SegmentsPage = lazy(() => import('../features/segments/segments-page').then((m) => ({ default: m.SegmentsPage })));
const SegmentPage = lazy(() => import('../features/segments/segment-page').then((m) => ({ default: m.SegmentPage })));
const PlatformPage = lazy(() => import('../features/platform/platform-page').then((m) => ({ default: m.PlatformPage })));
const WebhooksPage = lazy(() => import('../features/webhooks/webhooks-page').then((m) => ({ default: m.WebhooksPage })));
const PlayerInfoPage = lazy(() => import('../features/playerinfo/playerinfo-page').then((m) => ({ default: m.PlayerInfoPage })));
const NotificationsRedirect = lazy(() =>
  import('../features/notifications/notification-routes').then((m) => ({ default: m.NotificationsRedirect })),
);
const NotificationTypeRoute = lazy(() =>
  import('../features/notifications/notification-routes').then((m) => ({ default: m.NotificationTypeRoute })),
);
const NotificationDetailPage = lazy(() =>
  import('../features/notifications/notification-detail-page').then((m) => ({ default: m.NotificationDetailPage })),
);
const CampaignPage = lazy(() => import('../features/campaigns/campaign-page').then((m) => ({ default: m.CampaignPage })));
const MessagesPage = lazy(() => import('../features/messages/messages-page').then((m) => ({ default: m.MessagesPage })));
const ChannelsPage = lazy(() => import('../features/channels/channels-page').then((m) => ({ default: m.ChannelsPage })));

/**
 * The screens of the per-application routes that exist, by their path in APPLICATION_ROUTES. A route marked
 * built without a screen here, or not built, leads to /404.
 */
export const APPLICATION_SCREENS: Record<string, ComponentType> = {
  '/permission': TeamPage,
  '/banner': BannersPage,
  '/banner/create': BannerCreatePage,
  '/suggestion': SuggestionsPage,
  '/fake_noti': FakeNotiPage,
  '/maxlead': MaxleadPage,
  '/feature': FeaturePage,
  '/maxlead_report': LeadsReportPage,
  '/': DashboardPage,
  '/player': PlayersPage,
  '/player/:player_id': PlayerPage,
  '/event': EventsPage,
  '/attribute': AttributesPage,
  '/segment': SegmentsPage,
  '/segment/:segment_id': SegmentPage,
  '/platform': PlatformPage,
  '/webhook': WebhooksPage,
  '/notification': NotificationsRedirect,
  '/notification/:notification_type': NotificationTypeRoute,
  '/notification/:notification_id/detail': NotificationDetailPage,
  '/campaign/:campaign_id': CampaignPage,
  '/message': MessagesPage,
  '/channel': ChannelsPage,
};

/** /redirect/:path* re-enters /:path (the visited-view "refresh"), keeping the query. */
function RedirectPage() {
  const params = useParams<{ '*': string }>();
  const search = useSearch();
  const [, navigate] = useLocation();
  const target = `/${params['*'] ?? ''}${search ? `?${search}` : ''}`;
  useEffect(() => {
    navigate(`~${target}`, { replace: true });
  }, [navigate, target]);
  return <PageLoading />;
}

function ToNotFound() {
  return <Redirect to={`~${NOT_FOUND_PATH}`} replace />;
}

/** Pages anyone may open; shown without the shell. */
export function PublicRoutes() {
  return (
    <Suspense fallback={<PageLoading fill />}>
      <Switch>
        <Route path="/login" component={LoginPage} />
        <Route path="/register" component={RegisterPage} />
        <Route path="/forgot-password" component={ForgotPasswordPage} />
        <Route path="/auth-redirect" component={AuthRedirectPage} />
        <Route path="/404" component={NotFoundPage} />
        <Route path="/401" component={UnauthorizedPage} />
        <Route path="/application/:application_id/playerinfo" component={PlayerInfoPage} />
        <Route path="/redirect/*" component={RedirectPage} />
        <Route component={ToNotFound} />
      </Switch>
    </Suspense>
  );
}

/** Pages inside the shell. */
export function PrivateRoutes() {
  return (
    <Suspense fallback={<PageLoading />}>
      <Switch>
        <Route path="/application" component={ApplicationsPage} />
        <Route path="/change-password" component={ChangePasswordPage} />
        <Route path="/redirect/*" component={RedirectPage} />
        <Route path="/application/:application_id" nest>
          <ApplicationScope>
            <Switch>
              {APPLICATION_ROUTES.filter((route) => route.built && APPLICATION_SCREENS[route.path]).map((route) => (
                <Route key={route.path} path={route.path} component={APPLICATION_SCREENS[route.path]} />
              ))}
              <Route component={ToNotFound} />
            </Switch>
          </ApplicationScope>
        </Route>
        <Route component={ToNotFound} />
      </Switch>
    </Suspense>
  );
}
