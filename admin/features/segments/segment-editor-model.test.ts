import { describe, expect, it } from 'vitest';
import { SEGMENT_CONDITIONS_MAX, SEGMENT_GROUPS_MAX, type SegmentRule } from '../../../shared/contract';
import {
  addCondition,
  addGroup,
  changeCondition,
  checkRule,
  conditionCount,
  emptyRule,
  fromRule,
  newCondition,
  operatorsFor,
  removeCondition,
  removeGroup,
  updateCondition,
  valueInputFor,
} from './segment-editor-model';

describe('a new rule', () => {
  it('holds one group with one country row, which is refused until it has a value (spec §5)', () => {
    const rule = emptyRule();
    expect(rule.groups).toHaveLength(1);
    expect(rule.groups[0].conditions[0]).toMatchObject({ kind: 'field', field: 'country', op: 'eq', value: '' });
    const check = checkRule(rule);
    expect(check.rule).toBeNull();
    expect(check.rows['0.0']).toEqual({ value: 'validation.required' });
  });

  it('becomes a SegmentRule once the row is filled', () => {
    const rule = updateCondition(emptyRule(), 0, 0, { value: ' VN ' });
    expect(checkRule(rule).rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] });
  });
});

describe('operators and value inputs', () => {
  it('offer the operators of the compared type', () => {
    expect(operatorsFor({ kind: 'field', field: 'session_count', type: 'text' })).toContain('gte');
    expect(operatorsFor({ kind: 'field', field: 'first_session_at', type: 'text' })).toContain('within_days');
    expect(operatorsFor({ kind: 'attribute', field: 'country', type: 'boolean' })).toEqual(['is_true', 'is_false', 'exists', 'not_exists']);
  });

  it('ask for no value, a number, a day, a count of days or text', () => {
    expect(valueInputFor('text', 'exists')).toBe('none');
    expect(valueInputFor('boolean', 'is_true')).toBe('none');
    expect(valueInputFor('number', 'gt')).toBe('number');
    expect(valueInputFor('date', 'before')).toBe('date');
    expect(valueInputFor('date', 'within_days')).toBe('days');
    expect(valueInputFor('text', 'contains')).toBe('text');
  });
});

describe('changing a row', () => {
  it('keeps the operator and value when the new field has the same type', () => {
    const row = { ...newCondition(), op: 'contains' as const, value: 'Ha' };
    expect(changeCondition(row, { field: 'city' })).toMatchObject({ field: 'city', op: 'contains', value: 'Ha' });
  });

  it('falls back to the first operator of a new type and clears the value', () => {
    const row = { ...newCondition(), op: 'contains' as const, value: 'Ha' };
    expect(changeCondition(row, { field: 'session_count' })).toMatchObject({ op: 'eq', value: '' });
    expect(changeCondition(row, { field: 'last_session_at' })).toMatchObject({ op: 'before', value: '' });
  });

  it('clears the value when the operator changes from a day to a number of days', () => {
    const row = changeCondition({ ...newCondition(), field: 'created_at', op: 'before', value: '2025-01-01' }, { op: 'within_days' });
    expect(row).toMatchObject({ op: 'within_days', value: '' });
  });

  it('starts afresh, keeping its key, when the kind changes', () => {
    const row = { ...newCondition(), value: 'VN' };
    const event = changeCondition(row, { kind: 'event' });
    expect(event).toMatchObject({ kind: 'event', key: row.key, name: '', performed: true, value: '' });
  });
});

describe('adding and removing rows and groups', () => {
  it('adds AND rows to a group and OR groups to the rule', () => {
    let rule = addCondition(emptyRule(), 0);
    rule = addGroup(rule);
    expect(rule.groups.map((group) => group.conditions.length)).toEqual([2, 1]);
  });

  it('keeps the only group, emptied, when its last row goes, so a condition can be added to it again', () => {
    const start = emptyRule();
    const rule = removeCondition(start, 0, 0);
    expect(rule.groups).toEqual([{ key: start.groups[0].key, conditions: [] }]);
    const again = addCondition(rule, 0);
    expect(again.groups).toHaveLength(1);
    expect(again.groups[0].conditions).toHaveLength(1);
    expect(conditionCount(again)).toBe(1);
    // Another group's last row going takes its group: no empty OR group is left behind.
    const rule2 = removeCondition(addGroup(updateCondition(emptyRule(), 0, 0, { value: 'VN' })), 1, 0);
    expect(rule2.groups).toHaveLength(1);
    expect(rule2.groups[0].conditions[0]).toMatchObject({ value: 'VN' });
  });

  it('refuses a rule whose one group has no conditions as a problem of the rule (spec §5), not of its group or of a row', () => {
    const rule = { groups: [{ key: 'g', conditions: [] }] };
    expect(checkRule(rule)).toEqual({ rule: null, rows: {}, groups: { rule: 'validation.conditionsEmpty' } });
  });

  it('removes a whole group, and empties the last one rather than leaving none', () => {
    const rule = removeGroup(addGroup(emptyRule()), 0);
    expect(rule.groups).toHaveLength(1);
    expect(removeGroup(rule, 0).groups).toEqual([{ key: rule.groups[0].key, conditions: [] }]);
  });

  it('stops at the contract limits', () => {
    let rule = emptyRule();
    for (let n = 0; n < SEGMENT_CONDITIONS_MAX + 3; n += 1) rule = addCondition(rule, 0);
    expect(rule.groups[0].conditions).toHaveLength(SEGMENT_CONDITIONS_MAX);
    for (let n = 0; n < SEGMENT_GROUPS_MAX + 3; n += 1) rule = addGroup(rule);
    expect(rule.groups).toHaveLength(SEGMENT_GROUPS_MAX);
  });
});

describe('checking a rule', () => {
  it('places each problem on its own row', () => {
    let rule = addCondition(updateCondition(emptyRule(), 0, 0, { value: 'VN' }), 0);
    rule = updateCondition(rule, 0, 1, { field: 'session_count' });
    rule = updateCondition(rule, 0, 1, { value: 'many' });
    rule = addGroup(rule);
    rule = updateCondition(rule, 1, 0, { kind: 'tag' });
    rule = updateCondition(rule, 1, 0, { tag: 'has space' });
    const check = checkRule(rule);
    expect(check.rule).toBeNull();
    expect(check.rows['0.0']).toBeUndefined();
    expect(check.rows['0.1']).toEqual({ value: 'validation.number' });
    expect(check.rows['1.0']).toEqual({ tag: 'validation.tag' });
  });

  it('turns numbers and counts of days into numbers', () => {
    let rule = updateCondition(emptyRule(), 0, 0, { field: 'page_views' });
    rule = updateCondition(rule, 0, 0, { op: 'gte', value: '5' });
    rule = addCondition(rule, 0);
    rule = updateCondition(rule, 0, 1, { field: 'last_session_at' });
    rule = updateCondition(rule, 0, 1, { op: 'within_days', value: '7' });
    expect(checkRule(rule).rule?.any[0].all).toEqual([
      { kind: 'field', field: 'page_views', op: 'gte', value: 5 },
      { kind: 'field', field: 'last_session_at', op: 'within_days', value: 7 },
    ]);
  });

  it.each(['0', '2.5', '3651'])('refuses a count of days (%s) that is not a whole number from 1 to 3,650, saying so', (value) => {
    let rule = updateCondition(emptyRule(), 0, 0, { field: 'created_at' });
    rule = updateCondition(rule, 0, 0, { op: 'older_than_days', value });
    expect(checkRule(rule).rows['0.0']).toEqual({ value: 'validation.days' });
  });

  it('refuses a day that is not a date', () => {
    let rule = updateCondition(emptyRule(), 0, 0, { field: 'created_at' });
    rule = updateCondition(rule, 0, 0, { op: 'after', value: 'yesterday' });
    expect(checkRule(rule).rows['0.0']).toEqual({ value: 'validation.date' });
  });

  it('sends no value for operators that take none', () => {
    const rule = updateCondition(emptyRule(), 0, 0, { op: 'exists', value: 'left over' });
    expect(checkRule(rule).rule?.any[0].all[0]).toEqual({ kind: 'field', field: 'country', op: 'exists' });
  });

  it('asks an event row for its name, and sends its count and period only when given', () => {
    let rule = updateCondition(emptyRule(), 0, 0, { kind: 'event' });
    expect(checkRule(rule).rows['0.0']).toMatchObject({ name: expect.stringMatching(/^validation\./) });
    rule = updateCondition(rule, 0, 0, { name: 'purchase' });
    expect(checkRule(rule).rule?.any[0].all[0]).toEqual({ kind: 'event', name: 'purchase', performed: true });
    rule = updateCondition(rule, 0, 0, { countOp: 'gte', countValue: '3', period: 'within', withinDays: '30' });
    expect(checkRule(rule).rule?.any[0].all[0]).toEqual({
      kind: 'event',
      name: 'purchase',
      performed: true,
      count: { op: 'gte', value: 3 },
      within_days: 30,
    });
  });

  it('looks at any time until "in the last" is chosen, and then asks for the number of days', () => {
    let rule = updateCondition(emptyRule(), 0, 0, { kind: 'event' });
    expect(rule.groups[0].conditions[0].period).toBe('ever');
    // Days typed, then "any time" chosen again: the days are kept for later but not sent.
    rule = updateCondition(rule, 0, 0, { name: 'purchase', period: 'within', withinDays: '7' });
    rule = updateCondition(rule, 0, 0, { period: 'ever' });
    expect(checkRule(rule).rule?.any[0].all[0]).toEqual({ kind: 'event', name: 'purchase', performed: true });
    rule = updateCondition(rule, 0, 0, { period: 'within' });
    expect(checkRule(rule).rule?.any[0].all[0]).toEqual({ kind: 'event', name: 'purchase', performed: true, within_days: 7 });
    // "In the last … days" with no number is incomplete, not "any time".
    rule = updateCondition(rule, 0, 0, { withinDays: '' });
    expect(checkRule(rule).rows['0.0']).toEqual({ within_days: 'validation.required' });
  });

  it('drops the count of a "not performed" event row', () => {
    let rule = updateCondition(emptyRule(), 0, 0, { kind: 'event' });
    rule = updateCondition(rule, 0, 0, { name: 'purchase', performed: false, countOp: 'gte', countValue: '3' });
    expect(checkRule(rule).rule?.any[0].all[0]).toEqual({ kind: 'event', name: 'purchase', performed: false });
  });

  it('refuses an attribute row without an attribute', () => {
    const rule = updateCondition(updateCondition(emptyRule(), 0, 0, { kind: 'attribute' }), 0, 0, { value: 'x' });
    expect(checkRule(rule).rows['0.0']?.name).toMatch(/^validation\./);
  });
});

describe('a saved rule', () => {
  it('comes back into the editor as the same rule', () => {
    const saved: SegmentRule = {
      any: [
        {
          all: [
            { kind: 'field', field: 'country', op: 'eq', value: 'VN' },
            { kind: 'attribute', name: 'vip', type: 'boolean', op: 'is_true' },
            { kind: 'attribute', name: 'birthday.date', type: 'date', op: 'within_days', value: 30 },
          ],
        },
        {
          all: [
            { kind: 'tag', op: 'not_has', tag: 'churned' },
            { kind: 'event', name: 'purchase', performed: true, count: { op: 'gte', value: 2 }, within_days: 90 },
            { kind: 'channel', channel: 'web_push', subscribed: true },
          ],
        },
      ],
    };
    expect(checkRule(fromRule(saved)).rule).toEqual(saved);
  });

  it('opens an event row with a period as "in the last", and one without as "any time"', () => {
    const rows = fromRule({
      any: [{ all: [{ kind: 'event', name: 'purchase', performed: true, within_days: 90 }, { kind: 'event', name: 'visit', performed: false }] }],
    }).groups[0].conditions;
    expect(rows.map((row) => [row.period, row.withinDays])).toEqual([
      ['within', '90'],
      ['ever', ''],
    ]);
  });
});
