/** @jsxImportSource preact */
import { render, type ComponentType } from 'preact';
import type { PublicWidget } from '../../../shared/contract/widget';
import type { MountWidget, MountedWidget, WidgetContext } from '../../types';

/** What every widget's view receives. */
export interface WidgetProps<S> {
  widget: PublicWidget & { settings: S };
  ctx: WidgetContext;
  /** Removes the widget from the page. */
  close: () => void;
}

/**
 * Turns a widget view into its chunk's `mount`: a <nudge-widget> host (a tag no shop stylesheet targets)
 * with an open Shadow DOM root holding the widget's own <style>, so neither side's CSS reaches the other.
 * `idle` says when there is nothing to show now, so nothing is mounted.
 */
export function defineWidget<S>(
  View: ComponentType<WidgetProps<S>>,
  css: string,
  idle?: (settings: S, ctx: WidgetContext, widget: PublicWidget) => boolean,
): MountWidget {
  return (widget, ctx, parent) => {
    const typed = widget as PublicWidget & { settings: S };
    if (idle?.(typed.settings, ctx, widget)) return null;
    const host = document.createElement('nudge-widget');
    const root = host.attachShadow({ mode: 'open' });
    const close = (() => {
      render(null, root);
      host.remove();
    }) as MountedWidget;
    close.update = (next, nextCtx) =>
      render(
        <>
          <style>{css}</style>
          <View widget={next as PublicWidget & { settings: S }} ctx={nextCtx} close={close} />
        </>,
        root,
      );
    (parent || document.body || document.documentElement).append(host);
    close.update(widget, ctx);
    return close;
  };
}
