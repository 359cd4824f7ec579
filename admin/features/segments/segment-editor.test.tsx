import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Link, Route } from 'wouter';
import type { SegmentDetail, SegmentRule } from '../../../shared/contract';
import { useAppStore } from '../../stores/store';
import { type Call, answer, fakeApi, fill, press, renderInApplication, writesOf } from '../../test-utils';
import { application, tagList } from '../players/fixtures';
import { SegmentPage } from './segment-page';
import { LIVE_COUNT_DELAY_MS } from './use-live-count';

const COUNT = '/api/application/shop_one/segment/count';

let calls: Call[] = [];
/** The rules the editor asked to count, each with the signal that cancels its request. */
const counts = () =>
  calls.filter((call) => call.path === COUNT).map((call) => ({ rule: (call.body as { rule: SegmentRule }).rule, signal: call.signal as AbortSignal }));
/** What the editor asked the server to change (counting a rule changes nothing). */
const writes = () => writesOf(calls).filter((call) => call.path !== COUNT);
/** When set, count requests wait until they are cancelled (to hold one in flight). */
let holdCounts = false;
/** How many attributes the application has (vip and note_001…). */
let attributeCount = 1;
/** How many event names the application has (purchase and event_0001…). */
let eventCount = 1;

const saved: SegmentDetail = {
  id: 7,
  name: 'Tea lovers',
  rule: { any: [{ all: [{ kind: 'tag', op: 'has', tag: 'tea' }] }] },
  size: 1200,
  measured_at: '2025-03-01T00:00:00.000Z',
  created_at: '2025-02-01T00:00:00.000Z',
  updated_at: '2025-02-01T00:00:00.000Z',
  sizes: [
    { day: '2025-02-27', size: 1000 },
    { day: '2025-02-28', size: 1100 },
    { day: '2025-03-01', size: 1200 },
  ],
};

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: ['manager'] });
  holdCounts = false;
  attributeCount = 1;
  eventCount = 1;
  calls = fakeApi(
    {
      'GET /api/application/shop_one/attribute': (call) => {
        // vip, then plain text attributes up to attributeCount, paged as the API pages them.
        const all = Array.from({ length: attributeCount }, (_, index) => ({
          ...{ id: index + 1, description: null, source: 'sdk', players: 3, created_at: '2025-01-01', updated_at: '2025-01-01' },
          ...(index === 0 ? { name: 'vip', type: 'boolean' } : { name: `note_${String(index).padStart(3, '0')}`, type: 'text' }),
        }));
        const pageNumber = Number(call.query.get('page') ?? 1);
        const limit = Number(call.query.get('limit') ?? 20);
        return { items: all.slice((pageNumber - 1) * limit, pageNumber * limit), total: all.length, page: pageNumber, limit };
      },
      'GET /api/application/shop_one/event': (call) => {
        const all = Array.from({ length: eventCount }, (_, index) => ({
          ...{ count: 10, first_seen_at: '2025-01-01', last_seen_at: '2025-03-01', properties: {} },
          name: index === 0 ? 'purchase' : `event_${String(index).padStart(4, '0')}`,
        }));
        const pageNumber = Number(call.query.get('page') ?? 1);
        const limit = Number(call.query.get('limit') ?? 20);
        return { items: all.slice((pageNumber - 1) * limit, pageNumber * limit), total: all.length, page: pageNumber, limit };
      },
      [`POST ${COUNT}`]: async (call) => {
        const signal = call.signal as AbortSignal;
        if (holdCounts) {
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
        }
        const { rule } = call.body as { rule: { any: { all: { value: string }[] }[] } };
        return { count: rule.any[0].all[0].value === 'VN' ? 1234 : 56, total: 5000 };
      },
      'POST /api/application/shop_one/segment': (call) => {
        const { name, rule } = call.body as Pick<SegmentDetail, 'name' | 'rule'>;
        return { ...saved, id: 8, name, rule };
      },
      'GET /api/application/shop_one/tag': () => tagList,
      'GET /api/application/shop_one/segment/7': () => saved,
      'DELETE /api/application/shop_one/segment/7': () => ({}),
      'PUT /api/application/shop_one/segment/7': () => ({}),
    },
    // Web push set up, so a message can be sent to a segment.
    { ...application, platforms: ['web'] },
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function open(id = 'new') {
  return renderInApplication(
    <>
      <Route path="/segment/:segment_id" component={SegmentPage} />
      <Route path="/segment">the list</Route>
    </>,
    `/application/shop_one/segment/${id}`,
  );
}

const row = (number: string) => screen.getByRole('group', { name: `Condition ${number}` });

/**
 * Row 1.1 made to test `kind` ('event', 'attribute'), then `name` picked once its picker (labelled `kind`) offers
 * it: the names load after the row changes. Returns the picker.
 */
async function pickName(kind: 'event' | 'attribute', name: string): Promise<HTMLSelectElement> {
  fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: what to test'), { target: { value: kind } });
  const picker = (await within(row('1.1')).findByLabelText(`Condition 1.1: ${kind}`)) as HTMLSelectElement;
  await waitFor(() => expect(within(picker).getAllByRole('option').map((option) => option.getAttribute('value'))).toContain(name));
  fireEvent.change(picker, { target: { value: name } });
  return picker;
}

/** `typed` searched in a country or language picker as a merchant does: the field entered (it clears to a search), then typed in. */
function search(field: HTMLElement, typed: string): void {
  fireEvent.focus(field);
  fireEvent.change(field, { target: { value: typed } });
}

/**
 * Row `number`'s country chosen as a merchant does: its name searched in the picker (`typed`), then the country
 * the search found (`name`) clicked.
 */
async function chooseCountry(number: string, typed: string, name: string): Promise<void> {
  search(within(row(number)).getByLabelText(`Condition ${number}: value`), typed);
  fireEvent.click(await screen.findByRole('option', { name }));
}

describe('the segment editor', () => {
  it('counts nothing while the first condition is empty, then counts it live once typing pauses', async () => {
    open();
    expect(await screen.findByText('Complete the conditions to see how many players match.')).toBeTruthy();
    expect(counts()).toHaveLength(0);
    await chooseCountry('1.1', 'viet', 'Vietnam (VN)');
    expect(await screen.findByText('1,234 of 5,000 players')).toBeTruthy();
    expect(counts()).toHaveLength(1);
    expect(counts()[0].rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] });
  });

  it('chooses a language by its name or code, and takes a part of one as the code it is written in', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: field'), { target: { value: 'language' } });
    const field = within(row('1.1')).getByLabelText('Condition 1.1: value') as HTMLInputElement;
    expect(field.getAttribute('placeholder')).toBe('Search languages');
    search(field, 'viet');
    fireEvent.click(await screen.findByRole('option', { name: 'Vietnamese (vi)' }));
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'language', op: 'eq', value: 'vi' }] }] }));
    expect(field.value).toBe('Vietnamese (vi)');
    // A code typed is taken as the field is left; a search that names no language keeps the one chosen.
    search(field, 'Klingon');
    expect(await screen.findByText('No language matches “Klingon”')).toBeTruthy();
    fireEvent.blur(field);
    expect(field.value).toBe('Vietnamese (vi)');
    search(field, 'JA');
    fireEvent.blur(field);
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'language', op: 'eq', value: 'ja' }] }] }));
    expect(field.value).toBe('Japanese (ja)');
    // "contains" takes the code as typed, in small letters, and names it once it is one.
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: operator'), { target: { value: 'contains' } });
    const input = within(row('1.1')).getByLabelText('Condition 1.1: value') as HTMLInputElement;
    expect(input.getAttribute('placeholder')).toBe('vi');
    fireEvent.change(input, { target: { value: 'VI' } });
    expect(await within(row('1.1')).findByText('Vietnamese (vi)')).toBeTruthy();
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'language', op: 'contains', value: 'vi' }] }] }));
  });

  it('chooses a country by its name, in the console language or in English, and keeps its code in the rule', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    const field = within(row('1.1')).getByLabelText('Condition 1.1: value') as HTMLInputElement;
    expect(field.getAttribute('placeholder')).toBe('Search countries');
    search(field, 'kingdom');
    // A word of a name finds it; what is typed is a search, nothing is counted for it.
    expect(await screen.findByRole('option', { name: 'United Kingdom (GB)' })).toBeTruthy();
    expect(screen.queryByRole('option', { name: 'Vietnam (VN)' })).toBeNull();
    expect(counts()).toHaveLength(0);
    fireEvent.change(field, { target: { value: 'viet' } });
    fireEvent.click(await screen.findByRole('option', { name: 'Vietnam (VN)' }));
    expect(await screen.findByText('1,234 of 5,000 players')).toBeTruthy();
    expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] });
    expect(field.value).toBe('Vietnam (VN)');
    // In Vietnamese the country is named in Vietnamese, and the English name still finds it.
    act(() => useAppStore.getState().setLanguage('vi'));
    const vi = within(screen.getByRole('group', { name: 'Điều kiện 1.1' })).getByLabelText('Điều kiện 1.1: giá trị') as HTMLInputElement;
    expect(vi.value).toBe('Việt Nam (VN)');
    search(vi, 'france');
    fireEvent.click(await screen.findByRole('option', { name: 'Pháp (FR)' }));
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'FR' }] }] }));
  });

  it('takes a code or a whole name typed as the field is left, and keeps the country chosen when the search names none', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    const field = within(row('1.1')).getByLabelText('Condition 1.1: value') as HTMLInputElement;
    search(field, 'vn');
    fireEvent.blur(field);
    expect(await screen.findByText('1,234 of 5,000 players')).toBeTruthy();
    expect(field.value).toBe('Vietnam (VN)');
    search(field, 'Atlantis');
    expect(await screen.findByText('No country matches “Atlantis”')).toBeTruthy();
    fireEvent.blur(field);
    expect(field.value).toBe('Vietnam (VN)');
    search(field, 'viet nam');
    fireEvent.blur(field);
    expect(field.value).toBe('Vietnam (VN)');
    search(field, 'france');
    fireEvent.blur(field);
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'FR' }] }] }));
    expect(field.value).toBe('France (FR)');
    expect(counts().map((call) => (call.rule.any[0].all[0] as { value: string }).value)).not.toContain('Atlantis');
  });

  it('cancels a count in flight when the rule changes, and shows only the newest', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    holdCounts = true;
    await chooseCountry('1.1', 'viet', 'Vietnam (VN)');
    await waitFor(() => expect(counts()).toHaveLength(1));
    expect(screen.getAllByText('Counting…').length).toBeGreaterThan(0);
    holdCounts = false;
    await chooseCountry('1.1', 'fra', 'France (FR)');
    expect(await screen.findByText('56 of 5,000 players')).toBeTruthy();
    expect(counts()[0].signal.aborted).toBe(true);
    expect(counts()).toHaveLength(2);
  });

  it('chooses a platform or a device type among the values players hold, named as the player list names them', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: field'), { target: { value: 'platform' } });
    const platform = within(row('1.1')).getByLabelText('Condition 1.1: value') as HTMLSelectElement;
    expect([...platform.options].filter((option) => !option.disabled).map((option) => [option.value, option.textContent])).toEqual([
      ['web', 'Web'],
      ['ios', 'iOS'],
      ['android', 'Android'],
    ]);
    fireEvent.change(platform, { target: { value: 'ios' } });
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'platform', op: 'eq', value: 'ios' }] }] }));
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: field'), { target: { value: 'device_type' } });
    const type = within(row('1.1')).getByLabelText('Condition 1.1: value') as HTMLSelectElement;
    expect([...type.options].filter((option) => !option.disabled).map((option) => option.textContent)).toEqual(['Desktop', 'Mobile']);
    fireEvent.change(type, { target: { value: 'mobile' } });
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'device_type', op: 'eq', value: 'mobile' }] }] }));
  });

  it('offers the operators of the chosen field and a day for dates', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: field'), { target: { value: 'last_session_at' } });
    const operator = within(row('1.1')).getByLabelText('Condition 1.1: operator') as HTMLSelectElement;
    expect([...operator.options].map((option) => option.value)).toEqual(['before', 'after', 'within_days', 'older_than_days', 'exists', 'not_exists']);
    expect((within(row('1.1')).getByLabelText('Condition 1.1: value') as HTMLInputElement).type).toBe('date');
    fireEvent.change(operator, { target: { value: 'within_days' } });
    expect((within(row('1.1')).getByLabelText('Condition 1.1: value') as HTMLInputElement).type).toBe('number');
  });

  it('offers last seen, for the players not seen for a number of days, worded as a time ago in Vietnamese', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: field'), { target: { value: 'last_seen_at' } });
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: operator'), { target: { value: 'older_than_days' } });
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: value'), { target: { value: '30' } });
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'field', field: 'last_seen_at', op: 'older_than_days', value: 30 }] }] }));
    act(() => useAppStore.getState().setLanguage('vi'));
    const vi = () => screen.getByRole('group', { name: 'Điều kiện 1.1' });
    // "cách đây hơn 30 ngày" (more than 30 days ago), not "… 30 ngày qua" (… the last 30 days).
    await waitFor(() => expect(within(vi()).getByText('ngày')).toBeTruthy());
    expect(within(vi()).queryByText('ngày qua')).toBeNull();
    expect((within(vi()).getByLabelText('Điều kiện 1.1: trường') as HTMLSelectElement).selectedOptions[0].textContent).toBe('Lần cuối truy cập');
    fireEvent.change(within(vi()).getByLabelText('Điều kiện 1.1: phép so sánh'), { target: { value: 'within_days' } });
    expect(within(vi()).getByText('ngày qua')).toBeTruthy();
  });

  it('builds OR groups of AND conditions over player fields, events and attributes', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    await chooseCountry('1.1', 'viet', 'Vietnam (VN)');
    fireEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    fireEvent.change(within(row('1.2')).getByLabelText('Condition 1.2: what to test'), { target: { value: 'event' } });
    fireEvent.change(await within(row('1.2')).findByLabelText('Condition 1.2: event'), { target: { value: 'purchase' } });
    fireEvent.change(within(row('1.2')).getByLabelText('Condition 1.2: how many times'), { target: { value: 'gte' } });
    fireEvent.change(within(row('1.2')).getByLabelText('Condition 1.2: count'), { target: { value: '2' } });
    fireEvent.change(within(row('1.2')).getByLabelText('Condition 1.2: when'), { target: { value: 'within' } });
    fireEvent.change(within(row('1.2')).getByLabelText('Condition 1.2: within days'), { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add OR group' }));
    fireEvent.change(within(row('2.1')).getByLabelText('Condition 2.1: what to test'), { target: { value: 'attribute' } });
    fireEvent.change(await within(row('2.1')).findByLabelText('Condition 2.1: attribute'), { target: { value: 'vip' } });
    fireEvent.change(within(row('2.1')).getByLabelText('Condition 2.1: operator'), { target: { value: 'is_true' } });
    await waitFor(() =>
      expect(counts().at(-1)?.rule).toEqual({
        any: [
          {
            all: [
              { kind: 'field', field: 'country', op: 'eq', value: 'VN' },
              { kind: 'event', name: 'purchase', performed: true, count: { op: 'gte', value: 2 }, within_days: 30 },
            ],
          },
          { all: [{ kind: 'attribute', name: 'vip', type: 'boolean', op: 'is_true' }] },
        ],
      }),
    );
  });

  it('shows a problem under its own row, and refuses to save an incomplete rule', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    await chooseCountry('1.1', 'viet', 'Vietnam (VN)');
    fireEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    fireEvent.change(within(row('1.2')).getByLabelText('Condition 1.2: what to test'), { target: { value: 'tag' } });
    fireEvent.change(within(row('1.2')).getByLabelText('Condition 1.2: tag'), { target: { value: 'two words' } });
    expect(await within(row('1.2')).findByText('Invalid tag value')).toBeTruthy();
    expect(within(row('1.1')).queryByText('Invalid tag value')).toBeNull();
    fireEvent.change(screen.getByLabelText('Segment name'), { target: { value: 'Vietnam' } });
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
    await screen.findByText('Invalid tag value');
    expect(writes()).toHaveLength(0);
  });

  it('does not call a part just reached required, until a save is tried', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: what to test'), { target: { value: 'event' } });
    await within(row('1.1')).findByLabelText('Condition 1.1: event');
    // The row changed, but its event could not have been picked yet: nothing is marked, the line asks to complete it.
    expect(within(row('1.1')).queryByText('This field is required')).toBeNull();
    expect(screen.getByText('Complete the conditions to see how many players match.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Segment name'), { target: { value: 'Buyers' } });
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
    expect(await within(row('1.1')).findByText('This field is required')).toBeTruthy();
    expect(screen.getByText('Fix the conditions marked to see how many players match.')).toBeTruthy();
    expect(writes()).toHaveLength(0);
  });

  it('keeps the group when its last condition is removed, so a condition is added straight back', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.click(screen.getByRole('button', { name: 'Remove condition 1.1' }));
    const group = screen.getByRole('region', { name: 'Group 1' });
    expect(within(group).getByText('No conditions yet.')).toBeTruthy();
    // An OR group beside nothing means nothing: only "Add condition" is offered.
    expect(screen.queryByRole('button', { name: 'Add OR group' })).toBeNull();
    expect(screen.getByText('A segment needs at least one condition. Add one to see how many players match.')).toBeTruthy();
    fireEvent.click(within(group).getByRole('button', { name: 'Add condition' }));
    await chooseCountry('1.1', 'viet', 'Vietnam (VN)');
    expect(await screen.findByText('1,234 of 5,000 players')).toBeTruthy();
    expect(screen.queryByText('No conditions yet.')).toBeNull();
    expect(screen.getByRole('button', { name: 'Add OR group' })).toBeTruthy();
  });

  it('refuses to save a segment without conditions (spec §5), saying once that it needs one, and marking nothing', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(screen.getByLabelText('Segment name'), { target: { value: 'Everyone' } });
    fireEvent.click(screen.getByRole('button', { name: 'Remove condition 1.1' }));
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
    const needs = 'A segment needs at least one condition. Add one to see how many players match.';
    await waitFor(() => expect(screen.getAllByText(needs)).toHaveLength(1));
    // Nothing is marked, so nothing asks to fix what is marked, and the rule's refusal is not said a second way.
    expect(screen.queryByText('Fix the conditions marked to see how many players match.')).toBeNull();
    expect(screen.queryByText('Conditions may not be empty')).toBeNull();
    expect(writes()).toHaveLength(0);
  });

  it("starts a new segment from the event the events page names (players who performed it), counts it and saves it", async () => {
    open(`new?performed=${encodeURIComponent('purchase')}`);
    const picker = (await within(row('1.1')).findByLabelText('Condition 1.1: event')) as HTMLSelectElement;
    await waitFor(() => expect(picker.value).toBe('purchase'));
    expect((within(row('1.1')).getByLabelText('Condition 1.1: what to test') as HTMLSelectElement).value).toBe('event');
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'event', name: 'purchase', performed: true }] }] }));
    expect(await screen.findByText('56 of 5,000 players')).toBeTruthy();
    fill('Segment name', 'Buyers');
    await press('Save');
    await waitFor(() => expect(writes()).toHaveLength(1));
    expect(writes()[0].body).toEqual({ name: 'Buyers', rule: { any: [{ all: [{ kind: 'event', name: 'purchase', performed: true }] }] } });
  });

  it("starts from an event performed in the last days the dashboard names, and any time when the days could not be a period", async () => {
    open('new?performed=purchase&within=7');
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'event', name: 'purchase', performed: true, within_days: 7 }] }] }));
    expect((within(row('1.1')).getByLabelText('Condition 1.1: within days') as HTMLInputElement).value).toBe('7');
    cleanup();
    calls.length = 0;
    open('new?performed=purchase&within=-3');
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'event', name: 'purchase', performed: true }] }] }));
    expect(within(row('1.1')).queryByLabelText('Condition 1.1: within days')).toBeNull();
  });

  it('starts a new segment from the attribute the attributes page names: the players who have it', async () => {
    open(`new?has=vip&type=boolean`);
    const picker = (await within(row('1.1')).findByLabelText('Condition 1.1: attribute')) as HTMLSelectElement;
    await waitFor(() => expect(picker.value).toBe('vip'));
    expect((within(row('1.1')).getByLabelText('Condition 1.1: operator') as HTMLSelectElement).value).toBe('exists');
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'attribute', name: 'vip', type: 'boolean', op: 'exists' }] }] }));
  });

  it("offers the application's tags that hold what is typed, in any case, with their players, and takes a tag no player has yet", async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: what to test'), { target: { value: 'tag' } });
    const field = within(row('1.1')).getByLabelText('Condition 1.1: tag') as HTMLInputElement;
    fireEvent.focus(field);
    fireEvent.change(field, { target: { value: 'VI' } });
    expect(await screen.findByRole('option', { name: 'vip · 1,200 players' })).toBeTruthy();
    expect(screen.getByRole('option', { name: 'VIP-2024 · 3 players' })).toBeTruthy();
    expect(screen.queryByRole('option', { name: /^buyer/ })).toBeNull();
    fireEvent.click(screen.getByRole('option', { name: 'vip · 1,200 players' }));
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'tag', op: 'has', tag: 'vip' }] }] }));
    expect(field.value).toBe('vip');
    fireEvent.change(field, { target: { value: 'first-order' } });
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'tag', op: 'has', tag: 'first-order' }] }] }));
    expect(screen.queryByRole('option', { name: /players$/ })).toBeNull();
  });

  it('starts from an empty condition when the address names no event or attribute one could have', async () => {
    open(`new?performed=${encodeURIComponent('not an event!')}&has=vip&type=colour`);
    expect(await screen.findByText('Complete the conditions to see how many players match.')).toBeTruthy();
    expect((within(row('1.1')).getByLabelText('Condition 1.1: what to test') as HTMLSelectElement).value).toBe('field');
    expect(counts()).toHaveLength(0);
  });

  it('asks for an event\'s period as "any time" or "in the last N days", in a field sized for a number, in either language', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    await pickName('event', 'purchase');
    const when = within(row('1.1')).getByLabelText('Condition 1.1: when') as HTMLSelectElement;
    expect([...when.options].find((option) => option.value === when.value)?.textContent).toBe('Any time');
    // Any time: no number to type, and none is asked for.
    expect(within(row('1.1')).queryByLabelText('Condition 1.1: within days')).toBeNull();
    fireEvent.change(when, { target: { value: 'within' } });
    const days = within(row('1.1')).getByLabelText('Condition 1.1: within days') as HTMLInputElement;
    expect(days.getAttribute('placeholder')).toBeNull();
    expect(within(row('1.1')).getByText('days')).toBeTruthy();
    // Sized for a few digits and their unit, not for what is left of the line.
    const part = days.closest('[style*="flex"]') as HTMLElement;
    expect(part.style.flex).toBe('0 0 150px');
    fireEvent.change(days, { target: { value: '30' } });
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'event', name: 'purchase', performed: true, within_days: 30 }] }] }));
    act(() => useAppStore.getState().setLanguage('vi'));
    const vi = () => screen.getByRole('group', { name: 'Điều kiện 1.1' });
    // "trong vòng 30 ngày qua": the words around the number, with no "bất kỳ" (any) inside the sentence.
    const chosen = () => {
      const select = within(vi()).getByLabelText('Điều kiện 1.1: thời gian') as HTMLSelectElement;
      return [...select.options].find((option) => option.value === select.value)?.textContent;
    };
    await waitFor(() => expect(chosen()).toBe('Trong vòng'));
    expect(within(vi()).getByText('ngày qua')).toBeTruthy();
    expect(within(vi()).queryByText('bất kỳ')).toBeNull();
    expect(within(vi()).queryByText('trong')).toBeNull();
    fireEvent.change(within(vi()).getByLabelText('Điều kiện 1.1: thời gian'), { target: { value: 'ever' } });
    expect(chosen()).toBe('Mọi lúc');
    await waitFor(() => expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'event', name: 'purchase', performed: true }] }] }));
  });

  it('shows the refusal of a name another segment has under the name, takes the user there, and saves once it is changed', async () => {
    let posted = 0;
    calls = fakeApi(
      {
        [`POST ${COUNT}`]: () => ({ count: 1234, total: 5000 }),
        'POST /api/application/shop_one/segment': (call) => {
          posted += 1;
          const { name, rule } = call.body as Pick<SegmentDetail, 'name' | 'rule'>;
          if (name.trim().toLowerCase() === 'khách vn') {
            const message = 'Another segment already has this name (capitals and spacing aside). Choose a different one.';
            return answer({ success: false, error: 'CONFLICT', message, fields: [{ path: 'name', message }] }, 409);
          }
          return { ...saved, id: 8, name, rule };
        },
      },
      { ...application, platforms: ['web'] },
    );
    const view = open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(screen.getByLabelText('Segment name'), { target: { value: 'KHÁCH VN' } });
    await chooseCountry('1.1', 'viet', 'Vietnam (VN)');
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
    const refusal = 'Another segment already has this name (capitals and spacing aside). Choose a different one.';
    await waitFor(() => expect(screen.getAllByText(refusal)).toHaveLength(1));
    const name = screen.getByLabelText('Segment name');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(name);
    expect(view.location()).toBe('/application/shop_one/segment/new');
    // Changing the name takes the refusal away; the other name is saved.
    fireEvent.change(name, { target: { value: 'Khách VN mới' } });
    expect(screen.queryByText(refusal)).toBeNull();
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/segment/8'));
    expect(posted).toBe(2);
  });

  it('names the page "New segment" for a new one, and by its name once saved, in the breadcrumb, the window and the tab', async () => {
    open();
    await waitFor(() => expect(useAppStore.getState().pageLabel).toEqual({ path: '/application/shop_one/segment/new', label: 'New segment' }));
    cleanup();
    await waitFor(() => expect(useAppStore.getState().pageLabel).toBeNull());
    open('7');
    await waitFor(() => expect(useAppStore.getState().pageLabel).toEqual({ path: '/application/shop_one/segment/7', label: 'Tea lovers' }));
  });

  it('saves a new segment and opens it', async () => {
    const view = open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(screen.getByLabelText('Segment name'), { target: { value: 'Vietnam' } });
    await chooseCountry('1.1', 'viet', 'Vietnam (VN)');
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/segment/8'));
    expect(writes()[0]).toEqual({
      method: 'POST',
      path: '/api/application/shop_one/segment',
      body: { name: 'Vietnam', rule: { any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'VN' }] }] } },
    });
  });

  it('opens a saved segment with its rule, size and size over time', async () => {
    open('7');
    expect(await screen.findByDisplayValue('Tea lovers')).toBeTruthy();
    expect((within(row('1.1')).getByLabelText('Condition 1.1: tag') as HTMLInputElement).value).toBe('tea');
    expect(screen.getByText('1,200 players')).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Segment size per day' })).toBeTruthy();
    // Its rule has no problem: a condition added to it is not marked before it is touched.
    fireEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    expect(within(row('1.2')).queryByText('This field is required')).toBeNull();
  });

  it('opens a segment saved before countries had to be codes with the problem shown, and counts nothing until it is fixed', async () => {
    calls = fakeApi(
      { 'GET /api/application/shop_one/segment/7': () => ({ ...saved, rule: { any: [{ all: [{ kind: 'field', field: 'country', op: 'eq', value: 'Vietnam' }] }] } }) },
      { ...application, platforms: ['web'] },
    );
    open('7');
    expect(await screen.findByText('A country is its 2-letter code, e.g. VN')).toBeTruthy();
    // The row is complete: the line asks to fix what is marked, not to complete it.
    expect(screen.getByText('Fix the conditions marked to see how many players match.')).toBeTruthy();
    expect(screen.queryByText('Complete the conditions to see how many players match.')).toBeNull();
    expect(counts()).toHaveLength(0);
  });

  it('sends a message to a saved segment: the type is chosen, then its form opens with the segment as the audience', async () => {
    const view = open('7');
    await screen.findByDisplayValue('Tea lovers');
    fireEvent.click(screen.getAllByRole('button', { name: 'Send a message' })[0]);
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'New Web push' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/notification/web_push?segment_id=7'));
    expect(writes()).toHaveLength(0);
  });

  it('offers no message to a role that may use segments but not notifications (Ads Manager)', async () => {
    useAppStore.setState({ roles: ['ads_manager'] });
    open('7');
    await screen.findByDisplayValue('Tea lovers');
    expect(screen.queryByRole('button', { name: 'Send a message' })).toBeNull();
    expect(screen.getAllByRole('button', { name: 'Delete' }).length).toBeGreaterThan(0);
  });

  it('asks before leaving a segment with changes not saved: Stay keeps them on screen, Leave page goes', async () => {
    const view = open('7');
    fill(await screen.findByDisplayValue('Tea lovers'), 'Tea and coffee lovers');
    fireEvent.click(screen.getByRole('button', { name: 'Segmentation' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave page with unsaved changes?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(view.location()).toBe('/application/shop_one/segment/7');
    expect(screen.getByDisplayValue('Tea and coffee lovers')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Segmentation' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Leave page' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/segment'));
    expect(writes()).toHaveLength(0);
  });

  it('leaves without asking when nothing was changed, when a change was undone, and once the changes are saved', async () => {
    let view = open('7');
    const name = await screen.findByDisplayValue('Tea lovers');
    fill(name, 'Tea');
    fill(name, 'Tea lovers');
    fireEvent.click(screen.getByRole('button', { name: 'Segmentation' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/segment'));
    cleanup();

    view = open('7');
    fill(await screen.findByDisplayValue('Tea lovers'), 'Tea and coffee lovers');
    fireEvent.click(screen.getAllByRole('button', { name: 'Save' })[0]);
    await screen.findByText('Changed');
    fireEvent.click(screen.getByRole('button', { name: 'Segmentation' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/segment'));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('opens a new segment empty when it is chosen (its tab) from a saved one', async () => {
    const view = renderInApplication(
      <>
        <Link href="/segment/new">New segment tab</Link>
        <Route path="/segment/:segment_id" component={SegmentPage} />
      </>,
      '/application/shop_one/segment/7',
    );
    await screen.findByDisplayValue('Tea lovers');
    fireEvent.click(screen.getByRole('link', { name: 'New segment tab' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/segment/new'));
    expect((screen.getByLabelText('Segment name') as HTMLInputElement).value).toBe('');
    expect(screen.queryByDisplayValue('tea')).toBeNull();
  });

  it('deletes a saved segment after the confirmation', async () => {
    const view = open('7');
    await screen.findByDisplayValue('Tea lovers');
    fireEvent.click(screen.getAllByRole('button', { name: 'Delete' })[0]);
    const dialog = await screen.findByRole('dialog');
    expect(writes()).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(view.location()).toBe('/application/shop_one/segment'));
    expect(writes()).toEqual([{ method: 'DELETE', path: '/api/application/shop_one/segment/7', body: undefined }]);
  });

  it('says the bounds of a number of times or days typed out of them, under that field, asks to fix what it marks, and counts nothing until they hold', async () => {
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    await pickName('event', 'purchase');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: how many times'), { target: { value: 'gte' } });
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: count'), { target: { value: '-2' } });
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: when'), { target: { value: 'within' } });
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: within days'), { target: { value: '0' } });
    expect(await within(row('1.1')).findByText('Enter a whole number from 0 to 1,000,000')).toBeTruthy();
    expect(within(row('1.1')).getByText('Enter a whole number of days from 1 to 3,650')).toBeTruthy();
    // What is wrong is marked, so the count line asks to fix it, not to complete it.
    expect(screen.getByText('Fix the conditions marked to see how many players match.')).toBeTruthy();
    expect(screen.queryByText('Complete the conditions to see how many players match.')).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, LIVE_COUNT_DELAY_MS + 200));
    expect(counts().filter((count) => JSON.stringify(count.rule).includes('"count"'))).toEqual([]);
    const before = counts().length;
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: count'), { target: { value: '2' } });
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: within days'), { target: { value: '30' } });
    await waitFor(() => expect(counts().length).toBeGreaterThan(before));
    expect(counts().at(-1)?.rule).toEqual({ any: [{ all: [{ kind: 'event', name: 'purchase', performed: true, count: { op: 'gte', value: 2 }, within_days: 30 }] }] });
    expect(within(row('1.1')).queryByText('Enter a whole number from 0 to 1,000,000')).toBeNull();
  });

  it('lets an Ads Manager, who may not list attributes or events, type their names', async () => {
    useAppStore.setState({ roles: ['ads_manager'] });
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: what to test'), { target: { value: 'event' } });
    expect((within(row('1.1')).getByLabelText('Condition 1.1: event') as HTMLElement).tagName).toBe('INPUT');
    const asked = calls.map((call) => call.path);
    expect(asked).not.toContain('/api/application/shop_one/attribute');
    expect(asked).not.toContain('/api/application/shop_one/event');
  });

  it.each(['create', '0', 'seven'])('says a segment address that names none (/segment/%s) is not found, without asking the server or offering Try again', async (id) => {
    open(id);
    expect(await screen.findByText('This segment does not exist or was deleted.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(calls.filter((call) => call.path.includes('/segment/'))).toHaveLength(0);
  });

  it('offers every attribute of an application with more than one page of them', async () => {
    attributeCount = 150;
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    const picker = await pickName('attribute', 'note_149');
    expect(picker.value).toBe('note_149');
    const pages = calls.filter((call) => call.path === '/api/application/shop_one/attribute').map((call) => [call.query.get('page'), call.query.get('limit')]);
    expect(pages).toEqual([
      ['1', '100'],
      ['2', '100'],
    ]);
  });

  it('has event names typed when the application has more than a picker holds, so the ones past it can be chosen too', async () => {
    eventCount = 1_001;
    open();
    await screen.findByText('Complete the conditions to see how many players match.');
    fireEvent.change(within(row('1.1')).getByLabelText('Condition 1.1: what to test'), { target: { value: 'event' } });
    // Ten pages of the API's largest, 1,000 names: the list stops there, one short.
    await waitFor(() => expect(calls.filter((call) => call.path === '/api/application/shop_one/event')).toHaveLength(10));
    // Let the last page's answer land, then look: while the list loads the field is typed too.
    await act(async () => new Promise((resolve) => setTimeout(resolve, 50)));
    const field = within(row('1.1')).getByLabelText('Condition 1.1: event') as HTMLInputElement;
    expect(field.tagName).toBe('INPUT');
    fireEvent.change(field, { target: { value: 'event_1000' } });
    expect(field.value).toBe('event_1000');
  });

  it('writes the live count as the console language does, whatever the browser: 1.234 in Vietnamese, 1,234 in English', async () => {
    open();
    await chooseCountry('1.1', 'viet', 'Vietnam (VN)');
    expect(await screen.findByText('1,234 of 5,000 players')).toBeTruthy();
    act(() => useAppStore.getState().setLanguage('vi'));
    expect(await screen.findByText('1.234 trên 5.000 người dùng')).toBeTruthy();
  });
});
