import { BlockStack, Page, Tabs } from '@shopify/polaris';
import { type ReactNode, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { NOTIFICATION_TABS, type NotificationTab } from '../../../shared/contract';
import { useCurrentApplication } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';

export interface NotificationsShellProps {
  tab: NotificationTab;
  /** The tab's own "create" action. */
  primaryAction?: { content: string; onAction(): void; disabled?: boolean; helpText?: string };
  children: ReactNode;
}

/** /notification/<tab>: the page with its tabs (messages, campaigns, templates); each tab is its own address. */
export function NotificationsShell({ tab, primaryAction, children }: NotificationsShellProps) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const { applicationId } = useCurrentApplication();
  // /notification only redirects here: it keeps no visited-view tab of its own.
  useEffect(() => {
    useAppStore.getState().removeVisitedView(`/application/${encodeURIComponent(applicationId)}/notification`);
  }, [applicationId]);
  const tabs = NOTIFICATION_TABS.map((id) => ({ id, content: t(`notificationUi.tabs.${id}`), accessibilityLabel: t(`notificationUi.tabs.${id}`) }));
  return (
    <Page
      title={t('menu.notifications')}
      subtitle={t(`notificationUi.tabs.${tab}Help`)}
      primaryAction={primaryAction}
      secondaryActions={[{ content: t('menu.messages'), url: '/message' }]}
    >
      <BlockStack gap="400">
        <Tabs tabs={tabs} selected={NOTIFICATION_TABS.indexOf(tab)} onSelect={(index) => navigate(`/notification/${NOTIFICATION_TABS[index]}`)} fitted={false} />
        {children}
      </BlockStack>
    </Page>
  );
}
