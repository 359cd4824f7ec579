import type { z } from 'zod';
import {
  DEFAULT_TTL_SECONDS,
  type Notification,
  type NotificationContent,
  NotificationContent as ContentSchema,
  NotificationInput,
  type NotificationSchedule,
  SEGMENT_CONDITIONS_MAX,
  SEGMENT_GROUPS_MAX,
  type SegmentCondition,
  type SegmentRule,
  type NotificationType,
  TemplateInput,
  type URGENCIES,
  checkContent,
  fieldsOf,
} from '../../../shared/contract';
import { type Plan, pushPlanViolation } from '../../../shared/permissions/plans';
import { messageText } from '../banners/form-fields';
import { type DraftRule, checkRule, emptyRule, fromRule } from '../segments/segment-editor-model';
import { V } from '../../../shared/validation';

/**
 * The create form's state and the pure functions over it: what each input holds while it is typed, how a saved
 * message or template fills it, and how it becomes a NotificationInput (or TemplateInput) checked with the
 * contract's own schemas, each problem placed on its field by path (`content.heading`, `content.buttons.1.button_text`).
 */

export type Urgency = (typeof URGENCIES)[number];
export type ScheduleMode = NotificationSchedule['mode'];
export const SCHEDULE_MODES: readonly ScheduleMode[] = ['now', 'at', 'local_time'];
export const TTL_UNITS = ['hours', 'days'] as const;
export type TtlUnit = (typeof TTL_UNITS)[number];
const UNIT_SECONDS: Record<TtlUnit, number> = { hours: 3600, days: 86_400 };

export interface ButtonDraft {
  /** Stable React key. */
  key: string;
  action_id: string;
  button_text: string;
  icon_url: string;
  launch_url: string;
}

/** A message's content as its inputs hold it (every field of every type; the type decides which are shown and sent). */
export interface ContentDraft {
  heading: string;
  content: string;
  target_url: string;
  thumbnail_url: string;
  image_url: string;
  buttons: ButtonDraft[];
  utm: { source: string; medium: string; campaign: string; term: string };
  additional_data: string;
  additional_data_b: string;
}

export interface NotificationDraft {
  type: NotificationType;
  name: string;
  content: ContentDraft;
  /** null: every subscriber of the type's channel. */
  segmentId: number | null;
  /** Only players carrying all of these tags. */
  audienceTags: string[];
  filtersOn: boolean;
  filters: DraftRule;
  promotional: boolean;
  scheduleMode: ScheduleMode;
  /** YYYY-MM-DD and HH:MM: in the browser's timezone for `at`, in each player's for `local_time`. */
  date: string;
  time: string;
  ttl: string;
  ttlUnit: TtlUnit;
  urgency: Urgency;
  /** The message's own labels. */
  tags: string[];
  templateId: number | null;
  campaignId: number | null;
}

/** A problem: an i18n key (or a translated text), or a key with its parameters (the plan's cap). */
export type Problem = string | { key: string; params: Record<string, string | number> };
/** Problems by field path. */
export type Problems = Record<string, Problem>;

let sequence = 0;
function nextKey(): string {
  sequence += 1;
  return `b${sequence}`;
}

export function newButton(index: number): ButtonDraft {
  return { key: nextKey(), action_id: `button_${index + 1}`, button_text: '', icon_url: '', launch_url: '' };
}

export function emptyContent(): ContentDraft {
  return {
    heading: '',
    content: '',
    target_url: '',
    thumbnail_url: '',
    image_url: '',
    buttons: [],
    utm: { source: '', medium: '', campaign: '', term: '' },
    additional_data: '',
    additional_data_b: '',
  };
}

/** A saved content (a message's or a template's) as the inputs hold it. */
export function contentDraftOf(content: NotificationContent): ContentDraft {
  return {
    heading: content.heading ?? '',
    content: content.content ?? '',
    target_url: content.target_url ?? '',
    thumbnail_url: content.thumbnail_url ?? '',
    image_url: content.image_url ?? '',
    buttons: (content.buttons ?? []).map((button) => ({
      key: nextKey(),
      action_id: button.action_id,
      button_text: button.button_text,
      icon_url: button.icon_url ?? '',
      launch_url: button.launch_url ?? '',
    })),
    utm: { source: content.utm?.source ?? '', medium: content.utm?.medium ?? '', campaign: content.utm?.campaign ?? '', term: content.utm?.term ?? '' },
    additional_data: content.additional_data ?? '',
    additional_data_b: content.additional_data_b ?? '',
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A moment as the browser's local date and time inputs hold it. */
export function localDateTime(moment: Date): { date: string; time: string } {
  return {
    date: `${moment.getFullYear()}-${pad(moment.getMonth() + 1)}-${pad(moment.getDate())}`,
    time: `${pad(moment.getHours())}:${pad(moment.getMinutes())}`,
  };
}

/** The TTL in the largest unit that holds it whole. */
function ttlDraft(seconds: number): { ttl: string; ttlUnit: TtlUnit } {
  if (seconds % UNIT_SECONDS.days === 0) return { ttl: String(seconds / UNIT_SECONDS.days), ttlUnit: 'days' };
  return { ttl: String(Math.round((seconds / UNIT_SECONDS.hours) * 100) / 100), ttlUnit: 'hours' };
}

/** A new message of a type: sent now to every subscriber, kept 3 days; a later schedule starts an hour from now. */
export function newDraft(type: NotificationType, now: Date = new Date()): NotificationDraft {
  const inAnHour = new Date(now.getTime() + 3_600_000);
  inAnHour.setMinutes(0, 0, 0);
  return {
    type,
    name: '',
    content: emptyContent(),
    segmentId: null,
    audienceTags: [],
    filtersOn: false,
    filters: emptyRule(),
    promotional: false,
    scheduleMode: 'now',
    ...localDateTime(inAnHour),
    ...ttlDraft(DEFAULT_TTL_SECONDS),
    urgency: 'normal',
    tags: [],
    templateId: null,
    campaignId: null,
  };
}

/** A saved message in the form: to edit it, or (`copy`) as a new message made from it, sent now. */
export function draftOf(message: Notification, { copy = false, now = new Date() }: { copy?: boolean; now?: Date } = {}): NotificationDraft {
  const draft = newDraft(message.type, now);
  const schedule = message.schedule;
  let when: Pick<NotificationDraft, 'scheduleMode' | 'date' | 'time'> = { scheduleMode: 'now', date: draft.date, time: draft.time };
  if (!copy && schedule.mode === 'at') when = { scheduleMode: 'at', ...localDateTime(new Date(schedule.at)) };
  if (!copy && schedule.mode === 'local_time') when = { scheduleMode: 'local_time', date: schedule.date, time: schedule.time };
  return {
    ...draft,
    ...when,
    name: message.name,
    content: contentDraftOf(message.content),
    segmentId: message.audience.segment_id,
    audienceTags: [...message.audience.tags],
    filtersOn: message.audience.filters !== null,
    filters: message.audience.filters ? fromRule(message.audience.filters) : emptyRule(),
    promotional: message.promotional,
    ...ttlDraft(message.ttl_seconds),
    urgency: message.urgency,
    tags: [...message.tags],
    templateId: message.template_id,
    campaignId: message.campaign_id,
  };
}

/** The content the contract receives: the type's own fields; the others stay empty so nothing hidden is sent or refused. */
export function contentInput(type: NotificationType, content: ContentDraft): Record<string, unknown> {
  const fields = new Set<string>(fieldsOf(type));
  const all: Record<string, unknown> = {
    heading: content.heading,
    content: content.content,
    target_url: content.target_url,
    thumbnail_url: content.thumbnail_url,
    image_url: content.image_url,
    buttons: content.buttons.map(({ key: _key, ...button }) => button),
    utm: Object.fromEntries(Object.entries(content.utm).filter(([, value]) => value.trim() !== '')),
    additional_data: content.additional_data,
    additional_data_b: content.additional_data_b,
  };
  return Object.fromEntries(Object.entries(all).filter(([field]) => fields.has(field) || field === 'content'));
}

/** The first problem of each path of a failed zod check, its path written `a.b.0.c`. */
export function problemsOf(error: z.ZodError, prefix = ''): Problems {
  const problems: Problems = {};
  for (const issue of error.issues) {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    problems[path] ??= issue.message;
  }
  return problems;
}

/**
 * Problems of the content for its type beyond its shape (checkContent), at `content.<field>`. Read from the
 * inputs as they would parse (trimmed), so a missing heading shows even while another field is refused too.
 */
function typeProblems(type: NotificationType, content: ContentDraft, prefix: string): Problems {
  const problems: Problems = {};
  const asParsed = { ...emptyParsedContent, heading: content.heading.trim(), content: content.content.trim() };
  for (const { path, message } of checkContent(type, asParsed)) problems[`${prefix}${path}`] ??= message;
  return problems;
}

const emptyParsedContent: NotificationContent = { heading: '', content: '', buttons: [], utm: {} };

/** The live check of an additional data editor: the contract's own rule (empty, or a JSON object). */
export function additionalDataProblem(text: string): string | undefined {
  const checked = ContentSchema.shape.additional_data.safeParse(text);
  return checked.success ? undefined : checked.error.issues[0]?.message;
}

/** The plan's cap on buttons, as a problem of `content.buttons`, when the content is over it. */
export function buttonsCapProblem(plan: Plan, content: Pick<ContentDraft, 'buttons'>): Problem | undefined {
  const violation = pushPlanViolation(plan, content);
  return violation ? { key: violation.key, params: violation.params } : undefined;
}

function ttlSeconds(draft: Pick<NotificationDraft, 'ttl' | 'ttlUnit'>): number {
  const text = draft.ttl.trim();
  const value = text === '' ? Number.NaN : Number(text);
  return Number.isFinite(value) ? Math.round(value * UNIT_SECONDS[draft.ttlUnit]) : Number.NaN;
}

/** The schedule the contract receives; `at` is the browser's local date and time as an instant. */
export function scheduleInput(draft: Pick<NotificationDraft, 'scheduleMode' | 'date' | 'time'>): Record<string, unknown> {
  if (draft.scheduleMode === 'now') return { mode: 'now' };
  if (draft.scheduleMode === 'local_time') return { mode: 'local_time', date: draft.date, time: draft.time };
  const moment = new Date(`${draft.date}T${draft.time}`);
  return { mode: 'at', at: Number.isNaN(moment.getTime()) ? `${draft.date}T${draft.time}` : moment.toISOString() };
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problems };

/**
 * The form as the API's NotificationInput, or its problems: the contract's schema, the type's own rules
 * (checkContent), and the extra conditions' editor (each row's problem stays in the editor).
 */
export function toNotificationInput(draft: NotificationDraft, asDraft: boolean): Checked<NotificationInput> {
  const filters = draft.filtersOn ? checkRule(draft.filters) : null;
  const body = {
    type: draft.type,
    name: draft.name,
    content: contentInput(draft.type, draft.content),
    audience: { segment_id: draft.segmentId, filters: filters?.rule ?? null, tags: draft.audienceTags },
    schedule: scheduleInput(draft),
    ttl_seconds: ttlSeconds(draft),
    promotional: draft.promotional,
    urgency: draft.urgency,
    tags: draft.tags,
    template_id: draft.templateId,
    campaign_id: draft.campaignId,
    draft: asDraft,
  };
  const parsed = NotificationInput.safeParse(body);
  const problems: Problems = { ...typeProblems(draft.type, draft.content, 'content.'), ...(parsed.success ? {} : problemsOf(parsed.error)) };
  if (filters && !filters.rule) problems['audience.filters'] ??= filters.groups.rule ?? V.conditionsEmpty;
  if (!parsed.success || Object.keys(problems).length > 0) return { ok: false, problems };
  return { ok: true, value: parsed.data };
}

/** A template's name, type and content as the API's TemplateInput, or its problems (paths as the message form's). */
export function toTemplateInput(name: string, type: NotificationType, content: ContentDraft): Checked<TemplateInput> {
  const parsed = TemplateInput.safeParse({ name, type, content: contentInput(type, content) });
  const problems: Problems = { ...typeProblems(type, content, 'content.'), ...(parsed.success ? {} : problemsOf(parsed.error)) };
  if (!parsed.success || Object.keys(problems).length > 0) return { ok: false, problems };
  return { ok: true, value: parsed.data };
}

/** The server's field problems (INVALID_PARAM `fields`) by path. */
export function serverProblems(fields: readonly { path: string; message: string }[]): Problems {
  const problems: Problems = {};
  for (const { path, message } of fields) problems[path] ??= message;
  return problems;
}

/** The problems under a prefix, with paths relative to it (`content.heading` → `heading`). */
export function problemsUnder(problems: Problems, prefix: string): Problems {
  const under: Problems = {};
  for (const [path, problem] of Object.entries(problems)) {
    if (path.startsWith(`${prefix}.`)) under[path.slice(prefix.length + 1)] = problem;
  }
  return under;
}

/** A problem in the user's language (a text the server already translated is shown as it came). */
export function problemText(t: (key: string, params?: Record<string, string | number>) => string, problem: Problem | undefined): string | undefined {
  if (problem === undefined) return undefined;
  return typeof problem === 'string' ? messageText(t, problem) : t(problem.key, problem.params);
}

/**
 * The players a message would reach, as one segment rule for the live count: the segment's groups (or one group
 * for everyone) each ANDed with the extra conditions' groups, the type's channel, the tags, and for a promotional
 * message a session in the last day (spec §9). Null when the result is over the rule's size limits.
 */
export function estimateRule(
  type: NotificationType,
  segment: SegmentRule | null,
  filters: SegmentRule | null,
  tags: readonly string[],
  promotional: boolean,
): SegmentRule | null {
  const base = segment ? segment.any.map((group) => group.all) : [[]];
  const extra = filters ? filters.any.map((group) => group.all) : [[]];
  const always: SegmentCondition[] = [
    { kind: 'channel', channel: type, subscribed: true },
    ...tags.map((tag): SegmentCondition => ({ kind: 'tag', op: 'has', tag })),
    ...(promotional ? [{ kind: 'field', field: 'last_session_at', op: 'within_days', value: 1 } as SegmentCondition] : []),
  ];
  const groups = base.flatMap((left) => extra.map((right) => ({ all: [...left, ...right, ...always] })));
  if (groups.length > SEGMENT_GROUPS_MAX || groups.some((group) => group.all.length > SEGMENT_CONDITIONS_MAX)) return null;
  return { any: groups };
}
