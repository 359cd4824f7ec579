import { describe, expect, it } from 'vitest';
import { filtersFromSearch, isFiltered, searchOf, withFilter, withoutFilters } from './player-filters';

describe('the player list address', () => {
  it('reads filters, sort and page from the query', () => {
    const filters = filtersFromSearch('country=VN&platform=web&subscribed=true&seen_within_days=7&tag=vip&q=lan%40example.vn&sort=session_count&order=asc&page=3');
    expect(filters).toMatchObject({
      country: 'VN',
      platform: 'web',
      subscribed: 'true',
      seen_within_days: 7,
      tag: 'vip',
      q: 'lan@example.vn',
      sort: 'session_count',
      order: 'asc',
      page: 3,
    });
  });

  it('drops values the contract refuses and keeps the rest', () => {
    const filters = filtersFromSearch('platform=fax&seen_within_days=-2&sort=name&country=VN');
    expect(filters.platform).toBeUndefined();
    expect(filters.seen_within_days).toBeUndefined();
    expect(filters.sort).toBe('last_seen_at');
    expect(filters.country).toBe('VN');
  });

  it('writes the same filters back, leaving defaults out', () => {
    const search = 'country=VN&device_type=mobile&tag=vip&sort=session_count&page=2';
    expect(filtersFromSearch(searchOf(filtersFromSearch(search)))).toEqual(filtersFromSearch(search));
    expect(searchOf(filtersFromSearch(''))).toBe('');
  });

  it('goes back to page 1 when a filter changes, and clears a filter given no value', () => {
    const filters = filtersFromSearch('country=VN&page=4');
    expect(withFilter(filters, 'os', 'iOS')).toMatchObject({ os: 'iOS', country: 'VN', page: 1 });
    expect(withFilter(filters, 'country', undefined).country).toBeUndefined();
  });

  it('tells a filtered list from a sorted one', () => {
    expect(isFiltered(filtersFromSearch('sort=page_views&page=2'))).toBe(false);
    expect(isFiltered(filtersFromSearch('q=abc'))).toBe(true);
    expect(isFiltered(withoutFilters(filtersFromSearch('q=abc&tag=x&order=asc')))).toBe(false);
    expect(withoutFilters(filtersFromSearch('q=abc&order=asc')).order).toBe('asc');
  });
});
