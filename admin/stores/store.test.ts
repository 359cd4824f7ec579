// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LoginAnswer } from '../../shared/contract';
import { getCookie } from './cookies';
import { selectLanguage } from './settings-slice';
import { STORE_KEY, createAppStore } from './store';

const answer: LoginAnswer = {
  id: 42,
  name: 'Lan Nguyễn',
  email: 'lan@example.com',
  roles: [],
  created: '2025-01-02T03:04:05.000Z',
  auth_token: 'tok_secret',
};

function clearCookies() {
  for (const name of ['id', 'email', 'name', 'created']) document.cookie = `${name}=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/`;
}

beforeEach(() => {
  localStorage.clear();
  clearCookies();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the session', () => {
  describe('when the user signs in', () => {
    it('keeps the token in localStorage under "token"', () => {
      const store = createAppStore();
      store.getState().signIn(answer);
      expect(localStorage.getItem('token')).toBe('tok_secret');
      expect(localStorage.getItem(STORE_KEY)).not.toContain('tok_secret');
    });

    it('keeps id, email, name and created in cookies', () => {
      createAppStore().getState().signIn(answer);
      expect(getCookie('id')).toBe('42');
      expect(getCookie('email')).toBe('lan@example.com');
      expect(getCookie('name')).toBe('Lan Nguyễn');
      expect(getCookie('created')).toBe('2025-01-02T03:04:05.000Z');
    });

    it('forgets the cookies after 3 days', () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2025-06-01T00:00:00Z'));
      createAppStore().getState().signIn(answer);
      vi.setSystemTime(new Date('2025-06-03T23:59:00Z'));
      expect(getCookie('email')).toBe('lan@example.com');
      vi.setSystemTime(new Date('2025-06-04T00:00:01Z'));
      expect(getCookie('email')).toBeUndefined();
    });

    it('is there again on the next visit', () => {
      createAppStore().getState().signIn(answer);
      const next = createAppStore().getState();
      expect(next.token).toBe('tok_secret');
      expect(next.user).toEqual({ id: 42, name: 'Lan Nguyễn', email: 'lan@example.com', created: '2025-01-02T03:04:05.000Z' });
    });

    it('does not keep roles across visits: they are fetched again', () => {
      const store = createAppStore();
      store.getState().signIn(answer);
      store.getState().setAccess('shop_one', { roles: ['viewer'], agency: null, permissions: [] });
      const next = createAppStore().getState();
      expect(next.roles).toEqual([]);
      expect(next.lastApplicationId).toBeNull();
    });
  });

  describe('when the user signs out', () => {
    it('clears the token, the user cookies, the roles and the visited views', () => {
      const store = createAppStore();
      store.getState().signIn(answer);
      store.getState().setAccess('shop_one', { roles: ['manager'], agency: 'ipush', permissions: ['banner'] });
      store.getState().addVisitedView({ path: '/application', title: 'menu.applications' });
      store.getState().signOut();
      const state = store.getState();
      expect(localStorage.getItem('token')).toBeNull();
      expect(getCookie('id')).toBeUndefined();
      expect(state.roles).toEqual([]);
      expect(state.agency).toBeNull();
      expect(state.lastApplicationId).toBeNull();
      expect(state.visitedViews).toEqual([]);
      expect(createAppStore().getState().token).toBeNull();
    });
  });

  describe('when cookies remain but the token is gone', () => {
    it('counts as signed out', () => {
      createAppStore().getState().signIn(answer);
      localStorage.removeItem('token');
      const next = createAppStore().getState();
      expect(next.token).toBeNull();
      expect(next.user).toBeNull();
    });
  });
});

describe('the settings', () => {
  it('start in Vietnamese, medium size, sidebar open', () => {
    const state = createAppStore().getState();
    expect(selectLanguage(state)).toBe('vi');
    expect(state.size).toBe('medium');
    expect(state.sidebarOpen).toBe(true);
  });

  it('start in English inside a frame until the user chooses', () => {
    const top = Object.getOwnPropertyDescriptor(window, 'top');
    Object.defineProperty(window, 'top', { configurable: true, get: () => ({}) });
    try {
      const store = createAppStore();
      expect(selectLanguage(store.getState())).toBe('en');
      store.getState().setLanguage('vi');
      expect(selectLanguage(store.getState())).toBe('vi');
    } finally {
      if (top) Object.defineProperty(window, 'top', top);
    }
  });

  it('remember the chosen language, size and sidebar state', () => {
    const store = createAppStore();
    store.getState().setLanguage('en');
    store.getState().setSize('small');
    store.getState().toggleSidebar();
    const next = createAppStore().getState();
    expect(next.language).toBe('en');
    expect(next.size).toBe('small');
    expect(next.sidebarOpen).toBe(false);
  });
});

describe('the visited views', () => {
  const team = { path: '/application/shop_one/permission', title: 'menu.permission', applicationId: 'shop_one' };
  const list = { path: '/application', title: 'menu.applications' };
  const password = { path: '/change-password', title: 'menu.changePassword' };

  it('adds each page once, in the order visited', () => {
    const store = createAppStore();
    store.getState().addVisitedView(list);
    store.getState().addVisitedView(team);
    store.getState().addVisitedView(list);
    expect(store.getState().visitedViews.map((view) => view.path)).toEqual([list.path, team.path]);
  });

  it('updates the tab of a page opened again with another query', () => {
    const store = createAppStore();
    store.getState().addVisitedView(list);
    store.getState().addVisitedView({ ...list, path: '/application?q=shop' });
    expect(store.getState().visitedViews).toEqual([{ ...list, path: '/application?q=shop' }]);
  });

  it('takes a path with a trailing slash for the same page', () => {
    const store = createAppStore();
    const dashboard = { path: '/application/shop_one', title: 'menu.dashboard', applicationId: 'shop_one' };
    store.getState().addVisitedView(dashboard);
    store.getState().addVisitedView({ ...dashboard, path: '/application/shop_one/?period=90' });
    expect(store.getState().visitedViews).toEqual([{ ...dashboard, path: '/application/shop_one/?period=90' }]);
    store.getState().removeVisitedView('/application/shop_one');
    expect(store.getState().visitedViews).toEqual([]);
  });

  it('removes one, removes the others, removes all', () => {
    const store = createAppStore();
    for (const view of [list, team, password]) store.getState().addVisitedView(view);
    store.getState().removeVisitedView(team.path);
    expect(store.getState().visitedViews.map((view) => view.path)).toEqual([list.path, password.path]);
    store.getState().addVisitedView(team);
    store.getState().removeOtherVisitedViews(team.path);
    expect(store.getState().visitedViews).toEqual([team]);
    store.getState().removeAllVisitedViews();
    expect(store.getState().visitedViews).toEqual([]);
  });
});
