import type { ScheduleConfig } from '../../types';

/** Where a flash sale stands for this visitor, and the moment its countdown runs to (null: no countdown). */
export interface SalePhase {
  phase: 'before' | 'during' | 'after';
  until: number | null;
}

const time = (value: string | null | undefined) => (value ? Date.parse(value) : NaN);

/**
 * The sale's phase at `now`. Fixed: before its start, during until its end (no end: no countdown), then
 * after. Evergreen: each visitor's own window of `evergreen_minutes` from their first view (`firstSeen`).
 */
export function salePhase(settings: Pick<ScheduleConfig, 'mode' | 'sale_start' | 'sale_end' | 'evergreen_minutes'>, now: number, firstSeen: number): SalePhase {
  if (settings.mode === 'evergreen') {
    const end = firstSeen + (settings.evergreen_minutes || 60) * 60_000;
    return now < end ? { phase: 'during', until: end } : { phase: 'after', until: null };
  }
  const start = time(settings.sale_start);
  const end = time(settings.sale_end);
  if (now < start) return { phase: 'before', until: start };
  if (!(now >= end)) return { phase: 'during', until: Number.isNaN(end) ? null : end };
  return { phase: 'after', until: null };
}

/** Days, hours, minutes and seconds left until `until`, never below zero. */
export function remaining(until: number, now: number): [number, number, number, number] {
  const s = Math.max(0, Math.floor((until - now) / 1000));
  return [Math.floor(s / 86400), Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60];
}
