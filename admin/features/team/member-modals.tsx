import { BlockStack, Modal, Select, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { type AssignableRoles, InviteMemberBody, TeamMember, UpdateMemberBody } from '../../../shared/contract';
import { type MemberRole, ROLE_LABEL_KEYS } from '../../../shared/permissions';
import { api, isApiError } from '../../api';
import { FormModal, useFormSubmit } from '../../components/form-modal';
import { FailureBanner } from '../../components/failure-banner';

type RoleChoice = AssignableRoles['roles'][number];

function roleOptions(t: (key: string) => string, roles: readonly RoleChoice[]) {
  return roles.map(({ role, label }) => ({ value: role, label: t(label || ROLE_LABEL_KEYS[role]) }));
}

/** The least a new member gets unless chosen otherwise. */
function defaultRole(roles: readonly RoleChoice[]): MemberRole | '' {
  return roles.find((choice) => choice.role === 'viewer')?.role ?? roles[0]?.role ?? '';
}

function memberPath(applicationId: string, userId?: number): string {
  const base = `/application/${encodeURIComponent(applicationId)}/user`;
  return userId === undefined ? base : `${base}/${userId}`;
}

export interface InviteMemberModalProps {
  applicationId: string;
  /** The roles the user may hand out (GET /application/{id}/user/role). */
  roles: readonly RoleChoice[];
  onClose(): void;
  onDone(member: TeamMember): void;
}

/** Invite: email, role, organization. Someone without an account takes the invitation up on registering. */
export function InviteMemberModal({ applicationId, roles, onClose, onDone }: InviteMemberModalProps) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>(defaultRole(roles));
  const [organization, setOrganization] = useState('');
  const form = useFormSubmit(InviteMemberBody, async (body) =>
    onDone((await api.post(memberPath(applicationId), body, TeamMember, { quiet: true })).data),
  );
  const { errors } = form;

  return (
    <FormModal
      title={t('team.invite.title')}
      submitLabel={t('team.invite.submit')}
      form={form}
      onSubmit={() => form.submit({ email, role, organization: organization.trim() || undefined })}
      onClose={onClose}
    >
      <TextField
        label={t('team.fields.email')}
        type="email"
        value={email}
        onChange={setEmail}
        autoComplete="off"
        helpText={t('team.invite.emailHelp')}
        error={errors.email ? t(errors.email) : undefined}
      />
      <Select
        label={t('team.fields.role')}
        options={roleOptions(t, roles)}
        value={role}
        onChange={setRole}
        error={errors.role ? t(errors.role) : undefined}
      />
      <TextField
        label={t('team.fields.organization')}
        value={organization}
        onChange={setOrganization}
        autoComplete="organization"
        helpText={t('team.fields.organizationHelp')}
        error={errors.organization ? t(errors.organization) : undefined}
      />
    </FormModal>
  );
}

export interface EditMemberModalProps {
  applicationId: string;
  member: TeamMember;
  roles: readonly RoleChoice[];
  onClose(): void;
  onDone(): void;
}

/** Change a member's role and organization. */
export function EditMemberModal({ applicationId, member, roles, onClose, onDone }: EditMemberModalProps) {
  const { t } = useTranslation();
  const [role, setRole] = useState<string>(member.role);
  const [organization, setOrganization] = useState(member.organization ?? '');
  const form = useFormSubmit(UpdateMemberBody, async (body) => {
    await api.put(memberPath(applicationId, member.user_id), body, z.unknown(), { quiet: true });
    onDone();
  });
  const { errors } = form;

  return (
    <FormModal
      title={t('team.edit.title', { email: member.email })}
      submitLabel={t('common.save')}
      form={form}
      onSubmit={() => form.submit({ role, organization: organization.trim() })}
      onClose={onClose}
    >
      <Select
        label={t('team.fields.role')}
        options={roleOptions(t, roles)}
        value={role}
        onChange={setRole}
        error={errors.role ? t(errors.role) : undefined}
      />
      <TextField
        label={t('team.fields.organization')}
        value={organization}
        onChange={setOrganization}
        autoComplete="organization"
        error={errors.organization ? t(errors.organization) : undefined}
      />
    </FormModal>
  );
}

export interface RemoveMemberModalProps {
  applicationId: string;
  applicationName: string;
  member: TeamMember;
  onClose(): void;
  onDone(): void;
}

/** The confirmation before a member is removed: it takes effect at once. */
export function RemoveMemberModal({ applicationId, applicationName, member, onClose, onDone }: RemoveMemberModalProps) {
  const { t } = useTranslation();
  const [failure, setFailure] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);

  async function remove() {
    setFailure(null);
    setRemoving(true);
    try {
      await api.delete(memberPath(applicationId, member.user_id), z.unknown(), { quiet: true });
      onDone();
    } catch (cause) {
      setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setRemoving(false);
    }
  }

  return (
    <Modal
      open
      onClose={onClose}
      title={t('team.remove.title')}
      primaryAction={{ content: t('team.remove.submit'), onAction: remove, loading: removing, destructive: true }}
      secondaryActions={[{ content: t('common.cancel'), onAction: onClose, disabled: removing }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
          <Text as="p">{t('team.remove.body', { email: member.email, application: applicationName })}</Text>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
