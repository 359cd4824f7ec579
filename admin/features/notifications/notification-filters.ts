import { NotificationListQuery } from '../../../shared/contract';

/** The list's filters as the address keeps them (`?status=waiting&type=sms&q=sale&page=2`). */
export interface NotificationFilters {
  status: NotificationListQuery['status'];
  source: NotificationListQuery['source'];
  type: NotificationListQuery['type'];
  q: string;
  page: number;
}

export const DEFAULT_FILTERS: NotificationFilters = { status: 'all', source: 'all', type: 'all', q: '', page: 1 };

/** The filters in an address's query; anything the contract refuses falls back to its default. */
export function filtersFromSearch(search: string): NotificationFilters {
  const params = new URLSearchParams(search);
  const pick = <K extends 'status' | 'source' | 'type'>(key: K): NotificationFilters[K] => {
    const checked = NotificationListQuery.shape[key].safeParse(params.get(key) ?? undefined);
    return (checked.success ? checked.data : DEFAULT_FILTERS[key]) as NotificationFilters[K];
  };
  const page = Number(params.get('page'));
  return {
    status: pick('status'),
    source: pick('source'),
    type: pick('type'),
    q: (params.get('q') ?? '').trim().slice(0, 100),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The address's query for the filters: only what differs from the defaults. */
export function searchOf(filters: NotificationFilters): string {
  const params = new URLSearchParams();
  if (filters.status !== 'all') params.set('status', filters.status);
  if (filters.source !== 'all') params.set('source', filters.source);
  if (filters.type !== 'all') params.set('type', filters.type);
  if (filters.q.trim()) params.set('q', filters.q.trim());
  if (filters.page > 1) params.set('page', String(filters.page));
  return params.toString();
}

/** A filter changed: the list starts again at its first page. */
export function withFilter<K extends keyof NotificationFilters>(filters: NotificationFilters, key: K, value: NotificationFilters[K]): NotificationFilters {
  return { ...filters, [key]: value, page: key === 'page' ? (value as number) : 1 };
}

/** GET /notification's query for the filters: "all" and an empty search are left out. */
export function listQuery(filters: NotificationFilters, limit: number): Record<string, string | number> {
  const query: Record<string, string | number> = { page: filters.page, limit };
  if (filters.status !== 'all') query.status = filters.status;
  if (filters.source !== 'all') query.source = filters.source;
  if (filters.type !== 'all') query.type = filters.type;
  if (filters.q.trim()) query.q = filters.q.trim();
  return query;
}

export function isFiltered(filters: NotificationFilters): boolean {
  return filters.status !== 'all' || filters.source !== 'all' || filters.type !== 'all' || filters.q.trim() !== '';
}
