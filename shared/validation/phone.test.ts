import { describe, expect, it } from 'vitest';
import { getCountries, getCountryCallingCode } from 'libphonenumber-js/min';
import { internationalNumber, numberDigitForms, numberPrefixes, withInternationalNumbers } from './phone';
import { PHONE_COUNTRIES, isPhoneCountry } from './phone-countries';

describe('a mobile number in its international form (internationalNumber)', () => {
  it('reads a national number in the country given, however it is written', () => {
    for (const written of ['0912345678', '0912 345 678', '0912.345-678', '912345678', '84912345678', '0084912345678', '+84 912-345.678', '(091) 234-5678', '(+84) 912 345 678']) {
      expect(internationalNumber(written, 'VN'), written).toBe('+84912345678');
    }
    expect(internationalNumber('07700 900123', 'GB')).toBe('+447700900123');
    expect(internationalNumber('415 555 0123', 'US')).toBe('+14155550123');
    expect(internationalNumber('(415) 555-0123', 'US')).toBe('+14155550123');
  });

  it('leaves an international number its own country', () => {
    expect(internationalNumber('+44 7700 900123', 'VN')).toBe('+447700900123');
    expect(internationalNumber('+84912345678', 'GB')).toBe('+84912345678');
  });

  it('keeps a number no reading makes possible as written, without separators', () => {
    expect(internationalNumber('0912 34', 'VN')).toBe('091234');
    expect(internationalNumber('+99 1234 5678', 'VN')).toBe('+9912345678');
    // An unknown country reads nothing national.
    expect(internationalNumber('0912 345 678', 'XX')).toBe('0912345678');
  });
});

describe('the digits one number may be kept under (numberDigitForms)', () => {
  it('gives the international and the national digits', () => {
    expect(numberDigitForms('+84 901 234 567', 'VN')).toEqual(['84901234567', '0901234567']);
    expect(numberDigitForms('0901-234-567', 'VN')).toEqual(['84901234567', '0901234567']);
    expect(numberDigitForms('+447700900123', 'VN')).toEqual(['447700900123', '07700900123']);
  });

  it('gives only the digits of a number that is not possible', () => {
    expect(numberDigitForms('12-34', 'VN')).toEqual(['1234']);
  });
});

describe('how the beginning of a number begins where numbers are stored (numberPrefixes)', () => {
  it('gives the beginning as typed and in international form, read in the country', () => {
    expect(numberPrefixes('0912 34', 'VN')).toEqual(['091234', '+8491234']);
    expect(numberPrefixes('0084 91', 'VN')).toEqual(['008491', '+8491']);
    expect(numberPrefixes('07700 9', 'GB')).toEqual(['077009', '+4477009']);
    expect(numberPrefixes('+84 91', 'VN')).toEqual(['+8491']);
  });

  it('gives a whole number’s international form however it was typed', () => {
    expect(numberPrefixes('84912345678', 'VN')).toEqual(['84912345678', '+84912345678']);
    expect(numberPrefixes('0912.345.678', 'VN')).toEqual(['0912345678', '+84912345678']);
  });

  it('leaves what is no number as typed', () => {
    expect(numberPrefixes('0', 'VN')).toEqual(['0']);
    expect(numberPrefixes('hoa@', 'VN')).toEqual(['hoa@']);
  });
});

describe("contact buttons' numbers as shops' pages get them (withInternationalNumbers)", () => {
  it("gives WhatsApp and Viber numbers in international form, read in the shop's country, and keeps the other buttons as written", () => {
    const buttons = [
      { type: 'whatapps', value: '(081) 234-5678', label: 'Chat' },
      { type: 'viber', value: '+84 912 345 678', label: '' },
      { type: 'zalo', value: '0912 345 678', label: '' },
      { type: 'sms', value: '081 234 5678', label: '' },
      { type: 'mail', value: 'hello@shop.example', label: '' },
    ] as const;
    expect(withInternationalNumbers([...buttons], 'TH')).toEqual([
      { type: 'whatapps', value: '+66812345678', label: 'Chat' },
      { type: 'viber', value: '+84912345678', label: '' },
      ...buttons.slice(2),
    ]);
    expect(withInternationalNumbers([...buttons], 'VN')[0].value).toBe('+84812345678');
  });
});

describe('countries for phone numbers', () => {
  it('knows a country by its code in capitals only', () => {
    expect(isPhoneCountry('VN')).toBe(true);
    expect(isPhoneCountry('GB')).toBe(true);
    for (const code of ['vn', 'UK', 'XX', 'VNM', '84', '']) expect(isPhoneCountry(code), code).toBe(false);
  });

  it('lists the countries whose numbering plans the library reads, with their calling codes, and no other', () => {
    expect(PHONE_COUNTRIES.get('VN')).toBe('84');
    expect(PHONE_COUNTRIES.get('US')).toBe('1');
    expect([...PHONE_COUNTRIES]).toEqual(getCountries().map((code) => [code, getCountryCallingCode(code)]));
  });
});
