import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PublicWebPush } from '../../shared/contract/platform';
import { mount } from './index';

const BOX: PublicWebPush['box'] = { text: 'Nhận tin khuyến mãi?', allow_text: 'Cho phép', deny_text: 'Để sau', delay_seconds: 0, position: 'bottom_left' };
const ctx = { api: 'https://api.nudge.example', key: 'ck_live_12345678', lang: 'vi' as const, mobile: false };

/** The box's shadow root, where its buttons are. */
const shadow = () => document.querySelector('nudge-widget')!.shadowRoot!;
const button = (label: string) => Array.from(shadow().querySelectorAll('button')).find((b) => b.textContent === label)!;

afterEach(() => {
  document.body.innerHTML = '';
});

describe('the subscription box', () => {
  it("shows the merchant's question and buttons where the merchant put it", () => {
    mount(BOX, ctx, () => undefined);
    expect(shadow().textContent).toContain('Nhận tin khuyến mãi?');
    expect(shadow().querySelector('.bottom_left')).not.toBeNull();
  });

  it('answers yes on allow and goes away', () => {
    const answer = vi.fn();
    mount(BOX, ctx, answer);
    button('Cho phép').click();
    expect(answer).toHaveBeenCalledWith(true);
    expect(document.querySelector('nudge-widget')).toBeNull();
  });

  it('answers no on deny and on close', () => {
    const answer = vi.fn();
    mount(BOX, ctx, answer);
    button('Để sau').click();
    mount(BOX, ctx, answer);
    (shadow().querySelector('.x') as HTMLButtonElement).click();
    expect(answer.mock.calls).toEqual([[false], [false]]);
  });

  it('answers nothing in the console preview', () => {
    const answer = vi.fn();
    mount(BOX, { ...ctx, preview: true }, answer);
    button('Cho phép').click();
    expect(answer).not.toHaveBeenCalled();
  });
});
