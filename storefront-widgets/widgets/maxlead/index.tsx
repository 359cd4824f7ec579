/** @jsxImportSource preact */
import { Component } from 'preact';
import type { ContactButtonType } from '../../../shared/contract/widget';
import { beacon, track } from '../../sdk/send';
import { store } from '../../sdk/storage';
import type { MaxleadConfig } from '../../types';
import type { WidgetProps } from '../core/mount';
import { inLang, safeColor, text } from '../kit/values';
import { checkField } from '../kit/check';
import { widget } from '../kit/widget';
import { contactButtonHref, telHref } from './href';
import { CHANNELS } from './channels';
import { STRINGS } from './strings';

const CSS =
  '.w{bottom:16px;display:flex;flex-direction:column;gap:12px}' +
  '.bottom_left{left:16px;align-items:flex-start}.bottom_right{right:16px;align-items:flex-end}' +
  '.fab{width:56px;height:56px;border:0;border-radius:50%;background:var(--a);box-shadow:0 6px 20px #0005;cursor:pointer;color:#fff;font-size:28px}' +
  'svg{width:26px;fill:#fff;vertical-align:middle}' +
  '.ls{width:min(320px,calc(100vw - 32px));max-height:70vh;overflow:auto;padding:12px;border-radius:14px;background:#fff;box-shadow:0 16px 48px #0005;animation:u .25s}' +
  '.g{padding:4px 8px;font-weight:600}' +
  '.ch{display:flex;align-items:center;gap:12px;padding:8px;border-radius:10px}.ch:hover{background:#f1f2f3}' +
  '.ic{width:38px;height:38px;border-radius:50%;display:grid;place-items:center;color:#fff;font-weight:700;font-size:13px}' +
  '.btn{min-height:44px;padding:0 20px;border:0;border-radius:8px;background:var(--a);color:#fff;font-weight:600}' +
  '.cap{padding:8px}.in{width:100%;min-height:44px;margin:8px 0;padding:10px 12px;border:1px solid #babfc3;border-radius:8px}' +
  '.er{color:#d72c0d;font-size:13px}.hp{position:absolute;left:-9999px}' +
  '.lnk{border:0;background:none;text-decoration:underline;cursor:pointer;margin-left:8px}' +
  '.pv{font-size:12px}';

const CAPTURED = 'nudge_cap';

interface Entry {
  href: string;
  /** Web links open in a new tab; the shop's own (cart, account) and app links (tel:, sms:, …) in place. */
  target?: '_blank';
  type?: ContactButtonType;
  label: string;
  color: string;
  badge: string;
}

interface State {
  open?: boolean;
  pending?: Entry;
  /** The capture field's value was refused. */
  problem?: boolean;
}

/**
 * Opens a channel from script (after the capture form), as its link would have; in place if a pop-up is
 * refused. Not window.open's "noopener" feature: with it, window.open answers null even when it opened.
 */
function follow({ href, target }: Entry) {
  const tab = target && window.open(href, target);
  if (tab) tab.opener = null;
  else location.href = href;
}

/** The contact buttons: a floating button that opens the merchant's channels and hotlines. */
class ContactButtons extends Component<WidgetProps<MaxleadConfig>, State> {
  override state: State = {};
  private fab?: HTMLButtonElement | null;

  private entries(accent: string): Entry[] {
    const { settings: s } = this.props.widget;
    const t = inLang(STRINGS, this.props.ctx.lang);
    const out: Entry[] = [];
    for (const p of s.phones || []) {
      const href = telHref(p.number);
      if (href) out.push({ href, label: text(p.label) || `${t.call} ${p.number}`, color: accent, badge: '☎' });
    }
    for (const { type, value, label } of s.buttons || []) {
      const [template, color, badge, name] = CHANNELS[type] || [];
      const href = contactButtonHref(type, value, location.origin);
      // The shop's own pages (cart, account: no template) open in place, other web links in a new tab.
      if (href) out.push({ href, target: template && /^h/.test(href) ? '_blank' : undefined, type, label: text(label) || t.names[type] || name, color, badge });
    }
    return out;
  }

  private toggle = () => this.setState({ open: !this.state.open, pending: undefined, problem: undefined });

  private onKey = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !this.state.open) return;
    this.toggle();
    this.fab?.focus();
  };

  /** A click on a channel: asks for a phone or email first when the merchant wants one and we have none yet. */
  private choose(event: Event, entry: Entry) {
    const { widget, ctx } = this.props;
    const capture = widget.settings.capture;
    // A preview asks every time, so the merchant sees the question the visitor will.
    if (capture && capture !== 'none' && (ctx.preview || !store().getItem(CAPTURED))) {
      event.preventDefault();
      this.setState({ pending: entry, problem: undefined });
      return;
    }
    track(ctx, widget.id, 'click', entry.type);
  }

  private submit = (event: Event) => {
    event.preventDefault();
    const { widget, ctx } = this.props;
    const entry = this.state.pending!;
    const field = widget.settings.capture === 'email' ? 'email' : 'phone';
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = String(form.get(field) ?? '').trim();
    if (checkField(field, value, true)) return this.setState({ problem: true });
    if (ctx.preview) return this.setState({ pending: undefined });
    store().setItem(CAPTURED, '1');
    // A beacon: the lead arrives even though the page may be left for the channel at once.
    beacon(ctx, 'lead', { widget_id: widget.id, [field]: value, button_type: entry.type, page_url: location.href.slice(0, 2000), website: String(form.get('website') ?? '') });
    this.go(entry);
  };

  private go(entry: Entry) {
    this.setState({ pending: undefined });
    if (this.props.ctx.preview) return;
    track(this.props.ctx, this.props.widget.id, 'click', entry.type);
    follow(entry);
  }

  override render({ widget: { settings: s }, ctx }: WidgetProps<MaxleadConfig>, { open, pending, problem }: State) {
    const t = inLang(STRINGS, ctx.lang);
    const greeting = text(s.greeting);
    const field = s.capture === 'email' ? 'email' : 'phone';
    const accent = safeColor(s.color, '#008060');
    const entries = this.entries(accent);
    return (
      <div class="r" onKeyDown={this.onKey}>
        <div class={`w ${s.position === 'bottom_left' ? 'bottom_left' : 'bottom_right'}`} style={{ '--a': accent }}>
          {open && (
            <div class="ls" role="dialog" aria-label={greeting || t.open}>
              {pending ? (
                <form class="cap" noValidate onSubmit={this.submit}>
                  <label>
                    {field === 'email' ? t.askEmail : t.askPhone}
                    <input
                      class="in"
                      name={field}
                      type={field === 'email' ? 'email' : 'tel'}
                      autoComplete={field === 'email' ? 'email' : 'tel'}
                      maxLength={field === 'email' ? 254 : 30}
                      aria-describedby={problem ? 'ne' : undefined}
                      aria-invalid={!!problem}
                      ref={(input) => input?.focus()}
                    />
                  </label>
                  {problem && (
                    <p class="er" id="ne">
                      {t[field]}
                    </p>
                  )}
                  <div class="hp" aria-hidden="true">
                    <input name="website" tabIndex={-1} autoComplete="off" />
                  </div>
                  <button type="submit" class="btn">
                    {t.go}
                  </button>
                  <button type="button" class="lnk" onClick={() => this.go(pending)}>
                    {t.skip}
                  </button>
                </form>
              ) : (
                <>
                  {greeting && <p class="g">{greeting}</p>}
                  {entries.map((entry) => (
                    <a
                      class="ch"
                      href={entry.href}
                      target={entry.target}
                      onClick={(event) => this.choose(event, entry)}
                    >
                      <span class="ic" style={{ background: entry.color }} aria-hidden="true">
                        {entry.badge}
                      </span>
                      <span>{entry.label}</span>
                    </a>
                  ))}
                </>
              )}
              {ctx.preview && <p class="pv">{t.preview}</p>}
            </div>
          )}
          <button
            type="button"
            class="fab"
            ref={(button) => {
              this.fab = button;
            }}
            aria-expanded={!!open}
            aria-label={t.open}
            onClick={this.toggle}
          >
            {/* Drawn, not an emoji: not every system has a colour emoji font. */}
            {open ? (
              '×'
            ) : (
              <svg viewBox="0 0 24 24" aria-hidden="true">
                <path d="M4 3h16a2 2 0 012 2v11a2 2 0 01-2 2H9l-5 4v-4a2 2 0 01-2-2V5a2 2 0 012-2z" />
              </svg>
            )}
          </button>
        </div>
      </div>
    );
  }
}

export const mount = widget<MaxleadConfig>(ContactButtons, CSS);
