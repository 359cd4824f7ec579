import {
  Badge,
  Banner,
  BlockStack,
  Button,
  ButtonGroup,
  Card,
  EmptyState,
  IndexTable,
  InlineStack,
  Page,
  Text,
  Tooltip,
  useBreakpoints,
} from '@shopify/polaris';
import { DeleteIcon, EditIcon, PersonAddIcon } from '@shopify/polaris-icons';
import { type ReactElement, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AssignableRoles, TeamMember, page } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { ROLE_LABEL_KEYS, assignableRoles, isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { useAppStore } from '../../stores/store';
import { EditMemberModal, InviteMemberModal, RemoveMemberModal } from './member-modals';
import { QueryState, usePagination } from '../../components/query-state';
import { useLanguage } from '../../app/i18n';

const PAGE_SIZE = 20;
const MemberPage = page(TeamMember);

type Dialog =
  | { kind: 'invite' }
  | { kind: 'edit'; member: TeamMember }
  | { kind: 'remove'; member: TeamMember };

/** Wraps a disabled control in a tooltip that says why it is disabled. */
function Explained({ reason, children }: { reason: string | null; children: ReactElement }) {
  return reason ? <Tooltip content={reason}>{children}</Tooltip> : children;
}

/**
 * The team of one application (/application/:id/permission, spec §2, §3, §7): email, role, organization,
 * joined; invite, change role and remove with a confirmation. Controls the user may not use are disabled
 * and say why; the server refuses them anyway.
 */
export function TeamPage() {
  const { t } = useTranslation();
  const { applicationId, application } = useCurrentApplication();
  const { smDown } = useBreakpoints();
  const roles = useAppStore((state) => state.roles);
  const myId = useAppStore((state) => state.user?.id);
  const showToast = useAppStore((state) => state.showToast);
  const [pageNumber, setPageNumber] = useState(1);
  const [dialog, setDialog] = useState<Dialog | null>(null);

  const canManage = !isViewerOnly(roles) && assignableRoles(roles).length > 0;
  const base = `/application/${encodeURIComponent(applicationId)}/user`;
  const query = useMemo(() => ({ page: pageNumber, limit: PAGE_SIZE }), [pageNumber]);
  const members = useApiQuery(base, MemberPage, query, { showsFailure: true });
  const assignable = useApiQuery(canManage ? `${base}/role` : null, AssignableRoles);
  const choices = assignable.data?.roles ?? [];
  const items = members.data?.items ?? [];
  const pagination = usePagination(t, pageNumber, members.data?.total, PAGE_SIZE, setPageNumber);
  const applicationName = application?.name ?? applicationId;
  const lang = useLanguage();

  /** Why this member's role can't be changed or the member removed by this user, or null when it can. */
  function lockedReason(member: TeamMember): string | null {
    if (!canManage) return t('errors.NO_PERMISSION');
    if (member.user_id === myId) return t('errors.ownRole');
    if (assignable.data && !choices.some((choice) => choice.role === member.role)) return t('errors.cannotDoAction');
    return null;
  }

  function done(message: string) {
    setDialog(null);
    showToast(message);
    members.reload();
  }

  const roleLabel = (member: TeamMember) => t(ROLE_LABEL_KEYS[member.role]);

  function actions(member: TeamMember) {
    const reason = lockedReason(member);
    return (
      <ButtonGroup>
        <Explained reason={reason}>
          <Button
            variant="tertiary"
            icon={EditIcon}
            disabled={reason !== null}
            accessibilityLabel={t('team.actions.changeRole', { email: member.email })}
            onClick={() => setDialog({ kind: 'edit', member })}
          />
        </Explained>
        <Explained reason={reason}>
          <Button
            variant="tertiary"
            tone="critical"
            icon={DeleteIcon}
            disabled={reason !== null}
            accessibilityLabel={t('team.actions.remove', { email: member.email })}
            onClick={() => setDialog({ kind: 'remove', member })}
          />
        </Explained>
      </ButtonGroup>
    );
  }

  function who(member: TeamMember) {
    return (
      <BlockStack gap="050">
        <InlineStack gap="200" blockAlign="center" wrap={false}>
          <Text as="span" fontWeight="semibold" truncate>
            {member.email}
          </Text>
          {member.status === 'invited' ? <Badge tone="attention">{t('team.invited')}</Badge> : null}
          {member.user_id === myId ? <Badge>{t('team.you')}</Badge> : null}
        </InlineStack>
        {member.name ? (
          <Text as="span" tone="subdued" variant="bodySm">
            {member.name}
          </Text>
        ) : null}
      </BlockStack>
    );
  }

  const rows = items.map((member, index) => {
    const joined = formatDate(member.joined, '{y}-{m}-{d}', { lang });
    if (smDown) {
      return (
        <IndexTable.Row id={String(member.user_id)} key={member.user_id} position={index}>
          <div style={{ padding: '12px 16px' }}>
            <InlineStack align="space-between" blockAlign="start" wrap={false} gap="200">
              <BlockStack gap="100">
                {who(member)}
                <Text as="span" tone="subdued" variant="bodySm">
                  {[roleLabel(member), member.organization, t('team.joinedOn', { date: joined })].filter(Boolean).join(' · ')}
                </Text>
              </BlockStack>
              {actions(member)}
            </InlineStack>
          </div>
        </IndexTable.Row>
      );
    }
    return (
      <IndexTable.Row id={String(member.user_id)} key={member.user_id} position={index}>
        <IndexTable.Cell>{who(member)}</IndexTable.Cell>
        <IndexTable.Cell>{roleLabel(member)}</IndexTable.Cell>
        <IndexTable.Cell>
          {member.organization ?? (
            <Text as="span" tone="subdued">
              —
            </Text>
          )}
        </IndexTable.Cell>
        <IndexTable.Cell>{joined}</IndexTable.Cell>
        <IndexTable.Cell>{actions(member)}</IndexTable.Cell>
      </IndexTable.Row>
    );
  });

  const inviteAction = {
    content: t('team.invite.open'),
    icon: PersonAddIcon,
    disabled: !canManage || !assignable.data,
    helpText: canManage ? undefined : t('errors.NO_PERMISSION'),
    onAction: () => setDialog({ kind: 'invite' }),
  };

  return (
    <Page title={t('menu.permission')} subtitle={t('team.subtitle', { application: applicationName })} primaryAction={inviteAction}>
      <BlockStack gap="400">
        {!canManage ? (
          <Banner tone="info">
            <p>{t('team.readOnly')}</p>
          </Banner>
        ) : null}
        <Card padding="0">
          <QueryState query={members} lines={5}>
            {() => (
              <IndexTable
                resourceName={{ singular: t('team.resource.one'), plural: t('team.resource.other') }}
                itemCount={items.length}
                selectable={false}
                condensed={smDown}
                loading={members.loading}
                emptyState={
                  <EmptyState
                    heading={t('team.empty.title')}
                    image={EMPTY_ILLUSTRATION}
                    action={canManage ? { content: t('team.invite.open'), onAction: () => setDialog({ kind: 'invite' }) } : undefined}
                  >
                    <p>{t('team.empty.body')}</p>
                  </EmptyState>
                }
                headings={[
                  { title: t('team.columns.email') },
                  { title: t('team.columns.role') },
                  { title: t('team.columns.organization') },
                  { title: t('team.columns.joined') },
                  { title: t('team.columns.actions'), hidden: false },
                ]}
                pagination={pagination}
              >
                {rows}
              </IndexTable>
            )}
          </QueryState>
        </Card>
      </BlockStack>
      {dialog?.kind === 'invite' ? (
        <InviteMemberModal
          applicationId={applicationId}
          roles={choices}
          onClose={() => setDialog(null)}
          onDone={(member) => done(t('team.invite.done', { email: member.email }))}
        />
      ) : null}
      {dialog?.kind === 'edit' ? (
        <EditMemberModal
          applicationId={applicationId}
          member={dialog.member}
          roles={choices}
          onClose={() => setDialog(null)}
          onDone={() => done(t('common.changed'))}
        />
      ) : null}
      {dialog?.kind === 'remove' ? (
        <RemoveMemberModal
          applicationId={applicationId}
          applicationName={applicationName}
          member={dialog.member}
          onClose={() => setDialog(null)}
          onDone={() => done(t('team.remove.done', { email: dialog.member.email }))}
        />
      ) : null}
    </Page>
  );
}
