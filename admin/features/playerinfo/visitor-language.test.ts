import { describe, expect, it } from 'vitest';
import { languageOfTag, visitorLanguage } from './visitor-language';

describe('the language of the playerinfo page', () => {
  it('is the first of the browser’s languages the page speaks, in any region', () => {
    expect(visitorLanguage(['en-US', 'en'], 'vi')).toBe('en');
    expect(visitorLanguage(['vi-VN', 'en-US'], 'en')).toBe('vi');
    expect(visitorLanguage(['fr-FR', 'en-GB', 'vi'], null)).toBe('en');
    expect(visitorLanguage(['de', 'VI_vn'], null)).toBe('vi');
  });

  it('is the language on the record when the browser asks only for others', () => {
    expect(visitorLanguage(['fr-FR', 'fr'], 'vi-VN')).toBe('vi');
    expect(visitorLanguage(['ja'], 'en')).toBe('en');
  });

  it('is English when the browser asks only for others and the record says none of ours', () => {
    expect(visitorLanguage(['fr-FR', 'fr'], null)).toBe('en');
    expect(visitorLanguage(['fr-FR'], 'de')).toBe('en');
  });

  it('is Vietnamese, the product’s default, when nothing is known', () => {
    expect(visitorLanguage([], null)).toBe('vi');
    expect(visitorLanguage([''], undefined)).toBe('vi');
    expect(visitorLanguage([], 'en-US')).toBe('en');
  });

  it('reads a tag’s primary language only', () => {
    expect(languageOfTag('en-US')).toBe('en');
    expect(languageOfTag(' vi ')).toBe('vi');
    expect(languageOfTag('eng')).toBeNull();
    expect(languageOfTag('')).toBeNull();
    expect(languageOfTag(null)).toBeNull();
  });
});
