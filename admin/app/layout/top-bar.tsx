import { Button, Text } from '@shopify/polaris';
import { MenuIcon } from '@shopify/polaris-icons';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from './language-switch';
import { UserMenu } from './user-menu';

export interface TopBarProps {
  /** The title at the left: the application's name, or the page's title outside an application. */
  title: string;
  applicationId: string | undefined;
  mobile: boolean;
  /** Whether the sidebar (or its drawer) is open, for the menu button's state. */
  sidebarOpen: boolean;
  onToggleSidebar(): void;
}

/** The bar over every signed-in page: menu button, application name, language switch, user menu. */
export function TopBar({ title, applicationId, mobile, sidebarOpen, onToggleSidebar }: TopBarProps) {
  const { t } = useTranslation();
  return (
    <header className="nudge-topbar">
      <Button
        variant="tertiary"
        icon={MenuIcon}
        accessibilityLabel={sidebarOpen ? t('layout.closeMenu') : t('layout.openMenu')}
        ariaExpanded={sidebarOpen}
        ariaControls="nudge-sidebar"
        onClick={onToggleSidebar}
      />
      <div className="nudge-topbar-title">
        <Text as="p" variant="headingMd" truncate>
          {title}
        </Text>
      </div>
      <div className="nudge-topbar-actions">
        <LanguageSwitch />
        <UserMenu applicationId={applicationId} compact={mobile} />
      </div>
    </header>
  );
}
