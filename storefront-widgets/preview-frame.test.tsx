import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PublicWidget } from '../shared/contract/widget';

const rules = { pages: [], devices: ['desktop', 'mobile'] as ('desktop' | 'mobile')[], delay_seconds: 0, scroll: 'none' as const, exit_intent: false, frequency: 'every_page' as const, start_at: null, end_at: null };
const banner = (title: string): PublicWidget => ({ id: 0, type: 'banner', settings: { title, position: 'bottom_right' }, rules });

const flush = async () => {
  for (let i = 0; i < 8; i++) await Promise.resolve();
};

/** A message from the console holding the frame (in this test the frame is the top window, its own parent). */
const fromConsole = (data: unknown, source: MessageEventSource | null = window) => window.dispatchEvent(new MessageEvent('message', { data, source }));

let said: unknown[] = [];

beforeAll(async () => {
  vi.spyOn(window, 'postMessage').mockImplementation((message: unknown) => void said.push(message));
  await import('./preview-frame');
});

afterEach(() => {
  said = [];
});

describe("the console's preview frame (/sdk/preview.js)", () => {
  it('tells the console it is ready', () => {
    // Recorded when the module ran, before this test's reset: check the first call instead.
    expect(vi.mocked(window.postMessage).mock.calls[0]).toEqual([{ source: 'nudge-preview', ready: true }, '*']);
  });

  it('shows the widget the console posts, and each edit of it in place', async () => {
    fromConsole({ source: 'nudge-preview', widget: banner('Summer sale'), lang: 'vi', device: 'mobile' });
    const host = document.querySelector('nudge-widget')!;
    expect(host.shadowRoot!.querySelector('h2')?.textContent).toBe('Summer sale');
    expect(host.shadowRoot!.querySelector('.r')?.className).toBe('r mob');
    fromConsole({ source: 'nudge-preview', widget: banner('Summer sale -50%'), lang: 'vi', device: 'mobile' });
    await flush();
    expect(document.querySelectorAll('nudge-widget')).toHaveLength(1);
    expect(document.querySelector('nudge-widget')).toBe(host);
    expect(host.shadowRoot!.querySelector('h2')?.textContent).toBe('Summer sale -50%');
  });

  it('ignores messages from anyone but the console, and messages that are not drafts', async () => {
    fromConsole({ source: 'nudge-preview', widget: banner('From elsewhere'), lang: 'en', device: 'desktop' }, null);
    fromConsole({ source: 'someone-else', widget: banner('Other'), lang: 'en', device: 'desktop' });
    fromConsole('<img src=x onerror=alert(1)>');
    await flush();
    expect(document.querySelector('nudge-widget')!.shadowRoot!.querySelector('h2')?.textContent).toBe('Summer sale -50%');
  });
});
