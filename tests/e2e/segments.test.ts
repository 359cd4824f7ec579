import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE, api, createAccount, deviceApi, newPage, resize, shot, signIn, startStack, type Stack } from './harness';

/**
 * A new merchant's segments, in /segment, against the real server and Chromium: the empty list offers one way to
 * begin; the editor is named "New segment" and then by the segment's name; an event condition's period reads as a
 * sentence in a field sized for a number; removing every condition leaves a group to add one to, and saving then
 * says once that a segment needs one; a second segment named like the first (capitals and spaces aside) is refused
 * under its name, in Vietnamese and in English. Screenshots at 1280 and 375 px in both languages.
 */

const PASSWORD = 'correct horse 42';
const stamp = Date.now().toString(36);
const APP = `seg_${stamp}`;
const owner = { name: 'Trần Thu Hà', email: `ha.${stamp}@shop.example` };
let stack: Stack;
let token: string;
let clientKey: string;

/** A call of the public REST device API with the shop's client key, which must succeed. */
const device = (path: string, body: unknown, method = 'POST') => deviceApi(stack, clientKey, method, path, body);

/** The trail under the top bar, item by item. */
const trail = (page: Page) => page.getByRole('navigation', { name: /Breadcrumb|Đường dẫn/ }).getByRole('listitem').allTextContents();

/** The width in CSS pixels of the visible box of the input labelled `label` (Polaris draws it around the input). */
const boxWidth = (page: Page, label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((input) => (input.closest('.Polaris-TextField') as HTMLElement).getBoundingClientRect().width);

beforeAll(async () => {
  stack = await startStack();
  token = await createAccount(stack, owner.name, owner.email, PASSWORD);
  const created = await api(stack, token, 'POST', '/application', { application_id: APP, name: 'Hà Shop' });
  clientKey = created.data.client_key;
  // Three visitors: two in Vietnam, one of whom added to the cart; one in France.
  for (const [id, country, cart] of [
    ['vn-cart-01', 'VN', true],
    ['vn-browse-02', 'VN', false],
    ['fr-browse-03', 'FR', false],
  ] as const) {
    await device('/v1/devices', { device_id: id, platform: 'web', device_type: 'mobile', os: 'Android', language: 'vi', country });
    await device(`/v1/devices/${id}/sessions`, {});
    if (cart) await device(`/v1/devices/${id}/events`, { events: [{ id: `${id}-cart`, name: 'add_to_cart', properties: { price: 120000 } }] });
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('segments of a new merchant', () => {
  it('builds a segment, empties and refills its conditions, and is refused a second segment of the same name', async () => {
    const { context, page } = await newPage(stack.browser);
    context.setDefaultTimeout(20_000);
    await signIn(page, stack, owner.email, PASSWORD);

    // The empty list: one "Create segment", the empty state's.
    await page.goto(`${stack.url}/application/${APP}/segment`);
    await page.getByText('Chưa có phân khúc nào').waitFor();
    expect(await page.getByRole('button', { name: 'Tạo phân khúc' }).count()).toBe(1);
    await shot(page, 'segments-empty-list-vi');
    await resize(page, PHONE);
    expect(await page.getByRole('button', { name: 'Tạo phân khúc' }).count()).toBe(1);
    await shot(page, 'segments-empty-list-vi-375');
    await resize(page, DESKTOP);

    // A new segment is called so, in the trail, the window's title and its tab.
    await page.getByRole('button', { name: 'Tạo phân khúc' }).click();
    await page.waitForURL(/\/segment\/new$/);
    await expect.poll(() => trail(page)).toEqual(['Ứng dụng', 'Hà Shop', 'Phân khúc mới']);
    expect(await page.title()).toMatch(/^Phân khúc mới · Hà Shop/);
    await page.getByRole('navigation', { name: 'Các trang đang mở' }).getByRole('link', { name: 'Phân khúc mới' }).waitFor();

    // Vietnamese visitors who added to the cart in the last 30 days.
    await page.getByLabel('Tên phân khúc').fill('Khách VN');
    // The country is chosen by its name, in Vietnamese or in English; the rule keeps its code.
    await page.getByRole('combobox', { name: 'Điều kiện 1.1: giá trị' }).fill('viet');
    await page.getByRole('option', { name: 'Việt Nam (VN)' }).waitFor();
    await shot(page, 'segments-editor-country-search-vi');
    await resize(page, PHONE);
    await page.getByRole('option', { name: 'Việt Nam (VN)' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(page, 'segments-editor-country-search-vi-375');
    await resize(page, DESKTOP);
    await page.getByRole('option', { name: 'Việt Nam (VN)' }).click();
    await page.getByText('2 trên 3 người dùng').waitFor();
    expect(await page.getByRole('combobox', { name: 'Điều kiện 1.1: giá trị' }).inputValue()).toBe('Việt Nam (VN)');
    await page.getByRole('button', { name: 'Thêm điều kiện' }).click();
    await page.getByLabel('Điều kiện 1.2: loại').selectOption('event');
    await expect.poll(() => page.getByLabel('Điều kiện 1.2: sự kiện').evaluate((element) => element.tagName)).toBe('SELECT');
    await page.getByLabel('Điều kiện 1.2: sự kiện').selectOption('add_to_cart');
    // "Mọi lúc" (any time) to begin with: no number asked for.
    expect(await page.getByLabel('Điều kiện 1.2: thời gian').evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent)).toBe('Mọi lúc');
    expect(await page.getByLabel('Điều kiện 1.2: trong số ngày').count()).toBe(0);
    await page.getByLabel('Điều kiện 1.2: thời gian').selectOption('within');
    // The longest period accepted shows whole beside its unit ("3650", not "365" cut by "ngày qua").
    const hidden = (label: string) => page.getByLabel(label).evaluate((input: HTMLInputElement) => input.scrollWidth - input.clientWidth);
    await page.getByLabel('Điều kiện 1.2: trong số ngày').fill('3650');
    expect(await hidden('Điều kiện 1.2: trong số ngày')).toBe(0);
    await page.getByLabel('Điều kiện 1.2: trong số ngày').fill('30');
    await page.getByText('1 trên 3 người dùng').waitFor();
    // "Trong vòng [30] ngày qua": the number's box is sized for a number, not stretched across the line.
    // No "bất kỳ" (any) placeholder inside the sentence: the period is chosen in words, the number has its unit.
    expect(await page.getByLabel('Điều kiện 1.2: trong số ngày').getAttribute('placeholder')).toBeNull();
    await page.getByRole('group', { name: 'Điều kiện 1.2' }).getByText('ngày qua', { exact: true }).waitFor();
    expect(await boxWidth(page, 'Điều kiện 1.2: trong số ngày')).toBeLessThan(200);
    await shot(page, 'segments-editor-event-vi');
    await resize(page, PHONE);
    expect(await boxWidth(page, 'Điều kiện 1.2: trong số ngày')).toBeLessThan(200);
    // Nothing runs past the phone's width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(page, 'segments-editor-event-vi-375');
    await resize(page, DESKTOP);

    // Every condition removed: the group stays, with a way to add one straight back, and nothing else to do.
    await page.getByRole('button', { name: 'Xóa điều kiện 1.2' }).click();
    await page.getByRole('button', { name: 'Xóa điều kiện 1.1' }).click();
    await page.getByText('Chưa có điều kiện nào.').waitFor();
    expect(await page.getByRole('button', { name: 'Thêm nhóm HOẶC' }).count()).toBe(0);
    const needs = 'Phân khúc cần ít nhất một điều kiện. Hãy thêm điều kiện để xem số người dùng phù hợp.';
    await page.getByText(needs).waitFor();
    // Saving says so, once, and speaks of nothing marked.
    await page.getByRole('button', { name: 'Lưu' }).first().click();
    await page.waitForTimeout(300);
    expect(await page.getByText(needs).count()).toBe(1);
    expect(await page.getByText('Hãy sửa các điều kiện được đánh dấu', { exact: false }).count()).toBe(0);
    expect(await page.getByText('Điều kiện không được để trống').count()).toBe(0);
    expect((await api(stack, token, 'GET', `/application/${APP}/segment`)).data.total).toBe(0);
    await shot(page, 'segments-editor-no-conditions-vi');
    await resize(page, PHONE);
    await shot(page, 'segments-editor-no-conditions-vi-375');
    await resize(page, DESKTOP);

    // A condition added again, straight from the group, and the segment saved: it is then called by its name.
    await page.getByRole('button', { name: 'Thêm điều kiện' }).click();
    // From the keyboard: the code typed, Enter takes the country it names.
    await page.getByRole('combobox', { name: 'Điều kiện 1.1: giá trị' }).fill('vn');
    await page.getByRole('option', { name: 'Việt Nam (VN)' }).waitFor();
    await page.getByRole('combobox', { name: 'Điều kiện 1.1: giá trị' }).press('Enter');
    await page.getByText('2 trên 3 người dùng').waitFor();
    await page.getByRole('button', { name: 'Lưu' }).first().click();
    await page.waitForURL(/\/segment\/\d+$/);
    await expect.poll(() => trail(page)).toEqual(['Ứng dụng', 'Hà Shop', 'Khách VN']);
    await expect.poll(() => page.title()).toMatch(/^Khách VN · Hà Shop/);
    const tabs = page.getByRole('navigation', { name: 'Các trang đang mở' });
    await tabs.getByRole('link', { name: 'Khách VN' }).waitFor();
    expect(await tabs.getByRole('link', { name: 'Phân khúc mới' }).count()).toBe(0);

    // The list now has a row, and its one "Create segment" is the header's.
    await page.goto(`${stack.url}/application/${APP}/segment`);
    await page.getByRole('link', { name: 'Khách VN' }).waitFor();
    expect(await page.getByRole('button', { name: 'Tạo phân khúc' }).count()).toBe(1);
    await shot(page, 'segments-list-vi');

    // A second segment named like the first, capitals and spaces aside: refused under its name, where it is changed.
    await page.getByRole('button', { name: 'Tạo phân khúc' }).click();
    await page.waitForURL(/\/segment\/new$/);
    await page.getByLabel('Tên phân khúc').fill('  KHÁCH   vn ');
    // A code typed and the field left (for Save) takes the country it names.
    await page.getByRole('combobox', { name: 'Điều kiện 1.1: giá trị' }).fill('VN');
    await page.getByRole('button', { name: 'Lưu' }).first().click();
    const refusedVi = 'Đã có phân khúc khác mang tên này (không phân biệt chữ hoa, chữ thường và khoảng trắng). Hãy chọn tên khác.';
    await page.getByText(refusedVi).waitFor();
    expect(await page.getByText(refusedVi).count()).toBe(1);
    expect(await page.getByLabel('Tên phân khúc').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Tên phân khúc').evaluate((input) => input === document.activeElement)).toBe(true);
    expect(page.url()).toMatch(/\/segment\/new$/);
    await shot(page, 'segments-duplicate-name-vi');
    await resize(page, PHONE);
    await page.getByText(refusedVi).waitFor();
    await shot(page, 'segments-duplicate-name-vi-375');
    await resize(page, DESKTOP);

    // In English: the same refusal in English, and the event row's period in English words.
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByLabel('Segment name').waitFor();
    await page.getByRole('button', { name: 'Save' }).first().click();
    const refusedEn = 'Another segment already has this name (capitals and spacing aside). Choose a different one.';
    await page.getByText(refusedEn).waitFor();
    await expect.poll(() => trail(page)).toEqual(['Applications', 'Hà Shop', 'New segment']);
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Condition 1.2: what to test').selectOption('event');
    await expect.poll(() => page.getByLabel('Condition 1.2: event').evaluate((element) => element.tagName)).toBe('SELECT');
    await page.getByLabel('Condition 1.2: event').selectOption('add_to_cart');
    await page.getByLabel('Condition 1.2: when').selectOption('within');
    await page.getByLabel('Condition 1.2: within days').fill('30');
    await page.getByText('1 of 3 players').waitFor();
    expect(await boxWidth(page, 'Condition 1.2: within days')).toBeLessThan(200);
    // A language, chosen by its name as the country is: the three visitors' browsers are all in Vietnamese.
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Condition 1.3: field').selectOption('language');
    await page.getByRole('combobox', { name: 'Condition 1.3: value' }).fill('vietnamese');
    await page.getByRole('option', { name: 'Vietnamese (vi)' }).click();
    await expect.poll(() => page.getByRole('combobox', { name: 'Condition 1.3: value' }).inputValue()).toBe('Vietnamese (vi)');
    await page.getByText('1 of 3 players').waitFor();
    await shot(page, 'segments-duplicate-name-en');
    await resize(page, PHONE);
    await page.getByText(refusedEn).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(page, 'segments-duplicate-name-en-375');
    await resize(page, DESKTOP);

    // Another name is saved; the application has the two, each named once.
    await page.getByLabel('Segment name').fill('Khách VN giỏ hàng');
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.waitForURL(/\/segment\/\d+$/);
    await expect.poll(() => trail(page)).toEqual(['Applications', 'Hà Shop', 'Khách VN giỏ hàng']);
    const names = (await api(stack, token, 'GET', `/application/${APP}/segment`)).data.items.map((segment: { name: string; size: number }) => `${segment.name}:${segment.size}`);
    expect(names).toEqual(['Khách VN giỏ hàng:1', 'Khách VN:2']);
    await context.close();
  });

  it('asks before leaving a segment with changes not saved: a link, the back button, a reload; Stay keeps the changes', async () => {
    const { context, page } = await newPage(stack.browser);
    context.setDefaultTimeout(20_000);
    await signIn(page, stack, owner.email, PASSWORD);
    const before = (await api(stack, token, 'GET', `/application/${APP}/segment`)).data.total;
    await page.goto(`${stack.url}/application/${APP}/segment`);
    await page.getByRole('button', { name: 'Tạo phân khúc' }).first().click();
    await page.waitForURL(/\/segment\/new$/);
    const name = page.getByLabel('Tên phân khúc');
    await name.fill('Khách chưa lưu');

    // A link of the menu: asked first; "Ở lại" keeps the page and what was typed.
    await page.getByRole('link', { name: 'Người dùng', exact: true }).click();
    const ask = page.getByRole('dialog', { name: 'Rời trang khi chưa lưu thay đổi?' });
    await ask.waitFor();
    expect(page.url()).toMatch(/\/segment\/new$/);
    await shot(page, 'segments-leave-unsaved-vi');
    await resize(page, PHONE);
    await shot(page, 'segments-leave-unsaved-vi-375');
    await resize(page, DESKTOP);
    await ask.getByRole('button', { name: 'Ở lại' }).click();
    await ask.waitFor({ state: 'hidden' });
    expect(page.url()).toMatch(/\/segment\/new$/);
    expect(await name.inputValue()).toBe('Khách chưa lưu');

    // Reloading: the browser asks; dismissed, the page and the changes stay.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.type());
      void dialog.dismiss();
    });
    await page.reload({ timeout: 3_000 }).catch(() => undefined);
    expect(asked).toEqual(['beforeunload']);
    expect(await name.inputValue()).toBe('Khách chưa lưu');

    // The back button: the page stays until the answer; "Rời trang" goes back to the list, and nothing was saved.
    await page.goBack();
    await ask.waitFor();
    expect(page.url()).toMatch(/\/segment\/new$/);
    await ask.getByRole('button', { name: 'Rời trang' }).click();
    await page.waitForURL(/\/segment$/);
    expect((await api(stack, token, 'GET', `/application/${APP}/segment`)).data.total).toBe(before);

    // In English on a phone, from the page's back arrow.
    await page.getByRole('button', { name: 'English' }).click();
    await resize(page, PHONE);
    await page.getByRole('button', { name: 'Create segment' }).first().click();
    await page.waitForURL(/\/segment\/new$/);
    await page.getByLabel('Segment name').fill('Not saved');
    await page.getByRole('button', { name: 'Segmentation', exact: true }).click();
    // On a phone Polaris' dialog box has no height of its own (a sheet at the bottom holds it): its title is looked for.
    await page.getByRole('heading', { name: 'Leave page with unsaved changes?' }).waitFor();
    expect(page.url()).toMatch(/\/segment\/new$/);
    await shot(page, 'segments-leave-unsaved-en-375');
    await page.getByRole('button', { name: 'Leave page' }).click();
    await page.waitForURL(/\/segment$/);
    await context.close();
  });

  it("offers the shop's tags as a tag is typed on a phone, in any case, with their players, and counts the one picked", async () => {
    // Two visitors tagged vip, the third VIP-FR: tags compare as written, so "VI" typed finds both.
    const players = (await api(stack, token, 'GET', `/application/${APP}/player?limit=100`)).data.items as { id: number; device_id: string }[];
    for (const player of players) {
      const tags = player.device_id.startsWith('vn-') ? ['vip'] : ['VIP-FR'];
      await api(stack, token, 'POST', `/application/${APP}/player/${player.id}/tags`, { tags });
    }
    const { context, page } = await newPage(stack.browser, PHONE);
    await signIn(page, stack, owner.email, PASSWORD);
    await page.goto(`${stack.url}/application/${APP}/segment/new`);
    await page.getByLabel('Điều kiện 1.1: loại').selectOption('tag');
    await page.getByLabel('Điều kiện 1.1: thẻ').fill('VI');
    await page.getByRole('option', { name: 'vip · 2 người dùng' }).waitFor();
    await page.getByRole('option', { name: 'VIP-FR · 1 người dùng' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(page, 'segments-tag-suggestions-vi-375');
    await page.getByRole('option', { name: 'vip · 2 người dùng' }).click();
    expect(await page.getByLabel('Điều kiện 1.1: thẻ').inputValue()).toBe('vip');
    await page.getByText('2 trên 3 người dùng').waitFor();

    // The player list's tag filter lists the same tags: "vi" typed, vip chosen, its two players listed.
    await page.getByRole('button', { name: 'English' }).click();
    await page.goto(`${stack.url}/application/${APP}/player`);
    await page.getByText('fr-browse-03').first().waitFor();
    await page.getByRole('button', { name: /Add filter/ }).click();
    await page.getByRole('menuitem', { name: 'Tag' }).click();
    await page.getByRole('textbox', { name: 'Tag' }).fill('vi');
    await page.getByText('VIP-FR · 1 player', { exact: true }).waitFor();
    await shot(page, 'players-tag-filter-en-375');
    await page.getByText('vip · 2 players', { exact: true }).click();
    await page.waitForURL(/\?tag=vip$/);
    await expect.poll(async () => (await page.locator('a[data-primary-link]').allInnerTexts()).sort(), { timeout: 10_000 }).toEqual(['vn-browse-02', 'vn-cart-01']);
    await context.close();
  });
});
