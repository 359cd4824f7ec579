/** @jsxImportSource preact */
import { Component } from 'preact';
import { post } from '../../sdk/send';
import type { ContactConfig } from '../../types';
import type { WidgetProps } from '../core/mount';
import { inLang, safeColor, text } from '../kit/values';
import { checkField, fieldMessage } from '../kit/check';
import { Frame, BOX_CSS } from '../kit/frame';
import { FORM_CSS, LABEL_CSS } from '../kit/css';
import { FORM_STRINGS } from '../kit/strings';
import { widget } from '../kit/widget';
import { STRINGS } from './strings';

const CSS =
  BOX_CSS +
  FORM_CSS +
  LABEL_CSS +
  '.btn{width:100%;margin-top:16px}.ok{font-weight:600;padding:8px 0}textarea.in{resize:vertical;min-height:88px}';

type Field = ContactConfig['fields'][number];
/** Each field's input; the lengths are the API's (LeadSubmit), so no one types more than it takes. */
const INPUTS: Record<Field, { type?: string; autoComplete: string; inputMode?: 'email' | 'tel'; maxLength: number }> = {
  name: { autoComplete: 'name', maxLength: 100 },
  email: { type: 'email', autoComplete: 'email', inputMode: 'email', maxLength: 254 },
  phone: { type: 'tel', autoComplete: 'tel', inputMode: 'tel', maxLength: 30 },
  message: { autoComplete: 'off', maxLength: 2000 },
};

interface State {
  /** What is wrong with each field, as shown to the visitor. */
  errors: Partial<Record<Field, string>>;
  sending?: boolean;
  done?: boolean;
  failure?: string;
}

/** The contact form: the merchant's fields, checked in the visitor's language, sent as a lead. */
class ContactForm extends Component<WidgetProps<ContactConfig>, State> {
  override state: State = { errors: {} };

  private fields(): Field[] {
    const chosen = (this.props.widget.settings.fields || []).filter((f) => f in INPUTS);
    return chosen.length ? chosen : ['name', 'email'];
  }

  private submit = async (event: Event) => {
    event.preventDefault();
    const { widget: { id, settings }, ctx } = this.props;
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    const c = inLang(FORM_STRINGS, ctx.lang);
    const errors: State['errors'] = {};
    const body: Record<string, unknown> = { widget_id: id, page_url: location.href.slice(0, 2000), website: value('website') };
    for (const field of this.fields()) {
      const problem = checkField(field, value(field), (settings.required || []).includes(field));
      if (problem) errors[field] = c[problem];
      if (value(field)) body[field] = value(field);
    }
    if (Object.keys(errors).length) return this.failed(errors);
    this.setState({ sending: true, errors: {}, failure: undefined });
    const answer = await post(ctx, 'lead', body);
    if (answer.success) return this.setState({ done: true, sending: false });
    const fieldErrors: State['errors'] = {};
    for (const f of answer.fields || []) if (f.path in INPUTS) fieldErrors[f.path as Field] = fieldMessage(f.message, c);
    if (Object.keys(fieldErrors).length) this.failed(fieldErrors);
    else this.setState({ sending: false, failure: answer.message || c.failed });
  };

  /** Shows the problems and puts the visitor on the first of them. */
  private failed(errors: State['errors']) {
    this.setState({ errors, sending: false }, () => (this.base as HTMLElement | undefined)?.querySelector<HTMLElement>('[aria-invalid=true]')?.focus());
  }

  override render({ widget: { settings: s }, ctx, close }: WidgetProps<ContactConfig>, { errors, sending, done, failure }: State) {
    const t = inLang(STRINGS, ctx.lang);
    const c = inLang(FORM_STRINGS, ctx.lang);
    const title = text(s.title) || t.form;
    const body = text(s.text);
    return (
      <Frame
        at={s.position === 'bottom_left' || s.position === 'bottom_right' ? s.position : 'center'}
        label={title}
        mobile={ctx.mobile}
        onClose={close}
        closeLabel={t.close}
        colors={{ background: safeColor(s.background, '#ffffff'), color: safeColor(s.color, '#202223') }}
      >
        <h2 class="t">{title}</h2>
        {body && <p class="d">{body}</p>}
        {done ? (
          <p class="ok" role="status">
            {text(s.success_text) || t.thanks}
          </p>
        ) : (
          <form noValidate onSubmit={this.submit}>
            {this.fields().map((field) => {
              const id = 'f-' + field;
              const problem = errors[field];
              const required = (s.required || []).includes(field);
              const attrs = {
                id,
                name: field,
                class: 'in',
                'aria-required': required,
                'aria-invalid': !!problem,
                'aria-describedby': problem ? id + '-e' : undefined,
                onInput: () => problem && this.setState({ errors: { ...errors, [field]: undefined } }),
                ...INPUTS[field],
              };
              return (
                <div key={field}>
                  <label class="lb" for={id}>
                    {t.fields[field]}
                    {required && <span aria-hidden="true"> *</span>}
                  </label>
                  {field === 'message' ? <textarea rows={3} {...attrs} /> : <input {...attrs} />}
                  {problem && (
                    <p class="er" id={id + '-e'}>
                      {problem}
                    </p>
                  )}
                </div>
              );
            })}
            <div class="hp" aria-hidden="true">
              <label>
                Website
                <input name="website" tabIndex={-1} autoComplete="off" />
              </label>
            </div>
            {failure && (
              <p class="er" role="alert">
                {failure}
              </p>
            )}
            <button type="submit" class="btn" disabled={sending}>
              {sending ? c.sending : text(s.submit_text) || t.send}
            </button>
          </form>
        )}
        {ctx.preview && <p class="pv">{c.preview}</p>}
      </Frame>
    );
  }
}

export const mount = widget<ContactConfig>(ContactForm, CSS);
