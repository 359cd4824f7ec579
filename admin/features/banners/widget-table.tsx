import {
  Badge,
  BlockStack,
  Button,
  ButtonGroup,
  Card,
  EmptyState,
  IndexTable,
  InlineStack,
  Text,
  useBreakpoints,
} from '@shopify/polaris';
import { DeleteIcon, EditIcon } from '@shopify/polaris-icons';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { Widget, type WidgetType, page } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { isViewerOnly } from '../../../shared/permissions';
import { api } from '../../api';
import { useApiQuery } from '../../api/use-api-query';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { useAppStore } from '../../stores/store';
import { QueryState, usePagination } from '../../components/query-state';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { useLanguage, useAbbreviateNumber } from '../../app/i18n';

const PAGE_SIZE = 20;
const WidgetPage = page(Widget);

export interface WidgetTableProps {
  applicationId: string;
  /** The widget types this list shows. */
  types: readonly WidgetType[];
  /** The editor of a widget (a console path). */
  editUrl(widget: Widget): string;
  /** Where "create" leads. */
  createUrl: string;
  /** i18n keys of the empty state. */
  emptyTitleKey: string;
  emptyBodyKey: string;
  createLabelKey: string;
  /** Show each widget's type (the banner list mixes four). */
  showType?: boolean;
}

/** A widget's on/off switch in a row: its name says which widget it switches. */
function RowSwitch({ label, checked, busy, disabled, onChange }: { label: string; checked: boolean; busy: boolean; disabled: boolean; onChange(on: boolean): void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      aria-busy={busy}
      disabled={disabled || busy}
      className="nudge-switch-control"
      onClick={(event) => {
        // The row opens the editor when clicked; the switch only switches.
        event.stopPropagation();
        onChange(!checked);
      }}
    />
  );
}

/**
 * A list of widgets (/banner, /suggestion, /fake_noti): name and type, on/off, views, clicks and leads, dates;
 * switch on or off in place, edit, delete after a confirmation.
 */
export function WidgetTable({ applicationId, types, editUrl, createUrl, emptyTitleKey, emptyBodyKey, createLabelKey, showType }: WidgetTableProps) {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const { smDown } = useBreakpoints();
  const roles = useAppStore((state) => state.roles);
  const showToast = useAppStore((state) => state.showToast);
  const readOnly = isViewerOnly(roles);
  const [pageNumber, setPageNumber] = useState(1);
  const [switching, setSwitching] = useState<number | null>(null);
  const [removing, setRemoving] = useState<Widget | null>(null);
  const lang = useLanguage();

  const base = `/application/${encodeURIComponent(applicationId)}/widget`;
  const query = useMemo(() => ({ page: pageNumber, limit: PAGE_SIZE, types: types.join(',') }), [pageNumber, types]);
  const list = useApiQuery(base, WidgetPage, query, { showsFailure: true });
  const items = list.data?.items ?? [];
  const pagination = usePagination(t, pageNumber, list.data?.total, PAGE_SIZE, setPageNumber);

  async function setStatus(widget: Widget, on: boolean) {
    setSwitching(widget.id);
    try {
      // Failures (a plan cap, no permission) are shown by the client as a toast.
      await api.post(`${base}/${widget.id}/status`, { status: on ? 'active' : 'inactive' }, Widget);
      showToast(t(on ? 'widgets.list.switchedOn' : 'widgets.list.switchedOff', { name: widget.name }));
      list.reload();
    } catch {
      // already shown
    } finally {
      setSwitching(null);
    }
  }

  const date = (value: string) => formatDate(value, '{y}-{m}-{d}', { lang });

  function dates(widget: Widget) {
    const { start_at: start, end_at: end } = widget.rules;
    const window =
      start && end
        ? t('widgets.list.window', { start: date(start), end: date(end) })
        : start
          ? t('widgets.list.from', { start: date(start) })
          : end
            ? t('widgets.list.until', { end: date(end) })
            : null;
    return (
      <BlockStack gap="050">
        <Text as="span" variant="bodySm">
          {t('widgets.list.created', { date: date(widget.created) })}
        </Text>
        {window ? (
          <Text as="span" variant="bodySm" tone="subdued">
            {window}
          </Text>
        ) : null}
      </BlockStack>
    );
  }

  function actions(widget: Widget) {
    return (
      // The row opens the editor when clicked; the buttons in it do only their own thing.
      <div onClick={(event) => event.stopPropagation()}>
        <ButtonGroup>
          <Button
            variant="tertiary"
            icon={EditIcon}
            accessibilityLabel={t(readOnly ? 'widgets.list.view' : 'widgets.list.edit', { name: widget.name })}
            onClick={() => navigate(editUrl(widget))}
          />
          <Button
            variant="tertiary"
            tone="critical"
            icon={DeleteIcon}
            disabled={readOnly}
            accessibilityLabel={t('widgets.list.delete', { name: widget.name })}
            onClick={() => setRemoving(widget)}
          />
        </ButtonGroup>
      </div>
    );
  }

  function status(widget: Widget) {
    return (
      <InlineStack gap="200" blockAlign="center" wrap={false}>
        <RowSwitch
          label={t('widgets.list.toggle', { name: widget.name })}
          checked={widget.status === 'active'}
          busy={switching === widget.id}
          disabled={readOnly}
          onChange={(on) => void setStatus(widget, on)}
        />
        <Badge tone={widget.status === 'active' ? 'success' : undefined}>
          {t(widget.status === 'active' ? 'widgets.status.active' : 'widgets.status.inactive')}
        </Badge>
      </InlineStack>
    );
  }

  function name(widget: Widget) {
    return (
      <BlockStack gap="050">
        <Text as="span" fontWeight="semibold" truncate>
          {widget.name}
        </Text>
        {showType ? (
          <Text as="span" tone="subdued" variant="bodySm">
            {t(`widgets.types.${widget.type}`)}
          </Text>
        ) : null}
      </BlockStack>
    );
  }

  const counters = (widget: Widget) =>
    t('widgets.list.counters', {
      views: abbreviate(widget.views),
      clicks: abbreviate(widget.clicks),
      leads: abbreviate(widget.leads),
    });

  const rows = items.map((widget, index) =>
    smDown ? (
      <IndexTable.Row id={String(widget.id)} key={widget.id} position={index} onClick={() => navigate(editUrl(widget))}>
        <div style={{ padding: '12px 16px' }}>
          <BlockStack gap="200">
            <InlineStack align="space-between" blockAlign="start" wrap={false} gap="200">
              {name(widget)}
              {actions(widget)}
            </InlineStack>
            {status(widget)}
            <Text as="span" tone="subdued" variant="bodySm">
              {counters(widget)}
            </Text>
            {dates(widget)}
          </BlockStack>
        </div>
      </IndexTable.Row>
    ) : (
      <IndexTable.Row id={String(widget.id)} key={widget.id} position={index} onClick={() => navigate(editUrl(widget))}>
        <IndexTable.Cell>{name(widget)}</IndexTable.Cell>
        <IndexTable.Cell>{status(widget)}</IndexTable.Cell>
        <IndexTable.Cell>
          <Text as="span" alignment="end" numeric>
            {abbreviate(widget.views)}
          </Text>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <Text as="span" alignment="end" numeric>
            {abbreviate(widget.clicks)}
          </Text>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <Text as="span" alignment="end" numeric>
            {abbreviate(widget.leads)}
          </Text>
        </IndexTable.Cell>
        <IndexTable.Cell>{dates(widget)}</IndexTable.Cell>
        <IndexTable.Cell>{actions(widget)}</IndexTable.Cell>
      </IndexTable.Row>
    ),
  );

  return (
    <>
      <Card padding="0">
        <QueryState query={list} lines={5}>
          {() => (
            <IndexTable
              resourceName={{ singular: t('widgets.list.one'), plural: t('widgets.list.other') }}
              itemCount={items.length}
              selectable={false}
              condensed={smDown}
              loading={list.loading}
              emptyState={
                <EmptyState
                  heading={t(emptyTitleKey)}
                  image={EMPTY_ILLUSTRATION}
                  action={readOnly ? undefined : { content: t(createLabelKey), onAction: () => navigate(createUrl) }}
                >
                  <p>{t(emptyBodyKey)}</p>
                </EmptyState>
              }
              headings={[
                { title: t('widgets.list.columns.name') },
                { title: t('widgets.list.columns.status') },
                { title: t('widgets.list.columns.views'), alignment: 'end' },
                { title: t('widgets.list.columns.clicks'), alignment: 'end' },
                { title: t('widgets.list.columns.leads'), alignment: 'end' },
                { title: t('widgets.list.columns.dates') },
                { title: t('widgets.list.columns.actions') },
              ]}
              pagination={pagination}
            >
              {rows}
            </IndexTable>
          )}
        </QueryState>
      </Card>
      {removing ? (
        <DeleteWidgetModal
          path={`${base}/${removing.id}`}
          widget={removing}
          onClose={() => setRemoving(null)}
          onDone={() => {
            showToast(t('widgets.delete.done', { name: removing.name }));
            setRemoving(null);
            // The last row of a later page gone: step back so the screen isn't an empty page.
            if (items.length === 1 && pageNumber > 1) setPageNumber((n) => n - 1);
            else list.reload();
          }}
        />
      ) : null}
    </>
  );
}

interface DeleteWidgetModalProps {
  path: string;
  widget: Widget;
  onClose(): void;
  onDone(): void;
}

/** The confirmation before a widget goes: it can't be undone; its leads stay in the report. */
function DeleteWidgetModal({ path, widget, onClose, onDone }: DeleteWidgetModalProps) {
  const { t } = useTranslation();
  return (
    <ConfirmDeleteModal
      path={path}
      title={t('widgets.delete.title', { name: widget.name })}
      body={t('widgets.delete.body', { name: widget.name })}
      onClose={onClose}
      onDone={onDone}
    />
  );
}
