import { describe, expect, it } from 'vitest';
import { PHONE_COUNTRIES } from '../../shared/validation/phone-countries';
import { LANGUAGE_CODES, countryChoices, countryName, findChoices, languageChoices, languageName, searchText } from './code-names';

const codes = (query: string, language = 'en') => findChoices(countryChoices(language), query).map((choice) => choice.code);

describe('the countries to choose from', () => {
  it('are every country the console knows, by name in the language, in its order', () => {
    const english = countryChoices('en');
    expect(english.map((choice) => choice.code).sort()).toEqual([...PHONE_COUNTRIES.keys()].sort());
    expect(english.find((choice) => choice.code === 'VN')?.name).toBe('Vietnam');
    expect(countryChoices('vi').find((choice) => choice.code === 'VN')?.name).toBe('Việt Nam');
    const names = english.map((choice) => choice.name);
    expect(names).toEqual([...names].sort(new Intl.Collator('en').compare));
  });
});

describe('a search among countries', () => {
  it('finds a country by the name typed, not by the first two letters read as a code', () => {
    // The old two-letter box kept "VI" of "vietnam": the US Virgin Islands.
    expect(codes('vietnam')).toEqual(['VN']);
    expect(codes('Vietnam', 'vi')).toEqual(['VN']);
    expect(codes('viet nam', 'vi')).toEqual(['VN']);
    expect(codes('việt', 'vi')).toEqual(['VN']);
  });

  it('puts the country whose code is typed first, then names that begin with it, then names with a word that does', () => {
    expect(codes('vn')[0]).toBe('VN');
    expect(codes('vi').slice(0, 2)).toEqual(['VI', 'VN']);
    const kingdom = codes('kingdom');
    expect(kingdom).toContain('GB');
    expect(codes('united').slice(0, 3)).toEqual(['AE', 'GB', 'US']);
  });

  it('finds a country by its English name in Vietnamese too', () => {
    expect(codes('germany', 'vi')).toEqual(['DE']);
    expect(countryChoices('vi').find((choice) => choice.code === 'DE')?.name).toBe('Đức');
    expect(codes('duc', 'vi')).toContain('DE');
  });

  it('finds nothing for text no country is named by, and everything for an empty search', () => {
    expect(codes('atlantis')).toEqual([]);
    expect(codes('  ')).toHaveLength(PHONE_COUNTRIES.size);
  });

  it('compares without case, accents, spaces or punctuation', () => {
    expect(searchText('Côte d’Ivoire')).toBe('cotedivoire');
    expect(searchText('Đà Nẵng')).toBe('danang');
  });
});

describe('a country code by name', () => {
  it('names the country with its code, and keeps a code Intl has no name for', () => {
    expect(countryName('vn', 'en')).toBe('Vietnam (VN)');
    expect(countryName('VN', 'vi')).toBe('Việt Nam (VN)');
    expect(countryName('xy', 'en')).toBe('XY');
    expect(countryName(null, 'en')).toBeNull();
  });
});

describe('the languages to choose from', () => {
  const languages = (query: string, language = 'en') => findChoices(languageChoices(language), query).map((choice) => choice.code);

  it('are named in the console language and found by their English name or a word of their name', () => {
    expect(languageChoices('vi').find((choice) => choice.code === 'vi')?.name).toBe('Tiếng Việt');
    expect(languages('vietnamese', 'vi')).toEqual(['vi']);
    expect(languages('viet', 'vi')).toContain('vi');
    expect(languages('japanese')).toEqual(['ja']);
    expect(languages('ja')[0]).toBe('ja');
  });

  it('are the codes a player can be kept under, each once, with a name in both languages', () => {
    expect(new Set(LANGUAGE_CODES).size).toBe(LANGUAGE_CODES.length);
    expect(LANGUAGE_CODES.every((code) => /^[a-z]{2,3}$/.test(code))).toBe(true);
    for (const code of LANGUAGE_CODES) {
      expect(languageName(code, 'en'), code).not.toBe(code);
      expect(languageName(code, 'vi'), code).not.toBe(code);
    }
  });
});
