import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE, api, createAccount, deviceApi, newPage, resize, shot, signIn, startStack, type Stack } from './harness';

/**
 * A saved segment's size over time, as the merchant sees it on the segment's page. Saving measures the segment that
 * day (2 players in Vietnam); a third Vietnamese player arrives; the server is then started again with its clock past
 * the next midnight of the application's timezone (UTC+7), and its own daily round, nothing the test calls, measures
 * the segment for the new day (3). The page, its browser's clock on that later day too, shows both days in its chart,
 * read from the chart's table (the numbers a screen reader hears), in Vietnamese and English, at 1280 and 375 px.
 */

const PASSWORD = 'correct horse 42';
const stamp = Date.now().toString(36);
const APP = `size_${stamp}`;
const owner = { name: 'Lê Quốc Bảo', email: `bao.${stamp}@shop.example` };
/** The application's timezone: a new application's default, UTC+7 (spec §9), in minutes. */
const UTC_OFFSET_MINUTES = 420;
const HOUR = 3_600_000;
let stack: Stack;
let token: string;
let clientKey: string;

/** A call of the public REST device API with the shop's client key, which must succeed. */
const device = (path: string, body: unknown) => deviceApi(stack, clientKey, 'POST', path, body);

/** The application's calendar day (YYYY-MM-DD) at `ms`. */
const localDay = (ms: number) => new Date(ms + UTC_OFFSET_MINUTES * 60_000).toISOString().slice(0, 10);

/** How far ahead the next local midnight is from now, plus an hour: the server's clock is set that far ahead. */
function pastNextMidnight(now = Date.now()): number {
  const local = now + UTC_OFFSET_MINUTES * 60_000;
  const nextMidnight = Math.ceil((local + 1) / (24 * HOUR)) * 24 * HOUR;
  return nextMidnight - local + HOUR;
}

/** The sizes the server stored for the segment, day by day, read from its SQLite file. */
function storedSizes(segment: number): { day: string; size: number }[] {
  return stack.readDatabase((db) => db.prepare('SELECT day, size FROM segment_sizes WHERE segment_id = ? ORDER BY day').all(segment) as { day: string; size: number }[]);
}

/** The chart's visually hidden table: each row's day (as the page writes it) and its size. */
async function chartRows(page: Page, caption: string) {
  const table = page.locator('table', { has: page.locator('caption', { hasText: caption }) });
  await expect.poll(() => table.locator('tbody tr').count(), { timeout: 15_000 }).toBeGreaterThan(0);
  return table.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) => ({ day: row.querySelector('th')?.textContent ?? '', size: Number(row.querySelector('td')?.textContent?.replace(/\D/g, '')) })),
  );
}

beforeAll(async () => {
  stack = await startStack();
  token = await createAccount(stack, owner.name, owner.email, PASSWORD);
  const created = await api(stack, token, 'POST', '/application', { application_id: APP, name: 'Bảo Shop' });
  expect(created.data.utc_offset).toBe(UTC_OFFSET_MINUTES);
  clientKey = created.data.client_key;
  for (const [id, country] of [
    ['vn-shopper-01', 'VN'],
    ['vn-shopper-02', 'VN'],
    ['fr-shopper-01', 'FR'],
  ] as const) {
    await device('/v1/devices', { device_id: id, platform: 'web', device_type: 'mobile', os: 'Android', language: 'vi', country });
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe("a saved segment's size over time", () => {
  it('is measured on the day it is saved and again by the daily round after midnight, and the page charts both days', async () => {
    const firstDay = localDay(Date.now());
    const saved = await api(stack, token, 'POST', `/application/${APP}/segment`, {
      name: 'Khách Việt Nam',
      rule: { any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] },
    });
    expect(saved.success, JSON.stringify(saved)).toBe(true);
    const segmentId: number = saved.data.id;
    expect(storedSizes(segmentId)).toEqual([{ day: firstDay, size: 2 }]);

    await device('/v1/devices', { device_id: 'vn-shopper-03', platform: 'web', device_type: 'desktop', os: 'Windows', language: 'vi', country: 'VN' });

    // The next day, an hour after the application's midnight: the server's round measures the segment by itself
    // (its first round about 30 s after the start).
    const ahead = pastNextMidnight();
    await stack.restart({ clockAheadMs: ahead });
    const nextDay = localDay(Date.now() + ahead);
    expect(nextDay).not.toBe(firstDay);
    await expect.poll(() => storedSizes(segmentId), { timeout: 90_000, interval: 1_000 }).toEqual([
      { day: firstDay, size: 2 },
      { day: nextDay, size: 3 },
    ]);

    const { context, page } = await newPage(stack.browser);
    await page.clock.setSystemTime(new Date(Date.now() + ahead));
    await signIn(page, stack, owner.email, PASSWORD);
    await page.goto(`${stack.url}/application/${APP}/segment/${segmentId}`);
    await expect.poll(() => page.getByText('3 người dùng', { exact: true }).count(), { timeout: 15_000 }).toBe(1);
    const vi = await chartRows(page, 'Quy mô phân khúc theo ngày');
    expect(vi.map((row) => row.size)).toEqual([2, 3]);
    expect(vi[0].day).not.toBe(vi[1].day);
    // Measured a moment ago by the server's clock, which the browser's agrees with.
    await page.getByText(/^Đo (vừa xong|[1-5] phút trước)$/).waitFor();
    expect(await page.getByText('Quy mô được đo mỗi ngày', { exact: false }).count()).toBe(0);
    // The editor's live count agrees with the day's measure.
    await page.getByText('3 trên 4 người dùng', { exact: true }).waitFor();
    await shot(page, 'segment-sizes-vi-1280');
    await resize(page, PHONE);
    await shot(page, 'segment-sizes-vi-375');

    await page.getByRole('button', { name: 'English' }).click();
    const en = await chartRows(page, 'Segment size per day');
    expect(en.map((row) => row.size)).toEqual([2, 3]);
    await page.getByText('3 players', { exact: true }).waitFor();
    await shot(page, 'segment-sizes-en-375');
    await resize(page, DESKTOP);
    await shot(page, 'segment-sizes-en-1280');
    await context.close();
  }, 240_000);
});
