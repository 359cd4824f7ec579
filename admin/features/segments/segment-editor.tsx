import { Banner, BlockStack, Box, Button, Divider, InlineError, InlineStack, Select, Spinner, Text, TextField } from '@shopify/polaris';
import { DeleteIcon, PlusIcon } from '@shopify/polaris-icons';
import { type ReactNode, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  ATTRIBUTE_TYPES,
  AUDIENCE_CHANNELS,
  type AttributeDefinition,
  type AttributeType,
  type AudienceChannel,
  type Operator,
  PLAYER_CHOICE_FIELDS,
  SEGMENT_CONDITIONS_MAX,
  SEGMENT_GROUPS_MAX,
  type SegmentField,
  type TagCount,
  isPlayerChoiceField,
} from '../../../shared/contract';
import {
  CONDITION_KINDS,
  COUNT_OPS,
  EVENT_PERIODS,
  type ConditionKind,
  type CountOp,
  type DraftCondition,
  type DraftRule,
  type EventPeriod,
  type RowErrors,
  type RuleCheck,
  addCondition,
  addGroup,
  conditionCount,
  operatorsFor,
  removeCondition,
  removeGroup,
  updateCondition,
  valueInputFor,
  valueTypeOf,
} from './segment-editor-model';
import { CODE_FIELDS, typedCodeName } from '../players/player-bits';
import { CodePicker } from '../../components/code-picker';
import { TagField } from '../../components/tag-field';
import { V, isPlayerCodeField } from '../../../shared/validation';
import type { LiveCount } from './use-live-count';
import { useFormatNumber, useLanguage } from '../../app/i18n';

/** The player fields the editor offers, grouped the way a merchant looks for them. */
const FIELD_GROUPS: { key: string; fields: SegmentField[] }[] = [
  { key: 'activity', fields: ['last_seen_at', 'first_session_at', 'last_session_at', 'created_at', 'session_count', 'page_views'] },
  { key: 'location', fields: ['country', 'city', 'language', 'timezone_offset'] },
  { key: 'device', fields: ['platform', 'device_type', 'os', 'browser', 'app_version'] },
  { key: 'identity', fields: ['external_user_id', 'email'] },
  { key: 'utm', fields: ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] },
];

export interface SegmentEditorProps {
  rule: DraftRule;
  onChange(rule: DraftRule): void;
  /** The rule's check (model checkRule): problems are shown under their rows. */
  check: RuleCheck;
  /** Show every problem, also on rows not touched yet (after a save was tried). */
  showAllErrors: boolean;
  /** The rows changed so far (their keys, useTouchedRows): a row's problems show once it is touched. */
  touched: ReadonlySet<string>;
  onTouch(key: string): void;
  /** Attribute definitions to pick from; undefined when the user may not list them (then names are typed). */
  attributes: readonly AttributeDefinition[] | undefined;
  /** Event names to pick from; undefined when the user may not list them (then names are typed). */
  events: readonly string[] | undefined;
  /** The application's tags, suggested as a tag is typed (TagField); undefined while they load. */
  tags: readonly TagCount[] | undefined;
  /**
   * Whether the editor says, once all problems are shown, that a rule without conditions is refused (true by
   * default); false where the page says so itself (the segment page's count line), so it is said once.
   */
  reportsEmptyRule?: boolean;
}

/**
 * The width of a count typed in a row (times, days): its largest accepted value (3650 days, 1000000 times) whole
 * beside its unit ("ngày qua"), not the rest of the line, which it would otherwise take when it wraps onto a line of
 * its own. At 130 px, 3650 showed as "365" beside "ngày qua".
 */
const NUMBER_WIDTH = 150;

/** A control with room to shrink on a phone and to sit beside others on a wide screen. */
function Part({ children, grow = 1, min = 150 }: { children: ReactNode; grow?: number; min?: number }) {
  return <div style={{ flex: `${grow} 1 ${min}px`, minWidth: Math.min(min, 140) }}>{children}</div>;
}

/**
 * A choice and the number it asks for ("at least" [2 times], "in the last" [30 days]) as one part of the row, so
 * that they wrap together and read as one phrase; the number sized for a number (NUMBER_WIDTH), the choice taking
 * what is left.
 */
function ChoiceWithNumber({ choice, number, min }: { choice: ReactNode; number: ReactNode; min: number }) {
  return (
    <Part min={number ? min + 8 + NUMBER_WIDTH : min} grow={0.8}>
      <div style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}>
        <div style={{ flex: `1 1 ${min}px`, minWidth: 0 }}>{choice}</div>
        {number ? <div style={{ flex: `0 0 ${NUMBER_WIDTH}px` }}>{number}</div> : null}
      </div>
    </Part>
  );
}

/** The rows of an editor the user has changed, by key: kept by its page, which also says whether problems show. */
export function useTouchedRows(): { touched: ReadonlySet<string>; touch(key: string): void } {
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const touch = useCallback((key: string) => setTouched((current) => (current.has(key) ? current : new Set([...current, key]))), []);
  return { touched, touch };
}

/**
 * Whether the editor marks a problem of the rule's conditions now: under a row (touched, or every row once all are
 * shown), or under a group once all are shown. The count line then asks to fix what is marked rather than to
 * complete it. A rule without any condition has nothing to mark (see LiveCountLine's `empty`).
 */
export function problemsShown(rule: DraftRule, check: RuleCheck, showAllErrors: boolean, touched: ReadonlySet<string>): boolean {
  if (conditionCount(rule) === 0) return false;
  if (showAllErrors && rule.groups.some((_, groupIndex) => check.groups[String(groupIndex)])) return true;
  return rule.groups.some((group, groupIndex) =>
    group.conditions.some((condition, conditionIndex) => Object.keys(shownRowErrors(check, `${groupIndex}.${conditionIndex}`, condition.key, showAllErrors, touched)).length > 0),
  );
}

/**
 * The problems shown under a row (`at` is "group.condition", from 0): all of them when all are shown (a save was
 * tried, a saved rule was opened); once the row is touched, those of what was entered, not yet the parts left
 * empty (a row just switched to "Event" is not told its event is required before one could be picked).
 */
function shownRowErrors(check: RuleCheck, at: string, key: string, showAllErrors: boolean, touched: ReadonlySet<string>): RowErrors {
  const errors = check.rows[at] ?? {};
  if (showAllErrors) return errors;
  if (!touched.has(key)) return {};
  return Object.fromEntries(Object.entries(errors).filter(([, message]) => message !== V.required));
}

/**
 * The visual segment editor: groups joined by OR, each of conditions joined by AND; a row picks what it
 * tests (a player field, an attribute, a tag, an event performed or not, a subscribed channel), then an
 * operator by the value's type, then the value. Each problem shows under its row.
 */
export function SegmentEditor({ rule, onChange, check, showAllErrors, touched, onTouch, attributes, events, tags, reportsEmptyRule = true }: SegmentEditorProps) {
  const { t } = useTranslation();

  const change = (groupIndex: number, conditionIndex: number, key: string) => (patch: Partial<Omit<DraftCondition, 'key'>>) => {
    onTouch(key);
    onChange(updateCondition(rule, groupIndex, conditionIndex, patch));
  };

  const ruleError = check.groups.rule;
  // No condition at all: the one group stays, to add one to (an OR group beside nothing would mean nothing).
  const empty = conditionCount(rule) === 0;

  return (
    <BlockStack gap="300">
      {rule.groups.map((group, groupIndex) => (
        <BlockStack key={group.key} gap="300">
          {groupIndex > 0 ? (
            <InlineStack gap="200" blockAlign="center" wrap={false}>
              <div style={{ flex: 1 }}>
                <Divider />
              </div>
              <Text as="span" fontWeight="semibold" tone="subdued">
                {t('segments.editor.or')}
              </Text>
              <div style={{ flex: 1 }}>
                <Divider />
              </div>
            </InlineStack>
          ) : null}
          <Box borderWidth="025" borderColor="border" borderRadius="200" padding="300" background="bg-surface-secondary">
            <section aria-label={t('segments.editor.group', { number: groupIndex + 1 })}>
              <BlockStack gap="300">
                <InlineStack align="space-between" blockAlign="center">
                  <Text as="h3" variant="headingSm">
                    {t('segments.editor.group', { number: groupIndex + 1 })}
                  </Text>
                  {rule.groups.length > 1 ? (
                    <Button variant="tertiary" tone="critical" onClick={() => onChange(removeGroup(rule, groupIndex))}>
                      {t('segments.editor.removeGroup')}
                    </Button>
                  ) : null}
                </InlineStack>
                {group.conditions.map((condition, conditionIndex) => (
                  <BlockStack key={condition.key} gap="200">
                    {conditionIndex > 0 ? (
                      <Text as="span" variant="bodySm" fontWeight="semibold" tone="subdued">
                        {t('segments.editor.and')}
                      </Text>
                    ) : null}
                    <ConditionRow
                      condition={condition}
                      number={`${groupIndex + 1}.${conditionIndex + 1}`}
                      errors={shownRowErrors(check, `${groupIndex}.${conditionIndex}`, condition.key, showAllErrors, touched)}
                      attributes={attributes}
                      events={events}
                      tags={tags}
                      onChange={change(groupIndex, conditionIndex, condition.key)}
                      onRemove={() => onChange(removeCondition(rule, groupIndex, conditionIndex))}
                    />
                  </BlockStack>
                ))}
                {group.conditions.length === 0 ? (
                  <Text as="p" tone="subdued">
                    {t('segments.editor.noConditions')}
                  </Text>
                ) : null}
                {check.groups[String(groupIndex)] && showAllErrors ? <InlineError message={t(check.groups[String(groupIndex)])} fieldID={group.key} /> : null}
                {empty && ruleError && showAllErrors && reportsEmptyRule ? <InlineError message={t(ruleError)} fieldID={group.key} /> : null}
                <InlineStack>
                  <Button icon={PlusIcon} onClick={() => onChange(addCondition(rule, groupIndex))} disabled={group.conditions.length >= SEGMENT_CONDITIONS_MAX}>
                    {t('segments.editor.addCondition')}
                  </Button>
                </InlineStack>
              </BlockStack>
            </section>
          </Box>
        </BlockStack>
      ))}
      {ruleError && !empty && showAllErrors ? (
        <Banner tone="critical">
          <p>{t(ruleError)}</p>
        </Banner>
      ) : null}
      {empty ? null : (
        <InlineStack>
          <Button icon={PlusIcon} variant="secondary" onClick={() => onChange(addGroup(rule))} disabled={rule.groups.length >= SEGMENT_GROUPS_MAX}>
            {t('segments.editor.addGroup')}
          </Button>
        </InlineStack>
      )}
    </BlockStack>
  );
}

interface ConditionRowProps {
  condition: DraftCondition;
  /** "1.2": group and row, for accessible names. */
  number: string;
  errors: RowErrors;
  attributes: readonly AttributeDefinition[] | undefined;
  events: readonly string[] | undefined;
  tags: readonly TagCount[] | undefined;
  onChange(patch: Partial<Omit<DraftCondition, 'key'>>): void;
  onRemove(): void;
}

/** One condition: what it tests, how, and against what; its problems under the inputs they belong to. */
function ConditionRow({ condition, number, errors, attributes, events, tags, onChange, onRemove }: ConditionRowProps) {
  const { t } = useTranslation();
  const error = (part: keyof RowErrors) => (errors[part] ? t(errors[part] as string) : undefined);
  const label = (key: string) => t(`segments.editor.labels.${key}`, { number });

  const kindSelect = (
    <Part min={175} grow={0.8}>
      <Select
        label={label('kind')}
        labelHidden
        options={CONDITION_KINDS.map((kind) => ({ value: kind, label: t(`segments.kinds.${kind}`) }))}
        value={condition.kind}
        onChange={(kind) => onChange({ kind: kind as ConditionKind })}
      />
    </Part>
  );

  let parts: ReactNode;
  switch (condition.kind) {
    case 'field':
    case 'attribute':
      parts = (
        <>
          {condition.kind === 'field' ? (
            <Part min={170}>
              <Select
                label={label('field')}
                labelHidden
                options={FIELD_GROUPS.map((group) => ({
                  title: t(`segments.fieldGroups.${group.key}`),
                  options: group.fields.map((field) => ({ value: field, label: t(`segments.fields.${field}`) })),
                }))}
                value={condition.field}
                onChange={(field) => onChange({ field: field as SegmentField })}
                error={error('field')}
              />
            </Part>
          ) : (
            <AttributePicker condition={condition} attributes={attributes} label={label('attribute')} typeLabel={label('attributeType')} error={error('name')} onChange={onChange} />
          )}
          <Part min={150}>
            <Select
              label={label('operator')}
              labelHidden
              options={operatorsFor(condition).map((op) => ({ value: op, label: t(`segments.ops.${opLabel(op, valueTypeOf(condition))}`) }))}
              value={condition.op}
              onChange={(op) => onChange({ op: op as Operator })}
              error={error('op')}
            />
          </Part>
          <ValueInput condition={condition} label={label('value')} error={error('value')} onChange={(value) => onChange({ value })} />
        </>
      );
      break;
    case 'tag':
      parts = (
        <>
          <Part min={150}>
            <Select
              label={label('tagOp')}
              labelHidden
              options={[
                { value: 'has', label: t('segments.ops.has') },
                { value: 'not_has', label: t('segments.ops.not_has') },
              ]}
              value={condition.tagOp}
              onChange={(tagOp) => onChange({ tagOp: tagOp as 'has' | 'not_has' })}
            />
          </Part>
          <Part min={170}>
            <TagField label={label('tag')} labelHidden placeholder={t('segments.editor.tagPlaceholder')} value={condition.tag} onChange={(tag) => onChange({ tag })} tags={tags} error={error('tag')} />
          </Part>
        </>
      );
      break;
    case 'event':
      parts = (
        <>
          <Part min={140}>
            <Select
              label={label('performed')}
              labelHidden
              options={[
                { value: 'yes', label: t('segments.editor.performed') },
                { value: 'no', label: t('segments.editor.notPerformed') },
              ]}
              value={condition.performed ? 'yes' : 'no'}
              onChange={(value) => onChange({ performed: value === 'yes' })}
            />
          </Part>
          <Part min={150}>
            {events && events.length > 0 ? (
              <Select
                label={label('event')}
                labelHidden
                placeholder={t('segments.editor.chooseEvent')}
                options={[...new Set([...events, ...(condition.name ? [condition.name] : [])])].map((name) => ({ value: name, label: name }))}
                value={condition.name}
                onChange={(name) => onChange({ name })}
                error={error('name')}
              />
            ) : (
              <TextField label={label('event')} labelHidden placeholder={t('segments.editor.eventPlaceholder')} value={condition.name} onChange={(name) => onChange({ name })} autoComplete="off" maxLength={64} error={error('name')} />
            )}
          </Part>
          {condition.performed ? (
            <ChoiceWithNumber
              min={165}
              choice={
                <Select
                  label={label('countOp')}
                  labelHidden
                  options={[{ value: '', label: t('segments.editor.anyCount') }, ...COUNT_OPS.map((op) => ({ value: op, label: t(`segments.countOps.${op}`) }))]}
                  value={condition.countOp}
                  onChange={(countOp) => onChange({ countOp: countOp as CountOp | '' })}
                />
              }
              number={
                condition.countOp !== '' ? (
                  <TextField
                    label={label('count')}
                    labelHidden
                    type="number"
                    min={0}
                    value={condition.countValue}
                    onChange={(countValue) => onChange({ countValue })}
                    suffix={t('segments.editor.times')}
                    autoComplete="off"
                    error={error('count')}
                  />
                ) : null
              }
            />
          ) : null}
          {/* "Any time", or "in the last [30] days" ("trong vòng [30] ngày qua"): read as a sentence either way. */}
          <ChoiceWithNumber
            min={140}
            choice={
              <Select
                label={label('period')}
                labelHidden
                options={EVENT_PERIODS.map((period) => ({ value: period, label: t(`segments.editor.periods.${period}`) }))}
                value={condition.period}
                onChange={(period) => onChange({ period: period as EventPeriod })}
              />
            }
            number={
              condition.period === 'within' ? (
                <TextField
                  label={label('withinDays')}
                  labelHidden
                  type="number"
                  min={1}
                  suffix={t('segments.editor.days')}
                  value={condition.withinDays}
                  onChange={(withinDays) => onChange({ withinDays })}
                  autoComplete="off"
                  error={error('within_days')}
                />
              ) : null
            }
          />
        </>
      );
      break;
    case 'channel':
      parts = (
        <>
          <Part min={150}>
            <Select
              label={label('subscribed')}
              labelHidden
              options={[
                { value: 'yes', label: t('segments.editor.subscribedTo') },
                { value: 'no', label: t('segments.editor.notSubscribedTo') },
              ]}
              value={condition.subscribed ? 'yes' : 'no'}
              onChange={(value) => onChange({ subscribed: value === 'yes' })}
            />
          </Part>
          <Part min={150}>
            <Select
              label={label('channel')}
              labelHidden
              options={AUDIENCE_CHANNELS.map((channel) => ({ value: channel, label: t(`players.channels.${channel}`) }))}
              value={condition.channel}
              onChange={(channel) => onChange({ channel: channel as AudienceChannel })}
            />
          </Part>
        </>
      );
      break;
  }

  return (
    <div role="group" aria-label={t('segments.editor.condition', { number })} style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8, flex: 1, minWidth: 0 }}>
        {kindSelect}
        {parts}
      </div>
      <Button variant="tertiary" icon={DeleteIcon} accessibilityLabel={t('segments.editor.removeCondition', { number })} onClick={onRemove} />
    </div>
  );
}

/** Date operators read better in words of their own ("before", "in the last"); the rest share labels by name. */
function opLabel(op: Operator, type: AttributeType): string {
  if (type === 'number' && (op === 'eq' || op === 'neq')) return `${op}_number`;
  return op;
}

/** The attribute a row tests: picked from the definitions, or typed with its type when they can't be listed. */
function AttributePicker({
  condition,
  attributes,
  label,
  typeLabel,
  error,
  onChange,
}: {
  condition: DraftCondition;
  attributes: readonly AttributeDefinition[] | undefined;
  label: string;
  typeLabel: string;
  error: string | undefined;
  onChange(patch: Partial<Omit<DraftCondition, 'key'>>): void;
}) {
  const { t } = useTranslation();
  if (attributes && attributes.length > 0) {
    const known = attributes.some((attribute) => attribute.name === condition.name);
    const options = attributes.map((attribute) => ({ value: attribute.name, label: `${attribute.name} (${t(`attributes.types.${attribute.type}`)})` }));
    if (condition.name && !known) options.push({ value: condition.name, label: `${condition.name} (${t(`attributes.types.${condition.type}`)})` });
    return (
      <Part min={170}>
        <Select
          label={label}
          labelHidden
          placeholder={t('segments.editor.chooseAttribute')}
          options={options}
          value={condition.name}
          onChange={(name) => {
            const definition = attributes.find((attribute) => attribute.name === name);
            onChange({ name, type: definition?.type ?? condition.type });
          }}
          error={error}
        />
      </Part>
    );
  }
  return (
    <>
      <Part min={150}>
        <TextField label={label} labelHidden placeholder={t('segments.editor.attributePlaceholder')} value={condition.name} onChange={(name) => onChange({ name })} autoComplete="off" maxLength={64} error={error} />
      </Part>
      <Part min={110} grow={0.6}>
        <Select
          label={typeLabel}
          labelHidden
          options={ATTRIBUTE_TYPES.map((type) => ({ value: type, label: t(`attributes.types.${type}`) }))}
          value={condition.type}
          onChange={(type) => onChange({ type: type as AttributeType })}
        />
      </Part>
    </>
  );
}

/** The value input a row's type and operator call for: none, text, a number, a day, or a number of days. */
function ValueInput({ condition, label, error, onChange }: { condition: DraftCondition; label: string; error: string | undefined; onChange(value: string): void }) {
  const { t } = useTranslation();
  const lang = useLanguage();
  const input = valueInputFor(valueTypeOf(condition), condition.op);
  if (input === 'none') return null;
  // "Country / language is (not)": one country or language, chosen by name.
  if (condition.kind === 'field' && isPlayerCodeField(condition.field) && (condition.op === 'eq' || condition.op === 'neq')) {
    return (
      <Part min={190}>
        <CodePicker field={condition.field} label={label} labelHidden value={condition.value} onChange={onChange} error={error} />
      </Part>
    );
  }
  // "Platform / device type is (not)": one of the few values players hold, named as the player list names them.
  if (condition.kind === 'field' && isPlayerChoiceField(condition.field) && (condition.op === 'eq' || condition.op === 'neq')) {
    const names = condition.field === 'platform' ? 'players.platforms' : 'players.deviceTypes';
    return (
      <Part min={150}>
        <Select
          label={label}
          labelHidden
          placeholder={t('segments.editor.choicePlaceholder')}
          options={PLAYER_CHOICE_FIELDS[condition.field].map((value) => ({ value, label: t(`${names}.${value}`) }))}
          value={condition.value}
          onChange={onChange}
          error={error}
        />
      </Part>
    );
  }
  // A part of a code ("contains"): players carry their country and language as codes (VN, vi), so the field says
  // so, and names what is typed.
  const code = condition.kind === 'field' && input === 'text' && isPlayerCodeField(condition.field) ? condition.field : null;
  return (
    <Part min={150}>
      <TextField
        label={label}
        labelHidden
        type={input === 'text' ? 'text' : input === 'date' ? 'date' : 'number'}
        min={input === 'days' ? 1 : undefined}
        // "in the last 30 days" / "more than 30 days ago": Vietnamese words the two apart ("ngày qua", "ngày").
        suffix={input === 'days' ? t(condition.op === 'older_than_days' ? 'segments.editor.daysAgo' : 'segments.editor.days') : undefined}
        placeholder={code ? CODE_FIELDS[code].placeholder : input === 'text' ? t('segments.editor.valuePlaceholder') : undefined}
        // A value typed that is refused is not a code, and its problem says what is wanted ("A country is its
        // 2-letter code, e.g. VN"): no hint repeating it. An empty one keeps the hint beside "required".
        helpText={code && !(error && condition.value.trim()) ? typedCodeName(code, condition.value, lang, t(CODE_FIELDS[code].hint)) : undefined}
        value={condition.value}
        onChange={(value) => onChange(code ? CODE_FIELDS[code].normalise(value) : value)}
        autoComplete="off"
        error={error}
      />
    </Part>
  );
}

/**
 * "N of M players" with a spinner while the current rule is being counted. `marked`: a problem of the rule is
 * shown (problemsShown), so a rule with no count asks to fix what is marked rather than to complete it. `empty`:
 * the rule has no condition, so the line says a segment needs one, as a hint or, once a save was refused for it,
 * as the refusal (the one place that says it: the editor is told not to, see `reportsEmptyRule`).
 */
export function LiveCountLine({ live, marked = false, empty }: { live: LiveCount; marked?: boolean; empty?: 'hint' | 'refused' }) {
  const { t } = useTranslation();
  const number = useFormatNumber();
  return (
    <div aria-live="polite">
      <InlineStack gap="200" blockAlign="center" wrap={false}>
        {live.counting ? <Spinner size="small" accessibilityLabel={t('segments.count.counting')} /> : null}
        {live.count ? (
          <Text as="p" variant="headingMd" tone={live.counting ? 'subdued' : undefined}>
            {t('segments.count.of', { count: number(live.count.count), total: number(live.count.total) })}
          </Text>
        ) : live.error ? (
          <Text as="p" tone="critical">
            {live.error}
          </Text>
        ) : empty && !live.counting ? (
          <Text as="p" tone={empty === 'refused' ? 'critical' : 'subdued'}>
            {t('segments.count.needsCondition')}
          </Text>
        ) : (
          <Text as="p" tone="subdued">
            {live.counting ? t('segments.count.counting') : marked ? t('segments.count.fix') : t('segments.count.incomplete')}
          </Text>
        )}
      </InlineStack>
    </div>
  );
}
