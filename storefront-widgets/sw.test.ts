import { describe, expect, it, vi } from 'vitest';
import { REPORT_RETRY_MS, installServiceWorker, type WorkerScope } from './sw';

const ENDPOINT = 'https://push.example.net/send/abc';

/** A service worker scope with recording fakes: notifications shown, windows opened, reports posted. */
function fakeScope(search = '?k=ck_live_12345678&a=https%3A%2F%2Fapi.nudge.example&v=visitor0001abc') {
  const listeners: Record<string, (event: unknown) => void> = {};
  const posts: { url: string; body: Record<string, unknown> }[] = [];
  const subscription = (endpoint: string) => ({
    endpoint,
    options: { applicationServerKey: new Uint8Array([4, 1, 2]).buffer },
    toJSON: () => ({ endpoint, keys: { p256dh: 'p', auth: 'a' } }),
  });
  const scope = {
    location: { search },
    registration: {
      scope: 'https://shop.vn/',
      showNotification: vi.fn(async () => undefined),
      pushManager: {
        getSubscription: vi.fn(async () => subscription(ENDPOINT)),
        subscribe: vi.fn(async () => subscription('https://push.example.net/send/renewed')),
      },
    },
    clients: {
      /** The shopper's open tabs of the shop. */
      tabs: [] as { url: string; focus: ReturnType<typeof vi.fn> }[],
      matchAll: vi.fn(async () => scope.clients.tabs),
      openWindow: vi.fn(async () => null),
    },
    fetch: vi.fn(async (url: string, init: RequestInit) => {
      posts.push({ url, body: JSON.parse(String(init.body)) });
      return { ok: true } as Response;
    }),
    addEventListener: (type: string, listener: (event: never) => void) => void (listeners[type] = listener as (event: unknown) => void),
  };
  installServiceWorker(scope as unknown as WorkerScope);
  /** Dispatches an event and waits for what it asked to wait for. */
  const dispatch = async (type: string, event: Record<string, unknown>) => {
    let done: Promise<unknown> = Promise.resolve();
    listeners[type]({ ...event, waitUntil: (promise: Promise<unknown>) => (done = promise) });
    await done;
  };
  return { scope, posts, dispatch, subscription };
}

const payload = (body: Record<string, unknown>) => ({ data: { json: () => body } });

describe('the service worker', () => {
  it('shows the notification with its title, body, icon, image and buttons, and reports it delivered', async () => {
    const { scope, posts, dispatch } = fakeScope();
    await dispatch(
      'push',
      payload({
        title: 'Sale starts now',
        body: 'Everything −30 %',
        icon: 'https://shop.vn/icon.png',
        image: 'https://shop.vn/sale.jpg',
        url: 'https://shop.vn/sale',
        buttons: [{ action: 'buy', title: 'Buy now', url: 'https://shop.vn/cart' }],
        message_id: 'm_1',
        key: 'ck_from_payload',
        api: 'https://push-api.nudge.example',
      }),
    );
    expect(scope.registration.showNotification).toHaveBeenCalledWith('Sale starts now', {
      body: 'Everything −30 %',
      tag: 'm_1',
      icon: 'https://shop.vn/icon.png',
      image: 'https://shop.vn/sale.jpg',
      actions: [{ action: 'buy', title: 'Buy now' }],
      data: {
        url: 'https://shop.vn/sale',
        message_id: 'm_1',
        actions: { buy: 'https://shop.vn/cart' },
        key: 'ck_from_payload',
        api: 'https://push-api.nudge.example',
      },
    });
    expect(posts).toEqual([
      { url: 'https://push-api.nudge.example/api/sdk/push/report', body: { key: 'ck_from_payload', kind: 'delivered', message_id: 'm_1', endpoint: ENDPOINT } },
    ]);
  });

  it('shows no picture that is not HTTPS and no link that is not the web’s, and opens an HTTP link as the composer takes it', async () => {
    const { scope, dispatch } = fakeScope();
    await dispatch('push', payload({ title: 'Hi', url: 'javascript:alert(1)', icon: 'http://shop.vn/i.png', buttons: [{ action: 'x', title: 'X', url: 'data:text/html,hi' }] }));
    const [, options] = scope.registration.showNotification.mock.calls[0] as unknown as [string, { icon?: string; data: { url?: string; actions: object } }];
    expect(options.icon).toBeUndefined();
    expect(options.data.url).toBeUndefined();
    expect(options.data.actions).toEqual({});

    await dispatch('push', payload({ title: 'Sale', url: 'http://shop.vn/sale', buttons: [{ action: 'buy', title: 'Buy', url: 'http://shop.vn/cart' }] }));
    const [, sale] = scope.registration.showNotification.mock.calls[1] as unknown as [string, { data: object }];
    await dispatch('notificationclick', { action: '', notification: { close: vi.fn(), data: sale.data } });
    await dispatch('notificationclick', { action: 'buy', notification: { close: vi.fn(), data: sale.data } });
    expect(scope.clients.openWindow.mock.calls).toEqual([['http://shop.vn/sale'], ['http://shop.vn/cart']]);
  });

  it("opens the shop's home page on a click on a notification without a link, whatever folder the worker is served from, and reports the click", async () => {
    const { scope, posts, dispatch } = fakeScope();
    scope.registration.scope = 'https://shop.vn/apps/nudge/';
    await dispatch('notificationclick', { action: '', notification: { close: vi.fn(), data: { message_id: 'm_9', actions: {} } } });
    expect(scope.clients.openWindow.mock.calls).toEqual([['https://shop.vn/']]);
    expect(posts.map((post) => post.body.kind)).toEqual(['clicked']);
  });

  it("opens the button's URL on a button click, the notification's otherwise, and reports the click", async () => {
    const { scope, posts, dispatch } = fakeScope();
    const notification = { close: vi.fn(), data: { url: 'https://shop.vn/sale', message_id: 'm_2', actions: { buy: 'https://shop.vn/cart' } } };
    await dispatch('notificationclick', { action: 'buy', notification });
    await dispatch('notificationclick', { action: '', notification });
    expect(notification.close).toHaveBeenCalledTimes(2);
    expect(scope.clients.openWindow.mock.calls).toEqual([['https://shop.vn/cart'], ['https://shop.vn/sale']]);
    // Without key and API in the payload, the registration's own (the SDK registered the worker with them).
    expect(posts).toEqual([
      { url: 'https://api.nudge.example/api/sdk/push/report', body: { key: 'ck_live_12345678', kind: 'clicked', message_id: 'm_2', endpoint: ENDPOINT, action: 'buy' } },
      { url: 'https://api.nudge.example/api/sdk/push/report', body: { key: 'ck_live_12345678', kind: 'clicked', message_id: 'm_2', endpoint: ENDPOINT } },
    ]);
  });

  it('reports a click again after a lost network or a busy server, a few times, and a refused one once', async () => {
    vi.useFakeTimers();
    try {
      const { scope, dispatch } = fakeScope();
      const answers: (() => Promise<Response>)[] = [
        () => Promise.reject(new TypeError('Failed to fetch')),
        async () => ({ ok: false, status: 503 }) as Response,
        async () => ({ ok: true, status: 200 }) as Response,
      ];
      scope.fetch.mockImplementation(() => answers.shift()!());
      const notification = { close: vi.fn(), data: { url: 'https://shop.vn/sale', message_id: 'm_4', actions: {} } };
      const clicked = dispatch('notificationclick', { action: '', notification });
      await vi.advanceTimersByTimeAsync(REPORT_RETRY_MS[0] + REPORT_RETRY_MS[1]);
      await clicked;
      expect(scope.fetch).toHaveBeenCalledTimes(3);

      // Refused: not asked again. Lost every time: given up after the last wait.
      scope.fetch.mockClear();
      scope.fetch.mockImplementation(async () => ({ ok: false, status: 400 }) as Response);
      await dispatch('notificationclick', { action: '', notification });
      expect(scope.fetch).toHaveBeenCalledTimes(1);
      scope.fetch.mockClear();
      scope.fetch.mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
      const lost = dispatch('notificationclick', { action: '', notification });
      await vi.advanceTimersByTimeAsync(60_000);
      await lost;
      expect(scope.fetch).toHaveBeenCalledTimes(REPORT_RETRY_MS.length + 1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('brings a tab already at the URL to the front instead of opening another, and still reports the click', async () => {
    const { scope, posts, dispatch } = fakeScope();
    const sale = { url: 'https://shop.vn/sale', focus: vi.fn(async () => null) };
    scope.clients.tabs.push({ url: 'https://shop.vn/', focus: vi.fn(async () => null) }, sale);
    const notification = { close: vi.fn(), data: { url: 'https://shop.vn/sale', message_id: 'm_3', actions: { buy: 'https://shop.vn/cart' } } };
    await dispatch('notificationclick', { action: '', notification });
    expect(sale.focus).toHaveBeenCalledOnce();
    expect(scope.clients.openWindow).not.toHaveBeenCalled();
    // No tab at the button's URL: a new one.
    await dispatch('notificationclick', { action: 'buy', notification });
    expect(scope.clients.openWindow.mock.calls).toEqual([['https://shop.vn/cart']]);
    expect(posts.map((post) => post.body.kind)).toEqual(['clicked', 'clicked']);
  });

  it('shows a message delivered twice once: its notification is tagged with the message', async () => {
    const { scope, dispatch } = fakeScope();
    await dispatch('push', payload({ title: 'Hi', message_id: 'm_9' }));
    await dispatch('push', payload({ title: 'Hi' }));
    const tags = scope.registration.showNotification.mock.calls.map((call) => (call as unknown as [string, { tag?: string }])[1].tag);
    expect(tags).toEqual(['m_9', undefined]);
  });

  it('subscribes again when the browser drops the subscription, and tells the server', async () => {
    const { scope, posts, dispatch, subscription } = fakeScope();
    await dispatch('pushsubscriptionchange', { oldSubscription: subscription('https://push.example.net/send/old'), newSubscription: null });
    expect(scope.registration.pushManager.subscribe).toHaveBeenCalledWith({ userVisibleOnly: true, applicationServerKey: expect.any(ArrayBuffer) });
    expect(posts).toEqual([
      {
        url: 'https://api.nudge.example/api/sdk/push/subscribe',
        body: { key: 'ck_live_12345678', visitor_id: 'visitor0001abc', subscription: { endpoint: 'https://push.example.net/send/renewed', keys: { p256dh: 'p', auth: 'a' } } },
      },
    ]);
  });

  it('reports the end of the subscription when it cannot subscribe again', async () => {
    const { scope, posts, dispatch, subscription } = fakeScope();
    scope.registration.pushManager.subscribe.mockRejectedValue(new Error('permission revoked'));
    await dispatch('pushsubscriptionchange', { oldSubscription: subscription('https://push.example.net/send/old') });
    expect(posts).toEqual([
      { url: 'https://api.nudge.example/api/sdk/push/unsubscribe', body: { key: 'ck_live_12345678', visitor_id: 'visitor0001abc', endpoint: 'https://push.example.net/send/old' } },
    ]);
  });
});
