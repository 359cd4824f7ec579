import { describe, expect, it } from 'vitest';
import { minutesAgo, nextPause, shownThisSession } from './schedule';
import { STRINGS } from './strings';

describe('how long ago a purchase was', () => {
  it('reads naturally in English', () => {
    expect(minutesAgo(0, STRINGS.en)).toBe('just now');
    expect(minutesAgo(1, STRINGS.en)).toBe('1 minute ago');
    expect(minutesAgo(5, STRINGS.en)).toBe('5 minutes ago');
    expect(minutesAgo(120, STRINGS.en)).toBe('2 hours ago');
    expect(minutesAgo(3 * 1440, STRINGS.en)).toBe('3 days ago');
  });

  it('reads naturally in Vietnamese', () => {
    expect(minutesAgo(0, STRINGS.vi)).toBe('vừa xong');
    expect(minutesAgo(5, STRINGS.vi)).toBe('5 phút trước');
    expect(minutesAgo(90, STRINGS.vi)).toBe('1 giờ trước');
    expect(minutesAgo(2 * 1440, STRINGS.vi)).toBe('2 ngày trước');
  });
});

describe('the pause between notices', () => {
  it('falls between the minimum and maximum interval', () => {
    expect(nextPause(8, 20, 0)).toBe(8000);
    expect(nextPause(8, 20, 1)).toBe(20000);
    expect(nextPause(8, 20, 0.5)).toBe(14000);
  });

  it('copes with a maximum below the minimum', () => {
    expect(nextPause(20, 8, 0.7)).toBe(8000);
  });
});

describe('the cap per session', () => {
  it('counts the notices of the current session only', () => {
    expect(shownThisSession('s1|3', 's1')).toBe(3);
    expect(shownThisSession('s1|3', 's2')).toBe(0);
    expect(shownThisSession(null, 's1')).toBe(0);
  });
});
