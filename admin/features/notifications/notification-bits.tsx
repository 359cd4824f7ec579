import { Badge } from '@shopify/polaris';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import {
  type Notification,
  type NotificationStatus,
  type NotificationType,
  NOTIFICATION_TYPES,
  TYPE_PLATFORMS,
  canTransition,
  isEditable,
  messageTitle,
} from '../../../shared/contract';
import { useCurrentApplication } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';

type BadgeTone = 'info' | 'success' | 'warning' | 'critical' | 'attention' | 'new' | 'magic';
type BadgeProgress = 'incomplete' | 'partiallyComplete' | 'complete';

/** Each status's badge: drafts and scheduled ones not started, running ones part way, sent ones complete. */
const STATUS_LOOK: Record<NotificationStatus, { tone?: BadgeTone; progress: BadgeProgress }> = {
  new: { tone: 'new', progress: 'incomplete' },
  waiting: { tone: 'attention', progress: 'incomplete' },
  running: { tone: 'info', progress: 'partiallyComplete' },
  executed: { tone: 'success', progress: 'complete' },
  opened: { tone: 'magic', progress: 'complete' },
  canceled: { progress: 'incomplete' },
};

export function StatusBadge({ status }: { status: NotificationStatus }) {
  const { t } = useTranslation();
  const look = STATUS_LOOK[status];
  return (
    <Badge tone={look.tone} progress={look.progress}>
      {t(`notificationUi.statuses.${status}`)}
    </Badge>
  );
}

export function TypeBadge({ type }: { type: NotificationType }) {
  const { t } = useTranslation();
  return <Badge>{t(`notificationUi.types.${type}`)}</Badge>;
}

/** What can be done to a message in its status (NOTIFICATION_TRANSITIONS; delete only drafts and canceled ones). */
export type NotificationAction = 'edit' | 'send' | 'cancel' | 'draft' | 'duplicate' | 'delete';

export function allowedActions(status: NotificationStatus): NotificationAction[] {
  const actions: NotificationAction[] = [];
  if (isEditable(status)) actions.push('edit');
  if (status === 'new' && canTransition(status, 'waiting')) actions.push('send');
  if (status === 'waiting' && canTransition(status, 'new')) actions.push('draft');
  if (canTransition(status, 'canceled')) actions.push('cancel');
  actions.push('duplicate');
  if (status === 'new' || status === 'canceled') actions.push('delete');
  return actions;
}

/** The statuses whose numbers still move: the screens showing them refresh by themselves. */
export function isLive(status: NotificationStatus): boolean {
  return status === 'waiting' || status === 'running';
}

/** Whether the application can send a type: one of its platforms is configured and active. */
export function typeAvailable(type: NotificationType, activePlatforms: readonly string[] | undefined): boolean {
  if (!activePlatforms) return true;
  return TYPE_PLATFORMS[type].some((kind) => activePlatforms.includes(kind));
}

export function isNotificationType(value: string): value is NotificationType {
  return (NOTIFICATION_TYPES as readonly string[]).includes(value);
}

/** The name a message is listed by. */
export function titleOf(message: Pick<Notification, 'name' | 'content'>): string {
  return messageTitle(message);
}

/** How often a screen showing a waiting or running message asks again. */
export const LIVE_REFRESH_MS = 5000;

/** Calls `reload` every LIVE_REFRESH_MS while `active`, and not while the tab is hidden. */
export function useLiveRefresh(active: boolean, reload: () => void, intervalMs = LIVE_REFRESH_MS): void {
  const latest = useRef(reload);
  latest.current = reload;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (typeof document === 'undefined' || document.visibilityState !== 'hidden') latest.current();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
}

/**
 * Names this page's visited-view tab with `title` (an i18n key) instead of its route's: the create forms share
 * their route with the list's tabs. Runs after the shell has added the tab (the shell's effect runs after its
 * children's), so the shell's own title does not win.
 */
export function useVisitedViewTitle(title: string): void {
  const [location] = useLocation();
  const search = useSearch();
  const { applicationId } = useCurrentApplication();
  useEffect(() => {
    const timer = setTimeout(() => {
      const { visitedViews, addVisitedView } = useAppStore.getState();
      const here = `/application/${encodeURIComponent(applicationId)}${location}${search ? `?${search}` : ''}`;
      const view = visitedViews.find((candidate) => candidate.path.endsWith(here));
      if (view && view.title !== title) addVisitedView({ ...view, title });
    }, 0);
    return () => clearTimeout(timer);
  }, [applicationId, location, search, title]);
}
