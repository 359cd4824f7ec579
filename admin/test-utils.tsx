import { Frame } from '@shopify/polaris';
import { type RenderResult, act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, vi } from 'vitest';
import { Route, Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { ApplicationScope } from './app/application-scope';
import { i18n } from './app/i18n';
import { LeaveGuard, guardNavigation } from './app/leave-guard';
import { PolarisProvider } from './app/polaris-provider';
import { ToastHost } from './app/toast-host';
import { PREVIEW_SOURCE } from './components/widget-preview';
import { useAppStore } from './stores/store';

// vitest runs without globals, so Testing Library can't unmount between tests by itself.
afterEach(() => {
  cleanup();
  useAppStore.setState({ toasts: [] });
});

/** Renders a screen the way the console does (English, Polaris, a router at `path`), for component tests. */
export function renderInConsole(ui: ReactElement, { path = '/' }: { path?: string } = {}): RenderResult & { location: () => string } {
  useAppStore.getState().setLanguage('en');
  const memory = memoryLocation({ path, record: true });
  const result = render(
    <I18nextProvider i18n={i18n}>
      <PolarisProvider>
        <Router hook={memory.hook} searchHook={memory.searchHook} aroundNav={guardNavigation}>
          <Frame>
            {ui}
            <ToastHost />
            <LeaveGuard />
          </Frame>
        </Router>
      </PolarisProvider>
    </I18nextProvider>,
  );
  return Object.assign(result, { location: () => memory.history.at(-1) ?? path });
}

/** Renders screens inside an application, as the console nests them (its route and ApplicationScope), at `path`. */
export function renderInApplication(screens: ReactNode, path: string): ReturnType<typeof renderInConsole> {
  return renderInConsole(
    <Route path="/application/:application_id" nest>
      <ApplicationScope>{screens}</ApplicationScope>
    </Route>,
    { path },
  );
}

/** A JSON answer as the API sends it. */
export function answer(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Types `value` into the field labelled `label` (or into that element), as a user would. */
export function fill(label: string | HTMLElement, value: string): void {
  fireEvent.change(typeof label === 'string' ? screen.getByLabelText(label) : label, { target: { value } });
}

/** Clicks the button named `name` and lets what it starts (a call, its answer) settle. */
export async function press(name: string): Promise<void> {
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name }));
  });
}

/** One call the screen made to the fake API. */
export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** Aborted when the screen cancels the call. */
  signal?: AbortSignal;
}

/** Answers a call: the `data`, a Response (for a refusal), or a promise of either (to answer later). */
export type Handler = (call: Call) => unknown;

/**
 * Stubs fetch with handlers by "METHOD /api/path" (a handler returns the `data`, or a Response for a
 * refusal); the application itself (`app.application_id`, shop_one when it has none) answers with `app`,
 * and without `app` (a screen outside any application: signing in, a public page) it is not answered.
 * Unknown calls answer NOT_FOUND. Returns the calls made. Undone by `vi.unstubAllGlobals()`.
 */
export function fakeApi(handlers: Record<string, Handler>, app?: object): Call[] {
  const calls: Call[] = [];
  const { application_id: id } = (app ?? {}) as { application_id?: unknown };
  const appPath = app ? `/api/application/${typeof id === 'string' ? id : 'shop_one'}` : undefined;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const parsed = new URL(url);
      const call: Call = {
        method: init.method ?? 'GET',
        path: parsed.pathname,
        query: parsed.searchParams,
        body: init.body ? JSON.parse(String(init.body)) : undefined,
        signal: init.signal ?? undefined,
      };
      calls.push(call);
      if (call.method === 'GET' && call.path === appPath) return answer({ success: true, data: app });
      const handler = handlers[`${call.method} ${call.path}`];
      if (!handler) return answer({ success: false, error: 'NOT_FOUND', message: 'Not found.' }, 404);
      const data = await handler(call);
      return data instanceof Response ? data : answer({ success: true, data });
    }),
  );
  return calls;
}

/**
 * A handler that gives `answers` one per call, in turn (the last one again once they run out), for a
 * route asked more than once with different outcomes: a refusal, then the same form sent again.
 */
export function inTurn(...answers: unknown[]): Handler {
  let next = 0;
  return () => {
    const given = answers[Math.min(next, answers.length - 1)];
    next += 1;
    // A Response's body can be read only once.
    return given instanceof Response ? given.clone() : given;
  };
}

/** The calls that were not reads (what the screen asked the server to change), in order. */
export function writesOf(calls: readonly Call[]): Pick<Call, 'method' | 'path' | 'body'>[] {
  return calls.filter((call) => call.method !== 'GET').map(({ method, path, body }) => ({ method, path, body }));
}

/** A page of items as the list routes answer. */
export function pageOf<T>(items: T[], total = items.length) {
  return { items, total, page: 1, limit: 20 };
}

/** The widget preview's frame (WidgetPreview). */
export function previewFrame(): HTMLIFrameElement {
  return screen.getByTitle(/Preview of the widget/) as HTMLIFrameElement;
}

/** Spies on what the console posts into the preview's frame. */
export function spyOnPreviewFrame() {
  const target = previewFrame().contentWindow as Window;
  return vi.spyOn(target, 'postMessage').mockImplementation(() => undefined);
}

/** The preview frame's page says it is ready, as /sdk/preview.js does. */
export function previewFrameSaysReady(source: MessageEventSource | null = previewFrame().contentWindow): void {
  act(() => {
    window.dispatchEvent(new MessageEvent('message', { data: { source: PREVIEW_SOURCE, ready: true }, source }));
  });
}
