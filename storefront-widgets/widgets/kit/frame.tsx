/** @jsxImportSource preact */
import { Component, type ComponentChildren } from 'preact';
import { CLOSE_CSS } from './css';

/** Where a widget sits: a full-width bar, a centred modal dialog, or a panel in a bottom corner. */
export type Placement = 'top' | 'bottom' | 'center' | 'bottom_left' | 'bottom_right';

export interface FrameProps {
  at: Placement;
  /** The accessible name of the dialog or region (the widget's title). */
  label: string;
  mobile?: boolean;
  /** The × button and Escape; without it the frame can't be closed (never for a modal: see render). */
  onClose?: () => void;
  closeLabel: string;
  /** The merchant's colours, already checked. */
  colors: { background: string; color: string; accent?: string };
  children: ComponentChildren;
}

/** The styles of the centred dialog and the corner panel. */
export const BOX_CSS =
  CLOSE_CSS +
  '.bd{inset:0;display:flex;align-items:center;justify-content:center;padding:16px;background:#1118278c}' +
  '.dlg,.pn{border-radius:14px;box-shadow:0 16px 48px #0005;padding:24px;overflow:auto;animation:u .25s}' +
  '.dlg{position:relative;width:min(440px,100%);max-height:100%;outline:0}' +
  '.pn{bottom:20px;width:min(360px,calc(100% - 40px));max-height:calc(100% - 40px)}' +
  '.bottom_left{left:20px}.bottom_right{right:20px}' +
  '.mob .pn{left:10px;right:10px;bottom:10px;width:auto}' +
  '.t{font-size:19px;font-weight:700;line-height:1.3;margin-right:28px}' +
  '.d{white-space:pre-line;opacity:.88;margin:6px 0 12px}';

/** The styles of the full-width bar at the top or bottom. */
export const BAR_CSS =
  CLOSE_CSS +
  '.bar{left:0;right:0;display:flex;flex-wrap:wrap;align-items:center;justify-content:center;gap:8px 16px;padding:10px 52px;box-shadow:0 2px 12px #0003}' +
  '.top{top:0}.bottom{bottom:0}.bar .x{top:calc(50% - 16px)}' +
  '.mob .bar{padding:8px 44px 8px 12px;gap:6px 10px;font-size:13px}';

const FOCUSABLE = 'a[href],button,input:not([tabindex="-1"]),textarea,select';

/**
 * The box around a widget. A centred one is a modal dialog (aria-modal, focus moved in and kept in,
 * Escape and the backdrop close it, focus goes back where it was); a corner one is a non-modal dialog
 * that leaves the page's focus alone; a bar is a labelled region.
 */
export class Frame extends Component<FrameProps> {
  private opener: HTMLElement | null = null;

  override componentDidMount(): void {
    if (this.props.at !== 'center') return;
    this.opener = document.activeElement as HTMLElement | null;
    const dialog = this.dialog();
    (dialog?.querySelector<HTMLElement>('input:not([tabindex="-1"]),textarea') ?? dialog)?.focus();
  }

  override componentWillUnmount(): void {
    this.opener?.focus?.();
  }

  private dialog(): HTMLElement | null | undefined {
    return (this.base as HTMLElement | undefined)?.querySelector<HTMLElement>('[role=dialog]');
  }

  private onKey = (event: KeyboardEvent) => {
    const { at, onClose } = this.props;
    if (event.key === 'Escape' && onClose) {
      event.stopPropagation();
      onClose();
    }
    const dialog = this.dialog();
    if (event.key !== 'Tab' || at !== 'center' || !dialog) return;
    const items = Array.from(dialog.querySelectorAll<HTMLElement>(FOCUSABLE));
    const active = (dialog.getRootNode() as ShadowRoot).activeElement;
    const edge = event.shiftKey ? items[0] : items[items.length - 1];
    if (active === edge || active === dialog) {
      event.preventDefault();
      (event.shiftKey ? items[items.length - 1] : items[0])?.focus();
    }
  };

  override render({ at, label, mobile, onClose, closeLabel, colors, children }: FrameProps) {
    const style = { background: colors.background, color: colors.color, '--a': colors.accent || colors.color };
    const modal = at === 'center';
    // A modal nobody can leave would lock the shop's page: a centred widget always closes.
    const close = onClose && (
      <button type="button" class="x" aria-label={closeLabel} title={closeLabel} onClick={onClose}>
        ×
      </button>
    );
    const bar = at === 'top' || at === 'bottom';
    return (
      <div class={mobile ? 'r mob' : 'r'}>
        {modal ? (
          <div class="bd" onClick={(event) => event.target === event.currentTarget && onClose?.()}>
            <div class="dlg" role="dialog" aria-modal="true" aria-label={label} tabIndex={-1} style={style} onKeyDown={this.onKey}>
              {close}
              {children}
            </div>
          </div>
        ) : (
          <div class={`${bar ? 'bar' : 'pn'} ${at}`} role={bar ? 'region' : 'dialog'} aria-label={label} style={style} onKeyDown={this.onKey}>
            {children}
            {close}
          </div>
        )}
      </div>
    );
  }
}
