import { describe, expect, it } from 'vitest';
import { WEBHOOK_RETRY_SCHEDULE_MS } from '../../shared/contract';
import { disableReasonAfterFailure, retryDelay } from './dispatcher';

const HOUR = 3600_000;
const now = new Date('2025-03-02T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

describe('disableReasonAfterFailure', () => {
  it('keeps a webhook on through failures shorter than a day and fewer than five lost messages', () => {
    expect(disableReasonAfterFailure({ gone: false, failingSince: ago(23 * HOUR), consecutiveFailures: 4, now })).toBeNull();
    expect(disableReasonAfterFailure({ gone: false, failingSince: null, consecutiveFailures: 0, now })).toBeNull();
  });

  it('switches it off after 24 hours without a success', () => {
    expect(disableReasonAfterFailure({ gone: false, failingSince: ago(24 * HOUR), consecutiveFailures: 0, now })).toBe('failing');
  });

  it('switches it off when five messages in a row failed for good', () => {
    expect(disableReasonAfterFailure({ gone: false, failingSince: ago(HOUR), consecutiveFailures: 5, now })).toBe('consecutive_failures');
  });

  it('switches it off at once when the receiver answers 410 Gone', () => {
    expect(disableReasonAfterFailure({ gone: true, failingSince: null, consecutiveFailures: 0, now })).toBe('gone');
  });
});

describe('retryDelay', () => {
  it("follows the schedule's next delay, with at most 10 % jitter", () => {
    // After attempt 1 comes the schedule's second delay (5 s), after attempt 2 the third (5 min).
    expect(retryDelay(WEBHOOK_RETRY_SCHEDULE_MS, 1, null, () => 0)).toBe(5_000);
    expect(retryDelay(WEBHOOK_RETRY_SCHEDULE_MS, 2, null, () => 0)).toBe(5 * 60_000);
    expect(retryDelay(WEBHOOK_RETRY_SCHEDULE_MS, 2, null, () => 0.999)).toBeLessThanOrEqual(5.5 * 60_000);
    expect(retryDelay(WEBHOOK_RETRY_SCHEDULE_MS, 7, null, () => 0)).toBe(10 * HOUR);
  });

  it("waits longer when the receiver's Retry-After asks for it, never more than a day", () => {
    expect(retryDelay(WEBHOOK_RETRY_SCHEDULE_MS, 1, 60_000, () => 0)).toBe(60_000);
    expect(retryDelay(WEBHOOK_RETRY_SCHEDULE_MS, 1, 1_000, () => 0)).toBe(5_000);
    expect(retryDelay(WEBHOOK_RETRY_SCHEDULE_MS, 1, 7 * 24 * HOUR, () => 0)).toBe(24 * HOUR);
  });

  it('takes a shorter schedule as given', () => {
    expect(retryDelay([0, 10, 20], 1, null, () => 0)).toBe(10);
  });
});
