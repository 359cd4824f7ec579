import type { Services } from '../context';
import { SEGMENT_MEASURE_ROUND, measureSegmentsDue } from '../domain/segments';
import { repeatAsLeader, type LeaderRounds } from './leader';

export interface SegmentSizesOptions {
  /** How long after the start the first round runs (the process has other things to do first). */
  firstAfterMs: number;
  /** How often a round runs afterwards. */
  everyMs: number;
}

/** After a round that measured as many as a round may, the next one's delay. */
const NEXT_ROUND_SOON_MS = 1_000;

export const DEFAULT_SEGMENT_SIZES_OPTIONS: SegmentSizesOptions = { firstAfterMs: 30_000, everyMs: 5 * 60_000 };

/**
 * The daily measurement of saved segments (a segment's size over time): every few minutes, in the one process that
 * leads "segment-sizes" cluster-wide (the API process in embedded mode, a worker in scale mode), a round measures
 * the segments not yet measured today in their application's timezone (measureSegmentsDue), a bounded number at a
 * time (the next round at once when one was full), so a shop's midnight is followed within minutes by a point for
 * each of its segments. The rounds are safe to repeat: a second measurement the same day replaces the first.
 * `stop()` ends the rounds, the one running stopping between two segments.
 */
export function startSegmentSizes(s: Services, overrides: Partial<SegmentSizesOptions> = {}): LeaderRounds {
  const options = { ...DEFAULT_SEGMENT_SIZES_OPTIONS, ...overrides };
  return repeatAsLeader(s, 'segment-sizes', { ...options, failure: 'segment sizes round failed' }, async (signal) => {
    const measured = await measureSegmentsDue(s, SEGMENT_MEASURE_ROUND, signal);
    if (measured > 0) s.log.info({ measured }, 'segment sizes measured');
    // A full round leaves more due: the next follows shortly.
    return measured >= SEGMENT_MEASURE_ROUND ? NEXT_ROUND_SOON_MS : undefined;
  });
}
