import { BlockStack, Box, Card, Layout, Page, Text, TextField } from '@shopify/polaris';
import { DeleteIcon, SendIcon } from '@shopify/polaris-icons';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useParams, useSearch } from 'wouter';
import { z } from 'zod';
import { SEGMENT_NAME_MAX, SegmentBody, SegmentDetail } from '../../../shared/contract';
import { formatNumber, relativeTime } from '../../../shared/format';
import { AREA_ROLES, canAccessRoute, isViewerOnly } from '../../../shared/permissions';
import { api, isApiError } from '../../api';
import { useApiQuery } from '../../api/use-api-query';
import { useCurrentApplication } from '../../app/application-scope';
import { TimeChart } from '../../components/time-chart';
import { useAppStore } from '../../stores/store';
import { type DraftRule, checkRule, conditionCount, fromRule, startingRule } from './segment-editor-model';
import { LiveCountLine, SegmentEditor, problemsShown, useTouchedRows } from './segment-editor';
import { useLiveCount } from './use-live-count';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal';
import { LoadFailedPage, PageSkeleton, recordLoadFailure, recordId } from '../../components/query-state';
import { SectionCard } from '../../components/section-card';
import { FailureBanner } from '../../components/failure-banner';
import { useFormatDay, useLanguage } from '../../app/i18n';
import { TypePickerModal } from '../notifications/type-picker-modal';
import { useRuleChoices } from './use-rule-choices';
import { usePageLabel } from '../../app/layout/use-page-label';
import { useUnsavedForm } from '../../app/leave-guard';

/** The route parameter of a segment not saved yet. */
export const NEW_SEGMENT = 'new';
/** The name field's id, to take the user back to it when the server refuses the name. */
const NAME_FIELD_ID = 'segment-name';

/** The confirmation before a segment is deleted. */
function DeleteSegmentModal({ path, name, onClose, onDone }: { path: string; name: string; onClose(): void; onDone(): void }) {
  const { t } = useTranslation();
  return <ConfirmDeleteModal path={path} title={t('segments.delete.title')} body={t('segments.delete.body', { name })} onClose={onClose} onDone={onDone} />;
}

/**
 * /segment/:segment_id (`new` for a new one): the segment's name and its rule in the visual editor, the live
 * count of the rule as it is edited, and, once saved, its size over time. Each segment (and each new one, by
 * the event it starts from) gets an editor of its own: one open while another's tab is chosen keeps nothing.
 */
export function SegmentPage() {
  const { segment_id: segmentId = NEW_SEGMENT } = useParams<{ segment_id: string }>();
  const search = useSearch();
  return <SegmentEditorPage key={segmentId === NEW_SEGMENT ? `${segmentId}?${search}` : segmentId} segmentId={segmentId} />;
}

function SegmentEditorPage({ segmentId }: { segmentId: string }) {
  const { t } = useTranslation();
  const { applicationId } = useCurrentApplication();
  const [, navigate] = useLocation();
  const roles = useAppStore((state) => state.roles);
  const showToast = useAppStore((state) => state.showToast);
  const readOnly = isViewerOnly(roles);
  const lang = useLanguage();
  // The size chart's days, as the dashboard's charts name them.
  const day = useFormatDay();
  const isNew = segmentId === NEW_SEGMENT;
  const id = isNew ? null : recordId(segmentId);
  const base = `/application/${encodeURIComponent(applicationId)}`;
  const path = `${base}/segment/${id}`;

  const saved = useApiQuery(id !== null ? path : null, SegmentDetail, undefined, { showsFailure: true });
  const choices = useRuleChoices(base);

  const [name, setName] = useState('');
  const search = useSearch();
  // A new segment may start from an event (the events page's "who did it"); a saved one is filled when loaded.
  const [rule, setRule] = useState<DraftRule>(() => startingRule(isNew ? search : ''));
  // The form as loaded or last saved: leaving with anything else asks first.
  const { markSaved, leaveFreely } = useUnsavedForm({ name, rule }, { ignore: readOnly });
  const [loadedId, setLoadedId] = useState<number | null>(null);
  const [showAllErrors, setShowAllErrors] = useState(false);
  const touchedRows = useTouchedRows();
  const [nameError, setNameError] = useState<string | null>(null);
  // The server's refusal of the name (another segment has it), already in the user's language.
  const [nameRefused, setNameRefused] = useState<string | null>(null);
  const [saveTried, setSaveTried] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [picking, setPicking] = useState(false);
  // Sending to the segment takes the notifications area too (spec §6), and more than viewing.
  const maySend = !readOnly && canAccessRoute(roles, { roles: AREA_ROLES.notifications });

  // The saved segment fills the form once; later reloads (after a save) leave the edits alone.
  useEffect(() => {
    if (saved.data && saved.data.id !== loadedId) {
      setName(saved.data.name);
      const loaded = fromRule(saved.data.rule);
      setRule(loaded);
      markSaved({ name: saved.data.name, rule: loaded });
      setLoadedId(saved.data.id);
      // A saved rule was complete when saved: a problem in it is a rule made stricter since, shown at once. A
      // rule without one stays quiet, so a condition added to it is not called required before it is touched.
      setShowAllErrors(checkRule(loaded).rule === null);
    }
  }, [saved.data, loadedId]);

  const check = useMemo(() => checkRule(rule), [rule]);
  const live = useLiveCount(`${base}/segment/count`, check.rule);

  // The breadcrumb, the window and the tab name the segment (as saved), or say it is a new one.
  usePageLabel(isNew ? t('segments.editor.newTitle') : saved.data?.name);

  async function save() {
    setShowAllErrors(true);
    setSaveTried(true);
    setFailure(null);
    setNameRefused(null);
    const parsed = SegmentBody.safeParse({ name, rule: check.rule ?? { any: [] } });
    const nameIssue = parsed.success ? undefined : parsed.error.issues.find((issue) => issue.path[0] === 'name');
    setNameError(nameIssue ? nameIssue.message : null);
    if (!parsed.success || !check.rule) return;
    setSaving(true);
    try {
      if (isNew) {
        const result = await api.post(`${base}/segment`, parsed.data, z.object({ id: z.number().int() }), { quiet: true });
        showToast(t('segments.editor.created', { name: parsed.data.name }));
        leaveFreely();
        navigate(`/segment/${result.data.id}`, { replace: true });
        // The saved segment takes the place of the "new" one, also among the visited-view tabs.
        useAppStore.getState().removeVisitedView(`${base}/segment/${NEW_SEGMENT}`);
      } else {
        await api.put(path, parsed.data, z.unknown(), { quiet: true });
        showToast(t('common.changed'));
        markSaved({ name, rule });
        saved.reload();
      }
    } catch (cause) {
      const refusal = isApiError(cause) ? cause.fields.find((field) => field.path === 'name') : undefined;
      if (refusal) {
        // Said under the name, where it is changed (CONFLICT: another segment has it), and not again in a banner.
        setNameRefused(refusal.message);
        document.getElementById(NAME_FIELD_ID)?.focus();
      } else {
        setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
      }
    } finally {
      setSaving(false);
    }
  }

  const backAction = { content: t('menu.segments'), onAction: () => navigate('/segment') };

  if (!isNew && (id === null || (saved.error && !saved.data))) {
    return (
      <LoadFailedPage
        title={t('menu.segment')}
        backAction={backAction}
        {...recordLoadFailure(saved.error, t('segments.editor.notFound'), saved.reload)}
      />
    );
  }
  if (!isNew && (!saved.data || loadedId !== saved.data.id)) {
    return (
      <PageSkeleton title={t('menu.segment')} backAction primaryAction />
    );
  }

  const sizes = saved.data?.sizes ?? [];

  return (
    <Page
      title={isNew ? t('segments.editor.newTitle') : saved.data?.name ?? t('menu.segment')}
      backAction={backAction}
      primaryAction={{ content: t('common.save'), onAction: () => void save(), loading: saving, disabled: readOnly }}
      secondaryActions={
        isNew
          ? []
          : [
              ...(maySend ? [{ content: t('segments.sendMessage'), icon: SendIcon, onAction: () => setPicking(true) }] : []),
              { content: t('common.delete'), icon: DeleteIcon, destructive: true, disabled: readOnly, onAction: () => setConfirming(true) },
            ]
      }
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <FailureBanner message={failure} onDismiss={() => setFailure(null)} />
            <Card>
              <TextField
                id={NAME_FIELD_ID}
                label={t('segments.editor.name')}
                value={name}
                onChange={(value) => {
                  setName(value);
                  setNameError(null);
                  setNameRefused(null);
                }}
                autoComplete="off"
                maxLength={SEGMENT_NAME_MAX}
                error={nameError ? t(nameError) : (nameRefused ?? undefined)}
              />
            </Card>
            <SectionCard title={t('segments.editor.rule')} help={t('segments.editor.ruleHelp')}>
              <Box
                position="sticky"
                insetBlockStart="0"
                zIndex="1"
                background="bg-surface"
                paddingBlock="200"
                borderBlockEndWidth="025"
                borderColor="border-secondary"
              >
                <LiveCountLine
                  live={live}
                  marked={problemsShown(rule, check, showAllErrors, touchedRows.touched)}
                  empty={conditionCount(rule) > 0 ? undefined : saveTried ? 'refused' : 'hint'}
                />
              </Box>
              <SegmentEditor
                rule={rule}
                onChange={setRule}
                check={check}
                showAllErrors={showAllErrors}
                touched={touchedRows.touched}
                onTouch={touchedRows.touch}
                attributes={choices.attributes}
                events={choices.events}
                tags={choices.tags}
                reportsEmptyRule={false}
              />
            </SectionCard>
          </BlockStack>
        </Layout.Section>
        {!isNew && saved.data ? (
          <Layout.Section variant="oneThird">
            <SectionCard gap="300" title={t('segments.size.title')}>
              {saved.data.size !== null ? (
                <BlockStack gap="050">
                  <Text as="p" variant="headingLg">
                    {t('segments.size.players', { count: formatNumber(saved.data.size, lang) })}
                  </Text>
                  {saved.data.measured_at ? (
                    <Text as="p" tone="subdued" variant="bodySm">
                      {t('segments.size.measured', { when: relativeTime(saved.data.measured_at, Date.now(), t) })}
                    </Text>
                  ) : null}
                </BlockStack>
              ) : null}
              {sizes.length > 1 ? (
                <TimeChart
                  title={t('segments.size.chart')}
                  days={sizes.map((entry) => entry.day)}
                  series={[{ label: t('segments.size.series'), values: sizes.map((entry) => entry.size) }]}
                  formatDay={day}
                  height={160}
                />
              ) : (
                <Text as="p" tone="subdued">
                  {t('segments.size.noHistory')}
                </Text>
              )}
            </SectionCard>
          </Layout.Section>
        ) : null}
      </Layout>
      {picking && saved.data ? <TypePickerModal segmentId={saved.data.id} onClose={() => setPicking(false)} /> : null}
      {confirming && saved.data ? (
        <DeleteSegmentModal
          path={path}
          name={saved.data.name}
          onClose={() => setConfirming(false)}
          onDone={() => {
            showToast(t('segments.delete.done', { name: saved.data?.name ?? '' }));
            leaveFreely();
            navigate('/segment', { replace: true });
            useAppStore.getState().removeVisitedView(path);
          }}
        />
      ) : null}
    </Page>
  );
}
