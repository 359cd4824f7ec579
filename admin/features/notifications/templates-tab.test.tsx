import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { Template } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, pageOf, renderInApplication } from '../../test-utils';
import { webApplication } from './fixtures';
import { NotificationTypeRoute } from './notification-routes';

const template: Template = {
  id: 5,
  name: 'Weekly picks',
  type: 'web_push',
  content: { heading: 'This week', content: 'Our picks for you', buttons: [], utm: {} },
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-02T00:00:00.000Z',
};
let calls: Call[];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['user'] });
  calls = fakeApi({
    'GET /api/application/shop_one/template': () => pageOf([template]),
    'POST /api/application/shop_one/template': (call) => ({ ...template, id: 6, ...(call.body as object) }),
  }, webApplication);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  return renderInApplication(<Route path="/notification/:notification_type" component={NotificationTypeRoute} />, '/application/shop_one/notification/template');
}

describe('the templates', () => {
  it('are made in the same content form as a message, checked before they are sent', async () => {
    open();
    await screen.findByText('Weekly picks');
    fireEvent.click(screen.getAllByRole('button', { name: 'Create template' })[0]);
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Type'), { target: { value: 'sms' } });
    // An SMS template has no heading, as an SMS message has none.
    expect(within(dialog).queryByLabelText('Heading')).toBeNull();
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    });
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
    expect(within(dialog).getAllByText('This field is required').length).toBe(2); // name and message
    fireEvent.change(within(dialog).getByLabelText('Template name'), { target: { value: 'Code reminder' } });
    fireEvent.change(within(dialog).getByLabelText('Message'), { target: { value: 'Your code ends today' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    });
    await waitFor(() => expect(calls.some((call) => call.method === 'POST')).toBe(true));
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ name: 'Code reminder', type: 'sms', content: { heading: '', content: 'Your code ends today', target_url: '', buttons: [], utm: {} } });
    expect(await screen.findByText('Template Code reminder saved')).toBeTruthy();
  });

  it('start a new message of their type', async () => {
    const view = open();
    fireEvent.click(await screen.findByRole('button', { name: 'Send a message from Weekly picks' }));
    expect(view.location()).toBe('/application/shop_one/notification/web_push?template_id=5');
  });
});
