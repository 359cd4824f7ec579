import { Banner, BlockStack, Box, Checkbox, FormLayout, Select, Text } from '@shopify/polaris';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Notification, Segment, type NotificationType, page } from '../../../shared/contract';
import { formatNumber } from '../../../shared/format';
import { AREA_ROLES, canAccessRoute } from '../../../shared/permissions';
import { useAllPages, wholeList } from '../../api/use-api-query';
import { useLanguage } from '../../app/i18n';
import { useAppStore } from '../../stores/store';
import { checkRule, conditionCount } from '../segments/segment-editor-model';
import { LiveCountLine, SegmentEditor, problemsShown, useTouchedRows } from '../segments/segment-editor';
import { useRuleChoices } from '../segments/use-rule-choices';
import { useLiveCount } from '../segments/use-live-count';
import { type NotificationDraft, type Problems, estimateRule, problemText } from './notification-form-model';
import { TagsField } from './tags-field';
import { SectionCard } from '../../components/section-card';

const SegmentPage = page(Segment);

export interface AudienceSectionProps {
  applicationId: string;
  type: NotificationType;
  draft: NotificationDraft;
  /** The saved message's segment as the server named it (null: none, or deleted): shown when the list lacks it. */
  savedSegment: Notification['audience_segment'];
  onChange(patch: Partial<NotificationDraft>): void;
  problems: Problems;
  /** After a refused send: every condition's problem shows, also on rows not touched. */
  showAllErrors: boolean;
  disabled: boolean;
}

/**
 * Who gets the message: a saved segment (or every subscriber of the type's channel), player tags, extra
 * conditions in the segment editor, the promotional flag (spec §9), and a live estimate of the recipients.
 * Segments and the count belong to the segments area (spec §6): without it the audience is everyone.
 */
export function AudienceSection({ applicationId, type, draft, savedSegment, onChange, problems, showAllErrors, disabled }: AudienceSectionProps) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const roles = useAppStore((state) => state.roles);
  const base = `/application/${encodeURIComponent(applicationId)}`;
  const maySegment = canAccessRoute(roles, { roles: AREA_ROLES.segments });
  const segments = useAllPages(maySegment ? `${base}/segment` : null, SegmentPage);
  const choices = useRuleChoices(base, draft.filtersOn);
  const [filtersTouched, setFiltersTouched] = useState(false);
  const touchedRows = useTouchedRows();
  // Once the extra conditions are changed, every problem in them shows.
  const showFilterErrors = showAllErrors || filtersTouched;

  const check = useMemo(() => checkRule(draft.filters), [draft.filters]);
  const chosen = segments.data?.items.find((segment) => segment.id === draft.segmentId) ?? null;
  // The estimate waits for the chosen segment's rule and complete extra conditions.
  const estimate = useMemo(() => {
    if (!maySegment || (draft.segmentId !== null && !chosen) || (draft.filtersOn && !check.rule)) return null;
    return estimateRule(type, chosen?.rule ?? null, draft.filtersOn ? check.rule : null, draft.audienceTags, draft.promotional);
  }, [maySegment, draft.segmentId, chosen, draft.filtersOn, check.rule, type, draft.audienceTags, draft.promotional]);
  const live = useLiveCount(`${base}/segment/count`, estimate);

  const channel = t(`notificationUi.types.${type}`);
  const options = [
    { value: '', label: t('notificationUi.audience.everyone', { channel }) },
    ...(segments.data?.items ?? []).map((segment) => ({ value: String(segment.id), label: segment.name })),
  ];
  // A message saved with a segment this list doesn't show (past its first PICKER_MAX, or no access) keeps it, by
  // name; one deleted since says so (sending it is refused until another audience is chosen).
  if (draft.segmentId !== null && !options.some((option) => option.value === String(draft.segmentId))) {
    const label = savedSegment?.id === draft.segmentId ? savedSegment.name : t('notificationUi.audience.segmentDeleted', { id: draft.segmentId });
    options.push({ value: String(draft.segmentId), label });
  }

  // Past PICKER_MAX the list is cut (not wholeList): say so rather than let the oldest segments vanish silently.
  const cut = segments.data && !wholeList(segments.data) ? segments.data : null;
  // Without the segments area, a message may still carry the segment it was given (kept, or dropped for everyone).
  const kept = !maySegment && draft.segmentId !== null ? (options.find((option) => option.value === String(draft.segmentId))?.label ?? '') : null;
  const segmentsHelp = !maySegment
    ? t(kept !== null ? 'notificationUi.audience.noSegmentChoice' : 'notificationUi.audience.noSegmentAccess')
    : cut
      ? t('notificationUi.audience.segmentsCut', { shown: formatNumber(cut.items.length, lang), total: formatNumber(cut.total, lang) })
      : undefined;

  return (
    <SectionCard title={t('notificationUi.audience.title')} help={t('notificationUi.audience.help', { channel })}>
      <FormLayout>
        <Select
          label={t('notificationUi.audience.segment')}
          options={options}
          value={draft.segmentId === null ? '' : String(draft.segmentId)}
          onChange={(value) => onChange({ segmentId: value === '' ? null : Number(value) })}
          disabled={disabled || (!maySegment && draft.segmentId === null)}
          helpText={segmentsHelp}
          error={problemText(t, problems['audience.segment_id'])}
        />
        <TagsField
          label={t('notificationUi.audience.tags')}
          helpText={t('notificationUi.audience.tagsHelp')}
          tags={draft.audienceTags}
          onChange={(audienceTags) => onChange({ audienceTags })}
          error={problemText(t, problems['audience.tags'])}
          disabled={disabled}
        />
        <Checkbox
          label={t('notificationUi.audience.filters')}
          helpText={t('notificationUi.audience.filtersHelp')}
          checked={draft.filtersOn}
          disabled={disabled}
          onChange={(filtersOn) => onChange({ filtersOn })}
        />
        {draft.filtersOn ? (
          <Box paddingInlineStart={{ xs: '0', sm: '600' }}>
            <SegmentEditor
              rule={draft.filters}
              onChange={(filters) => {
                setFiltersTouched(true);
                onChange({ filters });
              }}
              check={check}
              showAllErrors={showFilterErrors}
              touched={touchedRows.touched}
              onTouch={touchedRows.touch}
              attributes={choices.attributes}
              events={choices.events}
              tags={choices.tags}
            />
          </Box>
        ) : null}
        <Checkbox
          label={t('notificationUi.audience.promotional')}
          helpText={t('notificationUi.audience.promotionalHelp')}
          checked={draft.promotional}
          disabled={disabled}
          onChange={(promotional) => onChange({ promotional })}
        />
      </FormLayout>
      {maySegment ? (
        <Box background="bg-surface-secondary" padding="300" borderRadius="200">
          <BlockStack gap="100">
            <Text as="h3" variant="headingSm">
              {t('notificationUi.audience.estimate')}
            </Text>
            {estimate ? (
              <LiveCountLine live={live} />
            ) : (
              <Text as="p" tone="subdued">
                {draft.filtersOn && !check.rule
                  ? // Every extra condition removed: nothing to complete, one to add (or the box to untick).
                    conditionCount(draft.filters) === 0
                    ? t('notificationUi.audience.filtersEmpty', { label: t('notificationUi.audience.filters') })
                    : t(problemsShown(draft.filters, check, showFilterErrors, touchedRows.touched) ? 'segments.count.fix' : 'segments.count.incomplete')
                  : t('notificationUi.audience.noEstimate')}
              </Text>
            )}
            <Text as="p" tone="subdued" variant="bodySm">
              {t('notificationUi.audience.estimateHelp')}
            </Text>
          </BlockStack>
        </Box>
      ) : (
        <Banner tone="info">
          <p>{kept !== null ? t('notificationUi.audience.keptSegmentNote', { segment: kept }) : t('notificationUi.audience.everyoneNote', { channel })}</p>
        </Banner>
      )}
    </SectionCard>
  );
}
