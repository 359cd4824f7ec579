import type { Envelope, WidgetContext } from '../types';
import { store } from './storage';
import { visitorId } from './visitor';

const url = (ctx: WidgetContext, path: string) => `${ctx.api}/api/sdk/${path}`;
const stamp = (ctx: WidgetContext, body: object) => JSON.stringify({ key: ctx.key, visitor_id: visitorId(store()), ...body });

/**
 * POSTs to /api/sdk/<path>. The JSON goes as text/plain, a "simple" request that needs no CORS preflight,
 * and with keepalive so a lead still arrives when the visitor follows a link at once.
 */
export async function post<T>(ctx: WidgetContext, path: string, body: Record<string, unknown>): Promise<Envelope<T>> {
  if (ctx.simulate) return ctx.simulate(path, body) as Promise<Envelope<T>>;
  try {
    const res = await fetch(url(ctx, path), { method: 'POST', body: stamp(ctx, body), keepalive: true, credentials: 'omit' });
    return (await res.json()) as Envelope<T>;
  } catch {
    return { success: false, error: 'NETWORK', message: '' };
  }
}

/**
 * Sends and forgets: sendBeacon where the browser has it, made for requests that must outlive the page
 * (a click that leaves for another app), fetch with keepalive otherwise. Never in a preview.
 */
export function beacon(ctx: WidgetContext, path: string, body: object): void {
  if (ctx.preview) return;
  const data = stamp(ctx, body);
  const to = url(ctx, path);
  try {
    if (navigator.sendBeacon(to, data)) return;
  } catch {
    // a beacon refused by the browser (size, policy): fetch below
  }
  fetch(to, { method: 'POST', body: data, keepalive: true, credentials: 'omit' }).catch(() => undefined);
}

/** Records a view or a click of a widget (of a contact button: with its type). */
export const track = (ctx: WidgetContext, widgetId: number, kind: 'view' | 'click', buttonType?: string): void =>
  beacon(ctx, 'event', { widget_id: widgetId, kind, button_type: buttonType });
