import { TextField } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PathErrors } from './widget-drafts';

/** Looks up the translated problem of a path (relative to the section), or undefined. */
export type ErrorOf = (path: string) => string | undefined;

/**
 * A problem as the merchant reads it: an i18n key (the contract's messages) is translated; a text the
 * server already translated is shown as it came (i18next would read its ':' as a namespace).
 */
export function messageText(t: (key: string) => string, message: string): string {
  return /^[A-Za-z_]\w*(?:\.\w+)+$/.test(message) ? t(message) : message;
}

/** The translated lookup over a section's errors. */
export function useErrorOf(errors: PathErrors): ErrorOf {
  const { t } = useTranslation();
  return (path) => (errors[path] ? messageText(t, errors[path]) : undefined);
}

/** Expands #rgb to #rrggbb: the native colour input takes only the long form. */
function longHex(value: string): string {
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(value);
  if (short) return `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`.toLowerCase();
  return /^#[0-9a-f]{6}$/i.test(value) ? value.toLowerCase() : '#000000';
}

export interface ColorFieldProps {
  label: string;
  value: string;
  onChange(value: string): void;
  error?: string;
  disabled?: boolean;
}

/** A colour: a picker beside the hex text, either of which may be used. */
export function ColorField({ label, value, onChange, error, disabled }: ColorFieldProps) {
  const { t } = useTranslation();
  return (
    <TextField
      label={label}
      value={value}
      onChange={(next) => onChange(next.trim())}
      autoComplete="off"
      maxLength={7}
      monospaced
      error={error}
      disabled={disabled}
      connectedLeft={
        <input
          type="color"
          aria-label={t('widgets.fields.pickColor', { label })}
          value={longHex(value)}
          disabled={disabled}
          onChange={(event) => onChange(event.target.value)}
          style={{
            width: 44,
            height: 34,
            padding: 2,
            border: '1px solid var(--p-color-input-border)',
            borderRadius: 'var(--p-border-radius-200)',
            background: 'var(--p-color-bg-surface)',
            cursor: disabled ? 'default' : 'pointer',
          }}
        />
      }
    />
  );
}

export interface NumberFieldProps {
  label: string;
  /** null: empty (only when `emptyMeans` is given). */
  value: number | null;
  onChange(value: number | null): void;
  min?: number;
  max?: number;
  step?: number;
  suffix?: string;
  helpText?: string;
  /** What an empty field means, shown as its placeholder; without it an empty field is a problem. */
  emptyMeans?: string;
  error?: string;
  disabled?: boolean;
  labelHidden?: boolean;
}

/**
 * A number typed as text: what is typed stays as typed (a half-written "1." is not snapped back), and
 * what is not a number reaches the draft as NaN, which the contract refuses with its message.
 */
export function NumberField({ label, value, onChange, min, max, step, suffix, helpText, emptyMeans, error, disabled, labelHidden }: NumberFieldProps) {
  const shown = value === null || Number.isNaN(value) ? '' : String(value);
  const [text, setText] = useState(shown);

  // The draft changed from elsewhere (a reset, a loaded widget): show it unless the text already means it.
  useEffect(() => {
    const typed = text.trim() === '' ? null : Number(text);
    if (typed !== value && !(Number.isNaN(typed) && Number.isNaN(value))) setText(shown);
  }, [value]);

  return (
    <TextField
      label={label}
      labelHidden={labelHidden}
      type="number"
      value={text}
      min={min}
      max={max}
      step={step}
      suffix={suffix}
      helpText={helpText}
      placeholder={emptyMeans}
      autoComplete="off"
      error={error}
      disabled={disabled}
      onChange={(next) => {
        setText(next);
        if (next.trim() === '') onChange(emptyMeans !== undefined ? null : Number.NaN);
        else onChange(Number(next));
      }}
    />
  );
}

/** `YYYY-MM-DDTHH:mm` in the browser's time zone, as a datetime-local input shows it. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The instant a datetime-local value names in the browser's time zone, as ISO 8601; null when empty. */
export function fromLocalInput(value: string): string | null {
  if (value.trim() === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export interface DateTimeFieldProps {
  label: string;
  /** ISO 8601, or null for none. */
  value: string | null;
  onChange(value: string | null): void;
  helpText?: string;
  error?: string;
  disabled?: boolean;
}

/** A date and time in the merchant's own time zone, stored as an instant. */
export function DateTimeField({ label, value, onChange, helpText, error, disabled }: DateTimeFieldProps) {
  return (
    <TextField
      label={label}
      type="datetime-local"
      value={toLocalInput(value)}
      onChange={(next) => onChange(fromLocalInput(next))}
      autoComplete="off"
      helpText={helpText}
      error={error}
      disabled={disabled}
      clearButton={!disabled && value !== null}
      onClearButtonClick={() => onChange(null)}
    />
  );
}
