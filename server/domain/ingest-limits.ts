import type { ThrottleRule } from '../security/throttle';

/** A bucket's tokens at `nowMs`: what it held, refilled at max per window since, up to max. */
function tokensAt(bucket: { tokens: number; at: number }, rule: ThrottleRule, nowMs: number): number {
  return Math.min(rule.max, bucket.tokens + (Math.max(0, nowMs - bucket.at) * rule.max) / rule.windowMs);
}

/**
 * Token buckets in this process's memory: the rate limits of ingestion. The other public calls count in the
 * database (rate_windows), which costs a write per request; ingestion takes thousands of requests a second,
 * so its limits live here instead. Each process counts on its own: with N processes behind a balancer a
 * caller gets up to N times the rule, an acceptable slack for limits meant to stop floods, not to meter.
 * Memory is bounded: past `maxKeys` buckets, the ones that have refilled (idle callers) are dropped first.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number; fullAt: number }>();

  constructor(private readonly maxKeys = 200_000) {}

  /** Takes one token from every bucket named, or none when any is empty (false: limited). */
  take(checks: readonly { key: string; rule: ThrottleRule }[], nowMs: number): boolean {
    const states = checks.map(({ key, rule }) => {
      let bucket = this.buckets.get(key);
      if (!bucket) {
        if (this.buckets.size >= this.maxKeys) this.sweep(nowMs);
        bucket = { tokens: rule.max, at: nowMs, fullAt: nowMs };
        this.buckets.set(key, bucket);
      } else {
        bucket.tokens = tokensAt(bucket, rule, nowMs);
        bucket.at = nowMs;
      }
      return { bucket, rule };
    });
    if (states.some(({ bucket }) => bucket.tokens < 1)) return false;
    for (const { bucket, rule } of states) {
      bucket.tokens -= 1;
      bucket.fullAt = nowMs + ((rule.max - bucket.tokens) * rule.windowMs) / rule.max;
    }
    return true;
  }

  /**
   * How long until `take` would succeed for these buckets (ms; 0: now), without taking: the Retry-After of a
   * refused call. The longest wait of the empty ones, as each refills at its rule's rate.
   */
  waitMs(checks: readonly { key: string; rule: ThrottleRule }[], nowMs: number): number {
    let wait = 0;
    for (const { key, rule } of checks) {
      const bucket = this.buckets.get(key);
      if (!bucket) continue;
      const tokens = tokensAt(bucket, rule, nowMs);
      if (tokens < 1) wait = Math.max(wait, ((1 - tokens) * rule.windowMs) / rule.max);
    }
    return Math.ceil(wait);
  }

  get size(): number {
    return this.buckets.size;
  }

  private sweep(nowMs: number): void {
    for (const [key, bucket] of this.buckets) if (bucket.fullAt <= nowMs) this.buckets.delete(key);
    // Still full of active callers: start over rather than grow (a flood of new ids gets fresh buckets).
    if (this.buckets.size >= this.maxKeys) this.buckets.clear();
  }
}
