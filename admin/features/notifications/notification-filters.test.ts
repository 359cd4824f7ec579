import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTERS, filtersFromSearch, listQuery, searchOf, withFilter } from './notification-filters';

describe('the message list filters', () => {
  it('read the address and fall back to all for what the contract refuses', () => {
    expect(filtersFromSearch('status=waiting&source=api&type=sms&q=%20sale%20&page=3')).toEqual({
      status: 'waiting',
      source: 'api',
      type: 'sms',
      q: 'sale',
      page: 3,
    });
    expect(filtersFromSearch('status=sent&type=email&page=-2')).toEqual(DEFAULT_FILTERS);
  });

  it('write back only what differs from the defaults, so the plain list has a plain address', () => {
    expect(searchOf(DEFAULT_FILTERS)).toBe('');
    expect(searchOf({ ...DEFAULT_FILTERS, status: 'opened', q: 'tết' })).toBe('status=opened&q=t%E1%BA%BFt');
  });

  it('ask the API for the chosen status, source, type and search, leaving "all" out', () => {
    expect(listQuery(DEFAULT_FILTERS, 20)).toEqual({ page: 1, limit: 20 });
    expect(listQuery({ status: 'canceled', source: 'dashboard', type: 'web_push', q: 'x', page: 2 }, 20)).toEqual({
      page: 2,
      limit: 20,
      status: 'canceled',
      source: 'dashboard',
      type: 'web_push',
      q: 'x',
    });
  });

  it('go back to the first page when a filter changes', () => {
    expect(withFilter({ ...DEFAULT_FILTERS, page: 4 }, 'status', 'running').page).toBe(1);
    expect(withFilter(DEFAULT_FILTERS, 'page', 4).page).toBe(4);
  });
});
