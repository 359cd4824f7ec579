import { Navigation } from '@shopify/polaris';
import type { IconSource } from '@shopify/polaris';
import {
  AppsIcon,
  BookOpenIcon,
  ChannelsIcon,
  ChartVerticalIcon,
  CodeIcon,
  DatabaseIcon,
  FlagIcon,
  ImageIcon,
  LightbulbIcon,
  NotificationIcon,
  PersonIcon,
  PersonSegmentIcon,
  PhoneIcon,
  SettingsIcon,
  TargetIcon,
  TeamIcon,
  AlertTriangleIcon,
  ConnectIcon,
  ChatIcon,
} from '@shopify/polaris-icons';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { isShopPlatformApplication, matchApplicationRoute, sidebarSections } from '../../../shared/permissions';
import { Brand } from '../../components/brand';
import { selectAppName } from '../../stores/settings-slice';
import { useAppStore } from '../../stores/store';
import { useConsoleLinks } from '../use-console-links';

/** The icon of each sidebar entry, by its path in the route table. */
const ICONS: Record<string, IconSource> = {
  '/': ChartVerticalIcon,
  '/trigger': TargetIcon,
  '/event': FlagIcon,
  '/notification': NotificationIcon,
  '/banner': ImageIcon,
  '/suggestion': LightbulbIcon,
  '/fake_noti': ChatIcon,
  '/permission': TeamIcon,
  '/channel': ChannelsIcon,
  '/dangerzone': AlertTriangleIcon,
  '/webhook': ConnectIcon,
  '/maxlead': PhoneIcon,
  '/player': PersonIcon,
  '/attribute': DatabaseIcon,
  '/segment': PersonSegmentIcon,
  '/platform': SettingsIcon,
};

export interface SidebarProps {
  /** The current path, to mark the selected entry. */
  path: string;
  /** The application of the page, when the page belongs to one. */
  applicationId: string | undefined;
  /** Called after an entry is chosen (the mobile drawer closes). */
  onNavigate(): void;
}

/** The sidebar menu: the application's entries the user may see (spec §6), then the doc links. */
export function Sidebar({ path, applicationId, onNavigate }: SidebarProps) {
  const { t } = useTranslation();
  const access = useAppStore(
    useShallow((state) => ({ roles: state.roles, agency: state.agency, permissions: state.permissions })),
  );
  const appName = useAppStore((state) => selectAppName(state, applicationId));
  const { guideUrl, apiDocsUrl } = useConsoleLinks();
  const showDocs = !isShopPlatformApplication(applicationId);
  const base = applicationId ? `/application/${encodeURIComponent(applicationId)}` : null;

  // A page off the menu (a campaign, the leads report) marks the entry it belongs to.
  const parentEntry = base && path.startsWith(`${base}/`) ? matchApplicationRoute(path.slice(base.length))?.section : undefined;
  // The application's entries by section; the dashboard's carries the application's name as its title.
  const sections = base
    ? sidebarSections(access).map((section) => ({
        key: section.key,
        // Until the name has loaded, a blank heading holds its line: the entries don't move when it comes.
        title: section.key === 'overview' ? (appName ?? '\u00a0') : t(`layout.sections.${section.key}`),
        items: section.routes.map((route) => {
          const url = route.path === '/' ? base : `${base}${route.path}`;
          return {
            url,
            label: t(route.title),
            icon: ICONS[route.path],
            // The dashboard is the application's root: every other entry's path starts with it.
            selected: path === url || (route.path !== '/' && path.startsWith(`${url}/`)) || route.path === parentEntry,
            onClick: onNavigate,
          };
        }),
      }))
    : [];

  const docItems = showDocs
    ? [
        ...(guideUrl
          ? [{ url: guideUrl, label: t('layout.guide'), icon: BookOpenIcon, external: true, onClick: onNavigate }]
          : []),
        { url: apiDocsUrl, label: t('layout.apiDocs'), icon: CodeIcon, external: true, onClick: onNavigate },
      ]
    : [];

  return (
    <>
      <Brand href="/application" />
      <Navigation location={path} ariaLabelledBy="nudge-sidebar-label">
        <span id="nudge-sidebar-label" hidden>
          {t('layout.mainMenu')}
        </span>
        <Navigation.Section
          items={[
            {
              url: '/application',
              label: t('menu.applications'),
              icon: AppsIcon,
              selected: path === '/application',
              onClick: onNavigate,
            },
          ]}
        />
        {sections.map((section) => (
          <Navigation.Section key={section.key} title={section.title} items={section.items} />
        ))}
        {docItems.length > 0 ? <Navigation.Section title={t('layout.resources')} items={docItems} separator /> : null}
      </Navigation>
    </>
  );
}
