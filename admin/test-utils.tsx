import { AppProvider, Frame } from '@shopify/polaris';
import polarisEn from '@shopify/polaris/locales/en.json';
import { type RenderResult, act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { afterEach } from 'vitest';
import { Route, Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { ApplicationScope } from './app/application-scope';
import { i18n } from './app/i18n';
import { ToastHost } from './app/toast-host';
import { RouterLink } from './components/router-link';
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
      <AppProvider i18n={polarisEn} linkComponent={RouterLink}>
        <Router hook={memory.hook} searchHook={memory.searchHook}>
          <Frame>
            {ui}
            <ToastHost />
          </Frame>
        </Router>
      </AppProvider>
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
