import type { z } from 'zod';
import {
  type DisplayRules,
  type PublicWidget,
  type Widget,
  WIDGET_SETTINGS,
  WidgetBody,
  type WidgetType,
} from '../../../shared/contract';
import type { FieldError } from '../../../shared/contract';

/** The settings of one widget type, every default filled in (what the editor holds and the server stores). */
export type SettingsOf<T extends WidgetType> = z.infer<(typeof WIDGET_SETTINGS)[T]>;

/** What an editor holds: a WidgetBody being written. */
export interface WidgetDraft<T extends WidgetType = WidgetType> {
  type: T;
  name: string;
  status: 'active' | 'inactive';
  settings: SettingsOf<T>;
  rules: DisplayRules;
}

/** A form's problems keyed by their dotted path (`settings.slices.0.label`); each value is an i18n key or a translated text. */
export type PathErrors = Record<string, string>;

type Translate = (key: string, params?: Record<string, string | number>) => string;

export const DEFAULT_RULES: DisplayRules = {
  pages: [],
  devices: ['desktop', 'mobile'],
  delay_seconds: 0,
  scroll: 'none',
  exit_intent: false,
  frequency: 'every_page',
  start_at: null,
  end_at: null,
};

/** A slice id the contract accepts (`[a-z0-9_-]{1,32}`) and no other slice of the wheel has. */
export function newSliceId(taken: readonly string[]): string {
  for (;;) {
    const id = `s${Math.random().toString(36).slice(2, 10)}`;
    if (!taken.includes(id)) return id;
  }
}

/**
 * The settings a new widget of each type starts with. Texts are filled in the console's language so the
 * preview shows a real widget at once; the merchant rewrites them.
 */
export function defaultSettings<T extends WidgetType>(type: T, t: Translate): SettingsOf<T> {
  const all: { [K in WidgetType]: SettingsOf<K> } = {
    schedule: {
      title: t('banners.defaults.scheduleTitle'),
      before_text: t('banners.defaults.scheduleBefore'),
      after_text: '',
      mode: 'evergreen',
      sale_start: null,
      sale_end: null,
      evergreen_minutes: 60,
      link: '',
      button_text: t('banners.defaults.shopNow'),
      position: 'top',
      sticky: true,
      background: '#d72c0d',
      color: '#ffffff',
    },
    banner: {
      title: t('banners.defaults.bannerTitle'),
      text: t('banners.defaults.bannerText'),
      image_url: '',
      link: '',
      button_text: t('banners.defaults.shopNow'),
      position: 'bottom_right',
      background: '#ffffff',
      color: '#202223',
      closable: true,
    },
    contact: {
      title: t('banners.defaults.contactTitle'),
      text: t('banners.defaults.contactText'),
      fields: ['name', 'email'],
      required: ['email'],
      submit_text: '',
      success_text: '',
      position: 'center',
      background: '#ffffff',
      color: '#202223',
    },
    spin: {
      title: t('banners.defaults.spinTitle'),
      text: t('banners.defaults.spinText'),
      gate: 'email',
      slices: [
        { id: 's10', label: t('banners.defaults.slice10'), color: '#008060', weight: 1, lose: false, stock: null, code_prefix: 'OFF10' },
        { id: 'slose1', label: t('banners.defaults.sliceLose'), color: '#e4e5e7', weight: 2, lose: true, stock: null, code_prefix: '' },
        { id: 's20', label: t('banners.defaults.slice20'), color: '#2c6ecb', weight: 1, lose: false, stock: null, code_prefix: 'OFF20' },
        { id: 'slose2', label: t('banners.defaults.sliceLose'), color: '#ffd79d', weight: 2, lose: true, stock: null, code_prefix: '' },
      ],
      button_text: '',
      position: 'center',
      background: '#ffffff',
      color: '#202223',
    },
    suggestion: {
      title: t('suggestions.defaults.title'),
      kind: 'recommendation',
      items: [{ title: '', url: '', image_url: '', price: '' }],
      position: 'bottom_left',
      background: '#ffffff',
      color: '#202223',
    },
    fake_noti: {
      source: 'manual',
      items: [{ name: '', city: '', product: '', url: '', image_url: '', minutes_ago: 5 }],
      min_interval_seconds: 8,
      max_interval_seconds: 20,
      display_seconds: 6,
      max_per_session: 5,
      position: 'bottom_left',
    },
    maxlead: {
      buttons: [{ type: 'zalo', value: '', label: '' }],
      position: 'bottom_right',
      color: '#008060',
      phones: [],
      capture: 'none',
      greeting: '',
    },
  };
  return all[type] as SettingsOf<T>;
}

/** A new widget of `type`: off until the merchant switches it on, shown everywhere at once. */
export function newDraft<T extends WidgetType>(type: T, t: Translate): WidgetDraft<T> {
  return { type, name: '', status: 'inactive', settings: defaultSettings(type, t), rules: { ...DEFAULT_RULES } };
}

/**
 * The draft of a saved widget. What the server sent went through the contract; the defaults fill what a
 * widget saved before a setting existed does not have.
 */
export function draftFromWidget<T extends WidgetType>(widget: Widget & { type: T }, t: Translate): WidgetDraft<T> {
  const defaults = defaultSettings(widget.type, t);
  const settings = { ...defaults, ...widget.settings } as SettingsOf<T>;
  return { type: widget.type, name: widget.name, status: widget.status, settings, rules: { ...DEFAULT_RULES, ...widget.rules } };
}

/** The dotted path of a zod issue or of a server field error. */
export function pathKey(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** The first problem of each path. */
export function issuesToErrors(issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>): PathErrors {
  const errors: PathErrors = {};
  for (const issue of issues) {
    const key = pathKey(issue.path);
    if (!(key in errors)) errors[key] = issue.message;
  }
  return errors;
}

/** The server's INVALID_PARAM fields, by path. */
export function serverFieldErrors(fields: readonly FieldError[]): PathErrors {
  return issuesToErrors(fields.map((field) => ({ path: field.path.split('.'), message: field.message })));
}

/**
 * Checks a draft with the contract (plus the editor's own checks) and answers the body to send, or the
 * problems by path.
 */
export function validateDraft(
  draft: WidgetDraft,
  extra?: (draft: WidgetDraft) => PathErrors,
): { body: WidgetBody; errors?: undefined } | { body?: undefined; errors: PathErrors } {
  const parsed = WidgetBody.safeParse(draft);
  const errors = { ...(parsed.success ? {} : issuesToErrors(parsed.error.issues)), ...(extra?.(draft) ?? {}) };
  if (!parsed.success || Object.keys(errors).length > 0) return { errors };
  return { body: parsed.data };
}

/**
 * The widget for the preview frame, in the shape of the public config. A wheel keeps its odds, stocks and
 * code prefixes, which the public config leaves out: the preview draws its simulated spins from the draft's
 * own odds, and the frame is the merchant's, inside their console.
 */
export function toPublicWidget(draft: WidgetDraft, id = 0): PublicWidget {
  return { id, type: draft.type, settings: draft.settings as Record<string, unknown>, rules: draft.rules };
}

/** Errors under `prefix.`, with the prefix taken off: what one section of the form shows. */
export function errorsUnder(errors: PathErrors, prefix: string): PathErrors {
  const out: PathErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    if (key === prefix) out[''] = message;
    else if (key.startsWith(`${prefix}.`)) out[key.slice(prefix.length + 1)] = message;
  }
  return out;
}

/** The list with the item at `from` moved to `to` (both within bounds; otherwise the list unchanged). */
export function moveItem<T>(list: readonly T[], from: number, to: number): T[] {
  if (from < 0 || from >= list.length || to < 0 || to >= list.length || from === to) return [...list];
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
}
