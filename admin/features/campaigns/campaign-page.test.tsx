import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Campaign } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, pageOf, renderInApplication } from '../../test-utils';
import { message, webApplication } from '../notifications/fixtures';
import { CampaignPage } from './campaign-page';

const campaign: Campaign = {
  id: 3,
  name: 'Tết 2025',
  description: 'Lunar new year promotions',
  messages: 2,
  stats: { targeted: 3000, sent: 2900, delivered: 2500, failed: 100, clicked: 250 },
  created_at: '2025-01-10T00:00:00.000Z',
  updated_at: '2025-01-10T00:00:00.000Z',
};
let calls: Call[];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['manager'] });
  calls = fakeApi({
    'GET /api/application/shop_one/campaign/3': () => campaign,
    'GET /api/application/shop_one/notification': () => pageOf([message({ campaign_id: 3 }), message({ id: 13, name: 'Second wave', campaign_id: 3 })]),
    'DELETE /api/application/shop_one/campaign/3': () => ({}),
  }, webApplication);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  return renderInApplication(<Route path="/campaign/:campaign_id" component={CampaignPage} />, '/application/shop_one/campaign/3');
}

describe('a campaign', () => {
  it('shows its totals and only its messages', async () => {
    open();
    expect(await screen.findByRole('heading', { name: 'Tết 2025' })).toBeTruthy();
    expect(screen.getByText('2.9k')).toBeTruthy();
    expect(screen.getByText('10%')).toBeTruthy(); // 250 clicked of 2,500 delivered
    expect(await screen.findByRole('link', { name: 'Second wave' })).toBeTruthy();
    const list = calls.find((call) => call.path === '/api/application/shop_one/notification');
    expect(list?.query.get('campaign_id')).toBe('3');
  });

  it('starts a new message in the campaign', async () => {
    const view = open();
    fireEvent.click(await screen.findByRole('button', { name: 'New message in this campaign' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'New Web push' }));
    expect(view.location()).toBe('/application/shop_one/notification/web_push?campaign_id=3');
  });

  it('is deleted only once its name is typed exactly, which the request carries', async () => {
    const view = open();
    await screen.findByRole('heading', { name: 'Tết 2025' });
    fireEvent.click(screen.getAllByRole('button', { name: 'Delete' })[0]);
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Its 2 messages stay, without a campaign/)).toBeTruthy();
    const confirm = within(dialog).getByRole('button', { name: 'Delete' });
    const name = within(dialog).getByLabelText('Type Tết 2025 to confirm');
    expect(confirm.getAttribute('aria-disabled')).toBe('true');
    fireEvent.change(name, { target: { value: 'Tet 2025' } });
    expect(confirm.getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(confirm);
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    fireEvent.change(name, { target: { value: 'Tết 2025' } });
    expect(confirm.getAttribute('aria-disabled')).not.toBe('true');
    await act(async () => {
      fireEvent.click(confirm);
    });
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/notification/campaign'));
    expect(calls.find((call) => call.method === 'DELETE')?.body).toEqual({ confirm_name: 'Tết 2025' });
  });

  it('lets a viewer look but not change it', async () => {
    useAppStore.setState({ roles: ['viewer'] });
    open();
    await screen.findByRole('heading', { name: 'Tết 2025' });
    expect(screen.getAllByRole('button', { name: 'Delete' })[0].getAttribute('aria-disabled')).toBe('true');
    expect(screen.getByRole('button', { name: 'New message in this campaign' }).getAttribute('aria-disabled')).toBe('true');
  });
});
