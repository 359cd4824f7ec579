import {
  AUDIENCE_CHANNELS,
  AttributeName,
  AttributeType,
  type AudienceChannel,
  EventCondition,
  EventName,
  OPERATORS,
  type Operator,
  SEGMENT_CONDITIONS_MAX,
  SEGMENT_FIELDS,
  SEGMENT_GROUPS_MAX,
  type SegmentCondition,
  type SegmentField,
  SegmentRule,
  VALUELESS_OPERATORS,
} from '../../../shared/contract';
import { V } from '../../../shared/validation';

/**
 * The visual segment editor's state and the pure functions over it: what a row holds while it is being
 * typed (text, possibly incomplete), how a change to one part resets what no longer fits, and how the
 * rows become a SegmentRule checked with the contract's own schema, with each problem placed on its row.
 */

export const CONDITION_KINDS = ['field', 'attribute', 'tag', 'event', 'channel'] as const;
export type ConditionKind = (typeof CONDITION_KINDS)[number];
export const COUNT_OPS = ['gte', 'lte', 'eq'] as const;
export type CountOp = (typeof COUNT_OPS)[number];
export const EVENT_PERIODS = ['ever', 'within'] as const;
/** When an event row looks: at any time, or in the last N days. */
export type EventPeriod = (typeof EVENT_PERIODS)[number];

/** One row as the editor holds it: every input's text, whichever kind is chosen. */
export interface DraftCondition {
  /** Stable React key. */
  key: string;
  kind: ConditionKind;
  field: SegmentField;
  /** Attribute or event name. */
  name: string;
  /** The attribute's type (from its definition). */
  type: AttributeType;
  op: Operator;
  value: string;
  tagOp: 'has' | 'not_has';
  tag: string;
  performed: boolean;
  /** '' = any number of times. */
  countOp: CountOp | '';
  countValue: string;
  /** Ever, or within the last `withinDays` days (an event row's period). */
  period: EventPeriod;
  /** The number of days typed for `within` (kept while `ever` is chosen, so choosing `within` again brings it back). */
  withinDays: string;
  channel: AudienceChannel;
  subscribed: boolean;
}

export interface DraftGroup {
  key: string;
  conditions: DraftCondition[];
}

/** The editor's rule: groups joined by OR, each a list of conditions joined by AND. */
export interface DraftRule {
  groups: DraftGroup[];
}

/** How a row's value is typed in. */
export type ValueInput = 'none' | 'text' | 'number' | 'date' | 'days';

/** Problems of one row, by part (`value`, `name`, `tag`, `count`, `within_days`, `op`): i18n keys. */
export type RowErrors = Partial<Record<'value' | 'name' | 'tag' | 'count' | 'within_days' | 'op' | 'field', string>>;

export interface RuleCheck {
  /** The rule, when every row is complete and valid. */
  rule: SegmentRule | null;
  /** By `${group}.${condition}`. */
  rows: Record<string, RowErrors>;
  /** A problem of the whole rule or of a group (empty rule, too many groups): by group index or 'rule'. */
  groups: Record<string, string>;
}

let sequence = 0;
function nextKey(prefix: string): string {
  sequence += 1;
  return `${prefix}${sequence}`;
}

const DEFAULT_FIELD: SegmentField = 'country';

/** A new row of a kind, with the first choices filled in. */
export function newCondition(kind: ConditionKind = 'field'): DraftCondition {
  return {
    key: nextKey('c'),
    kind,
    field: DEFAULT_FIELD,
    name: '',
    type: 'text',
    op: kind === 'attribute' ? 'eq' : OPERATORS[SEGMENT_FIELDS[DEFAULT_FIELD]][0],
    value: '',
    tagOp: 'has',
    tag: '',
    performed: true,
    countOp: '',
    countValue: '',
    period: 'ever',
    withinDays: '',
    channel: AUDIENCE_CHANNELS[0],
    subscribed: true,
  };
}

export function newGroup(): DraftGroup {
  return { key: nextKey('g'), conditions: [newCondition()] };
}

/** What a new segment starts from: one group with one row. */
export function emptyRule(): DraftRule {
  return { groups: [newGroup()] };
}

/** The query parameters of a new segment's page that start it from an event or an attribute (startingRule). */
const PERFORMED_PARAM = 'performed';
const HAS_PARAM = 'has';
const TYPE_PARAM = 'type';

const WITHIN_PARAM = 'within';

/**
 * A new segment of the players who performed an event (the events page's "who performed it"), or who performed
 * it in the last `withinDays` days (the dashboard's top events, over its period).
 */
export function performedSegmentUrl(eventName: string, withinDays?: number): string {
  const params = new URLSearchParams({ [PERFORMED_PARAM]: eventName });
  if (withinDays !== undefined) params.set(WITHIN_PARAM, String(withinDays));
  return `/segment/new?${params.toString()}`;
}

/** A new segment of the players who have an attribute (the attributes page's count of players). */
export function attributeSegmentUrl(name: string, type: AttributeType): string {
  return `/segment/new?${new URLSearchParams({ [HAS_PARAM]: name, [TYPE_PARAM]: type }).toString()}`;
}

/**
 * What a new segment's page starts from, given its URL's query: the players who performed the event it names
 * (performedSegmentUrl, any time or within the days it names), or who have the attribute it names (attributeSegmentUrl), else emptyRule. A name or type
 * that could not be one (typed into the address) is left out.
 */
export function startingRule(search: string): DraftRule {
  const params = new URLSearchParams(search);
  const start = (condition: DraftCondition): DraftRule => ({ groups: [{ key: nextKey('g'), conditions: [condition] }] });
  const event = EventName.safeParse(params.get(PERFORMED_PARAM));
  if (event.success) {
    // A period the condition could not have (typed into the address) is left out: any time.
    const within = EventCondition.safeParse({ kind: 'event', name: event.data, performed: true, within_days: Number(params.get(WITHIN_PARAM)) });
    const days = within.success ? within.data.within_days : undefined;
    return start({ ...newCondition('event'), name: event.data, ...(days !== undefined ? { period: 'within' as const, withinDays: String(days) } : {}) });
  }
  const attribute = AttributeName.safeParse(params.get(HAS_PARAM));
  const type = AttributeType.safeParse(params.get(TYPE_PARAM));
  if (attribute.success && type.success) return start({ ...newCondition('attribute'), name: attribute.data, type: type.data, op: 'exists' });
  return emptyRule();
}

/** The value type a field or attribute row compares. */
export function valueTypeOf(condition: Pick<DraftCondition, 'kind' | 'field' | 'type'>): AttributeType {
  return condition.kind === 'field' ? SEGMENT_FIELDS[condition.field] : condition.type;
}

/** The operators a field or attribute row offers (by its type). */
export function operatorsFor(condition: Pick<DraftCondition, 'kind' | 'field' | 'type'>): readonly Operator[] {
  return OPERATORS[valueTypeOf(condition)];
}

/** The input the value of a field or attribute row needs, by its type and operator. */
export function valueInputFor(type: AttributeType, op: Operator): ValueInput {
  if (VALUELESS_OPERATORS.includes(op)) return 'none';
  if (op === 'within_days' || op === 'older_than_days') return 'days';
  if (op === 'before' || op === 'after') return 'date';
  if (type === 'number') return 'number';
  return 'text';
}

/**
 * A row with some parts changed. When the comparison's type changes (another field or attribute), an
 * operator that no longer applies falls back to the type's first, and the value is cleared: "3" typed for
 * a number means nothing for a date.
 */
export function changeCondition(condition: DraftCondition, patch: Partial<Omit<DraftCondition, 'key'>>): DraftCondition {
  const next = { ...condition, ...patch };
  if (patch.kind && patch.kind !== condition.kind) {
    const fresh = newCondition(patch.kind);
    return { ...fresh, key: condition.key };
  }
  if (next.kind !== 'field' && next.kind !== 'attribute') return next;
  const typeBefore = valueTypeOf(condition);
  const typeAfter = valueTypeOf(next);
  if (!(OPERATORS[typeAfter] as readonly string[]).includes(next.op)) next.op = OPERATORS[typeAfter][0];
  const inputBefore = valueInputFor(typeBefore, condition.op);
  const inputAfter = valueInputFor(typeAfter, next.op);
  if ((typeBefore !== typeAfter || inputBefore !== inputAfter) && patch.value === undefined) next.value = '';
  return next;
}

function mapGroup(rule: DraftRule, groupIndex: number, change: (group: DraftGroup) => DraftGroup | null): DraftRule {
  const groups: DraftGroup[] = [];
  rule.groups.forEach((group, index) => {
    const changed = index === groupIndex ? change(group) : group;
    if (changed) groups.push(changed);
  });
  return { groups };
}

/** Changes one row. */
export function updateCondition(
  rule: DraftRule,
  groupIndex: number,
  conditionIndex: number,
  patch: Partial<Omit<DraftCondition, 'key'>>,
): DraftRule {
  return mapGroup(rule, groupIndex, (group) => ({
    ...group,
    conditions: group.conditions.map((condition, index) => (index === conditionIndex ? changeCondition(condition, patch) : condition)),
  }));
}

/** Adds an AND row to a group (up to the contract's limit). */
export function addCondition(rule: DraftRule, groupIndex: number): DraftRule {
  return mapGroup(rule, groupIndex, (group) =>
    group.conditions.length >= SEGMENT_CONDITIONS_MAX ? group : { ...group, conditions: [...group.conditions, newCondition()] },
  );
}

/**
 * Removes a row. A group left without rows goes too, unless it is the only one: the editor then still shows a group
 * to add a condition to, as it began, rather than only "Add OR group".
 */
export function removeCondition(rule: DraftRule, groupIndex: number, conditionIndex: number): DraftRule {
  return keepOneGroup(
    mapGroup(rule, groupIndex, (group) => {
      const conditions = group.conditions.filter((_, index) => index !== conditionIndex);
      return conditions.length === 0 ? null : { ...group, conditions };
    }),
    rule,
    groupIndex,
  );
}

/** `next`, or, when it has no group left, the group at `groupIndex` of `before` emptied (its key kept). */
function keepOneGroup(next: DraftRule, before: DraftRule, groupIndex: number): DraftRule {
  if (next.groups.length > 0) return next;
  return { groups: [{ key: before.groups[groupIndex]?.key ?? nextKey('g'), conditions: [] }] };
}

/** Adds an OR group holding one row (up to the contract's limit). */
export function addGroup(rule: DraftRule): DraftRule {
  if (rule.groups.length >= SEGMENT_GROUPS_MAX) return rule;
  return { groups: [...rule.groups, newGroup()] };
}

/** Removes a group; the last one is emptied instead (see removeCondition). */
export function removeGroup(rule: DraftRule, groupIndex: number): DraftRule {
  return keepOneGroup({ groups: rule.groups.filter((_, index) => index !== groupIndex) }, rule, groupIndex);
}

/** Typed text as a number, or the text itself so the schema refuses it with its own message. */
function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : trimmed;
}

/** One row as the contract's SegmentCondition (unchecked: incomplete rows stay incomplete). */
export function toCondition(condition: DraftCondition): unknown {
  switch (condition.kind) {
    case 'field':
    case 'attribute': {
      const input = valueInputFor(valueTypeOf(condition), condition.op);
      const value = input === 'none' ? undefined : input === 'number' || input === 'days' ? numberOrText(condition.value) : condition.value.trim();
      return condition.kind === 'field'
        ? { kind: 'field', field: condition.field, op: condition.op, value }
        : { kind: 'attribute', name: condition.name, type: condition.type, op: condition.op, value };
    }
    case 'tag':
      return { kind: 'tag', op: condition.tagOp, tag: condition.tag };
    case 'event':
      return {
        kind: 'event',
        name: condition.name,
        performed: condition.performed,
        count: condition.performed && condition.countOp !== '' ? { op: condition.countOp, value: numberOrText(condition.countValue) } : undefined,
        within_days: condition.period === 'within' ? numberOrText(condition.withinDays) : undefined,
      };
    case 'channel':
      return { kind: 'channel', channel: condition.channel, subscribed: condition.subscribed };
  }
}

/** The editor's rows as the contract's rule shape, unchecked. */
export function toRuleInput(rule: DraftRule): unknown {
  return { any: rule.groups.map((group) => ({ all: group.conditions.map(toCondition) })) };
}

/** Which part of a row a schema issue's path (below the condition) names. */
function rowPart(path: readonly PropertyKey[]): keyof RowErrors {
  const [first] = path;
  if (first === 'value' || first === 'op' || first === 'field' || first === 'tag' || first === 'name' || first === 'within_days') return first;
  if (first === 'count') return 'count';
  return 'value';
}

/**
 * Checks the rows with the contract's SegmentRule (the schema the server applies): the rule when all is
 * well, otherwise each problem on its row, and the empty-rule / empty-group refusal (spec §5) apart. A rule
 * without any condition (its one group emptied) is the rule's problem (`groups.rule`), not its group's.
 */
export function checkRule(rule: DraftRule): RuleCheck {
  if (conditionCount(rule) === 0) return { rule: null, rows: {}, groups: { rule: V.conditionsEmpty } };
  const parsed = SegmentRule.safeParse(toRuleInput(rule));
  if (parsed.success) return { rule: parsed.data, rows: {}, groups: {} };
  const rows: Record<string, RowErrors> = {};
  const groups: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const [any, groupIndex, all, conditionIndex, ...rest] = issue.path;
    if (any !== 'any' || groupIndex === undefined) {
      groups.rule ??= issue.message;
      continue;
    }
    if (all !== 'all' || conditionIndex === undefined) {
      groups[String(groupIndex)] ??= issue.message;
      continue;
    }
    const key = `${String(groupIndex)}.${String(conditionIndex)}`;
    const part = rowPart(rest);
    rows[key] ??= {};
    // An invalid union member (e.g. a missing name) reports on the member: keep the first message per part.
    rows[key][part] ??= issue.message;
  }
  return { rule: null, rows, groups };
}

/** A saved rule back in the editor's rows. */
export function fromRule(rule: SegmentRule): DraftRule {
  return {
    groups: rule.any.map((group) => ({
      key: nextKey('g'),
      conditions: group.all.map((condition) => fromCondition(condition)),
    })),
  };
}

function fromCondition(condition: SegmentCondition): DraftCondition {
  const base = newCondition(condition.kind);
  const text = (value: string | number | undefined) => (value === undefined ? '' : String(value));
  switch (condition.kind) {
    case 'field':
      return { ...base, field: condition.field, op: condition.op, value: text(condition.value) };
    case 'attribute':
      return { ...base, name: condition.name, type: condition.type, op: condition.op, value: text(condition.value) };
    case 'tag':
      return { ...base, tagOp: condition.op, tag: condition.tag };
    case 'event':
      return {
        ...base,
        name: condition.name,
        performed: condition.performed,
        countOp: condition.count?.op ?? '',
        countValue: text(condition.count?.value),
        period: condition.within_days === undefined ? 'ever' : 'within',
        withinDays: text(condition.within_days),
      };
    case 'channel':
      return { ...base, channel: condition.channel, subscribed: condition.subscribed };
  }
}

/** How many rows the rule has in all. */
export function conditionCount(rule: DraftRule): number {
  return rule.groups.reduce((sum, group) => sum + group.conditions.length, 0);
}
