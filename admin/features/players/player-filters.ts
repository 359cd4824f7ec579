import { PlayerListQuery } from '../../../shared/contract';

/** The player list's filters, sort and page, as the URL's query keeps them. */
export type PlayerFilters = PlayerListQuery;

const FILTER_KEYS = ['country', 'device_type', 'os', 'platform', 'subscribed', 'seen_within_days', 'tag', 'q'] as const;
export type PlayerFilterKey = (typeof FILTER_KEYS)[number];

const DEFAULTS = PlayerListQuery.parse({});

/**
 * Reads the filters from a query string with the contract's PlayerListQuery; a value it refuses (a hand-edited
 * or stale link) is dropped rather than failing the page.
 */
export function filtersFromSearch(search: string): PlayerFilters {
  const input: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    if (value.trim() !== '') input[key] = value;
  }
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const parsed = PlayerListQuery.safeParse(input);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) delete input[String(issue.path[0])];
  }
  return DEFAULTS;
}

/** The query string of some filters, defaults left out so a plain list has a plain address. */
export function searchOf(filters: PlayerFilters): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key];
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  if (filters.sort !== DEFAULTS.sort) params.set('sort', filters.sort);
  if (filters.order !== DEFAULTS.order) params.set('order', filters.order);
  if (filters.page !== 1) params.set('page', String(filters.page));
  if (filters.limit !== DEFAULTS.limit) params.set('limit', String(filters.limit));
  return params.toString();
}

/** Whether any filter (not the sort or page) narrows the list. */
export function isFiltered(filters: PlayerFilters): boolean {
  return FILTER_KEYS.some((key) => filters[key] !== undefined && filters[key] !== '');
}

/** The filters with one changed (or cleared with undefined); any change of filter goes back to page 1. */
export function withFilter<K extends PlayerFilterKey>(filters: PlayerFilters, key: K, value: PlayerFilters[K] | undefined): PlayerFilters {
  const next = { ...filters, page: 1 };
  if (value === undefined || value === '') delete next[key];
  else next[key] = value;
  return next;
}

/** Every filter cleared, the sort kept. */
export function withoutFilters(filters: PlayerFilters): PlayerFilters {
  return { sort: filters.sort, order: filters.order, page: 1, limit: filters.limit };
}

