/** @jsxImportSource preact */
import { Component } from 'preact';
import { track } from '../../sdk/send';
import { store } from '../../sdk/storage';
import type { ScheduleConfig, WidgetContext } from '../../types';
import type { WidgetProps } from '../core/mount';
import { inLang, safeColor, text } from '../kit/values';
import { BAR_CSS } from '../kit/frame';
import { safeLink } from '../kit/text';
import { widget } from '../kit/widget';
import { remaining, salePhase } from './phase';
import { STRINGS } from './strings';

const CSS =
  BAR_CSS +
  '.bar{font-size:15px}.ns{position:absolute}.tt{font-weight:700}.cd{white-space:nowrap}' +
  '.cd b{display:inline-block;min-width:2em;margin:0 2px;padding:2px 5px;border-radius:5px;background:#0003;font-weight:700;font-variant-numeric:tabular-nums}' +
  '.go{padding:6px 14px;border-radius:6px;background:var(--c);color:var(--b);font-weight:700;white-space:nowrap}' +
  '.mob .bar{gap:4px 8px}.mob .cd b{min-width:1.7em;margin:0 1px;padding:1px 3px}.mob .go{padding:3px 10px}';

/** When this visitor first saw an evergreen sale: their own countdown starts there (not in a preview). */
function firstSeen(id: number, ctx: WidgetContext, now: number): number {
  if (ctx.preview) return now;
  const key = 'nudge_eg' + id;
  const seen = Number(store().getItem(key));
  if (seen > 0 && seen <= now) return seen;
  store().setItem(key, String(now));
  return now;
}

const two = (n: number) => (n < 10 ? '0' : '') + n;

/** The flash sale bar: its message and a countdown to the sale's start or end, a link to the sale, a close button. */
class FlashSale extends Component<WidgetProps<ScheduleConfig>, { now: number }> {
  private start = Date.now();
  private seen = firstSeen(this.props.widget.id, this.props.ctx, this.start);
  private timer?: ReturnType<typeof setInterval>;
  override state = { now: this.start };

  override componentDidMount(): void {
    this.timer = setInterval(() => {
      const now = Date.now();
      const { settings } = this.props.widget;
      // The sale has just ended and there is nothing to say after it: the bar goes.
      if (salePhase(settings, now, this.seen).phase === 'after' && !text(settings.after_text) && !this.props.ctx.preview) this.props.close();
      else this.setState({ now });
    }, 1000);
  }

  override componentWillUnmount(): void {
    clearInterval(this.timer);
  }

  override render({ widget: { id, settings: s }, ctx, close }: WidgetProps<ScheduleConfig>, { now }: { now: number }) {
    const t = inLang(STRINGS, ctx.lang);
    const { phase, until } = salePhase(s, now, this.seen);
    const title = text(s.title);
    const message = phase === 'before' ? text(s.before_text) || title : phase === 'after' ? text(s.after_text) || title : title;
    const [days, hours, minutes, seconds] = remaining(until ?? now, now);
    const background = safeColor(s.background, '#d72c0d');
    const color = safeColor(s.color, '#ffffff');
    const link = safeLink(s.link);
    const closeLabel = t.close;
    return (
      <div class={ctx.mobile ? 'r mob' : 'r'}>
        <div
          class={`bar ${s.position === 'bottom' ? 'bottom' : 'top'}${s.sticky === false ? ' ns' : ''}`}
          role="region"
          aria-label={title}
          style={{ background, color, '--b': background, '--c': color }}
        >
          <span class="tt">{message}</span>
          {until !== null && phase !== 'after' && (
            <span class="cd" role="timer" aria-atomic="true">
              {phase === 'before' ? t.startsIn : t.endsIn}{' '}
              {days > 0 && <b>{`${days} ${t.day}`}</b>}
              <b>{two(hours)}</b>:<b>{two(minutes)}</b>:<b>{two(seconds)}</b>
            </span>
          )}
          {link && (
            <a class="go" href={link} onClick={() => track(ctx, id, 'click')}>
              {text(s.button_text) || t.shop}
            </a>
          )}
          <button type="button" class="x" aria-label={closeLabel} title={closeLabel} onClick={close}>
            ×
          </button>
        </div>
      </div>
    );
  }
}

/** A sale that is over and has no "after" text shows nothing (outside the console's preview). */
export const mount = widget<ScheduleConfig>(FlashSale, CSS, (s, ctx, config) => {
  const now = Date.now();
  return !ctx.preview && !text(s.after_text) && salePhase(s, now, firstSeen(config.id, ctx, now)).phase === 'after';
});
