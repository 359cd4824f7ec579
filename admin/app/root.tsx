import { useLocation } from 'wouter';
import { PageLoading } from '../components/page-loading';
import { useAppStore } from '../stores/store';
import { isPublicPath } from './guard';
import { LeaveGuard } from './leave-guard';
import { Shell } from './layout/shell';
import { PrivateRoutes, PublicRoutes } from './routes';
import { useNavigationGuard } from './use-navigation-guard';

/** Chooses between the public pages and the shell, and renders nothing the guard has not allowed. */
export function Root() {
  const [path] = useLocation();
  const decision = useNavigationGuard();
  const signedIn = useAppStore((state) => state.token !== null);
  const inShell = signedIn && (!isPublicPath(path) || path.startsWith('/redirect/'));

  if (inShell) {
    // The shell stays while roles for another application load, so the page does not blink.
    return (
      <>
        <Shell route={decision.kind === 'allow' ? decision.route : undefined}>
          {decision.kind === 'allow' ? <PrivateRoutes /> : <PageLoading />}
        </Shell>
        <LeaveGuard />
      </>
    );
  }
  return (
    <>
      {decision.kind === 'allow' ? <PublicRoutes /> : <PageLoading fill />}
      <LeaveGuard />
    </>
  );
}
