import type { z } from 'zod';
import type * as C from '../shared/contract/widget';
import type { PublicWidget } from '../shared/contract/widget';

export type Lang = 'vi' | 'en';

/** What a widget knows of the page it runs on. */
export interface WidgetContext {
  /** Origin of the Nudge API: the loader script's own origin. */
  api: string;
  /** The application's public client key (data-app). */
  key: string;
  lang: Lang;
  mobile: boolean;
  /** The console's editor preview: nothing is sent, submits and spins are simulated and say so. */
  preview?: boolean;
  /** In a preview: answers what the API would, instead of sending (see preview.ts). */
  simulate?: (path: string, body: Record<string, unknown>) => Promise<Envelope<unknown>>;
}

/** The API's answer: `{ success, data }` or the error envelope (`message` already in the visitor's language). */
export type Envelope<T> =
  | { success: true; data: T }
  | { success: false; error: string; message: string; fields?: { path: string; message: string }[] };

/** A mounted widget: calling it unmounts it; `update` renders new settings in place, keeping its state. */
export type MountedWidget = (() => void) & { update(widget: PublicWidget, ctx: WidgetContext): void };

/**
 * Mounts a widget in its own Shadow DOM root under `parent` (the page's body by default) and returns its
 * unmount, or null when the widget has nothing to show now (a flash sale that has ended without an
 * "after" text): the loader then doesn't count it as shown.
 */
export type MountWidget = (widget: PublicWidget, ctx: WidgetContext, parent?: HTMLElement) => MountedWidget | null;

/** What every widget chunk exports. */
export interface WidgetModule {
  mount: MountWidget;
}

/** The settings of each widget type, as the server sends them (defaults applied). */
export type ScheduleConfig = z.output<typeof C.ScheduleSettings>;
export type BannerConfig = z.output<typeof C.BannerSettings>;
export type ContactConfig = z.output<typeof C.ContactFormSettings>;
export type SpinConfig = z.output<typeof C.SpinSettings>;
export type SuggestionConfig = z.output<typeof C.SuggestionSettings>;
export type FakeNotiConfig = z.output<typeof C.FakeNotiSettings>;
export type MaxleadConfig = z.output<typeof C.MaxleadSettings>;
