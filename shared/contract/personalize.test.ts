import { describe, expect, it } from 'vitest';
import { checkContent, NotificationContent } from './messaging';
import { personalNames, personalTags, personalize } from './personalize';
import { V } from '../validation';

const values = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('personal values in a message', () => {
  it("puts the player's value in place of each tag, else the tag's default, else nothing", () => {
    const text = 'Chào {{ first_name | bạn }}, hạng {{plan}} của bạn{{missing}}!';
    expect(personalize(text, values({ first_name: 'Lan', plan: 'gold' }))).toBe('Chào Lan, hạng gold của bạn!');
    expect(personalize(text, undefined)).toBe('Chào bạn, hạng  của bạn!');
    // A blank value reads as none: the default, not an empty greeting.
    expect(personalize(text, values({ first_name: '  ' }))).toBe('Chào bạn, hạng  của bạn!');
  });

  it('reads a date attribute as its day', () => {
    expect(personalize('Since {{signup.date}}', values({ 'signup.date': '2026-07-19T00:00:00.000Z' }))).toBe('Since 2026-07-19');
    expect(personalize('Code {{code}}', values({ code: '2026-07-19T00:00:00.000Z' }))).toBe('Code 2026-07-19T00:00:00.000Z');
  });

  it('lists the names used, once, and refuses a tag typed wrong', () => {
    expect(personalNames('{{plan}} {{ plan | x }}', 'Hi {{first name}}')).toEqual(['plan', 'first name']);
    expect(personalTags('No tag at all')).toEqual([]);
    for (const wrong of ['{{plan}', '{plan}}', 'Hi {{}}', '{{ | bạn }}', '{{<b>}}', '{{plan}} and {{', 'a }} b']) {
      expect(personalTags(wrong), wrong).toBeNull();
    }
  });

  it("is checked in a push's heading and text, and an SMS's text, with one message in both languages", () => {
    const content = (fields: Record<string, string>) => NotificationContent.parse({ heading: 'Hi', content: 'Hello', ...fields });
    expect(checkContent('web_push', content({ heading: 'Hi {{first_name}' }))).toEqual([{ path: 'heading', message: V.personalTag }]);
    expect(checkContent('sms', content({ content: 'Hi {{first_name | }} {{' }))).toEqual([{ path: 'content', message: V.personalTag }]);
    expect(checkContent('mobile_push', content({ heading: 'Hi {{first_name | bạn}}', content: '{{plan}}' }))).toEqual([]);
  });
});
