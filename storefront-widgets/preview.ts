import type { PublicWidget, SpinResult, SpinSlice, WidgetType } from '../shared/contract/widget';
import type { Envelope, Lang, MountWidget, MountedWidget, WidgetContext } from './types';
import { mount as banner } from './widgets/banner';
import { mount as contact } from './widgets/contact';
import { mount as fakeNoti } from './widgets/fake_noti';
import { mount as maxlead } from './widgets/maxlead';
import { mount as schedule } from './widgets/schedule';
import { mount as spin } from './widgets/spin';
import { mount as suggestion } from './widgets/suggestion';

/** Every widget type's mount, for previews (the shop's pages load them one chunk at a time instead). */
export const MOUNTS: Record<WidgetType, MountWidget> = { schedule, banner, contact, spin, suggestion, fake_noti: fakeNoti, maxlead };

export interface PreviewOptions {
  /** The language the shopper's browser would ask for. */
  lang: Lang;
  /** Which layout to show: the phone one is what a shopper under 768 px wide, or on a phone, sees. */
  device: 'desktop' | 'mobile';
}

/**
 * A spin as the server would draw it, from the draft's odds and stocks (the real draw is the server's
 * alone); the code only shows what a code of the slice looks like.
 */
export function drawPreviewSpin(slices: Partial<SpinSlice>[], random = Math.random): SpinResult {
  const weight = (s: Partial<SpinSlice>) => (s.stock === 0 ? 0 : Math.max(0, s.weight ?? 1));
  const open = slices.filter((s) => weight(s) > 0);
  let ticket = random() * open.reduce((sum, s) => sum + weight(s), 0);
  const slice = open.find((s) => (ticket -= weight(s)) < 0) || open[open.length - 1] || slices[0] || {};
  return { slice_id: slice.id ?? '', label: slice.label ?? '', lose: !!slice.lose, code: slice.lose ? null : `${slice.code_prefix || ''}PREVIEW` };
}

/**
 * What a preview's widget is told of its page: the language and layout asked for, that it is a preview,
 * and a stand-in for the API (a lead is taken, a spin is drawn from the draft) so nothing leaves the page.
 */
export const previewContext = (options: PreviewOptions, widget: PublicWidget): WidgetContext => ({
  api: '',
  key: '',
  lang: options.lang === 'en' ? 'en' : 'vi',
  mobile: options.device === 'mobile',
  preview: true,
  simulate: async (path): Promise<Envelope<unknown>> => ({
    success: true,
    data: path === 'spin' ? drawPreviewSpin((widget.settings.slices as Partial<SpinSlice>[] | undefined) ?? []) : {},
  }),
});

/** Unmounts the preview; `update` shows a changed draft in place, keeping what the widget was doing (open, spun, typed). */
export type PreviewHandle = (() => void) & { update(widget: PublicWidget, options: PreviewOptions): void };

/** Links in a preview don't leave the console (or its preview frame). */
export const stayOnPage = (event: Event): void => {
  if (event.composedPath().some((node) => node instanceof HTMLAnchorElement)) event.preventDefault();
};

/**
 * Mounts widgets of the drafts given to it under `parent`, one at a time: a draft of the same type updates
 * the widget in place, another type replaces it. Shared by renderWidgetPreview and the preview frame.
 */
export function previewMounter(parent: HTMLElement): PreviewHandle {
  let mounted: MountedWidget | null = null;
  let type: string | undefined;
  const unmount = (() => {
    mounted?.();
    mounted = null;
  }) as PreviewHandle;
  unmount.update = (widget, options) => {
    const ctx = previewContext(options, widget);
    if (mounted && widget.type === type) return mounted.update(widget, ctx);
    unmount();
    type = widget.type;
    mounted = MOUNTS[widget.type]?.(widget, ctx, parent) ?? null;
  };
  return unmount;
}

/**
 * Mounts the real widget code into `host` (the console's desktop or mobile frame) for an editor's live
 * preview, in its own Shadow DOM, with no network calls: submits and spins are simulated and say so, and
 * links don't leave the console. Display rules don't apply; the widget shows at once. Returns the unmount,
 * which also has `update(widget, options)` to show an edited draft without remounting.
 */
export function renderWidgetPreview(host: HTMLElement, widget: PublicWidget, options: PreviewOptions): PreviewHandle {
  const frame = document.createElement('div');
  // A transformed box is the containing block of its fixed descendants: the widget's bars, dialogs and
  // corner panels stay inside the frame instead of covering the console.
  frame.style.cssText = 'position:relative;width:100%;height:100%;min-height:inherit;overflow:hidden;transform:translateZ(0)';
  frame.addEventListener('click', stayOnPage, true);
  host.append(frame);
  const mounter = previewMounter(frame);
  mounter.update(widget, options);
  const handle = (() => {
    mounter();
    frame.remove();
  }) as PreviewHandle;
  handle.update = mounter.update;
  return handle;
}
