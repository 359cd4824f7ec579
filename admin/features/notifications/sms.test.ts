import { describe, expect, it } from 'vitest';
import { smsSize } from './sms';

describe('an SMS body', () => {
  it('fits 160 plain characters in one part and splits longer text 153 a part', () => {
    expect(smsSize('a'.repeat(160))).toEqual({ encoding: 'gsm7', units: 160, parts: 1, perPart: 160 });
    expect(smsSize('a'.repeat(161))).toEqual({ encoding: 'gsm7', units: 161, parts: 2, perPart: 153 });
    expect(smsSize('a'.repeat(307)).parts).toBe(3);
  });

  it('counts GSM extension characters twice', () => {
    expect(smsSize('Giá 10€ [sale]').encoding).toBe('ucs2'); // á is not GSM
    expect(smsSize('Price 10€ [sale]')).toMatchObject({ encoding: 'gsm7', units: 19 });
  });

  it('sends Vietnamese diacritics as Unicode: 70 in one part, 67 a part beyond', () => {
    expect(smsSize('Ưu đãi'.padEnd(70, 'x'))).toMatchObject({ encoding: 'ucs2', parts: 1, perPart: 70 });
    expect(smsSize('Ưu đãi'.padEnd(71, 'x'))).toMatchObject({ encoding: 'ucs2', parts: 2, perPart: 67 });
  });

  it('is no part at all when empty', () => {
    expect(smsSize('').parts).toBe(0);
  });
});
