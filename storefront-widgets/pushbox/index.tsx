/** @jsxImportSource preact */
import type { PublicWebPush } from '../../shared/contract/platform';
import type { PublicWidget } from '../../shared/contract/widget';
import type { PushBoxModule } from '../sdk/push';
import type { MountedWidget, WidgetContext } from '../types';
import { defineWidget, type WidgetProps } from '../widgets/core/mount';
import { BASE_CSS, BUTTON_CSS } from '../widgets/kit/css';
import { BAR_CSS, BOX_CSS, Frame } from '../widgets/kit/frame';
import { inLang, text } from '../widgets/kit/values';

/**
 * chunks/pushbox-<release>.js: the web push subscription box (issue 5), in the shared Preact runtime like a
 * widget. It only asks; the track chunk (sdk/push.ts) decides when it shows and calls the browser's permission
 * prompt after "allow". The console's preview renders the same view.
 */

type BoxSettings = PublicWebPush['box'] & { answer: (allow: boolean) => void };

const STRINGS = { en: { label: 'Notifications', close: 'Close' }, vi: { label: 'Thông báo', close: 'Đóng' } };

const CSS =
  BASE_CSS +
  BOX_CSS +
  BAR_CSS +
  BUTTON_CSS +
  '.q{display:flex;gap:8px;justify-content:flex-end;margin-top:12px}.bar .q{margin:0}' +
  '.no{background:transparent;color:inherit;border:1px solid #8886}';

/** The box: the merchant's question and the two buttons, where the merchant put it. */
export function PushBox({ widget: { settings: s }, ctx, close }: WidgetProps<BoxSettings>) {
  const t = inLang(STRINGS, ctx.lang);
  const answer = (allow: boolean) => {
    close();
    if (!ctx.preview) s.answer(allow);
  };
  return (
    <Frame at={s.position} label={t.label} mobile={ctx.mobile} onClose={() => answer(false)} closeLabel={t.close} colors={{ background: '#fff', color: '#202223' }}>
      <p class="d">{text(s.text)}</p>
      <div class="q">
        <button type="button" class="btn no" onClick={() => answer(false)}>
          {text(s.deny_text)}
        </button>
        <button type="button" class="btn" onClick={() => answer(true)}>
          {text(s.allow_text)}
        </button>
      </div>
    </Frame>
  );
}

const mountBox = defineWidget<BoxSettings>(PushBox, CSS);

/** Mounts the box (into `parent` in the console's preview) and returns its unmount. */
export function mount(box: PublicWebPush['box'], ctx: WidgetContext, answer: (allow: boolean) => void, parent?: HTMLElement): MountedWidget | null {
  // The runtime's mount takes a widget; the box is one without an id or rules of its own.
  const widget = { id: 0, type: 'banner', settings: { ...box, answer }, rules: {} } as unknown as PublicWidget;
  return mountBox(widget, ctx, parent);
}

export const showBox: PushBoxModule['showBox'] = (box, ctx, answer) => void mount(box, ctx, answer);
