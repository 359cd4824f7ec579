/** @jsxImportSource preact */
import { track } from '../../sdk/send';
import type { BannerConfig } from '../../types';
import type { WidgetProps } from '../core/mount';
import { inLang, safeColor, text } from '../kit/values';
import { Frame, BOX_CSS, BAR_CSS, type Placement } from '../kit/frame';
import { BUTTON_CSS } from '../kit/css';
import { safeImage, safeLink } from '../kit/text';
import { widget } from '../kit/widget';
import { STRINGS } from './strings';

const CSS =
  BOX_CSS +
  BAR_CSS +
  BUTTON_CSS +
  '.im{display:block;width:100%;max-height:320px;object-fit:cover;border-radius:10px;margin-bottom:12px}' +
  '.bar .im{width:auto;height:36px;margin:0}.bar .t{font-size:15px;margin:0}.bar .d{margin:0}.bar .btn{min-height:34px}';

const PLACES: Placement[] = ['top', 'bottom', 'center', 'bottom_left', 'bottom_right'];

/** An image or text banner: a title, a text, a link (button or the whole image), the merchant's colours. */
function Banner({ widget: { id, settings: s }, ctx, close }: WidgetProps<BannerConfig>) {
  const t = inLang(STRINGS, ctx.lang);
  const at = PLACES.includes(s.position) ? s.position : 'bottom_right';
  const link = safeLink(s.link);
  const image = safeImage(s.image_url);
  const title = text(s.title);
  const body = text(s.text);
  const background = safeColor(s.background, '#ffffff');
  const color = safeColor(s.color, '#202223');
  const follow = () => track(ctx, id, 'click');
  const picture = image && <img class="im" src={image} alt={title} />;
  return (
    <Frame
      at={at}
      label={title || t.banner}
      mobile={ctx.mobile}
      onClose={s.closable !== false || at === 'center' ? close : undefined}
      closeLabel={t.close}
      colors={{ background, color }}
    >
      {picture && link ? (
        <a href={link} onClick={follow}>
          {picture}
        </a>
      ) : (
        picture
      )}
      {title && <h2 class="t">{title}</h2>}
      {body && <p class="d">{body}</p>}
      {link && (text(s.button_text) || !image) && (
        <a class="btn" href={link} onClick={follow} style={{ background: color, color: background }}>
          {text(s.button_text) || t.more}
        </a>
      )}
    </Frame>
  );
}

export const mount = widget<BannerConfig>(Banner, CSS);
