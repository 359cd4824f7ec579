import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useAppStore } from '../../stores/store';
import { renderInConsole } from '../../test-utils';
import { useUnsavedChanges } from '../leave-guard';
import { VisitedViews } from './visited-views';

const players = { path: '/application/shop_one/player', title: 'menu.players', applicationId: 'shop_one' };
const segment = { path: '/application/shop_one/segment/new', title: 'menu.segment', applicationId: 'shop_one', label: 'New segment' };

/** A page whose editor holds changes not saved. */
function Editing() {
  useUnsavedChanges(true);
  return null;
}

/** The tabs of the players list and a new segment, on the segment, whose editor holds changes not saved. */
function openOnEditedSegment() {
  useAppStore.setState({ visitedViews: [players, segment] });
  return renderInConsole(
    <>
      <VisitedViews current={segment.path} />
      <Editing />
    </>,
    { path: segment.path },
  );
}

afterEach(() => {
  useAppStore.setState({ visitedViews: [] });
});

describe('the visited-view tabs', () => {
  it('close the tab of a page with unsaved changes only once the user chooses to leave it', async () => {
    const view = openOnEditedSegment();
    fireEvent.click(screen.getByRole('button', { name: 'Close New segment' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave page with unsaved changes?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(view.location()).toBe(segment.path);
    expect(useAppStore.getState().visitedViews.map((tab) => tab.path)).toEqual([players.path, segment.path]);

    fireEvent.click(screen.getByRole('button', { name: 'Close New segment' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Leave page' }));
    await waitFor(() => expect(view.location()).toBe(players.path));
    expect(useAppStore.getState().visitedViews.map((tab) => tab.path)).toEqual([players.path]);
  });

  it('close another tab at once, without asking', () => {
    const view = openOnEditedSegment();
    fireEvent.click(screen.getByRole('button', { name: 'Close Players' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(view.location()).toBe(segment.path);
    expect(useAppStore.getState().visitedViews.map((tab) => tab.path)).toEqual([segment.path]);
  });
});
