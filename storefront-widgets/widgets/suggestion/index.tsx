/** @jsxImportSource preact */
import { track } from '../../sdk/send';
import type { SuggestionConfig } from '../../types';
import type { WidgetProps } from '../core/mount';
import { inLang, safeColor, text } from '../kit/values';
import { Frame, BOX_CSS, BAR_CSS, type Placement } from '../kit/frame';
import { safeImage, safeLink } from '../kit/text';
import { widget } from '../kit/widget';
import { STRINGS } from './strings';

const CSS =
  BOX_CSS +
  BAR_CSS +
  '.k{display:inline-block;margin-bottom:6px;padding:2px 8px;border-radius:99px;background:var(--a);color:var(--b);font-size:12px;font-weight:700}' +
  '.it{list-style:none;padding:0;display:grid;gap:8px;margin-top:8px}' +
  '.dlg .it{grid-template-columns:repeat(auto-fill,minmax(110px,1fr))}' +
  '.pn .it{max-height:min(50vh,360px);overflow:auto}' +
  '.bar .it{display:flex;overflow-x:auto;margin:0}.bar .t{font-size:15px;margin:0}' +
  '.it a{display:flex;gap:10px;align-items:center;padding:6px;border-radius:10px;border:1px solid #8884;height:100%}' +
  '.it a:hover{border-color:var(--a)}' +
  '.dlg .it a{flex-direction:column;align-items:stretch;text-align:center}' +
  '.it img{flex:none;width:56px;height:56px;border-radius:8px;object-fit:cover}' +
  '.dlg .it img{width:100%;height:auto;aspect-ratio:1}' +
  '.bar .it img{width:36px;height:36px}' +
  '.bar .it a{white-space:nowrap;padding:4px 10px 4px 4px}' +
  '.n{display:block;font-weight:600;line-height:1.3}.p{display:block;font-weight:700;color:var(--a)}';

const PLACES: Placement[] = ['top', 'bottom', 'center', 'bottom_left', 'bottom_right'];

/** Promotion or recommendation boxes: the products or links the merchant picked. */
function Suggestions({ widget: { id, settings: s }, ctx, close }: WidgetProps<SuggestionConfig>) {
  const t = inLang(STRINGS, ctx.lang);
  const title = text(s.title);
  const background = safeColor(s.background, '#ffffff');
  const color = safeColor(s.color, '#202223');
  const kind = s.kind === 'promotion' ? t.promotion : t.recommendation;
  return (
    <Frame
      at={PLACES.includes(s.position) ? s.position : 'bottom_left'}
      label={title || kind}
      mobile={ctx.mobile}
      onClose={close}
      closeLabel={t.close}
      colors={{ background, color, accent: color }}
    >
      <span class="k" style={{ '--b': background }}>
        {kind}
      </span>
      {title && <h2 class="t">{title}</h2>}
      <ul class="it">
        {(s.items || []).map((item, i) => {
          const url = safeLink(item.url);
          const image = safeImage(item.image_url);
          const price = text(item.price);
          return (
            url && (
              <li key={i}>
                <a href={url} onClick={() => track(ctx, id, 'click')}>
                  {image && <img src={image} alt="" loading="lazy" />}
                  <span>
                    <span class="n">{text(item.title)}</span>
                    {price && <span class="p">{price}</span>}
                  </span>
                </a>
              </li>
            )
          );
        })}
      </ul>
    </Frame>
  );
}

export const mount = widget<SuggestionConfig>(Suggestions, CSS);
