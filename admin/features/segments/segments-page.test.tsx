import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Segment } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { fakeApi, pageOf, renderInApplication } from '../../test-utils';
import { application } from '../players/fixtures';
import { SegmentsPage } from './segments-page';

let segments: Segment[] = [];
let tea: Segment;

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['ads_manager'] });
  tea = {
    id: 7,
    name: 'Tea lovers',
    rule: { any: [{ all: [{ kind: 'tag', op: 'has', tag: 'tea' }, { kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] },
    size: 1_234_567,
    measured_at: null,
    created_at: '2025-02-01T00:00:00.000Z',
    updated_at: '2025-02-03T00:00:00.000Z',
  };
  segments = [tea];
  fakeApi({ 'GET /api/application/shop_one/segment': () => pageOf(segments) }, application);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  renderInApplication(<SegmentsPage />, '/application/shop_one/segment');
}

describe('the saved segments', () => {
  it('list each segment with its rule in short, its size and a link to it', async () => {
    open();
    const link = await screen.findByRole('link', { name: 'Tea lovers' });
    expect(link.getAttribute('href')).toBe('/application/shop_one/segment/7');
    const row = link.closest('tr') as HTMLElement;
    expect(within(row).getByText('1 group · 2 conditions')).toBeTruthy();
    expect(within(row).getByText('1.2M')).toBeTruthy();
    expect(within(row).getByText('2025-02-03')).toBeTruthy();
  });

  it("offer one button to create a segment: the empty state's while there is none, then the header's", async () => {
    segments = [];
    open();
    expect(await screen.findByText('No segments yet')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Create segment' })).toHaveLength(1);
    expect(document.querySelector('.Polaris-Page-Header__PrimaryActionWrapper')).toBeNull();
    // Once there are some, the header's.
    cleanup();
    segments = [tea];
    open();
    await screen.findByRole('link', { name: 'Tea lovers' });
    const header = document.querySelector('.Polaris-Page-Header__PrimaryActionWrapper') as HTMLElement;
    expect(within(header).getByRole('button', { name: 'Create segment' })).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Create segment' })).toHaveLength(1);
    expect(screen.queryByText('No segments yet')).toBeNull();
  });
});
