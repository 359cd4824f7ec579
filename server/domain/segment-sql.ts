import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import {
  APP_PLATFORMS,
  SEGMENT_FIELDS,
  type AudienceChannel,
  type AttributeType,
  type Operator,
  type SegmentCondition,
  type SegmentField,
  type SegmentRule,
  conditionDay,
} from '../../shared/contract';
import { DAY_MS, V } from '../../shared/validation';
import type { Dialect } from '../db';
import type { Database } from '../db/schema';
import { AppError } from '../errors';

/**
 * Compiles a segment rule (shared/contract SegmentRule: OR of AND groups) to a Kysely boolean expression over
 * `players`. Every value is a bound parameter; column names come only from SEGMENT_FIELDS. A condition a player
 * meets through another table becomes `players.id in (select player_id …)`: the database builds the set once
 * from a covering index (migration 0006) and probes it, or walks it first when it is the smaller side. One a
 * player meets by lacking something becomes `not exists` on the player's own rows, looked up by key only for
 * the players the other conditions let through (PostgreSQL plans it as an anti-join).
 *
 * Semantics, the same on SQLite and PostgreSQL:
 * - "not" operators (neq, not_contains, not_exists, not_has, not performed) include players without a value;
 * - text `contains` ignores ASCII case; `eq` is exact;
 * - days are UTC: `before` a day is before its first millisecond, `after` a day is from the next day on;
 *   `within_days` N is the last N×24 hours up to now, `older_than_days` N before that; now is the clock's;
 * - an event performed with a count means at least once and the count holds (default "at least once") within
 *   the period; not performed is its negation.
 */


export interface SegmentScope {
  applicationId: string;
  now: Date;
  dialect: Dialect;
}

type Eb = ExpressionBuilder<Database, 'players'>;
type Value = string | number | undefined;

/** The whole rule, for `where(...)` on `players`; the caller adds `players.application_id`. */
export function segmentWhere(eb: Eb, rule: SegmentRule, scope: SegmentScope): Expression<SqlBool> {
  const groups = rule.any.map((group) => {
    // Row predicates first: both databases evaluate the rest only for rows these let through.
    const ordered = [...group.all].sort((a, b) => rank(a) - rank(b));
    return eb.and(ordered.map((condition) => conditionWhere(eb, condition, scope)));
  });
  return groups.length === 1 ? groups[0] : eb.or(groups);
}

function rank(condition: SegmentCondition): number {
  return condition.kind === 'field' || condition.kind === 'channel' ? 0 : 1;
}

export function conditionWhere(eb: Eb, condition: SegmentCondition, scope: SegmentScope): Expression<SqlBool> {
  switch (condition.kind) {
    case 'field':
      return fieldWhere(eb, condition.field, condition.op, condition.value, scope);
    case 'attribute':
      return attributeWhere(eb, condition.name, condition.type, condition.op, condition.value, scope);
    case 'tag': {
      if (condition.op === 'not_has') {
        return eb.not(
          eb.exists(eb.selectFrom('player_tags').select(eb.lit(1).as('one')).whereRef('player_tags.player_id', '=', 'players.id').where('player_tags.tag', '=', condition.tag)),
        );
      }
      const holders = eb
        .selectFrom('player_tags')
        .select('player_tags.player_id')
        .where('player_tags.application_id', '=', scope.applicationId)
        .where('player_tags.tag', '=', condition.tag);
      return eb('players.id', 'in', holders);
    }
    case 'event':
      return eventWhere(eb, condition, scope);
    case 'channel': {
      const reachable = channelWhere(eb, condition.channel);
      return condition.subscribed ? reachable : eb.not(reachable);
    }
  }
}

/** A player reachable on the channel now; the same rule as Player.channels. */
export function channelWhere(eb: Eb, channel: AudienceChannel): Expression<SqlBool> {
  switch (channel) {
    case 'web_push':
      return eb.and([eb('players.subscribed', '=', 1), eb('players.push_endpoint', 'is not', null)]);
    case 'mobile_push':
      return eb.and([
        eb('players.subscribed', '=', 1),
        eb('players.device_token', 'is not', null),
        eb('players.platform', 'in', APP_PLATFORMS),
      ]);
    case 'sms':
      return eb('players.mobile_number', 'is not', null);
    case 'facebook':
      return eb('players.fb_psid', 'is not', null);
  }
}

function invalid(path: string, message: string = V.invalid): AppError {
  return new AppError('INVALID_PARAM', message, { fields: [{ path, message }] });
}

/** `a%b_c` matches itself literally inside a LIKE pattern. */
function likePattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** `column like '%value%'`, ignoring ASCII case in both databases (SQLite's LIKE does; PostgreSQL's ILIKE). */
function contains(scope: SegmentScope, column: Expression<unknown>, value: string): Expression<SqlBool> {
  const operator = scope.dialect === 'postgres' ? sql.raw('ilike') : sql.raw('like');
  return sql<SqlBool>`${column} ${operator} ${likePattern(value)} escape '\\'`;
}

/** The first millisecond of the UTC day a date value names. */
function dayStart(value: Value): number {
  const day = conditionDay(value);
  if (Number.isNaN(day)) throw invalid('value', V.date);
  return day;
}

function days(value: Value): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalid('value', V.days);
  return value;
}

function numberOf(value: Value): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid('value', V.number);
  return value;
}

function textOf(value: Value): string {
  if (value === undefined || value === '') throw invalid('value', V.required);
  return String(value);
}

const COMPARE = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function fieldWhere(eb: Eb, field: SegmentField, op: Operator, value: Value, scope: SegmentScope): Expression<SqlBool> {
  if (!Object.hasOwn(SEGMENT_FIELDS, field)) throw invalid('field');
  const type = SEGMENT_FIELDS[field];
  const column = eb.ref(`players.${field}`);
  const missing = eb(column, 'is', null);

  if (type === 'text') {
    const blank = eb.or([missing, eb(column, '=', '')]);
    switch (op) {
      case 'eq':
        return eb(column, '=', textOf(value));
      case 'neq':
        return eb.or([missing, eb(column, '<>', textOf(value))]);
      case 'contains':
        return contains(scope, column, textOf(value));
      case 'not_contains':
        return eb.or([missing, eb.not(contains(scope, column, textOf(value)))]);
      case 'exists':
        return eb.not(blank);
      case 'not_exists':
        return blank;
    }
  }

  if (type === 'number') {
    if (op === 'exists') return eb(column, 'is not', null);
    if (op === 'not_exists') return missing;
    const number = numberOf(value);
    // Integer columns: a fractional bound must not make PostgreSQL read the parameter as an integer.
    const bound: Expression<number> = Number.isInteger(number) ? eb.val(number) : eb.cast<number>(eb.val(number), 'double precision');
    if (op === 'neq') return eb.or([missing, eb(column, '<>', bound)]);
    if (op in COMPARE) return eb(column, COMPARE[op as keyof typeof COMPARE], bound);
  }

  if (type === 'date') {
    // ISO text compares in time order in both databases.
    const iso = (ms: number) => new Date(ms).toISOString();
    const now = scope.now.getTime();
    switch (op) {
      case 'before':
        return eb(column, '<', iso(dayStart(value)));
      case 'after':
        return eb(column, '>=', iso(dayStart(value) + DAY_MS));
      case 'within_days':
        return eb.and([eb(column, '>=', iso(now - days(value) * DAY_MS)), eb(column, '<=', iso(now))]);
      case 'older_than_days':
        return eb(column, '<', iso(now - days(value) * DAY_MS));
      case 'exists':
        return eb(column, 'is not', null);
      case 'not_exists':
        return missing;
    }
  }
  throw invalid('op');
}

function attributeWhere(eb: Eb, name: string, type: AttributeType, op: Operator, value: Value, scope: SegmentScope): Expression<SqlBool> {
  type Pa = ExpressionBuilder<Database, 'player_attributes'>;
  /** Players holding a value of the attribute that passes `test`. */
  const holders = (test: (pa: Pa) => Expression<SqlBool>) =>
    eb
      .selectFrom('player_attributes')
      .select('player_attributes.player_id')
      .where('player_attributes.application_id', '=', scope.applicationId)
      .where('player_attributes.name', '=', name)
      .where((pa) => test(pa));
  const having = (test: (pa: Pa) => Expression<SqlBool>) => eb('players.id', 'in', holders(test));
  // The player's own row, by the (player_id, name) key: cheap for the players the other conditions let through.
  const lacking = (test: (pa: Pa) => Expression<SqlBool>) =>
    eb.not(
      eb.exists(
        eb
          .selectFrom('player_attributes')
          .select(eb.lit(1).as('one'))
          .whereRef('player_attributes.player_id', '=', 'players.id')
          .where('player_attributes.name', '=', name)
          .where((pa) => test(pa)),
      ),
    );

  // Text lives in `value`; numbers, dates (epoch ms) and booleans (0/1) in `number_value`.
  const column = type === 'text' ? 'player_attributes.value' : 'player_attributes.number_value';
  if (op === 'exists') return having((pa) => pa(column, 'is not', null));
  if (op === 'not_exists') return lacking((pa) => pa(column, 'is not', null));

  if (type === 'text') {
    const text = textOf(value);
    switch (op) {
      case 'eq':
        return having((pa) => pa('player_attributes.value', '=', text));
      case 'neq':
        return lacking((pa) => pa('player_attributes.value', '=', text));
      case 'contains':
        return having((pa) => contains(scope, pa.ref('player_attributes.value'), text));
      case 'not_contains':
        return lacking((pa) => contains(scope, pa.ref('player_attributes.value'), text));
    }
  }
  if (type === 'number') {
    const number = numberOf(value);
    if (op === 'neq') return lacking((pa) => pa('player_attributes.number_value', '=', number));
    if (op in COMPARE) return having((pa) => pa('player_attributes.number_value', COMPARE[op as keyof typeof COMPARE], number));
  }
  if (type === 'boolean') {
    if (op === 'is_true') return having((pa) => pa('player_attributes.number_value', '=', 1));
    if (op === 'is_false') return having((pa) => pa('player_attributes.number_value', '=', 0));
  }
  if (type === 'date') {
    const now = scope.now.getTime();
    switch (op) {
      case 'before':
        return having((pa) => pa('player_attributes.number_value', '<', dayStart(value)));
      case 'after':
        return having((pa) => pa('player_attributes.number_value', '>=', dayStart(value) + DAY_MS));
      case 'within_days': {
        const from = now - days(value) * DAY_MS;
        return having((pa) => pa.and([pa('player_attributes.number_value', '>=', from), pa('player_attributes.number_value', '<=', now)]));
      }
      case 'older_than_days': {
        const before = now - days(value) * DAY_MS;
        return having((pa) => pa('player_attributes.number_value', '<', before));
      }
    }
  }
  throw invalid('op');
}

type EventCondition = Extract<SegmentCondition, { kind: 'event' }>;

const since = (scope: SegmentScope, days: number) => new Date(scope.now.getTime() - days * DAY_MS).toISOString();

function eventWhere(eb: Eb, condition: EventCondition, scope: SegmentScope): Expression<SqlBool> {
  let occurrences = eb
    .selectFrom('events')
    .select('events.player_id')
    .where('events.application_id', '=', scope.applicationId)
    .where('events.name', '=', condition.name);
  if (condition.within_days !== undefined) {
    occurrences = occurrences.where('events.occurred_at', '>=', since(scope, condition.within_days));
  }
  const count = condition.count;
  if (!count || (count.op === 'gte' && count.value <= 1)) {
    // "At least once" needs no counting: the set of players who did it, or for "not performed" a look at the
    // player's own events through the (player_id, name, occurred_at) index.
    if (condition.performed) return eb('players.id', 'in', occurrences);
    let own = eb.selectFrom('events').select(eb.lit(1).as('one')).whereRef('events.player_id', '=', 'players.id').where('events.name', '=', condition.name);
    if (condition.within_days !== undefined) own = own.where('events.occurred_at', '>=', since(scope, condition.within_days));
    return eb.not(eb.exists(own));
  }
  const players = occurrences.groupBy('events.player_id').having((h) => h(h.fn.countAll(), COMPARE[count.op], count.value));
  return eb('players.id', condition.performed ? 'in' : 'not in', players);
}
