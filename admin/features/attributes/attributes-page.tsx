import { BlockStack, Button, ButtonGroup, Card, EmptyState, IndexTable, InlineStack, Link, Page, Text, useBreakpoints } from '@shopify/polaris';
import { DeleteIcon, EditIcon, PlusIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AttributeDefinition, page } from '../../../shared/contract';
import { useFormatNumber, useAbbreviateNumber } from '../../app/i18n';
import { AREA_ROLES, canAccessRoute, isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { QueryState, usePagination } from '../../components/query-state';
import { useAppStore } from '../../stores/store';
import { AttributeTypeBadge, PropertyBadge } from '../../components/attribute-type-badge';
import { AttributeModal, DeleteAttributeModal } from './attribute-modals';
import { attributeSegmentUrl } from '../segments/segment-editor-model';

const PAGE_SIZE = 20;
const AttributePage = page(AttributeDefinition);

type Dialog = { kind: 'create' } | { kind: 'edit'; attribute: AttributeDefinition } | { kind: 'delete'; attribute: AttributeDefinition };

/** /attribute: the attribute definitions (text, number, boolean, date) the segment editor and templates use. */
export function AttributesPage() {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const number = useFormatNumber();
  const { applicationId } = useCurrentApplication();
  const { smDown } = useBreakpoints();
  const showToast = useAppStore((state) => state.showToast);
  const roles = useAppStore((state) => state.roles);
  const readOnly = isViewerOnly(roles);
  // The count of players leads to a new segment of them (the attribute exists), for the roles that see segments.
  const seesSegments = canAccessRoute(roles, { roles: AREA_ROLES.segments });
  const [pageNumber, setPageNumber] = useState(1);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const base = `/application/${encodeURIComponent(applicationId)}/attribute`;
  const attributes = useApiQuery(base, AttributePage, { page: pageNumber, limit: PAGE_SIZE }, { showsFailure: true });
  const items = attributes.data?.items ?? [];
  const pagination = usePagination(t, pageNumber, attributes.data?.total, PAGE_SIZE, setPageNumber);

  function done(message: string) {
    setDialog(null);
    showToast(message);
    attributes.reload();
  }

  function actions(attribute: AttributeDefinition) {
    return (
      <ButtonGroup noWrap>
        <Button
          variant="tertiary"
          icon={EditIcon}
          disabled={readOnly}
          accessibilityLabel={t('attributes.actions.edit', { name: attribute.name })}
          onClick={() => setDialog({ kind: 'edit', attribute })}
        />
        <Button
          variant="tertiary"
          tone="critical"
          icon={DeleteIcon}
          disabled={readOnly}
          accessibilityLabel={t('attributes.actions.delete', { name: attribute.name })}
          onClick={() => setDialog({ kind: 'delete', attribute })}
        />
      </ButtonGroup>
    );
  }

  const source = (attribute: AttributeDefinition) => t(`attributes.sources.${attribute.source}`);
  const players = (attribute: AttributeDefinition, text: string) =>
    seesSegments ? (
      <Link url={attributeSegmentUrl(attribute.name, attribute.type)} accessibilityLabel={t('attributes.playersWith', { name: attribute.name })}>
        {text}
      </Link>
    ) : (
      text
    );
  const rows = items.map((attribute, index) =>
    smDown ? (
      <IndexTable.Row id={String(attribute.id)} key={attribute.id} position={index}>
        <div style={{ padding: '12px 16px' }}>
          <InlineStack align="space-between" blockAlign="start" gap="200" wrap={false}>
            <BlockStack gap="100">
              <PropertyBadge name={attribute.name} type={attribute.type} />
              <Text as="span" tone="subdued" variant="bodySm">
                {source(attribute)} · {players(attribute, t('attributes.playersCount', { count: attribute.players, players: abbreviate(attribute.players) }))}
              </Text>
              {attribute.description ? <Text as="p">{attribute.description}</Text> : null}
            </BlockStack>
            {actions(attribute)}
          </InlineStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(attribute.id)} key={attribute.id} position={index}>
        <IndexTable.Cell>
          <BlockStack gap="050">
            <Text as="span" fontWeight="semibold">
              <span className="nudge-mono">{attribute.name}</span>
            </Text>
            {attribute.description ? (
              <span className="nudge-cell-note">
                <Text as="span" tone="subdued" variant="bodySm">
                  {attribute.description}
                </Text>
              </span>
            ) : null}
          </BlockStack>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <AttributeTypeBadge type={attribute.type} />
        </IndexTable.Cell>
        <IndexTable.Cell>{source(attribute)}</IndexTable.Cell>
        <IndexTable.Cell>
          <span title={number(attribute.players)}>
            <Text as="span" numeric alignment="end">
              {players(attribute, abbreviate(attribute.players))}
            </Text>
          </span>
        </IndexTable.Cell>
        <IndexTable.Cell>{actions(attribute)}</IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  const createAction = {
    content: t('attributes.create.open'),
    icon: PlusIcon,
    disabled: readOnly,
    helpText: readOnly ? t('errors.NO_PERMISSION') : undefined,
    onAction: () => setDialog({ kind: 'create' }),
  };

  // An empty list offers the first attribute in its empty state: the page's header does not offer it a second time.
  // (A viewer's empty state has no button; the header's disabled one says why.)
  const offeredByEmptyState = !readOnly && attributes.data?.total === 0;

  return (
    <Page title={t('menu.attributes')} subtitle={t('attributes.subtitle')} primaryAction={offeredByEmptyState ? undefined : createAction}>
      <Card padding="0">
        <QueryState query={attributes} lines={5}>
          {() => (
            <IndexTable
              resourceName={{ singular: t('attributes.one'), plural: t('attributes.other') }}
              itemCount={items.length}
              selectable={false}
              condensed={smDown}
              loading={attributes.loading}
              emptyState={
                <EmptyState
                  heading={t('attributes.empty.title')}
                  image={EMPTY_ILLUSTRATION}
                  action={readOnly ? undefined : { content: t('attributes.create.open'), onAction: () => setDialog({ kind: 'create' }) }}
                >
                  <p>{t('attributes.empty.body')}</p>
                </EmptyState>
              }
              headings={[
                { title: t('attributes.columns.name') },
                { title: t('attributes.columns.type') },
                { title: t('attributes.columns.source') },
                { title: t('attributes.columns.players'), alignment: 'end' },
                { title: t('attributes.columns.actions') },
              ]}
              pagination={pagination}
            >
              {rows}
            </IndexTable>
          )}
        </QueryState>
      </Card>
      {dialog?.kind === 'create' ? (
        <AttributeModal base={base} onClose={() => setDialog(null)} onDone={(attribute) => done(t('attributes.create.done', { name: attribute.name }))} />
      ) : null}
      {dialog?.kind === 'edit' ? (
        <AttributeModal base={base} attribute={dialog.attribute} onClose={() => setDialog(null)} onDone={() => done(t('common.changed'))} />
      ) : null}
      {dialog?.kind === 'delete' ? (
        <DeleteAttributeModal
          base={base}
          attribute={dialog.attribute}
          onClose={() => setDialog(null)}
          onDone={() => done(t('attributes.delete.done', { name: dialog.attribute.name }))}
        />
      ) : null}
    </Page>
  );
}
