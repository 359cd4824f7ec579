import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Lead } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, pageOf, renderInApplication } from '../../test-utils';
import { application as audienceApplication } from '../players/fixtures';
import { LeadsReportPage, dayBound } from './leads-report-page';
import { downloadLeadsCsv, fileNameOf } from './export-leads';

/** The application as a manager sees it. */
const application = { ...audienceApplication, role: 'manager' };

const spinLead: Lead = {
  id: 11,
  widget_id: 4,
  widget_name: 'Lucky wheel',
  source: 'spin',
  name: null,
  email: 'lan@example.vn',
  phone: null,
  message: null,
  button_type: null,
  prize: '10% off',
  code: 'OFF10-7KQ2',
  page_url: 'javascript:alert(1)',
  created: '2025-03-02T09:30:00.000Z',
};

const buttonLead: Lead = {
  ...spinLead,
  id: 12,
  widget_name: 'Contact buttons',
  source: 'maxlead',
  email: null,
  phone: '0901234567',
  prize: null,
  code: null,
  button_type: 'zalo',
  page_url: 'https://shop.example/products/tea',
};

let calls: Call[] = [];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['viewer'] });
  calls = fakeApi(
    {
      'GET /api/application/shop_one/lead/clicks': () => ({ items: [{ button_type: 'zalo', clicks: 12 }, { button_type: 'mail', clicks: 3 }] }),
      'GET /api/application/shop_one/lead': (call) => pageOf(call.query.get('source') === 'spin' ? [spinLead] : [buttonLead, spinLead]),
    },
    application,
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  renderInApplication(<LeadsReportPage />, '/application/shop_one/maxlead_report');
}

/** The queries of the lead list the screen asked for. */
const leadCalls = () => calls.filter((call) => call.path === '/api/application/shop_one/lead').map((call) => call.query);

describe('the contact report', () => {
  it('lists the leads with their prize, code and button, and the clicks per button', async () => {
    open();
    expect(await screen.findByText('OFF10-7KQ2')).toBeTruthy();
    expect(screen.getByText('10% off')).toBeTruthy();
    expect(screen.getByText('lan@example.vn')).toBeTruthy();
    expect(screen.getAllByText('Zalo').length).toBeGreaterThan(0);
    expect(await screen.findByText('12')).toBeTruthy();
  });

  it('makes links only of web pages a visitor came from', async () => {
    open();
    const link = await screen.findByRole('link', { name: 'shop.example/products/tea' });
    expect(link.getAttribute('href')).toBe('https://shop.example/products/tea');
    expect(screen.getByText('javascript:alert(1)').closest('a')).toBeNull();
  });

  describe('when filtered by source and days', () => {
    it('asks for that source from the start of the first day to the end of the last, in local time', async () => {
      open();
      await screen.findByText('OFF10-7KQ2');
      fireEvent.change(screen.getByLabelText('Source'), { target: { value: 'spin' } });
      fireEvent.change(screen.getByLabelText('From'), { target: { value: '2025-03-01' } });
      fireEvent.change(screen.getByLabelText('To'), { target: { value: '2025-03-02' } });
      await waitFor(() => expect(leadCalls().at(-1)?.get('to')).toBe(dayBound('2025-03-02', 'end')));
      const last = leadCalls().at(-1) as URLSearchParams;
      expect(last.get('source')).toBe('spin');
      expect(last.get('from')).toBe(new Date(2025, 2, 1, 0, 0, 0, 0).toISOString());
      expect(last.get('page')).toBe('1');
    });

    it('refuses a range that ends before it starts, without asking', async () => {
      open();
      await screen.findByText('OFF10-7KQ2');
      const before = leadCalls().length;
      fireEvent.change(screen.getByLabelText('From'), { target: { value: '2025-03-05' } });
      fireEvent.change(screen.getByLabelText('To'), { target: { value: '2025-03-01' } });
      expect(await screen.findByText('This day is before the start')).toBeTruthy();
      await act(async () => undefined);
      expect(leadCalls().length).toBe(before + 1);
    });
  });
});

describe('the CSV export', () => {
  it('sends the token as a header, never in the address, with the filters', async () => {
    const fetcher = vi.fn(async () =>
      new Response('"id"\n', { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="leads-shop_one-2025-03-02.csv"' } }),
    );
    const save = vi.fn();
    const name = await downloadLeadsCsv('shop_one', { source: 'spin', from: undefined }, {
      token: 'secret-token',
      language: 'en',
      pageUrl: 'https://console.example/application/shop_one/maxlead_report',
      fetch: fetcher as unknown as typeof fetch,
      save,
      unknownError: 'Unknown error',
    });
    expect(name).toBe('leads-shop_one-2025-03-02.csv');
    const [url, init] = fetcher.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('https://console.example/api/application/shop_one/lead/export.csv?source=spin');
    expect((init.headers as Record<string, string>)['X-Token']).toBe('secret-token');
    expect(save).toHaveBeenCalledWith(expect.any(Blob), 'leads-shop_one-2025-03-02.csv');
  });

  it("sends the embedded admin's session-token headers instead of any stored token", async () => {
    const fetcher = vi.fn(async () => new Response('"id"\n', { headers: { 'content-type': 'text/csv' } }));
    await downloadLeadsCsv('shop_one', {}, {
      token: 'stale-token',
      authorization: { Authorization: 'Bearer session.jwt', 'X-Token': 'shopify-embedded' },
      language: 'en',
      pageUrl: 'https://console.example/shopify-maxlead/application/shop_one/maxlead_report?access_token=link',
      fetch: fetcher as unknown as typeof fetch,
      save: vi.fn(),
      unknownError: 'Unknown error',
    });
    const [url, init] = fetcher.mock.calls[0] as unknown as [string, RequestInit];
    expect(new URL(url).searchParams.has('access_token')).toBe(false);
    expect(init.headers).toMatchObject({ Authorization: 'Bearer session.jwt', 'X-Token': 'shopify-embedded' });
  });

  it("gives the server's message when it refuses", async () => {
    const fetcher = vi.fn(async () => answer({ success: false, error: 'NO_PERMISSION', message: 'Permission denied!' }, 403));
    await expect(
      downloadLeadsCsv('shop_one', {}, {
        token: 'tok',
        language: 'en',
        pageUrl: 'https://console.example/',
        fetch: fetcher as unknown as typeof fetch,
        save: vi.fn(),
        unknownError: 'Unknown error',
      }),
    ).rejects.toThrow('Permission denied!');
  });

  it('reads the file name the server proposes', () => {
    expect(fileNameOf('attachment; filename="leads-a.csv"', 'x.csv')).toBe('leads-a.csv');
    expect(fileNameOf(null, 'x.csv')).toBe('x.csv');
  });
});
