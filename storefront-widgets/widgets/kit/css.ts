/**
 * Widget styles, in small sets each widget picks from (every byte ships in its chunk). The shop's CSS
 * can't reach into the shadow root, but inherited properties (font, colour, line height) still flow in
 * through the host, so `.r` sets them again. Every top-level box of a widget is fixed above the page.
 */
export const BASE_CSS =
  ':host{all:initial}' +
  '.r{display:block;font:14px/1.45 system-ui,sans-serif;color:#202223}' +
  '.r *{box-sizing:border-box;margin:0;font:inherit;color:inherit;text-decoration:none}' +
  '.r>*{position:fixed;z-index:2147483000}' +
  ':focus-visible{outline:2px solid #2c6ecb;outline-offset:2px}' +
  '@keyframes u{from{opacity:0;transform:translateY(12px)}}' +
  '@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important}}';

/** The round × button. */
export const CLOSE_CSS =
  '.x{position:absolute;top:8px;right:8px;width:32px;height:32px;border:0;border-radius:50%;background:#8883;font-size:20px;cursor:pointer}';

/** The solid button, in the accent colour (--a). */
export const BUTTON_CSS =
  '.btn{display:inline-flex;align-items:center;justify-content:center;min-height:44px;padding:8px 18px;border:0;border-radius:8px;font-weight:600;cursor:pointer;background:var(--a,#202223);color:#fff}';

/** Inputs, labels, errors, the honeypot and the preview note, for the widgets with a form. */
export const FORM_CSS =
  BUTTON_CSS +
  '.in{display:block;width:100%;min-height:44px;padding:10px 12px;border:1px solid #babfc3;border-radius:8px;background:#fff;color:#202223}' +
  '[aria-invalid=true]{border-color:#d72c0d}' +
  '.er{color:#d72c0d;font-size:13px;margin-top:4px}' +
  '.hp{position:absolute;left:-9999px}' +
  '[disabled]{opacity:.6}' +
  '.pv{margin-top:10px;padding:6px 8px;border-radius:6px;background:#fff4e5;color:#5c3c00;font-size:12px}';

/** Labels above inputs, for the forms with several fields. */
export const LABEL_CSS = '.lb{display:block;font-weight:600;font-size:13px;margin:12px 0 4px}';
