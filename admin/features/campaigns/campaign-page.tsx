import { BlockStack, Card, EmptyState, Page } from '@shopify/polaris';
import { DeleteIcon, EditIcon, PlusIcon } from '@shopify/polaris-icons';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useParams } from 'wouter';
import { Campaign, Notification, page } from '../../../shared/contract';
import { isViewerOnly } from '../../../shared/permissions';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { EMPTY_ILLUSTRATION } from '../../components/empty-illustration';
import { LoadFailedPage, PageSkeleton, QueryState, recordLoadFailure, recordId } from '../../components/query-state';
import { useAppStore } from '../../stores/store';
import { isLive, useLiveRefresh } from '../notifications/notification-bits';
import { NotificationTable } from '../notifications/notification-table';
import { StatCards, useStatsCards } from '../notifications/stat-cards';
import { TypePickerModal } from '../notifications/type-picker-modal';
import { useNotificationActions } from '../notifications/use-notification-actions';
import { CampaignFormModal, DeleteCampaignModal } from './campaign-modals';

const PAGE_SIZE = 20;
const NotificationPage = page(Notification);

/**
 * /campaign/:campaign_id: a named group of messages with their totals, its messages (new ones start in it),
 * edit, and delete once its name is typed (spec §5).
 */
export function CampaignPage() {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const { campaign_id: campaignParam = '' } = useParams<{ campaign_id: string }>();
  const [, navigate] = useLocation();
  const readOnly = isViewerOnly(useAppStore((state) => state.roles));
  const showToast = useAppStore((state) => state.showToast);
  const [pageNumber, setPageNumber] = useState(1);
  const [dialog, setDialog] = useState<'edit' | 'delete' | 'pick' | null>(null);
  const campaignId = recordId(campaignParam);
  const base = `/application/${encodeURIComponent(applicationId)}`;
  const path = `${base}/campaign/${campaignParam}`;

  const campaign = useApiQuery(campaignId !== null ? path : null, Campaign, undefined, { showsFailure: true });
  const messages = useApiQuery(campaignId !== null ? `${base}/notification` : null, NotificationPage, { campaign_id: campaignId ?? undefined, page: pageNumber, limit: PAGE_SIZE }, { showsFailure: true });
  const items = messages.data?.items ?? [];
  const live = items.some((message) => isLive(message.status));
  const reloadAll = () => {
    messages.reload();
    campaign.reload();
  };
  useLiveRefresh(live, reloadAll);
  const actions = useNotificationActions(applicationId, reloadAll);
  const cards = useStatsCards(campaign.data?.stats ?? { targeted: 0, sent: 0, delivered: 0, failed: 0, clicked: 0 });
  const backAction = { content: t('notificationUi.tabs.campaign'), url: '/notification/campaign' };

  if (campaignId === null || (campaign.error && !campaign.data)) {
    return (
      <LoadFailedPage
        title={t('menu.campaign')}
        backAction={backAction}
        {...recordLoadFailure(campaign.error, t('campaignUi.page.notFound'), campaign.reload)}
      />
    );
  }
  if (!campaign.data) {
    return (
      <PageSkeleton title={t('menu.campaign')} backAction primaryAction />
    );
  }
  const data = campaign.data;

  return (
    <Page
      title={data.name}
      subtitle={data.description || t('campaignUi.page.messagesCount', { count: data.messages })}
      backAction={backAction}
      primaryAction={{ content: t('campaignUi.page.newMessage'), icon: PlusIcon, disabled: readOnly, onAction: () => setDialog('pick') }}
      secondaryActions={[
        { content: t('campaignUi.page.edit'), icon: EditIcon, disabled: readOnly, onAction: () => setDialog('edit') },
        { content: t('common.delete'), icon: DeleteIcon, destructive: true, disabled: readOnly, onAction: () => setDialog('delete') },
      ]}
    >
      <BlockStack gap="400">
        <StatCards cards={cards} />
        <Card padding="0">
          <QueryState query={messages} lines={5}>
            {() => (
              <NotificationTable
                items={items}
                total={messages.data?.total}
                page={pageNumber}
                pageSize={PAGE_SIZE}
                onPage={setPageNumber}
                loading={messages.loading}
                actions={actions}
                emptyState={
                  <EmptyState
                    heading={t('campaignUi.page.emptyTitle')}
                    image={EMPTY_ILLUSTRATION}
                    action={readOnly ? undefined : { content: t('campaignUi.page.newMessage'), onAction: () => setDialog('pick') }}
                  >
                    <p>{t('campaignUi.page.emptyBody')}</p>
                  </EmptyState>
                }
              />
            )}
          </QueryState>
        </Card>
      </BlockStack>
      {actions.dialogs}
      {dialog === 'pick' ? <TypePickerModal campaignId={data.id} onClose={() => setDialog(null)} /> : null}
      {dialog === 'edit' ? (
        <CampaignFormModal
          applicationId={applicationId}
          campaign={data}
          onClose={() => setDialog(null)}
          onSaved={() => {
            setDialog(null);
            campaign.reload();
          }}
        />
      ) : null}
      {dialog === 'delete' ? (
        <DeleteCampaignModal
          applicationId={applicationId}
          campaign={data}
          onClose={() => setDialog(null)}
          onDone={() => {
            showToast(t('campaignUi.delete.done', { name: data.name }));
            useAppStore.getState().removeVisitedView(`/application/${encodeURIComponent(applicationId)}/campaign/${data.id}`);
            navigate('/notification/campaign', { replace: true });
          }}
        />
      ) : null}
    </Page>
  );
}
