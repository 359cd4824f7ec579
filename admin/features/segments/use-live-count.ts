import { useEffect, useState } from 'react';
import { SegmentCount, type SegmentRule } from '../../../shared/contract';
import { api, isApiError } from '../../api';
import { useDebouncedValue } from '../../components/use-debounced-value';

/** How long the rule must stay unchanged before it is counted. */
export const LIVE_COUNT_DELAY_MS = 400;

export interface LiveCount {
  /** The count of the rule as it is now, or, while that is pending, the last count shown (kept so the number doesn't blink). */
  count: SegmentCount | undefined;
  /** A count is pending (waiting for typing to pause, or on its way). */
  counting: boolean;
  error: string | undefined;
}

/**
 * Counts the players a rule matches as it is edited: once it has stayed unchanged for 400 ms it is posted to
 * `/segment/count`; a newer rule cancels the request in flight, so a slow answer never shows for a rule that
 * is no longer on screen. A null rule (incomplete rows) counts nothing.
 */
export function useLiveCount(path: string, rule: SegmentRule | null): LiveCount {
  const key = rule ? JSON.stringify(rule) : null;
  const settled = useDebouncedValue(key, LIVE_COUNT_DELAY_MS);
  const [result, setResult] = useState<{ key: string; count?: SegmentCount; error?: string } | null>(null);

  useEffect(() => {
    if (settled === null) return;
    const controller = new AbortController();
    api
      .post(path, { rule: JSON.parse(settled) as SegmentRule }, SegmentCount, { quiet: true, signal: controller.signal })
      .then(({ data }) => {
        if (!controller.signal.aborted) setResult({ key: settled, count: data });
      })
      .catch((cause: unknown) => {
        if (!controller.signal.aborted) setResult({ key: settled, error: isApiError(cause) ? cause.message : String(cause) });
      });
    return () => controller.abort();
  }, [path, settled]);

  if (key === null) return { count: undefined, counting: false, error: undefined };
  const current = result?.key === key ? result : null;
  return { count: current ? current.count : result?.count, counting: current === null, error: current?.error };
}
