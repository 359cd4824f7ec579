import { STRINGS } from './strings';

/** "5 minutes ago" in the visitor's language, from a number of minutes. */
export function minutesAgo(minutes: number, strings: (typeof STRINGS)['en']): string {
  const m = Math.max(0, Math.floor(minutes || 0));
  if (m < 1) return strings.justNow;
  if (m < 60) return strings.ago(m, 'minute');
  if (m < 1440) return strings.ago(Math.floor(m / 60), 'hour');
  return strings.ago(Math.floor(m / 1440), 'day');
}

/** The pause before the next notice: a whole number of milliseconds between min and max seconds. */
export function nextPause(minSeconds: number, maxSeconds: number, random: number): number {
  const low = Math.max(1, Math.min(minSeconds, maxSeconds));
  const high = Math.max(low, maxSeconds);
  return Math.round((low + (high - low) * random) * 1000);
}

/** How many notices this session has shown, from the stored `session|count`. */
export function shownThisSession(record: string | null, session: string): number {
  const [owner, count] = (record || '').split('|');
  return owner === session ? Number(count) || 0 : 0;
}
