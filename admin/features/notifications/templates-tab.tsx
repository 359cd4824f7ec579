import { BlockStack, Button, ButtonGroup, Card, ChoiceList, EmptySearchResult, EmptyState, Filters, IndexTable, InlineStack, Text, useBreakpoints } from '@shopify/polaris';
import { DeleteIcon, EditIcon, SendIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { NOTIFICATION_TYPES, type NotificationType, Template, page } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState, usePagination } from '../../components/query-state';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { useAppStore } from '../../stores/store';
import { TypeBadge, typeAvailable } from './notification-bits';
import { NotificationsShell } from './notifications-shell';
import { TemplateEditorModal } from './template-modals';
import { createUrl } from './type-picker-modal';
import { useLanguage } from '../../app/i18n';

const PAGE_SIZE = 20;
const TemplatePage = page(Template);

/** /notification/template: reusable content per type; create, edit, delete, and start a message from one. */
export function TemplatesTab() {
  const { t } = useTranslation();
  const { applicationId, application } = useCurrentApplication();
  const [, navigate] = useLocation();
  const { smDown } = useBreakpoints();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  const showToast = useAppStore((state) => state.showToast);
  const [type, setType] = useState<'all' | NotificationType>('all');
  const [text, setText] = useState('');
  const q = useDebouncedValue(text.trim(), 400);
  const [pageNumber, setPageNumber] = useState(1);
  const [editing, setEditing] = useState<Template | 'new' | null>(null);
  const [removing, setRemoving] = useState<Template | null>(null);
  const lang = useLanguage();
  const base = `/application/${encodeURIComponent(applicationId)}/template`;
  const list = useApiQuery(base, TemplatePage, { page: pageNumber, limit: PAGE_SIZE, type, q: q || undefined }, { showsFailure: true });
  const pagination = usePagination(t, pageNumber, list.data?.total, PAGE_SIZE, setPageNumber);
  const items = list.data?.items ?? [];
  const filtered = type !== 'all' || q !== '';

  function actions(template: Template) {
    return (
      <div onClick={(event) => event.stopPropagation()}>
        <ButtonGroup>
          <Button
            variant="tertiary"
            icon={SendIcon}
            disabled={readOnly || !typeAvailable(template.type, application?.platforms)}
            accessibilityLabel={t('notificationUi.templates.use', { name: template.name })}
            onClick={() => navigate(createUrl(template.type, { templateId: template.id }))}
          />
          <Button variant="tertiary" icon={EditIcon} accessibilityLabel={t('notificationUi.templates.edit', { name: template.name })} onClick={() => setEditing(template)} />
          <Button
            variant="tertiary"
            tone="critical"
            icon={DeleteIcon}
            disabled={readOnly}
            accessibilityLabel={t('notificationUi.templates.delete', { name: template.name })}
            onClick={() => setRemoving(template)}
          />
        </ButtonGroup>
      </div>
    );
  }

  const summary = (template: Template) => template.content.heading || template.content.content;
  const rows = items.map((template, index) =>
    smDown ? (
      <IndexTable.Row id={String(template.id)} key={template.id} position={index} onClick={() => setEditing(template)}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="150">
            <InlineStack align="space-between" blockAlign="start" wrap={false} gap="200">
              <Text as="span" fontWeight="semibold" truncate>
                {template.name}
              </Text>
              {actions(template)}
            </InlineStack>
            <InlineStack gap="200" blockAlign="center">
              <TypeBadge type={template.type} />
              <Text as="span" tone="subdued" variant="bodySm" truncate>
                {summary(template)}
              </Text>
            </InlineStack>
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(template.id)} key={template.id} position={index} onClick={() => setEditing(template)}>
        <IndexTable.Cell>
          <BlockStack gap="050">
            <Text as="span" fontWeight="semibold">
              {template.name}
            </Text>
            <div style={{ maxWidth: 360 }}>
              <Text as="span" tone="subdued" variant="bodySm" truncate>
                {summary(template)}
              </Text>
            </div>
          </BlockStack>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <TypeBadge type={template.type} />
        </IndexTable.Cell>
        <IndexTable.Cell>{formatDate(template.updated_at, '{y}-{m}-{d}', { lang })}</IndexTable.Cell>
        <IndexTable.Cell>{actions(template)}</IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  const create = () => setEditing('new');
  return (
    <NotificationsShell
      tab="template"
      primaryAction={{ content: t('notificationUi.templates.create'), onAction: create, disabled: readOnly, helpText: readOnly ? t('errors.NO_PERMISSION') : undefined }}
    >
      <Card padding="0">
        <Filters
          queryValue={text}
          queryPlaceholder={t('notificationUi.templates.search')}
          onQueryChange={(value) => {
            setText(value);
            setPageNumber(1);
          }}
          onQueryClear={() => setText('')}
          filters={[
            {
              key: 'type',
              label: t('notificationUi.filters.type'),
              shortcut: true,
              filter: (
                <ChoiceList
                  title={t('notificationUi.filters.type')}
                  titleHidden
                  choices={['all', ...NOTIFICATION_TYPES].map((value) => ({ value, label: value === 'all' ? t('notificationUi.filters.all') : t(`notificationUi.types.${value}`) }))}
                  selected={[type]}
                  onChange={(selected) => {
                    setType((selected[0] ?? 'all') as 'all' | NotificationType);
                    setPageNumber(1);
                  }}
                />
              ),
            },
          ]}
          appliedFilters={
            type === 'all'
              ? []
              : [{ key: 'type', label: t('notificationUi.filters.applied.type', { value: t(`notificationUi.types.${type}`) }), onRemove: () => setType('all') }]
          }
          onClearAll={() => {
            setType('all');
            setText('');
          }}
        />
        <QueryState query={list} lines={5}>
          {() => (
            <IndexTable
              resourceName={{ singular: t('notificationUi.templates.one'), plural: t('notificationUi.templates.other') }}
              itemCount={items.length}
              selectable={false}
              condensed={smDown}
              loading={list.loading}
              emptyState={
                filtered ? (
                  <EmptySearchResult title={t('notificationUi.templates.noMatchTitle')} description={t('notificationUi.list.noMatchBody')} withIllustration />
                ) : (
                  <EmptyState
                    heading={t('notificationUi.templates.emptyTitle')}
                    image={EMPTY_ILLUSTRATION}
                    action={readOnly ? undefined : { content: t('notificationUi.templates.create'), onAction: create }}
                  >
                    <p>{t('notificationUi.templates.emptyBody')}</p>
                  </EmptyState>
                )
              }
              headings={[
                { title: t('notificationUi.templates.columns.name') },
                { title: t('notificationUi.templates.columns.type') },
                { title: t('notificationUi.templates.columns.updated') },
                { title: t('notificationUi.list.columns.actions'), hidden: true },
              ]}
              pagination={pagination}
            >
              {rows}
            </IndexTable>
          )}
        </QueryState>
      </Card>
      {editing ? (
        <TemplateEditorModal
          applicationId={applicationId}
          template={editing === 'new' ? undefined : editing}
          readOnly={readOnly}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            list.reload();
          }}
        />
      ) : null}
      {removing ? (
        <ConfirmDeleteModal
          path={`${base}/${removing.id}`}
          title={t('notificationUi.templates.deleteTitle', { name: removing.name })}
          body={t('notificationUi.templates.deleteBody')}
          onClose={() => setRemoving(null)}
          onDone={() => {
            showToast(t('notificationUi.templates.deleted', { name: removing.name }));
            setRemoving(null);
            if (items.length === 1 && pageNumber > 1) setPageNumber((n) => n - 1);
            else list.reload();
          }}
        />
      ) : null}
    </NotificationsShell>
  );
}
