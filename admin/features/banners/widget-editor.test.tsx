import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Widget } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, fill, renderInConsole } from '../../test-utils';
import { BannerSettingsSection } from './banner-type-settings';
import { SpinSettingsSection, sliceChances } from './spin-settings';
import { WidgetEditor } from './widget-editor';

let calls: Call[] = [];
/** The editor's back arrow, as it is named. */
const BACK = 'Back';

function quietFrames() {
  // happy-dom runs no module scripts; it need not report that for the preview frame's /sdk/preview.js.
  (window as unknown as { happyDOM: { settings: { handleDisabledFileLoadingAsSuccess: boolean } } }).happyDOM.settings.handleDisabledFileLoadingAsSuccess = true;
}

function openBannerEditor(onSaved = vi.fn()) {
  renderInConsole(
    <WidgetEditor
      applicationId="shop_one"
      type="banner"
      title="New banner"
      renderSettings={(props) => <BannerSettingsSection {...props} />}
      onSaved={onSaved}
    />,
  );
  return onSaved;
}

function openSpinEditor(onSaved = vi.fn()) {
  renderInConsole(
    <WidgetEditor
      applicationId="shop_one"
      type="spin"
      title="New spin wheel"
      renderSettings={(props) => <SpinSettingsSection {...props} />}
      onSaved={onSaved}
    />,
  );
  return onSaved;
}

const isDisabled = (element: HTMLElement) => element.hasAttribute('disabled') || element.getAttribute('aria-disabled') === 'true';

async function save() {
  await act(async () => {
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
  });
}

function savedWidget(body: Record<string, unknown>): Widget {
  return {
    id: 7,
    views: 0,
    clicks: 0,
    leads: 0,
    created: '2025-03-01T00:00:00.000Z',
    updated: '2025-03-01T00:00:00.000Z',
    ...(body as Pick<Widget, 'type' | 'name' | 'status' | 'settings' | 'rules'>),
  };
}

beforeEach(() => {
  quietFrames();
  useAppStore.setState({ token: 'tok', roles: ['manager'] });
  // Until a test says how the server takes the widget, every call answers NOT_FOUND.
  calls = fakeApi({});
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the banner editor', () => {
  describe('when the link is a javascript: link', () => {
    it('refuses it with the shared link message and sends nothing', async () => {
      openBannerEditor();
      fill('Widget name', 'Spring banner');
      fill('Link', 'javascript:alert(1)');
      await save();
      expect(screen.getByText('A link must start with http:, https:, mailto: or tel:')).toBeTruthy();
      expect(calls).toEqual([]);
    });
  });

  describe('when a colour is not a hex colour', () => {
    it('says so under the colour', async () => {
      openBannerEditor();
      fill('Widget name', 'Spring banner');
      fill('Background colour', 'red; position:fixed');
      await save();
      expect(screen.getByText('Please enter a colour as #rrggbb')).toBeTruthy();
      expect(calls).toEqual([]);
    });
  });

  describe('when it has no name', () => {
    it('asks for one, and the message goes once the name is typed', async () => {
      openBannerEditor();
      await save();
      expect(screen.getByText('This field is required')).toBeTruthy();
      fill('Widget name', 'Spring banner');
      await waitFor(() => expect(screen.queryByText('This field is required')).toBeNull());
    });
  });

  describe('when everything is valid', () => {
    it('creates the widget with its settings and display rules', async () => {
      calls = fakeApi({ 'POST /api/application/shop_one/widget': (call) => savedWidget(call.body as Record<string, unknown>) });
      const onSaved = openBannerEditor();
      fill('Widget name', 'Spring banner');
      fill('Link', 'https://shop.example/collections/spring');
      fireEvent.click(screen.getByRole('button', { name: 'Add a page rule' }));
      fill('Address of page rule 1', '/collections');
      fireEvent.click(screen.getByRole('switch', { name: 'Show on the shop' }));
      await save();
      await waitFor(() => expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ id: 7 }), true));
      const [{ method, path, body }] = calls;
      expect(method).toBe('POST');
      expect(path).toBe('/api/application/shop_one/widget');
      expect(body).toMatchObject({
        type: 'banner',
        name: 'Spring banner',
        status: 'active',
        settings: { link: 'https://shop.example/collections/spring', position: 'bottom_right' },
        rules: { pages: [{ match: 'contains', value: '/collections' }], devices: ['desktop', 'mobile'], frequency: 'every_page' },
      });
      expect(await screen.findByText('Saved')).toBeTruthy();
    });
  });

  describe('when the display window ends before it starts', () => {
    it('refuses it', async () => {
      openBannerEditor();
      fill('Widget name', 'Spring banner');
      fill('Start', '2025-05-10T10:00');
      fill('End', '2025-05-01T10:00');
      await save();
      expect(screen.getByText('The end must come after the start')).toBeTruthy();
      expect(calls).toEqual([]);
    });
  });

  describe('when the user is a viewer', () => {
    it('shows the widget read-only with saving disabled', () => {
      useAppStore.setState({ roles: ['viewer'] });
      openBannerEditor();
      expect(screen.getByText(/your role in this application is Viewer/)).toBeTruthy();
      for (const button of screen.getAllByRole('button', { name: 'Save' })) expect(isDisabled(button)).toBe(true);
      expect((screen.getByLabelText('Widget name') as HTMLInputElement).disabled).toBe(true);
    });
  });
});

describe('leaving the banner editor', () => {
  it('asks while changes are unsaved, and leaves without asking once they are saved', async () => {
    calls = fakeApi({ 'POST /api/application/shop_one/widget': (call) => savedWidget(call.body as Record<string, unknown>) });
    const view = renderInConsole(
      <WidgetEditor
        applicationId="shop_one"
        type="banner"
        title="New banner"
        backUrl="/banner"
        renderSettings={(props) => <BannerSettingsSection {...props} />}
        onSaved={vi.fn()}
      />,
      { path: '/banner/create' },
    );
    fill('Widget name', 'Spring banner');
    fireEvent.click(screen.getByRole('link', { name: BACK }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave page with unsaved changes?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(view.location()).toBe('/banner/create');

    await save();
    expect(await screen.findByText('Saved')).toBeTruthy();
    fireEvent.click(screen.getByRole('link', { name: BACK }));
    await waitFor(() => expect(view.location()).toBe('/banner'));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('the spin wheel editor', () => {
  it("shows each slice's chance from the odds weights", () => {
    openSpinEditor();
    // The starting wheel: two winning slices of weight 1 and two losing ones of weight 2.
    expect(screen.getByTestId('slice-chance-0').textContent).toBe('16.7% chance');
    expect(screen.getByTestId('slice-chance-1').textContent).toBe('33.3% chance');
    fill(screen.getAllByLabelText('Odds weight')[0], '4');
    expect(screen.getByTestId('slice-chance-0').textContent).toBe('44.4% chance');
    expect(screen.getByTestId('slice-chance-3').textContent).toBe('22.2% chance');
  });

  describe('when every odds weight is 0', () => {
    it('refuses the wheel with the shared message and sends nothing', async () => {
      openSpinEditor();
      fill('Widget name', 'Lucky wheel');
      for (const field of screen.getAllByLabelText('Odds weight')) fill(field, '0');
      expect(screen.getByTestId('slice-chance-0').textContent).toBe('No chance');
      await save();
      expect(screen.getAllByText('At least one slice needs odds above 0').length).toBeGreaterThan(0);
      expect(calls).toEqual([]);
    });
  });

  describe('when the server refuses a field', () => {
    it('shows its message under that field', async () => {
      calls = fakeApi({
        'POST /api/application/shop_one/widget': () =>
          answer(
            {
              success: false,
              error: 'INVALID_PARAM',
              message: 'This field is required',
              fields: [{ path: 'settings.slices.1.label', message: 'This label is already used' }],
            },
            400,
          ),
      });
      openSpinEditor();
      fill('Widget name', 'Lucky wheel');
      await save();
      const slice = screen.getByRole('group', { name: 'Slice 2' });
      expect(within(slice).getByText('This label is already used')).toBeTruthy();
    });
  });

  it('keeps at least two slices', () => {
    openSpinEditor();
    fireEvent.click(screen.getByRole('button', { name: 'Remove slice 4' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove slice 3' }));
    expect(isDisabled(screen.getByRole('button', { name: 'Remove slice 1' }))).toBe(true);
    expect(isDisabled(screen.getByRole('button', { name: 'Remove slice 2' }))).toBe(true);
  });
});

describe('sliceChances', () => {
  it('gives each slice its weight over the sum, in percent', () => {
    expect(sliceChances([{ weight: 1 }, { weight: 3 }])).toEqual([25, 75]);
  });

  it('counts a weight that is not a positive number as 0', () => {
    expect(sliceChances([{ weight: Number.NaN }, { weight: -2 }, { weight: 5 }])).toEqual([0, 0, 100]);
  });

  it('gives no chance at all when every weight is 0', () => {
    expect(sliceChances([{ weight: 0 }, { weight: 0 }])).toEqual([null, null]);
  });
});
