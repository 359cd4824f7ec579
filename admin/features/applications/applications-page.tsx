import {
  Badge,
  BlockStack,
  Box,
  Button,
  Card,
  EmptySearchResult,
  EmptyState,
  Icon,
  IndexTable,
  InlineStack,
  Link,
  Page,
  Text,
  TextField,
  useBreakpoints,
} from '@shopify/polaris';
import { ClipboardIcon, EditIcon, PlusIcon, SearchIcon } from '@shopify/polaris-icons';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Application, page } from '../../../shared/contract';
import { formatDate } from '../../../shared/format';
import { useApiQuery } from '../../api/use-api-query';
import { copyText } from '../../components/clipboard';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { useDebouncedValue } from '../../components/use-debounced-value';
import { ROLE_LABEL_KEYS, sidebarRoutes } from '../../../shared/permissions';
import { useAppStore } from '../../stores/store';
import { CreateApplicationModal } from './create-application-modal';
import { EditApplicationModal } from './edit-application-modal';
import { QueryState, usePagination } from '../../components/query-state';
import { useLanguage, useAbbreviateNumber } from '../../app/i18n';

const PAGE_SIZE = 20;
const ApplicationPage = page(Application);

/**
 * Where opening an application leads: its dashboard once that exists; until then the team screen (issue 2),
 * or, for a role that may not see the team, the first menu screen it may see. Null when the role has no
 * screen at all: a link that could only end on /401 is not offered.
 */
export function applicationHome(application: Pick<Application, 'application_id' | 'role'>): string | null {
  const screens = sidebarRoutes({ roles: application.role ? [application.role] : [] });
  const home = screens.find((route) => route.path === '/') ?? screens.find((route) => route.path === '/permission') ?? screens[0];
  if (!home) return null;
  const base = `/application/${encodeURIComponent(application.application_id)}`;
  return home.path === '/' ? base : `${base}${home.path}`;
}

function PlatformBadges({ platforms }: { platforms: readonly string[] }) {
  const { t } = useTranslation();
  if (platforms.length === 0) {
    return (
      <Text as="span" tone="subdued">
        {t('applications.noPlatforms')}
      </Text>
    );
  }
  return (
    <InlineStack gap="100" wrap>
      {platforms.map((platform) => (
        <Badge key={platform}>{t(`applications.platforms.${platform}`, { defaultValue: platform })}</Badge>
      ))}
    </InlineStack>
  );
}

function ClientKey({ application }: { application: Application }) {
  const { t } = useTranslation();
  const showToast = useAppStore((state) => state.showToast);
  async function copy() {
    const copied = await copyText(application.client_key);
    showToast(copied ? t('common.copied') : t('common.unknownError'), { error: !copied });
  }
  return (
    // The row opens the application on click; the copy button must not.
    <div onClick={(event) => event.stopPropagation()} style={{ display: 'flex', alignItems: 'center', gap: 4 }}>
      <span className="nudge-mono" style={{ overflow: 'hidden', textOverflow: 'ellipsis', maxWidth: 160 }}>
        {application.client_key}
      </span>
      <Button
        variant="tertiary"
        size="slim"
        icon={ClipboardIcon}
        accessibilityLabel={t('applications.copyKey', { name: application.name })}
        onClick={copy}
      />
    </div>
  );
}

/** The application list (spec §2): name, total users, platforms, created, client key; search, pages, create. */
export function ApplicationsPage() {
  const abbreviate = useAbbreviateNumber();
  const { t } = useTranslation();
  const lang = useLanguage();
  const { smDown } = useBreakpoints();
  const [pageNumber, setPageNumber] = useState(1);
  const [searchText, setSearchText] = useState('');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Application | null>(null);
  const q = useDebouncedValue(searchText.trim(), 300);
  const setAppName = useAppStore((state) => state.setAppName);

  useEffect(() => setPageNumber(1), [q]);

  const query = useMemo(() => ({ page: pageNumber, limit: PAGE_SIZE, q: q || undefined }), [pageNumber, q]);
  const list = useApiQuery('/application', ApplicationPage, query, { showsFailure: true });
  const items = list.data?.items ?? [];
  const pagination = usePagination(t, pageNumber, list.data?.total, PAGE_SIZE, setPageNumber);

  const createAction = {
    content: t('applications.create.open'),
    icon: PlusIcon,
    onAction: () => setCreating(true),
  };

  const emptyState = q ? (
    <EmptySearchResult title={t('applications.emptySearch.title')} description={t('applications.emptySearch.body', { q })} withIllustration />
  ) : (
    <EmptyState heading={t('applications.empty.title')} action={createAction} image={EMPTY_ILLUSTRATION}>
      <p>{t('applications.empty.body')}</p>
    </EmptyState>
  );

  const rows = items.map((application, index) => {
    const created = formatDate(application.created, '{y}-{m}-{d}', { lang });
    const home = applicationHome(application);
    const title = (
      <Text as="span" fontWeight="semibold">
        {application.name}
      </Text>
    );
    const name = (
      <InlineStack gap="200" blockAlign="center" wrap={false}>
        {home ? (
          <Link
            dataPrimaryLink
            monochrome
            removeUnderline
            url={home}
            onClick={() => setAppName({ id: application.application_id, name: application.name })}
            accessibilityLabel={t('applications.openApp', { name: application.name })}
          >
            {title}
          </Link>
        ) : (
          <span title={t('applications.nothingToOpen')}>{title}</span>
        )}
        {application.role ? <Badge tone={application.role === 'super_user' ? 'info' : undefined}>{t(ROLE_LABEL_KEYS[application.role])}</Badge> : null}
        <div onClick={(event) => event.stopPropagation()}>
          <Button
            variant="tertiary"
            size="slim"
            icon={EditIcon}
            accessibilityLabel={t('applications.edit.open', { name: application.name })}
            onClick={() => setEditing(application)}
          />
        </div>
      </InlineStack>
    );
    if (smDown) {
      return (
        <IndexTable.Row id={application.application_id} key={application.application_id} position={index}>
          <div style={{ padding: '12px 16px' }}>
            <BlockStack gap="150">
              <InlineStack align="space-between" blockAlign="center" wrap={false} gap="200">
                {name}
                <Text as="span" tone="subdued" variant="bodySm">
                  {created}
                </Text>
              </InlineStack>
              <Text as="span" tone="subdued" variant="bodySm">
                <span className="nudge-mono">{application.application_id}</span> · {t('applications.usersCount', { count: abbreviate(application.total_users) })}
              </Text>
              <PlatformBadges platforms={application.platforms} />
              <ClientKey application={application} />
            </BlockStack>
          </div>
        </IndexTable.Row>
      );
    }
    return (
      <IndexTable.Row id={application.application_id} key={application.application_id} position={index}>
        <IndexTable.Cell>
          <BlockStack gap="050">
            {name}
            <Text as="span" tone="subdued" variant="bodySm">
              <span className="nudge-mono">{application.application_id}</span>
            </Text>
          </BlockStack>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <Text as="span" alignment="end" numeric>
            {abbreviate(application.total_users)}
          </Text>
        </IndexTable.Cell>
        <IndexTable.Cell>
          <PlatformBadges platforms={application.platforms} />
        </IndexTable.Cell>
        <IndexTable.Cell>{created}</IndexTable.Cell>
        <IndexTable.Cell>
          <ClientKey application={application} />
        </IndexTable.Cell>
      </IndexTable.Row>
    );
  });

  return (
    <Page title={t('applications.title')} subtitle={t('applications.subtitle')} primaryAction={{ ...createAction, icon: undefined }}>
      <Card padding="0">
        <Box padding="300" borderBlockEndWidth="025" borderColor="border-secondary">
          <TextField
            label={t('applications.search')}
            labelHidden
            placeholder={t('applications.searchPlaceholder')}
            value={searchText}
            onChange={setSearchText}
            prefix={<Icon source={SearchIcon} tone="subdued" />}
            clearButton
            onClearButtonClick={() => setSearchText('')}
            autoComplete="off"
          />
        </Box>
        <QueryState query={list} lines={6}>
          {() => (
            <IndexTable
              resourceName={{ singular: t('applications.resource.one'), plural: t('applications.resource.other') }}
              itemCount={items.length}
              selectable={false}
              condensed={smDown}
              loading={list.loading}
              emptyState={emptyState}
              headings={[
                { title: t('applications.columns.name') },
                { title: t('applications.columns.totalUsers'), alignment: 'end' },
                { title: t('applications.columns.platforms') },
                { title: t('applications.columns.created') },
                { title: t('applications.columns.clientKey') },
              ]}
              pagination={pagination}
            >
              {rows}
            </IndexTable>
          )}
        </QueryState>
      </Card>
      {editing ? (
        <EditApplicationModal
          application={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            useAppStore.getState().showToast(t('common.success'));
            list.reload();
          }}
        />
      ) : null}
      {creating ? (
        <CreateApplicationModal
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            useAppStore.getState().showToast(t('common.success'));
            setSearchText('');
            setPageNumber(1);
            list.reload();
          }}
        />
      ) : null}
    </Page>
  );
}
