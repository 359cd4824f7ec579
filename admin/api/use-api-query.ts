import { useCallback, useEffect, useRef, useState } from 'react';
import type { z } from 'zod';
import type { ApiError } from './api-error';
import { PAGE_LIMIT_MAX } from '../../shared/contract';
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
  /**
   * The screen shows a refusal of what it asked (400: a search too broad to answer) in place of its data, even
   * when earlier data is on screen: such a refusal brings no toast.
   */
  showsRefusal?: boolean;
}

/**
 * The load behind both hooks: runs `load` when `active`, again when `key` changes or on reload, and cancels the
 * run in flight, so a slow answer never overwrites a newer one. `load` is told whether data is already on screen
 * (useApiQuery keeps the client's failure toast for that case).
 */
function useLoad<T>(active: boolean, key: string, load: (signal: AbortSignal, hasData: boolean) => Promise<T>): ApiQuery<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const hasData = useRef(false);
  hasData.current = data !== undefined;
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(active);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    if (!active) {
      setLoading(false);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    loadRef
      .current(controller.signal, hasData.current)
      .then((result) => {
        if (controller.signal.aborted) return;
        setData(result);
        setError(undefined);
        setLoading(false);
      })
      .catch((cause: ApiError) => {
        if (controller.signal.aborted) return;
        setError(cause);
        setLoading(false);
      });
    return () => controller.abort();
  }, [active, key, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { data, error, loading, reload };
}

/**
 * Loads `path` through the one API client and checks the answer against `schema`. A null path loads
 * nothing. A newer request cancels the one in flight, so a slow answer never overwrites a newer one.
 */
export function useApiQuery<T>(path: string | null, schema: z.ZodType<T>, query?: Query, options: ApiQueryOptions = {}): ApiQuery<T> {
  const { showsFailure = false, showsRefusal = false } = options;
  const key = JSON.stringify([path, query ?? {}, showsFailure, showsRefusal]);
  return useLoad(path !== null, key, async (signal, hasData) => {
    const quiet = (error: ApiError) => (showsFailure && !hasData) || (showsRefusal && error.status === 400);
    const result = await api.get(path as string, schema, { query, signal, quiet });
    return result.data;
  });
}

/** How many items a picker loads at most: ten of the API's largest pages. */
export const PICKER_MAX = 10 * PAGE_LIMIT_MAX;

/**
 * A picker's choices: the items `useAllPages` loaded when they are the whole list, undefined while it loads or when
 * the list is longer than PICKER_MAX. A picker holding only the first PICKER_MAX would leave the rest impossible to
 * choose; without a list the names are typed instead, as for a role that may not list them.
 */
export function wholeList<T>(data: { items: T[]; total: number } | undefined): T[] | undefined {
  return data && data.items.length >= data.total ? data.items : undefined;
}

/**
 * Every item of a paged list, for a picker (segments, attributes, events, campaigns, templates), loaded page
 * after page of the API's largest page until the list ends or PICKER_MAX items are in, so an application with
 * more than one page of them can still choose the last. `total` is the list's own total, more than `items` only
 * past PICKER_MAX. A null path loads nothing; a change of path or query cancels the pages in flight.
 */
export function useAllPages<T>(path: string | null, schema: z.ZodType<{ items: T[]; total: number }>, query?: Query): ApiQuery<{ items: T[]; total: number }> {
  return useLoad(path !== null, JSON.stringify([path, query ?? {}]), async (signal) => {
    const items: T[] = [];
    let total = 0;
    for (let page = 1; ; page += 1) {
      const { data } = await api.get(path as string, schema, { query: { ...query, page, limit: PAGE_LIMIT_MAX }, signal });
      items.push(...data.items);
      total = data.total;
      if (data.items.length < PAGE_LIMIT_MAX || items.length >= total || items.length >= PICKER_MAX) return { items, total };
    }
  });
}
