import { cleanup, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { useAppStore } from '../../stores/store';
import { renderInConsole } from '../../test-utils';
import { Sidebar } from './sidebar';

/** Whether the sidebar shows the entry as the current page (Polaris marks the link selected). */
const selected = (name: string) => /Item--selected/.test(screen.getByRole('link', { name }).className);

/** Shows the sidebar (alone) as it is on this page of the application `thu`. */
function on(page: string) {
  cleanup();
  renderInConsole(<Sidebar path={`/application/thu${page}`} applicationId="thu" onNavigate={() => undefined} />);
}

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'], appName: { id: 'thu', name: 'Thu Shop' } });
});

describe('the sidebar', () => {
  it('marks only the entry of the page shown, not the dashboard under which every page sits', () => {
    on('/event');
    expect(selected('Events')).toBe(true);
    expect(selected('Dashboard')).toBe(false);
    expect(selected('Players')).toBe(false);
  });

  it('marks the dashboard on the application root, and an entry on the pages under it', () => {
    on('');
    expect(selected('Dashboard')).toBe(true);
    expect(selected('Events')).toBe(false);
    on('/segment/12');
    expect(selected('Segmentation')).toBe(true);
    expect(selected('Dashboard')).toBe(false);
  });

  it('marks the entry a page off the menu belongs to: a campaign under notifications, the leads report under contact buttons', () => {
    on('/campaign/5');
    expect(selected('Notifications')).toBe(true);
    expect(selected('Dashboard')).toBe(false);
    on('/maxlead_report');
    expect(selected('Contact buttons')).toBe(true);
    expect(selected('Notifications')).toBe(false);
    expect(selected('Dashboard')).toBe(false);
  });
});

describe("the sidebar's application heading", () => {
  it("is the application's name, never another application's (the one opened before) nor its id while the name loads", () => {
    useAppStore.setState({ appName: { id: 'lan', name: 'Lan Store' } });
    on('/event');
    expect(screen.queryByText('Lan Store')).toBeNull();
    expect(screen.queryByText('thu')).toBeNull();
    expect(screen.getByRole('link', { name: 'Dashboard' })).toBeTruthy();
    // A blank heading holds the name's line, so the entries stay where they will be once it has loaded.
    const headings = () => [...document.querySelectorAll('.Polaris-Navigation__SectionHeading')].map((heading) => heading.textContent);
    expect(headings()[0]).toBe('\u00a0');
    const whileLoading = headings().length;
    useAppStore.setState({ appName: { id: 'thu', name: 'Thu Shop' } });
    on('/event');
    expect(screen.getByText('Thu Shop')).toBeTruthy();
    expect(headings()[0]).toBe('Thu Shop');
    expect(headings()).toHaveLength(whileLoading);
  });
});
