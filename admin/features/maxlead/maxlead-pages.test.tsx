import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Widget } from '../../../shared/contract';
import type { PreviewMessage } from '../../components/widget-preview';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, type Handler, pageOf, previewFrameSaysReady, renderInApplication, spyOnPreviewFrame, writesOf } from '../../test-utils';
import { application as audienceApplication } from '../players/fixtures';
import { buttonValueProblem } from './button-types';
import { FeaturePage, MaxleadPage } from './maxlead-pages';

/** The application as a manager sees it. */
const application = { ...audienceApplication, role: 'manager' };

const saved: Widget = {
  id: 3,
  type: 'maxlead',
  name: 'Contact buttons',
  status: 'inactive',
  settings: {
    buttons: [
      { type: 'zalo', value: '0901234567', label: '' },
      { type: 'mail', value: 'hello@shop.vn', label: 'Write to us' },
    ],
    position: 'bottom_right',
    color: '#008060',
    phones: [],
    capture: 'none',
    greeting: '',
  },
  rules: {
    pages: [],
    devices: ['desktop', 'mobile'],
    delay_seconds: 0,
    scroll: 'none',
    exit_intent: false,
    frequency: 'every_page',
    start_at: null,
    end_at: null,
  },
  views: 0,
  clicks: 0,
  leads: 0,
  created: '2025-03-01T00:00:00.000Z',
  updated: '2025-03-01T00:00:00.000Z',
};

let calls: Call[] = [];

/** The API as these screens use it: the application, its widgets, and what a save (POST or PUT) answers. */
function serve({ widgets, onWrite, app = application }: { widgets: Widget[]; onWrite?: Handler; app?: typeof application }) {
  const write = onWrite ?? (() => answer({ success: false, error: 'NOT_FOUND', message: 'Not found.' }, 404));
  calls = fakeApi(
    {
      'GET /api/application/shop_one/widget': () => ({ ...pageOf(widgets), limit: 1 }),
      'POST /api/application/shop_one/widget': write,
      'PUT /api/application/shop_one/widget/3': write,
      'PUT /api/application/shop_one/widget/9': write,
    },
    app,
  );
}

function open(page: 'maxlead' | 'feature') {
  renderInApplication(page === 'maxlead' ? <MaxleadPage /> : <FeaturePage />, `/application/shop_one/${page}`);
}

async function save() {
  await act(async () => {
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
  });
}

const isDisabled = (element: HTMLElement) => element.hasAttribute('disabled') || element.getAttribute('aria-disabled') === 'true';

const writes = () => writesOf(calls);

beforeEach(() => {
  (window as unknown as { happyDOM: { settings: { handleDisabledFileLoadingAsSuccess: boolean } } }).happyDOM.settings.handleDisabledFileLoadingAsSuccess = true;
  useAppStore.setState({ token: 'tok', roles: ['manager'] });
  calls = [];
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the contact buttons screen', () => {
  describe('when buttons are moved', () => {
    it('saves them in the new order', async () => {
      serve({ widgets: [saved], onWrite: (call) => answer({ success: true, data: { ...saved, ...(call.body as object) } }) });
      open('maxlead');
      await screen.findByRole('group', { name: 'Button 1: Zalo' });
      fireEvent.click(screen.getByRole('button', { name: 'Move Button 2: Email up' }));
      expect(screen.getByRole('group', { name: 'Button 1: Email' })).toBeTruthy();
      expect(isDisabled(screen.getByRole('button', { name: 'Move Button 1: Email up' }))).toBe(true);
      expect(isDisabled(screen.getByRole('button', { name: 'Move Button 2: Zalo down' }))).toBe(true);
      await save();
      await waitFor(() => expect(writes()).toHaveLength(1));
      const [write] = writes();
      expect(write.method).toBe('PUT');
      expect(write.path).toBe('/api/application/shop_one/widget/3');
      expect((write.body as { settings: { buttons: Array<{ type: string }> } }).settings.buttons.map((b) => b.type)).toEqual(['mail', 'zalo']);
    });
  });

  describe('when a button gets a value its channel cannot open', () => {
    it('says what the channel needs and sends nothing', async () => {
      serve({ widgets: [saved] });
      open('maxlead');
      const first = await screen.findByRole('group', { name: 'Button 1: Zalo' });
      fireEvent.change(within(first).getByLabelText('Phone number'), { target: { value: 'call me' } });
      await save();
      expect(within(first).getByText('Please enter a valid mobile number')).toBeTruthy();
      expect(writes()).toHaveLength(0);
    });
  });

  describe('before saving', () => {
    it("shows the plan's cap on buttons, and warns when the buttons pass it", async () => {
      serve({ widgets: [saved] });
      open('maxlead');
      expect(await screen.findByText('Buttons: 2 / 3 on your plan')).toBeTruthy();
      fireEvent.click(screen.getByRole('button', { name: 'Add a button' }));
      fireEvent.click(screen.getByRole('button', { name: 'Add a button' }));
      expect(screen.getByText('Buttons: 4 / 3 on your plan')).toBeTruthy();
      expect(screen.getByText('Your account only support maximum 3 buttons')).toBeTruthy();
    });

    it("takes the cap from the application's plan", async () => {
      serve({ widgets: [saved], app: { ...application, plan: 'pay_as_you_go' } });
      open('maxlead');
      expect(await screen.findByText('Buttons: 2 / 19 on your plan')).toBeTruthy();
      fireEvent.click(screen.getByRole('button', { name: 'Add a button' }));
      fireEvent.click(screen.getByRole('button', { name: 'Add a button' }));
      expect(screen.getByText('Buttons: 4 / 19 on your plan')).toBeTruthy();
      expect(screen.queryByText(/Your account only support maximum/)).toBeNull();
    });
  });

  describe('when the server answers PLAN_LIMIT', () => {
    it('shows its message and keeps the form', async () => {
      serve({
        widgets: [saved],
        onWrite: () => answer({ success: false, error: 'PLAN_LIMIT', message: 'Your account only support maximum 3 buttons' }, 403),
      });
      open('maxlead');
      await screen.findByRole('group', { name: 'Button 1: Zalo' });
      await save();
      expect(await screen.findAllByText('Your account only support maximum 3 buttons')).toHaveLength(1);
      expect(screen.getByRole('group', { name: 'Button 2: Email' })).toBeTruthy();
    });
  });

  describe('in the preview', () => {
    it("opens WhatsApp with the number read in the application's country, as the shop's pages will, and saves it as typed", async () => {
      const whatsapp: Widget = { ...saved, settings: { ...saved.settings, buttons: [{ type: 'whatapps', value: '(081) 234-5678', label: '' }] } };
      serve({ widgets: [whatsapp], app: { ...application, phone_country: 'TH' }, onWrite: (call) => answer({ success: true, data: { ...whatsapp, ...(call.body as object) } }) });
      open('maxlead');
      await screen.findByRole('group', { name: 'Button 1: WhatsApp' });
      const post = spyOnPreviewFrame();
      previewFrameSaysReady();
      const shown = post.mock.calls.at(-1)?.[0] as PreviewMessage;
      expect(shown.widget.settings.buttons).toEqual([{ type: 'whatapps', value: '+66812345678', label: '' }]);
      await save();
      await waitFor(() => expect(writes()).toHaveLength(1));
      expect((writes()[0].body as { settings: { buttons: Array<{ value: string }> } }).settings.buttons[0].value).toBe('(081) 234-5678');
    });
  });

  describe('when the application has no contact buttons yet', () => {
    it('creates them on the first save, then updates them', async () => {
      let created: Widget | null = null;
      serve({
        widgets: [],
        onWrite: (call) => {
          created = { ...saved, ...(call.body as object), id: 9 } as Widget;
          return answer({ success: true, data: created });
        },
      });
      open('maxlead');
      const first = await screen.findByRole('group', { name: 'Button 1: Zalo' });
      fireEvent.change(within(first).getByLabelText('Phone number'), { target: { value: '0901 234 567' } });
      await save();
      await waitFor(() => expect(writes()).toHaveLength(1));
      expect(writes()[0]).toMatchObject({ method: 'POST', body: { type: 'maxlead', name: 'Contact buttons', status: 'inactive' } });
      await save();
      await waitFor(() => expect(writes()).toHaveLength(2));
      expect(writes()[1].method).toBe('PUT');
      expect(writes()[1].path).toBe('/api/application/shop_one/widget/9');
    });
  });
});

describe('the Maxlead screen (hotlines and on/off)', () => {
  it('switches the contact buttons on with the hotlines', async () => {
    serve({ widgets: [saved], onWrite: (call) => answer({ success: true, data: { ...saved, ...(call.body as object) } }) });
    open('feature');
    fireEvent.click(await screen.findByRole('button', { name: 'Add a number' }));
    fireEvent.change(screen.getByLabelText('Phone number'), { target: { value: '1900 1234 56' } });
    fireEvent.click(screen.getByRole('switch', { name: 'Show on the shop' }));
    await save();
    await waitFor(() => expect(writes()).toHaveLength(1));
    expect(writes()[0].body).toMatchObject({ status: 'active', settings: { phones: [{ number: '1900 1234 56', label: '' }] } });
  });

  it('asks to set up the buttons first when there are none', async () => {
    serve({ widgets: [] });
    open('feature');
    expect(await screen.findByText('Set up your contact buttons first')).toBeTruthy();
  });
});

describe('buttonValueProblem', () => {
  it.each([
    ['zalo', '0901 234 567', null],
    ['zalo', 'https://zalo.me/0901234567', null],
    ['zalo', 'my shop', 'validation.mobileNumber'],
    ['mail', 'mailto:hello@shop.vn', null],
    ['mail', 'hello', 'validation.email'],
    ['tawk', '5f1a2b3c/1abcdefg', null],
    ['tawk', '5f1a2b3c', 'maxlead.values.tawkInvalid'],
    ['cart', '/cart', null],
    ['cart', 'cart', 'maxlead.values.pathInvalid'],
    ['instagram', '@my.shop', null],
    ['instagram', 'my shop', 'maxlead.values.handleInvalid'],
    ['facebook', 'javascript:alert(1)', 'maxlead.values.handleInvalid'],
  ] as const)('%s with %j: %s', (type, value, problem) => {
    expect(buttonValueProblem(type, value)).toBe(problem);
  });
});
