import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { LANGUAGES, translate } from '../i18n';
import { TRACK_BATCH_MAX, V } from '../validation';
import { booleanValue, DeviceEventsBody, numberValue, readTag, TAG_MAX_LENGTH, TrackBatch } from './audience';

/** `count` events as the device API takes them, each with its own client id. */
const events = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `event-${String(index).padStart(4, '0')}`, name: 'view_product' }));
const batch = (items: number) => ({ key: 'client-key', visitor_id: 'visitor-0001', items: events(items).map((event) => ({ type: 'event' as const, at: 1_764_000_000_000, ...event })) });

/** The field problems a caller would be told: "path: message key", in order. */
function problems(schema: z.ZodType, body: unknown): string[] {
  const result = schema.safeParse(body);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('the batch limits', () => {
  it('take an SDK batch and a device API call of up to TRACK_BATCH_MAX, and refuse one more or none with their message', () => {
    expect(problems(TrackBatch, batch(TRACK_BATCH_MAX))).toEqual([]);
    expect(problems(TrackBatch, batch(TRACK_BATCH_MAX + 1))).toEqual([`items: ${V.batchItems}`]);
    expect(problems(TrackBatch, batch(0))).toEqual([`items: ${V.batchItems}`]);
    expect(problems(DeviceEventsBody, { events: events(TRACK_BATCH_MAX) })).toEqual([]);
    expect(problems(DeviceEventsBody, { events: events(TRACK_BATCH_MAX + 1) })).toEqual([`events: ${V.batchEvents}`]);
  });

  // The messages spell the limit out (validation messages take no parameters): they must say the number the
  // schemas apply, in both languages, or a caller is told a limit that is not the one refusing them.
  it.each(LANGUAGES)('are told in %s with the number the schemas apply', (language) => {
    for (const key of [V.batchItems, V.batchEvents]) {
      const text = translate(language, key);
      expect(text, key).not.toBe(key);
      expect(text.match(/\d+/g), `${language} ${key}: "${text}"`).toEqual(['1', String(TRACK_BATCH_MAX)]);
    }
  });
});

describe('attribute values sent as text', () => {
  it('reads plain decimal numbers as numbers, and nothing else', () => {
    expect(['42', ' -3.5 ', '+7', '.5', '1e3', '2.'].map(numberValue)).toEqual([42, -3.5, 7, 0.5, 1000, 2]);
    // Number() alone would take '', '0x1F', 'Infinity' and '1e400' (Infinity) as numbers.
    expect(['', ' ', '0x1F', 'Infinity', '1e400', '1,5', '12 đơn', 'NaN', true].map(numberValue)).toEqual(Array(9).fill(null));
    expect(numberValue(12.5)).toBe(12.5);
  });

  it('reads "true" and "false" in any case as booleans, and nothing else', () => {
    expect(['true', ' FALSE ', 'True', true, false].map(booleanValue)).toEqual([true, false, true, true, false]);
    expect(['yes', '1', '', 1, 0].map(booleanValue)).toEqual([null, null, null, null, null]);
  });
});

describe('a tag typed in the console', () => {
  it('is taken trimmed, with letters of any language, digits and _ - . :', () => {
    expect(readTag('  khách-vip:2025 ')).toEqual({ tag: 'khách-vip:2025' });
    expect(readTag('a'.repeat(TAG_MAX_LENGTH))).toEqual({ tag: 'a'.repeat(TAG_MAX_LENGTH) });
  });

  it('is refused with the message of its first problem', () => {
    expect(readTag('   ')).toEqual({ problem: V.required });
    expect(readTag('two words')).toEqual({ problem: V.tag });
    expect(readTag('<b>')).toEqual({ problem: V.tag });
    expect(readTag('a'.repeat(TAG_MAX_LENGTH + 1))).toEqual({ problem: V.tooLong });
  });
});
