import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { Profile } from '../../../shared/contract';
import { api } from '../../api';
import { selectAppName } from '../../stores/settings-slice';
import { useAppStore } from '../../stores/store';
import { samePage } from '../../stores/visited-views-slice';
import { type ResolvedRoute, applicationIdOf } from '../guard';
import { Breadcrumb } from './breadcrumb';
import { Sidebar } from './sidebar';
import { TopBar } from './top-bar';
import { MOBILE_QUERY, useMediaQuery } from './use-media-query';
import { VisitedViews } from './visited-views';

export interface ShellProps {
  /** The route the guard allowed, when known; its title names the tab, the breadcrumb and the window. */
  route: ResolvedRoute | undefined;
  children: ReactNode;
}

/** The signed-in layout: 210 px sidebar (a drawer under 992 px), top bar, visited views, breadcrumb. */
export function Shell({ route, children }: ShellProps) {
  const { t } = useTranslation();
  const [path] = useLocation();
  const search = useSearch();
  const mobile = useMediaQuery(MOBILE_QUERY);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const sidebarOpen = useAppStore((state) => state.sidebarOpen);
  const toggleSidebar = useAppStore((state) => state.toggleSidebar);
  const addVisitedView = useAppStore((state) => state.addVisitedView);
  const hasUser = useAppStore((state) => state.user !== null);
  const applicationId = route?.applicationId ?? applicationIdOf(path);
  const applicationName = useAppStore((state) => selectAppName(state, applicationId));
  const fullPath = search ? `${path}?${search}` : path;
  const title = route?.route.title;
  // The page's own name (usePageLabel), once it has said it, and only for that page.
  const pageLabel = useAppStore((state) => state.pageLabel);
  const label = pageLabel && samePage(pageLabel.path, path) ? pageLabel.label : undefined;

  useEffect(() => {
    if (!route) return;
    addVisitedView({ path: fullPath, title: route.route.title, applicationId: route.applicationId, ...(label ? { label } : {}) });
  }, [route, fullPath, addVisitedView, label]);

  useEffect(() => {
    const parts = [label ?? (title ? t(title) : null), applicationName, t('common.appName')].filter(Boolean);
    document.title = parts.join(' · ');
  }, [label, title, applicationName, t]);

  // The user's cookies last 3 days, the token longer: fetch the profile again when they have expired.
  useEffect(() => {
    if (hasUser) return;
    const controller = new AbortController();
    api
      .get('/user/me', Profile, { quiet: true, signal: controller.signal })
      .then(({ data }) => useAppStore.getState().setUser(data))
      .catch(() => undefined);
    return () => controller.abort();
  }, [hasUser]);

  // A drawer left open would cover the next page.
  useEffect(() => setDrawerOpen(false), [path]);

  useEffect(() => {
    if (!drawerOpen) return;
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && setDrawerOpen(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [drawerOpen]);

  const open = mobile ? drawerOpen : sidebarOpen;
  const sidebarRef = useRef<HTMLElement>(null);

  // A hidden sidebar must not take keyboard focus; React 18 has no `inert` prop, so set the attribute.
  useEffect(() => {
    sidebarRef.current?.toggleAttribute('inert', !open);
  }, [open]);

  return (
    <div
      className="nudge-shell"
      data-sidebar={sidebarOpen ? 'open' : 'closed'}
      data-drawer={mobile && drawerOpen ? 'open' : 'closed'}
    >
      <aside
        id="nudge-sidebar"
        className="nudge-sidebar"
        aria-label={t('layout.mainMenu')}
        ref={sidebarRef}
      >
        <Sidebar path={path} applicationId={applicationId} onNavigate={() => setDrawerOpen(false)} />
      </aside>
      <div className="nudge-backdrop" onClick={() => setDrawerOpen(false)} aria-hidden="true" />
      <div className="nudge-main">
        <TopBar
          title={applicationName ?? (title ? t(title) : t('common.appName'))}
          applicationId={applicationId}
          mobile={mobile}
          sidebarOpen={open}
          onToggleSidebar={() => (mobile ? setDrawerOpen((value) => !value) : toggleSidebar())}
        />
        <VisitedViews current={fullPath} />
        <main className="nudge-content" id="nudge-content">
          <Breadcrumb
            application={applicationId && applicationName ? { id: applicationId, name: applicationName } : undefined}
            title={title}
            label={label}
          />
          {children}
        </main>
      </div>
    </div>
  );
}
