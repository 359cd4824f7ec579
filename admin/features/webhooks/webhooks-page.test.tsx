import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Webhook, WebhookAttempt } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, fakeApi, pageOf, renderInApplication, writesOf } from '../../test-utils';
import { application } from '../players/fixtures';
import { WebhooksPage } from './webhooks-page';

const BASE = '/api/application/shop_one/webhook';

const leads: Webhook = {
  id: 3,
  url: 'https://crm.example.com/hooks/nudge',
  event_types: ['new_lead'],
  tag: null,
  status: 'active',
  disabled_reason: null,
  disabled_at: null,
  secret_hint: 'whsec_…Xy3Q',
  consecutive_failures: 0,
  failing_since: null,
  last_attempt: { at: '2025-03-01T10:00:00.000Z', ok: true, status_code: 200, error: null },
  created_at: '2025-02-01T00:00:00.000Z',
  updated_at: '2025-02-01T00:00:00.000Z',
};
const broken: Webhook = {
  ...leads,
  id: 4,
  url: 'https://old.example.com/in',
  event_types: ['delivery_failure', 'message_with_tag'],
  tag: 'vip',
  status: 'disabled',
  disabled_reason: 'failing',
  disabled_at: '2025-03-02T08:00:00.000Z',
  secret_hint: 'whsec_…aaaa',
  failing_since: '2025-03-01T08:00:00.000Z',
  last_attempt: { at: '2025-03-02T08:00:00.000Z', ok: false, status_code: null, error: 'timeout' },
};
const attempt: WebhookAttempt = {
  id: 11,
  msg_id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85',
  event_type: 'new_lead',
  attempt: 2,
  status_code: 500,
  error: null,
  duration_ms: 42,
  outcome: 'retrying',
  next_attempt_at: '2025-03-01T10:05:00.000Z',
  created_at: '2025-03-01T10:00:00.000Z',
};

let webhooks: Webhook[] = [];
let calls: Call[] = [];
const writes = () => writesOf(calls);

/** PUT of a webhook: the stored one with the form's fields, on or off as asked. */
const updated = (id: number) => (call: Call) => {
  const body = call.body as { active?: boolean };
  const current = webhooks.find((webhook) => webhook.id === id)!;
  return { ...current, ...body, status: body.active ? 'active' : 'disabled', disabled_reason: body.active ? null : 'manual' };
};

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'] });
  webhooks = [leads, broken];
  calls = fakeApi(
    {
      [`GET ${BASE}`]: () => pageOf(webhooks),
      [`GET ${BASE}/3/attempts`]: () => pageOf([attempt]),
      [`POST ${BASE}`]: (call) => ({
        ...leads,
        id: 9,
        ...(call.body as object),
        status: 'active',
        secret_hint: 'whsec_…1234',
        last_attempt: null,
        signing_secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=',
      }),
      [`PUT ${BASE}/3`]: updated(3),
      [`PUT ${BASE}/4`]: updated(4),
      [`DELETE ${BASE}/3`]: () => ({}),
    },
    application,
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  renderInApplication(<WebhooksPage />, '/application/shop_one/webhook');
}

const rowOf = async (url: string) => (await screen.findByText(url)).closest('tr') as HTMLElement;

describe('the webhooks screen', () => {
  it('lists each webhook with its events, state, last answer and only a hint of its secret', async () => {
    open();
    const row = await rowOf(leads.url);
    expect(within(row).getByText('New lead')).toBeTruthy();
    expect(within(row).getByText('Active')).toBeTruthy();
    expect(within(row).getByText('HTTP 200')).toBeTruthy();
    expect(within(row).getByText('whsec_…Xy3Q')).toBeTruthy();
  });

  it('shows why a webhook was disabled and re-enables it', async () => {
    open();
    const row = await rowOf(broken.url);
    expect(within(row).getByText('Disabled')).toBeTruthy();
    expect(within(row).getByText(/No delivery succeeded for 24 hours/)).toBeTruthy();
    expect(within(row).getByText('Message with tag vip')).toBeTruthy();
    expect(within(row).getByText('No answer in 10 s')).toBeTruthy();
    fireEvent.click(within(row).getByRole('button', { name: 'Re-enable' }));
    await waitFor(() =>
      expect(writes()).toEqual([
        { method: 'PUT', path: `${BASE}/4`, body: { url: broken.url, event_types: ['delivery_failure', 'message_with_tag'], tag: 'vip', active: true } },
      ]),
    );
    expect(await screen.findByText('Webhook re-enabled')).toBeTruthy();
  });

  it('checks the form before sending, asks for the tag only with "message with tag", then shows the new secret once', async () => {
    open();
    await rowOf(leads.url);
    fireEvent.click(screen.getAllByRole('button', { name: 'Add webhook' })[0]);
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).queryByLabelText('Tag')).toBeNull();
    fireEvent.change(within(dialog).getByLabelText('Payload URL'), { target: { value: 'ftp://crm.example.com/in' } });
    fireEvent.click(within(dialog).getByLabelText('New lead'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await within(dialog).findByText('Invalid Payload URL')).toBeTruthy();
    expect(within(dialog).getByText('Choose at least one event')).toBeTruthy();

    fireEvent.change(within(dialog).getByLabelText('Payload URL'), { target: { value: 'https://crm.example.com/in' } });
    fireEvent.click(within(dialog).getByLabelText('Message with tag'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await within(dialog).findByText('This field is required')).toBeTruthy();
    expect(writes()).toHaveLength(0);

    fireEvent.change(within(dialog).getByLabelText('Tag'), { target: { value: 'vip' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() =>
      expect(writes()).toEqual([{ method: 'POST', path: BASE, body: { url: 'https://crm.example.com/in', event_types: ['message_with_tag'], tag: 'vip', active: true } }]),
    );
    const secret = await screen.findByRole('dialog', { name: 'Signing secret' });
    expect((within(secret).getByLabelText('Signing secret') as HTMLInputElement).value).toBe('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=');
    expect(within(secret).getByRole('button', { name: 'Copy secret' })).toBeTruthy();
  });

  it('deletes a webhook only after the confirmation', async () => {
    open();
    const row = await rowOf(leads.url);
    fireEvent.click(within(row).getByRole('button', { name: `Delete ${leads.url}` }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Nothing more will be sent to https:\/\/crm\.example\.com\/hooks\/nudge/)).toBeTruthy();
    expect(writes()).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(writes()).toEqual([{ method: 'DELETE', path: `${BASE}/3`, body: undefined }]));
  });

  it('opens the attempt log with each attempt’s number, answer and next try', async () => {
    open();
    const row = await rowOf(leads.url);
    fireEvent.click(within(row).getByRole('button', { name: `More actions for ${leads.url}` }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Attempt log' }));
    const dialog = await screen.findByRole('dialog', { name: 'Attempt log' });
    expect(await within(dialog).findByText('Attempt 2')).toBeTruthy();
    expect(within(dialog).getByText('HTTP 500')).toBeTruthy();
    expect(within(dialog).getByText(/^Retry at /)).toBeTruthy();
    expect(within(dialog).getByText(attempt.msg_id)).toBeTruthy();
  });

  it('invites to add the first webhook when there is none', async () => {
    webhooks = [];
    open();
    expect(await screen.findByText('No webhooks yet')).toBeTruthy();
  });
});
