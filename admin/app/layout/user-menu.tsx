import { ActionList, Button, Popover } from '@shopify/polaris';
import type { ActionListItemDescriptor } from '@shopify/polaris';
import {
  AppsIcon,
  BookOpenIcon,
  CodeIcon,
  ExitIcon,
  KeyIcon,
  PersonIcon,
  ShieldCheckMarkIcon,
} from '@shopify/polaris-icons';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { isShopPlatformApplication } from '../../../shared/permissions';
import { useSignOut } from '../../features/auth/use-sign-out';
import { useAppStore } from '../../stores/store';
import { useConsoleLinks } from '../use-console-links';

const SecurityModal = lazy(() =>
  import('../../features/account/security-modal').then((module) => ({ default: module.SecurityModal })),
);

export interface UserMenuProps {
  applicationId: string | undefined;
  /** Show only the icon (narrow screens). */
  compact: boolean;
}

/** The user menu (spec §2): Security, guide, API docs, change password, applications, log out. */
export function UserMenu({ applicationId, compact }: UserMenuProps) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  const [securityOpen, setSecurityOpen] = useState(false);
  const user = useAppStore((state) => state.user);
  const signOut = useSignOut();
  const { guideUrl, apiDocsUrl } = useConsoleLinks();
  const showDocs = !isShopPlatformApplication(applicationId);

  const go = (path: string) => () => {
    setOpen(false);
    navigate(`~${path}`);
  };

  const accountItems: ActionListItemDescriptor[] = [
    {
      content: t('layout.security'),
      icon: ShieldCheckMarkIcon,
      onAction: () => {
        setOpen(false);
        setSecurityOpen(true);
      },
    },
    { content: t('menu.changePassword'), icon: KeyIcon, onAction: go('/change-password') },
    { content: t('menu.applications'), icon: AppsIcon, onAction: go('/application') },
  ];
  const docItems: ActionListItemDescriptor[] = showDocs
    ? [
        ...(guideUrl
          ? [{ content: t('layout.guide'), icon: BookOpenIcon, url: guideUrl, external: true, onAction: () => setOpen(false) }]
          : []),
        { content: t('layout.apiDocs'), icon: CodeIcon, url: apiDocsUrl, external: true, onAction: () => setOpen(false) },
      ]
    : [];

  return (
    <>
      <Popover
        active={open}
        onClose={() => setOpen(false)}
        preferredAlignment="right"
        activator={
          <Button
            variant="tertiary"
            icon={PersonIcon}
            disclosure={compact ? undefined : open ? 'up' : 'down'}
            accessibilityLabel={t('layout.accountMenu')}
            onClick={() => setOpen((value) => !value)}
          >
            {compact ? undefined : (user?.name || user?.email || '')}
          </Button>
        }
      >
        <ActionList
          actionRole="menuitem"
          sections={[
            { title: user?.email, items: accountItems },
            ...(docItems.length > 0 ? [{ items: docItems }] : []),
            {
              items: [
                {
                  content: t('layout.logout'),
                  icon: ExitIcon,
                  destructive: true,
                  onAction: () => {
                    setOpen(false);
                    void signOut();
                  },
                },
              ],
            },
          ]}
        />
      </Popover>
      {securityOpen ? (
        <Suspense fallback={null}>
          <SecurityModal onClose={() => setSecurityOpen(false)} />
        </Suspense>
      ) : null}
    </>
  );
}
