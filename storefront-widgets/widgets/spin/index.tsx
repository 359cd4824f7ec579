/** @jsxImportSource preact */
import { Component } from 'preact';
import type { SpinResult, SpinSlice } from '../../../shared/contract/widget';
import { post } from '../../sdk/send';
import type { SpinConfig } from '../../types';
import type { WidgetProps } from '../core/mount';
import { inLang, safeColor, text } from '../kit/values';
import { checkField, fieldMessage } from '../kit/check';
import { Frame, BOX_CSS } from '../kit/frame';
import { FORM_CSS, LABEL_CSS } from '../kit/css';
import { FORM_STRINGS } from '../kit/strings';
import { widget } from '../kit/widget';
import { STRINGS } from './strings';
import { inkOn, labelSize, labelTransform, landingRotation, slicePath } from './wheel';

/** How long the wheel turns: the .rot transition in CSS below. */
const SPIN_MS = 5000;

const CSS =
  BOX_CSS +
  FORM_CSS +
  LABEL_CSS +
  '.dlg{width:min(760px,100%)}' +
  '.sp{display:grid;grid-template-columns:minmax(0,320px) minmax(0,1fr);gap:24px;align-items:center}' +
  '.pn .sp,.mob .sp{grid-template-columns:1fr;gap:12px}' +
  'svg{display:block;width:100%;max-width:320px;margin:auto}.pn svg,.mob svg{max-width:240px}' +
  '.rot{transition:transform 5s cubic-bezier(.12,.7,.1,1)}' +
  'text{font-weight:700}' +
  'form .btn{width:100%;margin-top:12px}' +
  '.big{font-size:22px;font-weight:800;margin:4px 0 10px}' +
  '.st{display:grid}.st>*{grid-area:1/1}.code{display:flex;gap:8px}' +
  'code{flex:1;padding:8px;border:2px dashed var(--a);border-radius:8px;font:700 18px ui-monospace,Menlo,Consolas,monospace;text-align:center;user-select:all;word-break:break-all}';

/** A slice as the shop's page receives it: the odds, stock and code prefix stay on the server. */
type Slice = Pick<SpinSlice, 'id' | 'label' | 'color' | 'lose'>;

interface State {
  rotation: number;
  spinning?: boolean;
  result?: SpinResult;
  /** What is wrong with the gate's field, as shown. */
  problem?: string;
  failure?: string;
  copied?: boolean;
}

/** The spin wheel: an email or phone gate, a spin the server draws, the wheel landing on it, the code to copy. */
class SpinWheel extends Component<WidgetProps<SpinConfig>, State> {
  override state: State = { rotation: 0 };

  private slices(): Slice[] {
    return (this.props.widget.settings.slices || []).filter((s) => s && s.id);
  }

  private rotationFor(result: SpinResult, from: number): number {
    const slices = this.slices();
    const index = Math.max(0, slices.findIndex((s) => s.id === result.slice_id));
    return landingRotation(index, slices.length, from, Math.random() - 0.5);
  }

  private spin = async (event: Event) => {
    event.preventDefault();
    const { widget, ctx } = this.props;
    const gate = widget.settings.gate === 'phone' ? 'phone' : 'email';
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = String(form.get(gate) ?? '').trim();
    const c = inLang(FORM_STRINGS, ctx.lang);
    const problem = checkField(gate, value, true);
    if (problem) return this.setState({ problem: c[problem] });
    this.setState({ spinning: true, problem: undefined, failure: undefined });
    // A visitor who spun before gets their first result again from the server, code included.
    const answer = await post<SpinResult>(ctx, 'spin', { widget_id: widget.id, [gate]: value, website: String(form.get('website') ?? '') });
    if (!answer.success) {
      const field = answer.fields?.[0];
      return this.setState({
        spinning: false,
        problem: field && fieldMessage(field.message, c),
        failure: field ? undefined : answer.message || c.failed,
      });
    }
    const result = answer.data;
    this.setState({ rotation: this.rotationFor(result, this.state.rotation) });
    const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
    setTimeout(() => this.setState({ result, spinning: false }), still ? 300 : SPIN_MS + 200);
  };

  private copy = (code: string) => {
    const done = () => this.setState({ copied: true });
    navigator.clipboard?.writeText(code).then(done, () => undefined);
  };

  override render({ widget: { settings: s }, ctx, close }: WidgetProps<SpinConfig>, { rotation, spinning, result, problem, failure, copied }: State) {
    const t = inLang(STRINGS, ctx.lang);
    const c = inLang(FORM_STRINGS, ctx.lang);
    const title = text(s.title) || t.wheel;
    const body = text(s.text);
    const gate = s.gate === 'phone' ? 'phone' : 'email';
    const slices = this.slices();
    const n = slices.length;
    const accent = safeColor(s.color, '#202223');
    return (
      <Frame
        at={s.position === 'bottom_left' || s.position === 'bottom_right' ? s.position : 'center'}
        label={title}
        mobile={ctx.mobile}
        onClose={close}
        closeLabel={t.close}
        colors={{ background: safeColor(s.background, '#ffffff'), color: accent, accent }}
      >
        <div class="sp">
          <svg viewBox="-106 -112 212 218" role="img" aria-label={t.wheel}>
              <circle r="105" fill={accent} />
              <g class="rot" style={{ transform: `rotate(${rotation}deg)` }}>
                {slices.map((slice, i) => {
                  const fill = safeColor(slice.color, i % 2 ? '#f4f6f8' : '#ff8a00');
                  const whole = text(slice.label);
                  const label = whole.length > 16 ? whole.slice(0, 15) + '…' : whole;
                  return (
                    <g key={slice.id}>
                      <path d={slicePath(i, n)} fill={fill} stroke="#fff" stroke-width="1" />
                      <text
                        style={{ fontSize: `${labelSize(label, n)}px` }}
                        transform={labelTransform(i, n)}
                        text-anchor="middle"
                        fill={inkOn(fill)}
                      >
                        {label}
                      </text>
                    </g>
                  );
                })}
              </g>
              <circle r="14" fill="#fff" stroke={accent} stroke-width="4" />
              <path d="M-10-112h20L0-88z" fill="#fff" stroke={accent} stroke-width="3" stroke-linejoin="round" />
          </svg>
          <div>
            <h2 class="t">{title}</h2>
            {body && <p class="d">{body}</p>}
            {/* The form keeps its room beside the result, so the dialog doesn't change size (no layout shift); it comes
                second so that it is the one on top while it is visible (a hidden one takes no clicks). */}
            <div class="st">
              <div role="status">
                {result &&
                  (result.lose ? (
                    <>
                      <p class="big">{text(result.label)}</p>
                      <p>{t.lost}</p>
                    </>
                  ) : (
                    <>
                      <p>{t.won}</p>
                      <p class="big">{text(result.label)}</p>
                      {result.code && (
                        <div class="code" aria-label={t.code}>
                          <code>{result.code}</code>
                          <button type="button" class="btn" onClick={() => this.copy(result.code!)}>
                            {copied ? t.copied : t.copy}
                          </button>
                        </div>
                      )}
                    </>
                  ))}
                {result && ctx.preview && <p class="pv">{t.example}</p>}
              </div>
              <form noValidate onSubmit={this.spin} style={result ? { visibility: 'hidden' } : undefined}>
                <label class="lb" for="sg">
                  {t[gate]}
                </label>
                <input
                  class="in"
                  id="sg"
                  name={gate}
                  type={gate === 'email' ? 'email' : 'tel'}
                  autoComplete={gate === 'email' ? 'email' : 'tel'}
                  inputMode={gate === 'email' ? 'email' : 'tel'}
                  aria-required="true"
                  maxLength={gate === 'email' ? 254 : 30}
                  aria-invalid={!!problem}
                  aria-describedby={problem ? 'se' : undefined}
                  disabled={spinning}
                />
                {problem && (
                  <p class="er" id="se">
                    {problem}
                  </p>
                )}
                <div class="hp" aria-hidden="true">
                  <input name="website" tabIndex={-1} autoComplete="off" />
                </div>
                {failure && (
                  <p class="er" role="alert">
                    {failure}
                  </p>
                )}
                <button type="submit" class="btn" disabled={spinning} style={{ background: accent, color: inkOn(accent) }}>
                  {spinning ? t.spinning : text(s.button_text) || t.spin}
                </button>
                {ctx.preview && <p class="pv">{c.preview}</p>}
              </form>
            </div>
          </div>
        </div>
      </Frame>
    );
  }
}

export const mount = widget<SpinConfig>(SpinWheel, CSS);
