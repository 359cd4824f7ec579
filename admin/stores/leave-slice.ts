import type { StateCreator } from 'zustand';
import type { AppState } from './store';

/**
 * Editors on screen with changes not saved yet, and the navigation waiting for the user's answer to "leave
 * with unsaved changes?" (see app/leave-guard).
 */
export interface LeaveSlice {
  /** One key for each editor on screen whose changes are not saved. */
  unsavedEditors: readonly symbol[];
  /** The navigation the user asked for while changes were unsaved; it goes ahead if they choose to leave. */
  pendingLeave: (() => void) | null;
  markUnsaved(editor: symbol, unsaved: boolean): void;
  askToLeave(go: () => void): void;
  /** The answer: leave (the pending navigation goes ahead, the changes are lost) or stay. */
  answerLeave(leave: boolean): void;
  /**
   * Runs `then` once the page is left by the navigation just asked for: at once when it went ahead, after it when
   * the user was asked and chooses to leave, never when they stay (a tab closed stays open with its page).
   */
  whenLeft(then: () => void): void;
}

export const createLeaveSlice: StateCreator<AppState, [], [], LeaveSlice> = (set, get) => ({
  unsavedEditors: [],
  pendingLeave: null,
  markUnsaved: (editor, unsaved) => {
    const { unsavedEditors, pendingLeave } = get();
    const held = unsavedEditors.includes(editor);
    if (unsaved === held) return;
    const next = unsaved ? [...unsavedEditors, editor] : unsavedEditors.filter((key) => key !== editor);
    // The last editor went away (signed out, the page replaced) while the question was open: nothing is left
    // to lose, so the navigation asked for goes ahead.
    if (next.length === 0 && pendingLeave) {
      set({ unsavedEditors: next, pendingLeave: null });
      pendingLeave();
      return;
    }
    set({ unsavedEditors: next });
  },
  askToLeave: (go) => set({ pendingLeave: go }),
  whenLeft: (then) => {
    const pending = get().pendingLeave;
    if (!pending) {
      then();
      return;
    }
    set({
      pendingLeave: () => {
        pending();
        then();
      },
    });
  },
  answerLeave: (leave) => {
    const go = get().pendingLeave;
    set({ pendingLeave: null });
    if (leave) go?.();
  },
});
