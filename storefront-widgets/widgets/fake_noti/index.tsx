/** @jsxImportSource preact */
import { Component } from 'preact';
import { track } from '../../sdk/send';
import { store } from '../../sdk/storage';
import { currentSession } from '../../sdk/session';
import type { FakeNotiConfig, WidgetContext } from '../../types';
import type { WidgetProps } from '../core/mount';
import { inLang, text } from '../kit/values';
import { CLOSE_CSS } from '../kit/css';
import { safeImage, safeLink } from '../kit/text';
import { widget } from '../kit/widget';
import { minutesAgo, nextPause, shownThisSession } from './schedule';
import { STRINGS } from './strings';

const CSS =
  CLOSE_CSS +
  '.w{bottom:20px;width:min(340px,calc(100% - 40px))}' +
  '.bottom_left{left:20px}.bottom_right{right:20px}' +
  '.nt{display:flex;gap:12px;align-items:center;padding:10px 40px 10px 10px;border-radius:12px;background:#fff;box-shadow:0 8px 28px #0004;animation:u .35s}' +
  '.nt img{flex:none;width:56px;height:56px;border-radius:8px;object-fit:cover}' +
  'b{font-weight:700}.ag{display:block;margin-top:2px;font-size:12px;opacity:.65}' +
  '.x{top:6px;right:6px;width:26px;height:26px;font-size:16px}' +
  '.mob .w{left:10px;right:10px;bottom:10px;width:auto}';

type Item = FakeNotiConfig['items'][number];

const countKey = (id: number) => 'nudge_fn' + id;
const shown = (id: number, ctx: WidgetContext) => (ctx.preview ? 0 : shownThisSession(store().getItem(countKey(id)), currentSession(store())));

/** Small "someone bought" notices from the merchant's list, at random intervals, a few per session. */
class Notices extends Component<WidgetProps<FakeNotiConfig>, { item?: Item }> {
  private timer?: ReturnType<typeof setTimeout>;
  private next = Math.floor(Math.random() * 1000);
  private count = shown(this.props.widget.id, this.props.ctx);

  override componentDidMount(): void {
    this.show();
  }

  override componentWillUnmount(): void {
    clearTimeout(this.timer);
  }

  private show = () => {
    const { widget: { id, settings: s }, ctx, close } = this.props;
    const items = s.items || [];
    if (!items.length || this.count >= (s.max_per_session || 5)) return close();
    const item = items[this.next++ % items.length];
    this.count++;
    if (!ctx.preview) store().setItem(countKey(id), `${currentSession(store())}|${this.count}`);
    this.setState({ item });
    this.timer = setTimeout(() => {
      this.setState({ item: undefined });
      this.timer = setTimeout(this.show, nextPause(s.min_interval_seconds || 8, s.max_interval_seconds || 20, Math.random()));
    }, (s.display_seconds || 6) * 1000);
  };

  override render({ widget: { id, settings: s }, ctx, close }: WidgetProps<FakeNotiConfig>, { item }: { item?: Item }) {
    const t = inLang(STRINGS, ctx.lang);
    const closeLabel = t.close;
    const url = item && safeLink(item.url);
    const image = item && safeImage(item.image_url);
    const city = item && text(item.city);
    const body = item && (
      <>
        {image && <img src={image} alt="" />}
        <span>
          {text(item.name) || t.someone}
          {city && t.in(city)}
          {t.bought} <b>{text(item.product)}</b>
          <span class="ag">{minutesAgo(item.minutes_ago, t)}</span>
        </span>
      </>
    );
    // The live region holds the notice alone; the close button sits beside it, so it isn't announced with each one.
    return (
      <div class={ctx.mobile ? 'r mob' : 'r'}>
        <div class={`w ${s.position === 'bottom_right' ? 'bottom_right' : 'bottom_left'}`}>
          <div role="status" aria-live="polite" aria-label={t.notices}>
            {item && (url ? (
              <a class="nt" href={url} onClick={() => track(ctx, id, 'click')}>
                {body}
              </a>
            ) : (
              <div class="nt">{body}</div>
            ))}
          </div>
          {item && (
            <button type="button" class="x" aria-label={closeLabel} title={closeLabel} onClick={close}>
              ×
            </button>
          )}
        </div>
      </div>
    );
  }
}

/** Nothing to show once this session has had its share of notices. */
export const mount = widget<FakeNotiConfig>(Notices, CSS, (s, ctx, config) => !(s.items || []).length || shown(config.id, ctx) >= (s.max_per_session || 5));
