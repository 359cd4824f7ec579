import { act, fireEvent, screen } from '@testing-library/react';
import { useMemo, useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PublicWidget } from '../../shared/contract';
import { previewFrame, previewFrameSaysReady, renderInConsole, spyOnPreviewFrame } from '../test-utils';
import { PREVIEW_DEBOUNCE_MS, PREVIEW_READY_TIMEOUT_MS, PREVIEW_SOURCE, WidgetPreview, previewDocument } from './widget-preview';

const banner: PublicWidget = {
  id: 0,
  type: 'banner',
  settings: { title: 'Summer sale', text: '', position: 'bottom_right', background: '#ffffff', color: '#202223', closable: true },
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
};

/** A stand-in editor: the title typed in it reaches the preview as the widget's heading. */
function Editor() {
  const [title, setTitle] = useState('Summer sale');
  const widget = useMemo(() => ({ ...banner, settings: { ...banner.settings, title } }), [title]);
  return (
    <>
      <input aria-label="Heading" value={title} onChange={(event) => setTitle(event.target.value)} />
      <WidgetPreview widget={widget} />
    </>
  );
}

beforeEach(() => {
  // happy-dom runs no module scripts; it need not report that for the frame's /sdk/preview.js.
  (window as unknown as { happyDOM?: { settings: { handleDisabledFileLoadingAsSuccess: boolean } } }).happyDOM!.settings.handleDisabledFileLoadingAsSuccess = true;
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the widget preview', () => {
  it('loads the storefront preview script in an isolated frame over a sample shop', () => {
    renderInConsole(<WidgetPreview widget={banner} />);
    expect(previewFrame().getAttribute('sandbox')).toBe('allow-scripts allow-forms');
    expect(previewDocument('https://console.example')).toContain(
      '<script type="module" src="https://console.example/sdk/preview.js"></script>',
    );
  });

  describe('when the frame says it is ready', () => {
    it('posts the widget, the language and the device to it', () => {
      renderInConsole(<WidgetPreview widget={banner} />);
      const post = spyOnPreviewFrame();
      previewFrameSaysReady();
      expect(post).toHaveBeenCalledWith({ source: PREVIEW_SOURCE, widget: banner, lang: 'en', device: 'desktop' }, '*');
    });

    it('posts each change once the typing pauses', () => {
      renderInConsole(<Editor />);
      const post = spyOnPreviewFrame();
      previewFrameSaysReady();
      post.mockClear();
      fireEvent.change(screen.getByLabelText('Heading'), { target: { value: 'Summer sale: 30%' } });
      fireEvent.change(screen.getByLabelText('Heading'), { target: { value: 'Summer sale: 30% off' } });
      act(() => {
        vi.advanceTimersByTime(PREVIEW_DEBOUNCE_MS - 1);
      });
      expect(post).not.toHaveBeenCalled();
      act(() => {
        vi.advanceTimersByTime(1);
      });
      expect(post).toHaveBeenCalledTimes(1);
      expect(post.mock.calls[0][0]).toMatchObject({ widget: { settings: { title: 'Summer sale: 30% off' } } });
    });

    it('posts the mobile device when the mobile frame is chosen', () => {
      renderInConsole(<WidgetPreview widget={banner} />);
      const post = spyOnPreviewFrame();
      previewFrameSaysReady();
      post.mockClear();
      fireEvent.click(screen.getByRole('button', { name: 'Mobile' }));
      act(() => {
        vi.advanceTimersByTime(PREVIEW_DEBOUNCE_MS);
      });
      expect(post).toHaveBeenCalledWith(expect.objectContaining({ device: 'mobile' }), '*');
      expect(previewFrame().style.width).toBe('375px');
    });
  });

  describe('when a message comes from another window', () => {
    it('is ignored', () => {
      renderInConsole(<WidgetPreview widget={banner} />);
      const post = spyOnPreviewFrame();
      previewFrameSaysReady(window);
      expect(post).not.toHaveBeenCalled();
    });
  });

  describe('when the frame never says it is ready', () => {
    it('says the preview is unavailable after 5 seconds', () => {
      renderInConsole(<WidgetPreview widget={banner} />);
      act(() => {
        vi.advanceTimersByTime(PREVIEW_READY_TIMEOUT_MS - 1);
      });
      expect(screen.queryByText('Preview unavailable')).toBeNull();
      act(() => {
        vi.advanceTimersByTime(1);
      });
      expect(screen.getByText('Preview unavailable')).toBeTruthy();
    });

    it('takes the message away if the frame gets ready later', () => {
      renderInConsole(<WidgetPreview widget={banner} />);
      spyOnPreviewFrame();
      act(() => {
        vi.advanceTimersByTime(PREVIEW_READY_TIMEOUT_MS);
      });
      previewFrameSaysReady();
      expect(screen.queryByText('Preview unavailable')).toBeNull();
    });
  });
});
