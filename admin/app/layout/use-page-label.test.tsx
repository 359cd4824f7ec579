import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import { APPLICATION_ROUTES } from '../../../shared/permissions';
import { useAppStore } from '../../stores/store';
import { fakeApi, renderInConsole } from '../../test-utils';
import { Shell } from './shell';
import { usePageLabel } from './use-page-label';

const route = { route: APPLICATION_ROUTES.find((entry) => entry.path === '/segment/:segment_id')!, applicationId: 'thu' };

/** A page of a nested route that names itself `label` once "loaded" (undefined until then). */
function NamedPage({ label }: { label: string | undefined }) {
  usePageLabel(label);
  return <p>the page</p>;
}

function show(path: string, page: JSX.Element) {
  return renderInConsole(
    <Shell route={route}>
      <Route path="/application/:application_id" nest>
        <Route path="/segment/:segment_id">{page}</Route>
      </Route>
    </Shell>,
    { path },
  );
}

const trail = () => within(screen.getByRole('navigation', { name: 'Breadcrumb' })).getAllByRole('listitem').map((item) => item.textContent);
const tabs = () => within(screen.getByRole('navigation', { name: 'Open pages' })).getAllByRole('link').map((link) => link.textContent);

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['super_user'], appName: { id: 'thu', name: 'Thu Shop' }, visitedViews: [], pageLabel: null, user: null });
  fakeApi({});
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a page that names itself', () => {
  it("is named by the route's title until it does, then by its own name in the breadcrumb, the window's title and its tab", async () => {
    let load: (label: string) => void = () => undefined;
    function Loading() {
      const [label, setLabel] = useState<string | undefined>(undefined);
      load = setLabel;
      return <NamedPage label={label} />;
    }
    show('/application/thu/segment/7', <Loading />);
    expect(trail()).toEqual(['Applications', 'Thu Shop', 'Segment details']);
    await waitFor(() => expect(tabs()).toEqual(['Segment details']));
    load('Khách VN');
    await waitFor(() => expect(trail()).toEqual(['Applications', 'Thu Shop', 'Khách VN']));
    expect(document.title).toBe('Khách VN · Thu Shop · Nudge');
    await waitFor(() => expect(tabs()).toEqual(['Khách VN']));
  });

  it('keeps its name to its own path: another page of the route is not called by it, and the tab keeps it when the page goes', async () => {
    useAppStore.setState({ pageLabel: { path: '/application/thu/segment/7', label: 'Khách VN' } });
    show('/application/thu/segment/8', <p>another segment, loading</p>);
    expect(trail()).toEqual(['Applications', 'Thu Shop', 'Segment details']);
    cleanup();
    show('/application/thu/segment/new', <NamedPage label="New segment" />);
    await waitFor(() => expect(trail()).toEqual(['Applications', 'Thu Shop', 'New segment']));
    cleanup();
    expect(useAppStore.getState().pageLabel).toBeNull();
    expect(useAppStore.getState().visitedViews.map((view) => view.label)).toEqual([undefined, 'New segment']);
  });
});

describe("the application's name in the breadcrumb and the window's title", () => {
  it("is left out while this application first loads, rather than another application's name or this one's id", () => {
    useAppStore.setState({ appName: { id: 'lan', name: 'Lan Store' } });
    show('/application/thu/segment/7', <NamedPage label={undefined} />);
    expect(trail()).toEqual(['Applications', 'Segment details']);
    expect(document.title).toBe('Segment details · Nudge');
    expect(screen.queryByText('Lan Store')).toBeNull();
  });
});
