import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventDefinition } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { fakeApi, pageOf, renderInApplication } from '../../test-utils';
import { application } from '../players/fixtures';
import { EventsPage } from './events-page';

let events: EventDefinition[] = [];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['viewer'] });
  events = [
    {
      name: 'purchase',
      count: 1_250_000,
      first_seen_at: '2025-01-05T00:00:00.000Z',
      last_seen_at: '2025-03-01T00:00:00.000Z',
      properties: { value: 'number', 'delivery.date': 'date', gift: 'boolean', note: 'text' },
    },
  ];
  fakeApi({ 'GET /api/application/shop_one/event': () => pageOf(events) }, application);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  renderInApplication(<EventsPage />, '/application/shop_one/event');
}

describe('the events screen', () => {
  it('lists each event with its abbreviated count, first seen day and properties with their types', async () => {
    open();
    const row = (await screen.findByText('purchase')).closest('tr') as HTMLElement;
    expect(within(row).getByText('1.3M')).toBeTruthy();
    expect(within(row).getByText('2025-01-05')).toBeTruthy();
    const property = (name: string) => within(row).getByText(name).parentElement as HTMLElement;
    expect(within(property('delivery.date')).getByText('Date')).toBeTruthy();
    expect(within(property('value')).getByText('Number')).toBeTruthy();
    expect(within(property('gift')).getByText('True/false')).toBeTruthy();
    expect(within(property('note')).getByText('Text')).toBeTruthy();
    // Read out as "value Type Number", not with the name of the badge's colour ("Info").
    expect(property('value').textContent).toBe('valueTypeNumber');
  });

  it('marks the events the SDK records by itself, and only those', async () => {
    events.push({ name: 'page_view', count: 42, first_seen_at: '2025-01-05T00:00:00.000Z', last_seen_at: '2025-03-01T00:00:00.000Z', properties: { url: 'text' } });
    open();
    const row = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;
    await screen.findByText('page_view');
    expect(within(row('page_view')).getByText('Automatic')).toBeTruthy();
    expect(within(row('purchase')).queryByText('Automatic')).toBeNull();
  });

  it('leads a manager from an event to a new segment of the players who performed it, and not a viewer, who may not see segments', async () => {
    useAppStore.setState({ roles: ['manager'] });
    open();
    const row = (await screen.findByText('purchase')).closest('tr') as HTMLElement;
    const link = within(row).getByRole('link', { name: 'Players who performed it' });
    expect(link.getAttribute('href')).toBe('/application/shop_one/segment/new?performed=purchase');
    cleanup();
    useAppStore.setState({ roles: ['viewer'] });
    open();
    await screen.findByText('purchase');
    expect(screen.queryByRole('link', { name: 'Players who performed it' })).toBeNull();
  });

  it('explains how to send an event when there is none', async () => {
    events = [];
    open();
    expect(await screen.findByText('No events yet')).toBeTruthy();
    expect(screen.getByText(/nudge\('event', 'purchase'/)).toBeTruthy();
    expect(screen.getByText('Property names ending in .date are stored as dates.')).toBeTruthy();
  });
});
