import { describe, expect, it } from 'vitest';
import type { SegmentRule } from '../../../shared/contract';
import { message } from './fixtures';
import { draftOf, estimateRule, newButton, newDraft, scheduleInput, toNotificationInput, toTemplateInput } from './notification-form-model';

const filled = (type: Parameters<typeof newDraft>[0] = 'web_push') => {
  const draft = newDraft(type, new Date('2025-03-01T08:20:00'));
  return { ...draft, content: { ...draft.content, heading: 'Tết sale', content: 'Everything 30% off' } };
};

describe('the create form as the API input', () => {
  it('sends only the fields of the type: an SMS drops what an SMS has no place for', () => {
    const draft = filled('sms');
    draft.content.image_url = 'https://cdn.example.vn/a.png';
    draft.content.buttons = [newButton(0)];
    const checked = toNotificationInput(draft, false);
    expect(checked.ok).toBe(true);
    if (checked.ok) {
      expect(checked.value.content.image_url).toBeUndefined();
      expect(checked.value.content.buttons).toEqual([]);
      expect(checked.value.content.heading).toBe('');
    }
  });

  it('places each problem on its field: the heading a push needs, a button without text, JSON that is not an object', () => {
    const draft = filled();
    draft.content.heading = '  ';
    draft.content.buttons = [newButton(0)];
    draft.content.additional_data = '[1]';
    const checked = toNotificationInput(draft, false);
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.problems).toMatchObject({
        'content.heading': 'validation.required',
        'content.buttons.0.button_text': 'validation.required',
        'content.additional_data': 'validation.json',
      });
    }
  });

  it('turns the expiry into seconds and refuses one past 28 days', () => {
    const draft = { ...filled(), ttl: '12', ttlUnit: 'hours' as const };
    const checked = toNotificationInput(draft, true);
    expect(checked.ok && checked.value.ttl_seconds).toBe(43_200);
    const tooLong = toNotificationInput({ ...draft, ttl: '29', ttlUnit: 'days' }, true);
    expect(!tooLong.ok && tooLong.problems.ttl_seconds).toBe('validation.outOfRange');
  });

  it('reads "at a time" in the browser timezone and "local time" as the date and time themselves', () => {
    expect(scheduleInput({ scheduleMode: 'at', date: '2025-03-02', time: '09:30' })).toEqual({ mode: 'at', at: new Date('2025-03-02T09:30').toISOString() });
    expect(scheduleInput({ scheduleMode: 'local_time', date: '2025-03-02', time: '09:30' })).toEqual({ mode: 'local_time', date: '2025-03-02', time: '09:30' });
  });

  it('keeps a message as it was when it is opened again, and sends a copy now', () => {
    const saved = message({ schedule: { mode: 'local_time', date: '2025-03-02', time: '09:30' }, ttl_seconds: 7200, tags: ['tet'], campaign_id: 3 });
    const again = toNotificationInput(draftOf(saved), true);
    expect(again.ok && again.value).toMatchObject({ schedule: saved.schedule, ttl_seconds: 7200, tags: ['tet'], campaign_id: 3, content: { heading: 'Tết sale' } });
    expect(draftOf(saved, { copy: true }).scheduleMode).toBe('now');
  });

  it('checks a template with the same rules as a message', () => {
    const checked = toTemplateInput('', 'mobile_push', filled().content);
    expect(!checked.ok && checked.problems.name).toBe('validation.required');
    const noHeading = toTemplateInput('Promo', 'web_push', { ...filled().content, heading: '' });
    expect(!noHeading.ok && noHeading.problems['content.heading']).toBe('validation.required');
  });
});

describe('the recipient estimate', () => {
  const segment: SegmentRule = {
    any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }, { all: [{ kind: 'tag', op: 'has', tag: 'vip' }] }],
  };
  const filters: SegmentRule = { any: [{ all: [{ kind: 'field', field: 'platform', op: 'eq', value: 'web' }] }] };

  it("ANDs every group of the segment with the conditions, the channel, the tags and a promotional message's last day", () => {
    const rule = estimateRule('web_push', segment, filters, ['tet'], true);
    expect(rule?.any).toHaveLength(2);
    expect(rule?.any[1].all).toEqual([
      { kind: 'tag', op: 'has', tag: 'vip' },
      { kind: 'field', field: 'platform', op: 'eq', value: 'web' },
      { kind: 'channel', channel: 'web_push', subscribed: true },
      { kind: 'tag', op: 'has', tag: 'tet' },
      { kind: 'field', field: 'last_session_at', op: 'within_days', value: 1 },
    ]);
  });

  it('counts every subscriber of the channel when nothing narrows it, and gives up past the rule limits', () => {
    expect(estimateRule('sms', null, null, [], false)).toEqual({ any: [{ all: [{ kind: 'channel', channel: 'sms', subscribed: true }] }] });
    const wide: SegmentRule = { any: Array.from({ length: 4 }, () => ({ all: [{ kind: 'tag', op: 'has', tag: 'a' }] })) };
    expect(estimateRule('sms', wide, wide, [], false)).toBeNull(); // 16 groups
  });
});
