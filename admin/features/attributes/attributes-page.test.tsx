import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttributeDefinition } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, pageOf, renderInApplication, writesOf } from '../../test-utils';
import { application } from '../players/fixtures';
import { AttributesPage } from './attributes-page';

const vip: AttributeDefinition = {
  id: 3,
  name: 'vip',
  type: 'boolean',
  description: 'Spent over 10M',
  source: 'sdk',
  players: 4200,
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
};
let calls: Call[] = [];
const writes = () => writesOf(calls);
const saved = (call: Call) => {
  const body = call.body as Partial<AttributeDefinition>;
  return { ...vip, id: 4, ...body, description: body.description ?? null, source: 'console', players: 0 };
};

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['manager'] });
  calls = fakeApi(
    {
      'GET /api/application/shop_one/attribute': () => pageOf([vip]),
      'POST /api/application/shop_one/attribute': saved,
      'PUT /api/application/shop_one/attribute/3': saved,
      'DELETE /api/application/shop_one/attribute/3': () => ({}),
    },
    application,
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  renderInApplication(<AttributesPage />, '/application/shop_one/attribute');
}

describe('the attributes screen', () => {
  it('lists each definition with its type, source and players', async () => {
    open();
    const row = (await screen.findByText('vip')).closest('tr') as HTMLElement;
    expect(within(row).getByText('True/false')).toBeTruthy();
    expect(within(row).getByText('SDK')).toBeTruthy();
    expect(within(row).getByText('4.2k')).toBeTruthy();
  });

  it('leads from the count of players to a new segment of those who have the attribute, for the roles that see segments', async () => {
    open();
    const row = (await screen.findByText('vip')).closest('tr') as HTMLElement;
    const link = within(row).getByRole('link', { name: 'Players who have vip' });
    expect(link.textContent).toBe('4.2k');
    expect(link.getAttribute('href')).toBe('/application/shop_one/segment/new?has=vip&type=boolean');
    cleanup();
    useAppStore.setState({ roles: ['viewer'] });
    open();
    expect(within((await screen.findByText('vip')).closest('tr') as HTMLElement).getByText('4.2k')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Players who have vip' })).toBeNull();
  });

  it('colours each type as /event and the phone list do: number blue, date purple, true/false green, text plain', async () => {
    calls = fakeApi(
      {
        'GET /api/application/shop_one/attribute': () =>
          pageOf([
            vip,
            { ...vip, id: 5, name: 'spent', type: 'number' },
            { ...vip, id: 6, name: 'birthday.date', type: 'date' },
            { ...vip, id: 7, name: 'plan', type: 'text' },
          ]),
      },
      application,
    );
    open();
    const badge = async (name: string, type: string) => {
      const row = (await screen.findByText(name)).closest('tr') as HTMLElement;
      return within(row).getByText(type).closest('.Polaris-Badge')?.className;
    };
    expect(await badge('vip', 'True/false')).toContain('Polaris-Badge--toneSuccess');
    expect(await badge('spent', 'Number')).toContain('Polaris-Badge--toneInfo');
    expect(await badge('birthday.date', 'Date')).toContain('Polaris-Badge--toneMagic');
    expect(await badge('plan', 'Text')).not.toMatch(/Polaris-Badge--tone/);
  });

  it('offers the first attribute once, in the empty state, not also in the header', async () => {
    calls = fakeApi({ 'GET /api/application/shop_one/attribute': () => pageOf([]) }, application);
    open();
    expect(await screen.findByText('No attributes yet')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Add attribute' })).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Add attribute' }));
    expect(await screen.findByRole('dialog')).toBeTruthy();
  });

  it('refuses a date attribute whose name does not end with .date, and creates it once it does', async () => {
    open();
    await screen.findByText('vip');
    fireEvent.click(screen.getAllByRole('button', { name: 'Add attribute' })[0]);
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'birthday' } });
    fireEvent.change(within(dialog).getByLabelText('Type'), { target: { value: 'date' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await within(dialog).findByText('Date field names must end with .date')).toBeTruthy();
    expect(writes()).toHaveLength(0);
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'birthday.date' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(writes()).toEqual([{ method: 'POST', path: '/api/application/shop_one/attribute', body: { name: 'birthday.date', type: 'date' } }]));
  });

  it('says a name ending with .date belongs to a date when another type is picked', async () => {
    open();
    await screen.findByText('vip');
    fireEvent.click(screen.getAllByRole('button', { name: 'Add attribute' })[0]);
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'visit.date' } });
    fireEvent.change(within(dialog).getByLabelText('Type'), { target: { value: 'number' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await within(dialog).findByText('Only date attributes may end with .date: choose the type Date or change the name')).toBeTruthy();
    expect(writes()).toHaveLength(0);
    fireEvent.change(within(dialog).getByLabelText('Type'), { target: { value: 'date' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(writes()).toEqual([{ method: 'POST', path: '/api/application/shop_one/attribute', body: { name: 'visit.date', type: 'date' } }]));
  });

  it('deletes a definition only after the confirmation', async () => {
    open();
    await screen.findByText('vip');
    fireEvent.click(screen.getByRole('button', { name: 'Delete vip' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/4,200 players hold a value/)).toBeTruthy();
    expect(writes()).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(writes()).toEqual([{ method: 'DELETE', path: '/api/application/shop_one/attribute/3', body: undefined }]));
  });

  it('goes back to the last page when deleting left its page empty, instead of saying there are none', async () => {
    // 21 definitions: the 21st alone on page 2.
    let definitions = Array.from({ length: 21 }, (_, index) => ({ ...vip, id: index + 1, name: `attr_${String(index + 1).padStart(2, '0')}` }));
    calls = fakeApi(
      {
        'GET /api/application/shop_one/attribute': (call) => {
          const page = Number(call.query.get('page') ?? 1);
          const limit = Number(call.query.get('limit') ?? 20);
          return { items: definitions.slice((page - 1) * limit, page * limit), total: definitions.length, page, limit };
        },
        'DELETE /api/application/shop_one/attribute/21': () => {
          definitions = definitions.filter((definition) => definition.id !== 21);
          return {};
        },
      },
      application,
    );
    open();
    await screen.findByText('attr_01');
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('attr_21');
    fireEvent.click(screen.getByRole('button', { name: 'Delete attr_21' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    // Page 2 is now past the end: the list shows page 1, the twenty that are left.
    expect(await screen.findByText('attr_01')).toBeTruthy();
    expect(screen.queryByText('attr_21')).toBeNull();
    expect(screen.queryByText('No attributes yet')).toBeNull();
    const pages = calls.filter((call) => call.method === 'GET' && call.path.endsWith('/attribute')).map((call) => call.query.get('page'));
    expect(pages.slice(-2)).toEqual(['2', '1']);
  });
});
