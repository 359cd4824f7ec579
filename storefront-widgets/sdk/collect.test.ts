import { afterEach, describe, expect, it, vi } from 'vitest';
import { TrackItem } from '../../shared/contract/audience';
import { PROPERTIES_BYTES, deviceFacts, identityOf, itemOfCall, newQuarters, scalars, utmOf } from './collect';

describe('scroll depth', () => {
  it('reports each quarter once per page, the ones skipped over included', () => {
    const reported: number[] = [];
    const seen = (fraction: number) => {
      const fresh = newQuarters(fraction, reported);
      reported.push(...fresh);
      return fresh;
    };
    expect(seen(0.1)).toEqual([]);
    expect(seen(0.3)).toEqual([25]);
    expect(seen(0.3)).toEqual([]);
    expect(seen(0.8)).toEqual([50, 75]);
    // The last pixels are rarely reached exactly: 99 % counts as the end.
    expect(seen(0.99)).toEqual([100]);
    expect(seen(1)).toEqual([]);
  });
});

describe('the landing URL', () => {
  it('gives the utm fields it carries, and nothing without them', () => {
    expect(utmOf('https://shop.vn/?utm_source=facebook&utm_medium=cpc&utm_campaign=tet&x=1')).toEqual({
      utm_source: 'facebook',
      utm_medium: 'cpc',
      utm_campaign: 'tet',
    });
    expect(utmOf('https://shop.vn/products/ao')).toBeUndefined();
  });
});

describe("the shop's calls", () => {
  const at = 1_700_000_000_000;

  it("turns nudge('event', name, props) into an event of the session, with scalar properties only", () => {
    const item = itemOfCall(['event', 'add_to_cart', { sku: 'A1', price: 199000, gift: false, 'order.date': new Date(0), nested: { a: 1 }, bad: NaN }], 's1', at);
    expect(item).toMatchObject({
      type: 'event',
      session_id: 's1',
      name: 'add_to_cart',
      properties: { sku: 'A1', price: 199000, gift: false, 'order.date': '1970-01-01T00:00:00.000Z' },
    });
    // What the server would refuse never reaches a batch (one bad item would sink the others).
    expect(TrackItem.safeParse(item).success).toBe(true);
    expect(itemOfCall(['event', '<script>'], 's1', at)).toBeUndefined();
    expect(itemOfCall(['event', 'x'.repeat(65)], 's1', at)).toBeUndefined();
  });

  it("turns nudge('set', attributes) into attributes, leaving out names the server refuses", () => {
    // A .date name's value the server would not read as a date (a Vietnamese form's dd/mm/yyyy) is left out too.
    const item = itemOfCall(['set', { plan: 'gold', 'birthday.date': '1990-05-01', 'wedding.date': '12/05/2015', 'bad name!': 1 }], 's1', at);
    expect(item).toEqual({ type: 'set', id: expect.any(String), at, attributes: { plan: 'gold', 'birthday.date': '1990-05-01' } });
    expect(TrackItem.safeParse(item).success).toBe(true);
    expect(itemOfCall(['set', 'nothing'], 's1', at)).toBeUndefined();
  });

  it("takes nudge('identify', id) as the custom user id, and an object's identity fields", () => {
    expect(itemOfCall(['identify', 'customer-42'], 's1', at)).toMatchObject({ type: 'identify', identity: { external_user_id: 'customer-42' } });
    expect(identityOf(42)).toEqual({ external_user_id: '42' });
    expect(identityOf({ external_user_id: ' c7 ', email: 'an@shop.vn', mobile_number: '0901234567', admin: true })).toEqual({
      external_user_id: 'c7',
      email: 'an@shop.vn',
      mobile_number: '0901234567',
    });
    expect(itemOfCall(['identify', {}], 's1', at)).toBeUndefined();
  });

  it('leaves out an email or mobile number the server would refuse, keeping the rest of the identity', () => {
    expect(identityOf({ external_user_id: 'c7', email: 'lan@@shop.vn', mobile_number: '0901234567' })).toEqual({ external_user_id: 'c7', mobile_number: '0901234567' });
    expect(identityOf({ email: ' an@shop.vn ', mobile_number: 'call me' })).toEqual({ email: 'an@shop.vn' });
    expect(itemOfCall(['identify', { email: 'not an email' }], 's1', at)).toBeUndefined();
  });

  it('keeps the properties of one item within the bytes of one request, leaving out those past it', () => {
    const vietnamese = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, 'ễ'.repeat(1000)]));
    const props = scalars({ ...vietnamese, sku: 'A1' });
    expect(new TextEncoder().encode(JSON.stringify(props)).length).toBeLessThanOrEqual(PROPERTIES_BYTES);
    expect(Object.keys(props).length).toBeLessThan(41);
    // A small value after the budget is reached still fits.
    expect(props.sku).toBe('A1');
  });

  it('bounds what it sends to what the contract takes', () => {
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`p${i}`, 'x'.repeat(2000)]));
    const props = scalars(many);
    expect(Object.keys(props)).toHaveLength(50);
    expect((props.p0 as string).length).toBe(1000);
    expect(TrackItem.safeParse(itemOfCall(['event', 'big', many], 's', at)).success).toBe(true);
  });
});

describe('the device facts', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('give the language as the server keeps it, and leave out one it would refuse', () => {
    const language = (reported: string) => {
      vi.stubGlobal('navigator', { language: reported });
      return deviceFacts(false, {}).language;
    };
    expect(language('vi-VN')).toBe('vi');
    expect(language('en_US')).toBe('en');
    // The server refuses the whole batch for a language it cannot read: the batch goes without it.
    expect(language('Vietnamese')).toBeUndefined();
    expect(language('')).toBeUndefined();
  });
});
