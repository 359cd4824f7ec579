import type { ComponentType } from 'preact';
import type { PublicWidget } from '../../../shared/contract/widget';
import { track } from '../../sdk/send';
import type { MountWidget, WidgetContext } from '../../types';
import { defineWidget, type WidgetProps } from '../core/mount';
import { BASE_CSS } from './css';

/**
 * A widget chunk's `mount`: the shared base styles under the widget's own, and a view recorded each time it
 * shows (the runtime's mount knows nothing of the API, to stay small).
 */
export function widget<S>(
  View: ComponentType<WidgetProps<S>>,
  css: string,
  idle?: (settings: S, ctx: WidgetContext, widget: PublicWidget) => boolean,
): MountWidget {
  const mount = defineWidget(View, BASE_CSS + css, idle);
  return (config, ctx, parent) => {
    const unmount = mount(config, ctx, parent);
    if (unmount) track(ctx, config.id, 'view');
    return unmount;
  };
}
