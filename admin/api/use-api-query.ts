import { useCallback, useEffect, useRef, useState } from 'react';
import type { z } from 'zod';
import type { ApiError } from './api-error';
import type { Query } from './client';
import { api } from './index';

export interface ApiQuery<T> {
  /** The last data loaded; kept while a new page or search loads so the table doesn't blink. */
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Loads again (after a change the screen made). */
  reload(): void;
}

export interface ApiQueryOptions {
  /**
   * The screen shows a failed load in place of its data (QueryState, LoadFailed…) whenever it has no data
   * yet: such a failure brings no toast as well. A failure while earlier data is still on screen (a new page,
   * a search, a reload) has nothing in place to say it, so the client's toast still does.
   */
  showsFailure?: boolean;
}

/**
 * Loads `path` through the one API client and checks the answer against `schema`. A null path loads
 * nothing. A newer request cancels the one in flight, so a slow answer never overwrites a newer one.
 */
export function useApiQuery<T>(path: string | null, schema: z.ZodType<T>, query?: Query, options: ApiQueryOptions = {}): ApiQuery<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const hasData = useRef(false);
  hasData.current = data !== undefined;
  const showsFailure = options.showsFailure ?? false;
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(path !== null);
  const [generation, setGeneration] = useState(0);
  const schemaRef = useRef(schema);
  schemaRef.current = schema;
  const queryKey = JSON.stringify(query ?? {});

  useEffect(() => {
    if (path === null) {
      setLoading(false);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    api
      .get(path, schemaRef.current, { query: JSON.parse(queryKey) as Query, signal: controller.signal, quiet: showsFailure && !hasData.current })
      .then((result) => {
        if (controller.signal.aborted) return;
        setData(result.data);
        setError(undefined);
        setLoading(false);
      })
      .catch((cause: ApiError) => {
        if (controller.signal.aborted) return;
        setError(cause);
        setLoading(false);
      });
    return () => controller.abort();
  }, [path, queryKey, generation, showsFailure]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { data, error, loading, reload };
}
