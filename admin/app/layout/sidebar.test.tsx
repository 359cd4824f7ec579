import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { useAppStore } from '../../stores/store';
import { renderInConsole } from '../../test-utils';
import { Sidebar } from './sidebar';

/** Whether the sidebar shows the entry as the current page (Polaris marks the link selected). */
const selected = (name: string) => /Item--selected/.test(screen.getByRole('link', { name }).className);

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'], appName: 'Thu Shop' });
});

describe('the sidebar', () => {
  it('marks only the entry of the page shown, not the dashboard under which every page sits', () => {
    renderInConsole(<Sidebar path="/application/thu/event" applicationId="thu" onNavigate={() => undefined} />);
    expect(selected('Events')).toBe(true);
    expect(selected('Dashboard')).toBe(false);
    expect(selected('Players')).toBe(false);
  });

  it('marks the dashboard on the application root, and an entry on the pages under it', () => {
    const { unmount } = renderInConsole(<Sidebar path="/application/thu" applicationId="thu" onNavigate={() => undefined} />);
    expect(selected('Dashboard')).toBe(true);
    expect(selected('Events')).toBe(false);
    unmount();
    renderInConsole(<Sidebar path="/application/thu/segment/12" applicationId="thu" onNavigate={() => undefined} />);
    expect(selected('Segmentation')).toBe(true);
    expect(selected('Dashboard')).toBe(false);
  });

  it('marks the entry a page off the menu belongs to: a campaign under notifications, the leads report under contact buttons', () => {
    const { unmount } = renderInConsole(<Sidebar path="/application/thu/campaign/5" applicationId="thu" onNavigate={() => undefined} />);
    expect(selected('Notifications')).toBe(true);
    expect(selected('Dashboard')).toBe(false);
    unmount();
    renderInConsole(<Sidebar path="/application/thu/maxlead_report" applicationId="thu" onNavigate={() => undefined} />);
    expect(selected('Contact buttons')).toBe(true);
    expect(selected('Notifications')).toBe(false);
    expect(selected('Dashboard')).toBe(false);
  });
});
