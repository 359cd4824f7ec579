import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import type { WebPushPlatform } from '../../../shared/contract';
import { ApplicationScope } from '../../app/application-scope';
import { useAppStore } from '../../stores/store';
import { answer, renderInConsole } from '../../test-utils';
import { application } from '../players/fixtures';
import { PlatformPage } from './platform-page';

const KEY = 'BExampleVapidPublicKey_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345';

let stored: WebPushPlatform;
let puts: Record<string, unknown>[];

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'] });
  stored = { settings: null, vapid_public_key: KEY, updated_at: null };
  puts = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const path = new URL(url).pathname;
      if (path === '/api/application/shop_one') return answer({ success: true, data: application });
      if (path === '/api/application/shop_one/platform/web_push') {
        if (init?.method === 'PUT') {
          const body = JSON.parse(String(init.body));
          puts.push(body);
          stored = { settings: body, vapid_public_key: KEY, updated_at: '2025-03-01T00:00:00.000Z' };
        }
        return answer({ success: true, data: stored });
      }
      return answer({ success: false, error: 'NOT_FOUND', message: 'Not found.' }, 404);
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open() {
  renderInConsole(
    <Route path="/application/:application_id" nest>
      <ApplicationScope>
        <PlatformPage />
      </ApplicationScope>
    </Route>,
    { path: '/application/shop_one/platform' },
  );
}

describe('the platform screen', () => {
  it('shows one web push card with the public key and the one-line worker file to host, and no other platform', async () => {
    open();
    expect((await screen.findByTestId('vapid-key')).textContent).toBe(KEY);
    expect(screen.getByText(/importScripts\('.*\/sdk\/sw\.js'\);/)).toBeTruthy();
    expect(screen.queryByText(/iOS|Android|SMS|Facebook/)).toBeNull();
  });

  it('refuses a site URL and an icon URL that are not HTTPS, with the messages of spec §5, and sends nothing', async () => {
    open();
    await screen.findByTestId('vapid-key');
    fireEvent.change(screen.getByLabelText('Site URL'), { target: { value: 'http://shop.example.vn' } });
    fireEvent.change(screen.getByLabelText('Icon URL'), { target: { value: 'http://shop.example.vn/i.png' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Site Url must be HTTPS')).toBeTruthy();
    expect(screen.getByText('Icon Url must be HTTPS')).toBeTruthy();
    expect(puts).toEqual([]);
  });

  it('saves the settings with the box texts, and the preview follows the texts as they are typed', async () => {
    open();
    await screen.findByTestId('vapid-key');
    fireEvent.click(screen.getByLabelText('Web push is on'));
    fireEvent.change(screen.getByLabelText('Site URL'), { target: { value: 'https://shop.example.vn' } });
    fireEvent.change(screen.getByLabelText('Allow button'), { target: { value: 'Đồng ý' } });
    expect(screen.getByTestId('box-preview').textContent).toContain('Đồng ý');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toMatchObject({ enabled: true, site_url: 'https://shop.example.vn', sw_path: '/nudge-sw.js', box: { allow_text: 'Đồng ý', position: 'top' } });
  });
});
