import { describe, expect, it } from 'vitest';
import { CONTACT_BUTTON_TYPES, type ContactButtonType } from '../../../shared/contract/widget';
import { contactButtonHref, telHref } from './href';

const SHOP = 'https://shop.example.vn';

describe('contactButtonHref', () => {
  const cases: [ContactButtonType, string, string][] = [
    ['zalo', '0912 345 678', 'https://zalo.me/0912345678'],
    ['facebook', 'nudge.shop', 'https://m.me/nudge.shop'],
    ['youtube', '@nudgeshop', 'https://www.youtube.com/@nudgeshop'],
    ['sms', '+84 912 345 678', 'sms:+84912345678'],
    ['mail', 'hello@shop.example.vn', 'mailto:hello@shop.example.vn'],
    ['tawk', '5f1a2b3c4d/1e2f3g', 'https://tawk.to/chat/5f1a2b3c4d/1e2f3g'],
    ['fanpage', 'nudgeshop', 'https://www.facebook.com/nudgeshop'],
    ['fgroup', '123456789', 'https://www.facebook.com/groups/123456789'],
    ['cart', '/cart', 'https://shop.example.vn/cart'],
    ['twitter', '@nudge', 'https://x.com/nudge'],
    ['tiktok', 'nudge.vn', 'https://www.tiktok.com/@nudge.vn'],
    ['instagram', '@nudge.vn', 'https://www.instagram.com/nudge.vn'],
    ['linkedin', 'nguyen-van-a', 'https://www.linkedin.com/in/nguyen-van-a'],
    ['telegram', '@nudge_support', 'https://t.me/nudge_support'],
    ['discord', 'AbCd123', 'https://discord.gg/AbCd123'],
    ['line', '@nudgeshop', 'https://line.me/R/ti/p/nudgeshop'],
    ['whatapps', '+84912345678', 'https://wa.me/84912345678'],
    ['viber', '+84 912 345 678', 'viber://chat?number=%2B84912345678'],
    ['account', '/account/login', 'https://shop.example.vn/account/login'],
  ];

  it('covers all 19 contact-button types', () => {
    expect(cases.map(([type]) => type).sort()).toEqual([...CONTACT_BUTTON_TYPES].sort());
  });

  for (const [type, value, href] of cases) {
    it(`opens ${type} "${value}" as ${href}`, () => {
      expect(contactButtonHref(type, value, SHOP)).toBe(href);
    });
  }

  it('takes a web address given whole, for every type', () => {
    for (const type of CONTACT_BUTTON_TYPES) {
      expect(contactButtonHref(type, 'https://zalo.me/g/abcdef', SHOP), type).toBe('https://zalo.me/g/abcdef');
    }
  });

  it('opens WhatsApp and Viber with the international number the config gives, of any country', () => {
    expect(contactButtonHref('whatapps', '+1 (415) 555-0100', SHOP)).toBe('https://wa.me/14155550100');
    expect(contactButtonHref('viber', '+66812345678', SHOP)).toBe('viber://chat?number=%2B66812345678');
  });

  it('escapes a handle so it stays one path segment', () => {
    expect(contactButtonHref('telegram', 'a/../b?x=1', SHOP)).toBe('https://t.me/a%2F..%2Fb%3Fx%3D1');
  });

  it('never returns a javascript:, data: or other script link, for any type', () => {
    const hostile = ['javascript:alert(1)', ' JavaScript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', '//evil.example/x', 'javascript://zalo.me/%0Aalert(1)'];
    for (const type of CONTACT_BUTTON_TYPES) {
      for (const value of hostile) {
        const href = contactButtonHref(type, value, SHOP);
        if (href !== null) expect(href, `${type} ${value}`).toMatch(/^(https:\/\/|sms:|mailto:|viber:\/\/)/);
      }
    }
  });

  it('makes no link from a value that cannot make one', () => {
    expect(contactButtonHref('zalo', 'call us', SHOP)).toBeNull();
    expect(contactButtonHref('mail', 'not an address', SHOP)).toBeNull();
    expect(contactButtonHref('cart', 'cart', SHOP)).toBeNull();
    expect(contactButtonHref('tawk', 'just-one-part', SHOP)).toBeNull();
    expect(contactButtonHref('telegram', '   ', SHOP)).toBeNull();
  });
});

describe('hotline numbers', () => {
  it('call through tel: with the number as dialled', () => {
    expect(telHref('1900 1234')).toBe('tel:19001234');
    expect(telHref('+84 28 3822 1234')).toBe('tel:+842838221234');
    expect(telHref('no number')).toBeNull();
  });
});
