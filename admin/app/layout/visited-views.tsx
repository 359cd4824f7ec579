import { ActionList, Button, Popover } from '@shopify/polaris';
import { MenuHorizontalIcon, RefreshIcon, XIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { RouterLink } from '../../components/router-link';
import { useAppStore } from '../../stores/store';
import { samePage, type VisitedView } from '../../stores/visited-views-slice';
import { HOME_PATH } from '../guard';

export interface VisitedViewsProps {
  /** The current page, path and query, as the views store it. */
  current: string;
}

/** The tab bar of visited views (spec §2, §4): each page's title; close, refresh, close others, close all. */
export function VisitedViews({ current }: VisitedViewsProps) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const views = useAppStore((state) => state.visitedViews);
  const { removeVisitedView, removeOtherVisitedViews, removeAllVisitedViews, whenLeft } = useAppStore.getState();

  const label = (view: VisitedView) => {
    const title = view.label ?? t(view.title);
    // The same page of two applications: tell the tabs apart by the application.
    const twins = views.filter((other) => other.title === view.title).length > 1;
    return twins && view.applicationId ? `${title} · ${view.applicationId}` : title;
  };

  function close(view: VisitedView) {
    if (!samePage(view.path, current)) {
      removeVisitedView(view.path);
      return;
    }
    const remaining = views.filter((other) => other.path !== view.path);
    navigate(`~${remaining.at(-1)?.path ?? HOME_PATH}`);
    // Closing the page on screen is leaving it: with unsaved changes the user is asked, and the tab stays if they stay.
    whenLeft(() => removeVisitedView(view.path));
  }

  // Re-enters the page through /redirect so its screen mounts again and reloads its data.
  function refresh() {
    setMenuOpen(false);
    navigate(`~/redirect${current}`, { replace: true });
  }

  function closeOthers() {
    setMenuOpen(false);
    removeOtherVisitedViews(current);
  }

  function closeAll() {
    setMenuOpen(false);
    navigate(`~${HOME_PATH}`);
    whenLeft(removeAllVisitedViews);
  }

  return (
    <nav className="nudge-tabs" aria-label={t('layout.visitedViews')}>
      <ul className="nudge-tabs-list">
        {views.map((view) => {
          const active = samePage(view.path, current);
          const text = label(view);
          return (
            <li key={view.path} className="nudge-tab" data-active={active ? 'true' : 'false'}>
              <RouterLink url={view.path} aria-current={active ? 'page' : undefined}>
                {text}
              </RouterLink>
              <button
                type="button"
                className="nudge-tab-close"
                aria-label={t('layout.closeView', { title: text })}
                onClick={() => close(view)}
              >
                <XIcon aria-hidden="true" focusable="false" />
              </button>
            </li>
          );
        })}
      </ul>
      <Popover
        active={menuOpen}
        onClose={() => setMenuOpen(false)}
        preferredAlignment="right"
        activator={
          <Button
            variant="tertiary"
            size="slim"
            icon={MenuHorizontalIcon}
            accessibilityLabel={t('layout.viewActions')}
            onClick={() => setMenuOpen((value) => !value)}
          />
        }
      >
        <ActionList
          actionRole="menuitem"
          items={[
            { content: t('layout.refresh'), icon: RefreshIcon, onAction: refresh },
            { content: t('layout.closeOthers'), onAction: closeOthers },
            { content: t('layout.closeAll'), onAction: closeAll },
          ]}
        />
      </Popover>
    </nav>
  );
}
