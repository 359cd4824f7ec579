import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Link } from 'wouter';
import type { PlatformEntry, WebPushPlatform } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, renderInApplication } from '../../test-utils';
import { application } from '../players/fixtures';
import { PlatformPage } from './platform-page';

const KEY = 'BExampleVapidPublicKey_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const P8 = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgl+LAyzkovMFrcUlQ\n-----END PRIVATE KEY-----\n';

let stored: WebPushPlatform;
let entries: PlatformEntry[];
let puts: Record<string, unknown>[];
/** Kind → what its next PUT answers instead of saving. */
let refusals: Record<string, { status: number; body: unknown }>;

const notConfigured = (kind: PlatformEntry['kind']) => ({ kind, status: 'not_configured', updated_at: null, settings: null }) as PlatformEntry;

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'] });
  stored = { settings: null, vapid_public_key: KEY, updated_at: null };
  entries = (['web', 'ios', 'android', 'sms', 'facebook'] as const).map(notConfigured);
  puts = [];
  refusals = {};
  const saveProvider = (kind: 'ios' | 'android' | 'sms' | 'facebook') => (call: Call) => {
    const body = call.body as Record<string, unknown>;
    puts.push({ kind, ...body });
    if (refusals[kind]) return answer(refusals[kind].body, refusals[kind].status);
    return savedEntry(kind, body);
  };
  fakeApi(
    {
      'GET /api/application/shop_one/platform/web_push': () => stored,
      'PUT /api/application/shop_one/platform/web_push': (call) => {
        const body = call.body as WebPushPlatform['settings'];
        puts.push(body as Record<string, unknown>);
        stored = { settings: body, vapid_public_key: KEY, updated_at: '2025-03-01T00:00:00.000Z' };
        return stored;
      },
      'GET /api/application/shop_one/platform': () => entries,
      'PUT /api/application/shop_one/platform/ios': saveProvider('ios'),
      'PUT /api/application/shop_one/platform/android': saveProvider('android'),
      'PUT /api/application/shop_one/platform/sms': saveProvider('sms'),
      'PUT /api/application/shop_one/platform/facebook': saveProvider('facebook'),
      'GET /api/application/shop_one/api_key': () => [],
    },
    application,
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

/** What the server answers for a saved platform: its settings with the secrets masked. */
function savedEntry(kind: string, body: Record<string, any>): PlatformEntry {
  const base = { kind, status: body.status, updated_at: '2025-03-02T08:00:00.000Z' };
  if (kind === 'ios') {
    const auth = { kind: 'token', key_id: body.auth.key_id, team_id: body.auth.team_id, p8: '•••••••• SHA256:AbCdEf0123456789' };
    return { ...base, settings: { environment: body.environment, bundle_id: body.bundle_id, auth } } as PlatformEntry;
  }
  if (kind === 'sms') return { ...base, settings: { username: body.username, brand_name: body.brand_name, password: '••••••••' } } as PlatformEntry;
  throw new Error(`no answer for ${kind}`);
}

function open() {
  renderInApplication(<PlatformPage />, '/application/shop_one/platform');
}

/** One platform's card, by its title. */
async function card(title: string) {
  return within(await screen.findByRole('region', { name: title }));
}

describe('the platform screen', () => {
  it('shows the web push card with its key and worker line, and a card per platform, each not configured yet', async () => {
    open();
    expect((await screen.findByTestId('vapid-key')).textContent).toBe(KEY);
    expect(screen.getByText(/importScripts\('.*\/sdk\/sw\.js'\);/)).toBeTruthy();
    for (const title of ['Web push (browsers)', 'iOS (APNs)', 'Android (FCM)', 'SMS', 'Facebook page']) {
      expect((await card(title)).getByText('Not configured'), title).toBeTruthy();
    }
  });

  it('refuses a site URL and an icon URL that are not HTTPS, with the messages of spec §5, and sends nothing', async () => {
    open();
    const web = await card('Web push (browsers)');
    fireEvent.change(web.getByLabelText('Site URL'), { target: { value: 'http://shop.example.vn' } });
    fireEvent.change(web.getByLabelText('Icon URL'), { target: { value: 'http://shop.example.vn/i.png' } });
    fireEvent.click(web.getByRole('button', { name: 'Save' }));
    expect(await web.findByText('Site Url must be HTTPS')).toBeTruthy();
    expect(web.getByText('Icon Url must be HTTPS')).toBeTruthy();
    expect(puts).toEqual([]);
  });

  it('saves the web push settings with the box texts, and the preview follows the texts as they are typed', async () => {
    open();
    const web = await card('Web push (browsers)');
    fireEvent.click(web.getByLabelText('Web push is on'));
    fireEvent.change(web.getByLabelText('Site URL'), { target: { value: 'https://shop.example.vn' } });
    fireEvent.change(web.getByLabelText('Allow button'), { target: { value: 'Đồng ý' } });
    expect(web.getByTestId('box-preview').textContent).toContain('Đồng ý');
    fireEvent.click(web.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toMatchObject({ enabled: true, site_url: 'https://shop.example.vn', sw_path: '/nudge-sw.js', box: { allow_text: 'Đồng ý', position: 'top' } });
    expect(await web.findByText('Active')).toBeTruthy();
  });
});

describe('leaving the platform screen', () => {
  it('asks while a card holds changes not saved, and not once they are saved', async () => {
    const view = renderInApplication(
      <>
        <Link href="/player">Players</Link>
        <PlatformPage />
      </>,
      '/application/shop_one/platform',
    );
    const web = await card('Web push (browsers)');
    fireEvent.click(web.getByLabelText('Web push is on'));
    fireEvent.change(web.getByLabelText('Site URL'), { target: { value: 'https://shop.example.vn' } });
    fireEvent.click(screen.getByRole('link', { name: 'Players' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave page with unsaved changes?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(view.location()).toBe('/application/shop_one/platform');

    fireEvent.click(web.getByRole('button', { name: 'Save' }));
    expect(await web.findByText('Active')).toBeTruthy();
    fireEvent.click(screen.getByRole('link', { name: 'Players' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/player'));
  });
});

describe('the iOS card', () => {
  it('reads the .p8 file into the field, sends it with the key ids, and then shows the key masked with Replace', async () => {
    open();
    const ios = await card('iOS (APNs)');
    fireEvent.change(ios.getByLabelText('Bundle ID'), { target: { value: 'vn.nudge.shop' } });
    fireEvent.change(ios.getByLabelText('Key ID'), { target: { value: 'ab12cd34ef' } });
    fireEvent.change(ios.getByLabelText('Team ID'), { target: { value: 'TEAM123456' } });
    const picker = ios.getByLabelText('Auth key (.p8): Choose a file');
    fireEvent.change(picker, { target: { files: [new File([P8], 'AuthKey_AB12CD34EF.p8', { type: 'application/octet-stream' })] } });
    await waitFor(() => expect((ios.getByLabelText('Auth key (.p8)') as HTMLTextAreaElement).value).toBe(P8));
    fireEvent.click(ios.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toEqual({
      kind: 'ios',
      status: 'active',
      environment: 'production',
      bundle_id: 'vn.nudge.shop',
      auth: { kind: 'token', key_id: 'AB12CD34EF', team_id: 'TEAM123456', p8: P8.trim() },
    });
    expect(await ios.findByDisplayValue('•••••••• SHA256:AbCdEf0123456789')).toBeTruthy();
    expect(ios.getByRole('button', { name: 'Replace' })).toBeTruthy();
    expect(ios.getByText('Active')).toBeTruthy();
  });

  it('asks for the .p8 key and a 10-character key id before sending anything', async () => {
    open();
    const ios = await card('iOS (APNs)');
    fireEvent.change(ios.getByLabelText('Bundle ID'), { target: { value: 'vn.nudge.shop' } });
    fireEvent.change(ios.getByLabelText('Key ID'), { target: { value: 'AB12' } });
    fireEvent.change(ios.getByLabelText('Team ID'), { target: { value: 'TEAM123456' } });
    fireEvent.click(ios.getByRole('button', { name: 'Save' }));
    expect(await ios.findByText('This field is required')).toBeTruthy();
    expect(ios.getByText('Enter the 10 letters and digits of the ID')).toBeTruthy();
    expect(puts).toEqual([]);
  });

  it('shows the saved certificate, who it is for and until when, and a server refusal beside the PEM field', async () => {
    entries[1] = {
      kind: 'ios',
      status: 'active',
      updated_at: '2025-03-02T08:00:00.000Z',
      settings: {
        environment: 'production',
        bundle_id: 'vn.nudge.shop',
        auth: {
          kind: 'certificate',
          pem: '•••••••• SHA256:CertKey000000000',
          has_passphrase: true,
          certificate: { subject: 'CN=Apple Push Services: vn.nudge.shop', issuer: 'CN=Apple', valid_from: '2025-01-01T00:00:00.000Z', valid_to: '2099-06-30T00:00:00.000Z' },
        },
      },
    };
    refusals.ios = {
      status: 400,
      body: { success: false, error: 'INVALID_PARAM', message: 'x', fields: [{ path: 'auth.pem', message: 'The private key does not belong to this certificate' }] },
    };
    open();
    const ios = await card('iOS (APNs)');
    expect(ios.getByText('Subject: CN=Apple Push Services: vn.nudge.shop')).toBeTruthy();
    expect(ios.getByText('Valid until 2099-06-30')).toBeTruthy();
    expect(ios.getByText('The saved private key has a passphrase.')).toBeTruthy();
    fireEvent.click(ios.getByRole('button', { name: 'Replace' }));
    fireEvent.change(ios.getByLabelText('PEM file'), { target: { value: '-----BEGIN CERTIFICATE-----\nMIIBvjCCAWWgAwIBAgIJYAHAOyQrz9JC\n-----END CERTIFICATE-----\n' + P8 } });
    fireEvent.change(ios.getByLabelText('Private key passphrase'), { target: { value: 'mật khẩu' } });
    fireEvent.click(ios.getByRole('button', { name: 'Save' }));
    expect(await ios.findByText('The private key does not belong to this certificate')).toBeTruthy();
    expect(puts[0]).toMatchObject({ auth: { kind: 'certificate', passphrase: 'mật khẩu' } });
  });
});

describe('the SMS card', () => {
  it('checks the brand name and the password beside their fields, and sends nothing', async () => {
    open();
    const sms = await card('SMS');
    fireEvent.change(sms.getByLabelText('Username'), { target: { value: 'nudge_shop' } });
    fireEvent.change(sms.getByLabelText('Brand name'), { target: { value: 'NUDGE SHOP' } });
    fireEvent.click(sms.getByRole('button', { name: 'Save' }));
    expect(await sms.findByText('Up to 11 letters and digits, without spaces or accents')).toBeTruthy();
    expect(sms.getByText('This field is required')).toBeTruthy();
    expect(puts).toEqual([]);
  });

  it('keeps the saved password unless replaced, and switches the platform off', async () => {
    entries[3] = { kind: 'sms', status: 'active', updated_at: '2025-03-02T08:00:00.000Z', settings: { username: 'nudge_shop', brand_name: 'NUDGE', password: '••••••••' } };
    open();
    const sms = await card('SMS');
    expect(sms.getByDisplayValue('••••••••')).toBeTruthy();
    fireEvent.click(sms.getByLabelText('Active: send messages through this platform'));
    fireEvent.click(sms.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toEqual({ kind: 'sms', status: 'inactive', username: 'nudge_shop', brand_name: 'NUDGE' });
    expect(await sms.findByText('Inactive')).toBeTruthy();

    fireEvent.click(sms.getByRole('button', { name: 'Replace' }));
    fireEvent.change(sms.getByLabelText('Password'), { target: { value: 'new-pass' } });
    fireEvent.click(sms.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(2));
    expect(puts[1]).toMatchObject({ password: 'new-pass' });
    // Saved: the field is masked again, and nothing typed stays on screen.
    expect(await sms.findByDisplayValue('••••••••')).toBeTruthy();
    expect(sms.queryByDisplayValue('new-pass')).toBeNull();
  });

  it('goes back to the saved password with "Keep the saved one"', async () => {
    entries[3] = { kind: 'sms', status: 'active', updated_at: '2025-03-02T08:00:00.000Z', settings: { username: 'nudge_shop', brand_name: 'NUDGE', password: '••••••••' } };
    open();
    const sms = await card('SMS');
    fireEvent.click(sms.getByRole('button', { name: 'Replace' }));
    fireEvent.change(sms.getByLabelText('Password'), { target: { value: 'half typed' } });
    fireEvent.click(sms.getByRole('button', { name: 'Keep the saved one' }));
    fireEvent.click(sms.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).not.toHaveProperty('password');
  });
});

describe('the Facebook card', () => {
  it("shows the Graph API's refusal as a banner and keeps what was typed", async () => {
    refusals.facebook = { status: 400, body: { success: false, error: 'INVALID_PARAM', message: 'Can not connect to your page. Retry please!' } };
    open();
    const facebook = await card('Facebook page');
    fireEvent.change(facebook.getByLabelText('Page ID'), { target: { value: '104857600012345' } });
    fireEvent.change(facebook.getByLabelText('Page access token'), { target: { value: 'EAAGexpired' } });
    fireEvent.click(facebook.getByRole('button', { name: 'Save' }));
    expect(await facebook.findByText('Can not connect to your page. Retry please!')).toBeTruthy();
    expect(puts[0]).toEqual({ kind: 'facebook', status: 'active', page_id: '104857600012345', page_access_token: 'EAAGexpired' });
    expect(facebook.getByText('Not configured')).toBeTruthy();
    expect((facebook.getByLabelText('Page access token') as HTMLInputElement).value).toBe('EAAGexpired');
  });

  it('names the connected page', async () => {
    entries[4] = {
      kind: 'facebook',
      status: 'active',
      updated_at: '2025-03-02T08:00:00.000Z',
      settings: { page_id: '104857600012345', page_name: 'Cửa hàng Nudge', page_access_token: '•••••••• wxyz' },
    };
    open();
    const facebook = await card('Facebook page');
    expect(facebook.getByText('Connected to Cửa hàng Nudge')).toBeTruthy();
    expect(facebook.getByDisplayValue('•••••••• wxyz')).toBeTruthy();
  });
});

describe('the Android card', () => {
  it('shows the server’s problem with the key file beside the field', async () => {
    refusals.android = {
      status: 400,
      body: { success: false, error: 'INVALID_PARAM', message: 'x', fields: [{ path: 'service_account', message: 'The private_key of this file is not a readable RSA private key' }] },
    };
    open();
    const android = await card('Android (FCM)');
    const file = JSON.stringify({ type: 'service_account', project_id: 'p', client_email: 'a@p.iam.gserviceaccount.com', private_key: P8 });
    fireEvent.change(android.getByLabelText('FCM key (service account JSON)'), { target: { value: file } });
    fireEvent.click(android.getByRole('button', { name: 'Save' }));
    expect(await android.findByText('The private_key of this file is not a readable RSA private key')).toBeTruthy();
  });

  it('refuses a file that is not a service-account key before sending it', async () => {
    open();
    const android = await card('Android (FCM)');
    fireEvent.change(android.getByLabelText('FCM key (service account JSON)'), { target: { value: '{"type":"authorized_user"}' } });
    fireEvent.click(android.getByRole('button', { name: 'Save' }));
    expect(await android.findByText('This is not a service account key file (its type must be service_account)')).toBeTruthy();
    expect(puts).toEqual([]);
  });
});
