import { BlockStack, ChoiceList, FormLayout, InlineGrid, Select, Text, TextField } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { DEFAULT_LOCAL_OFFSET_MINUTES, URGENCIES } from '../../../shared/contract';
import { formatUtcOffset } from '../../../shared/format';
import { type NotificationDraft, type Problems, SCHEDULE_MODES, type ScheduleMode, TTL_UNITS, type TtlUnit, type Urgency, problemText } from './notification-form-model';
import { SectionCard } from '../../components/section-card';
import { useCurrentApplication } from '../../app/application-scope';
import { browserUtcOffset } from '../../components/utc-offset-select';

export interface ScheduleSectionProps {
  draft: NotificationDraft;
  /** Expiry and urgency are the push services' settings: shown for push types only. */
  push: boolean;
  onChange(patch: Partial<NotificationDraft>): void;
  problems: Problems;
  disabled: boolean;
}

/** The browser's timezone as the schedule is read in it: "Asia/Ho_Chi_Minh (UTC+07:00)". */
export function browserTimeZone(now: Date = new Date()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  return `${zone} (${formatUtcOffset(browserUtcOffset(now))})`;
}

/** The first problem under a path or its children (`schedule`, `schedule.at`). */
function problemAt(problems: Problems, path: string) {
  const key = Object.keys(problems).find((candidate) => candidate === path || candidate.startsWith(`${path}.`));
  return key ? problems[key] : undefined;
}

/** When the message goes (now, at a moment, at a local time in each player's timezone) and, for a push, how long it is kept trying. */
export function ScheduleSection({ draft, push, onChange, problems, disabled }: ScheduleSectionProps) {
  const { t } = useTranslation();
  // Where a player's timezone is unknown, a local time is the application's.
  const utcOffset = useCurrentApplication().application?.utc_offset ?? DEFAULT_LOCAL_OFFSET_MINUTES;
  const scheduleError = problemText(t, problemAt(problems, 'schedule'));
  const dateFields = (
    <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
      <TextField
        label={t('notificationUi.schedule.date')}
        type="date"
        value={draft.date}
        onChange={(date) => onChange({ date })}
        autoComplete="off"
        disabled={disabled}
        error={scheduleError}
      />
      <TextField
        label={t('notificationUi.schedule.time')}
        type="time"
        value={draft.time}
        onChange={(time) => onChange({ time })}
        autoComplete="off"
        disabled={disabled}
        helpText={draft.scheduleMode === 'at' ? t('notificationUi.schedule.timeZone', { zone: browserTimeZone() }) : t('notificationUi.schedule.localTimeZone', { zone: formatUtcOffset(utcOffset) })}
      />
    </InlineGrid>
  );

  return (
    <SectionCard title={t('notificationUi.schedule.title')}>
      <ChoiceList
        title={t('notificationUi.schedule.when')}
        titleHidden
        disabled={disabled}
        selected={[draft.scheduleMode]}
        onChange={(selected) => onChange({ scheduleMode: (selected[0] ?? 'now') as ScheduleMode })}
        choices={SCHEDULE_MODES.map((mode) => ({
          value: mode,
          label: t(`notificationUi.schedule.modes.${mode}`),
          helpText: t(`notificationUi.schedule.modesHelp.${mode}`),
          renderChildren: (selected: boolean) => (selected && mode !== 'now' ? dateFields : null),
        }))}
      />
      {push ? (
        <BlockStack gap="200">
          <Text as="h3" variant="headingSm">
            {t('notificationUi.schedule.delivery')}
          </Text>
          <FormLayout>
            <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
              <TextField
                label={t('notificationUi.schedule.ttl')}
                type="number"
                min={0}
                value={draft.ttl}
                onChange={(ttl) => onChange({ ttl })}
                autoComplete="off"
                disabled={disabled}
                helpText={t('notificationUi.schedule.ttlHelp')}
                error={problemText(t, problems.ttl_seconds)}
                connectedRight={
                  <Select
                    label={t('notificationUi.schedule.ttlUnit')}
                    labelHidden
                    options={TTL_UNITS.map((unit) => ({ value: unit, label: t(`notificationUi.schedule.units.${unit}`) }))}
                    value={draft.ttlUnit}
                    onChange={(unit) => onChange({ ttlUnit: unit as TtlUnit })}
                    disabled={disabled}
                  />
                }
              />
              <Select
                label={t('notificationUi.schedule.urgency')}
                options={URGENCIES.map((urgency) => ({ value: urgency, label: t(`notificationUi.schedule.urgencies.${urgency.replace('-', '_')}`) }))}
                value={draft.urgency}
                onChange={(urgency) => onChange({ urgency: urgency as Urgency })}
                disabled={disabled}
                helpText={t('notificationUi.schedule.urgencyHelp')}
              />
            </InlineGrid>
          </FormLayout>
        </BlockStack>
      ) : null}
    </SectionCard>
  );
}
