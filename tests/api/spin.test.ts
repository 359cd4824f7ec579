import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpinSlice } from '../../shared/contract';
import { pickSlice, prizeCode } from '../../server/domain/spin';
import { seededRandom } from '../../server/security/random';
import { createApplication, createUser, db, startServer, type TestServer, type TestUser } from './helpers';

/**
 * The spin wheel's server side: the odds hold (a chi-square goodness-of-fit test at p = 0.001 with a fixed
 * seed, so it cannot fail by bad luck), stock is never exceeded under concurrent spins, one spin per browser
 * and per email or phone, and every code is unique.
 */

/** Upper 0.1 % points of the chi-square distribution, by degrees of freedom. */
const CHI_SQUARE_P001: Record<number, number> = { 1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515 };

function chiSquare(observed: number[], weights: number[]): number {
  const n = observed.reduce((a, b) => a + b, 0);
  const total = weights.reduce((a, b) => a + b, 0);
  return observed.reduce((sum, count, i) => {
    const expected = (n * weights[i]) / total;
    return sum + (count - expected) ** 2 / expected;
  }, 0);
}

function slice(id: string, weight: number, extra: Partial<SpinSlice> = {}): SpinSlice {
  return { id, label: `Prize ${id}`, color: '#336699', weight, lose: false, stock: null, code_prefix: '', ...extra };
}

describe('the draw', () => {
  const slices = [slice('a', 50), slice('b', 25), slice('c', 15), slice('d', 9), slice('e', 1)];
  const weights = slices.map((s) => s.weight);

  function draw(times: number, seed: number) {
    const random = seededRandom(seed);
    const counts = new Map(slices.map((s) => [s.id, 0]));
    for (let i = 0; i < times; i++) {
      const picked = pickSlice(slices, random)!;
      counts.set(picked.id, counts.get(picked.id)! + 1);
    }
    return slices.map((s) => counts.get(s.id)!);
  }

  it('holds the configured odds over 10,000 draws (chi-square, p = 0.001)', () => {
    const observed = draw(10_000, 20_240_601);
    expect(chiSquare(observed, weights)).toBeLessThan(CHI_SQUARE_P001[4]);
  });

  it('would notice odds that are not the configured ones', () => {
    // The same test has the power to reject: these draws are far from equal odds.
    const observed = draw(10_000, 20_240_601);
    expect(chiSquare(observed, [1, 1, 1, 1, 1])).toBeGreaterThan(CHI_SQUARE_P001[4]);
  });

  it('never lands on a slice with odds 0 or an excluded one', () => {
    const random = seededRandom(7);
    const wheel = [slice('zero', 0), slice('gone', 10), slice('left', 1)];
    for (let i = 0; i < 2_000; i++) expect(pickSlice(wheel, random, new Set(['gone']))?.id).toBe('left');
    expect(pickSlice(wheel, random, new Set(['gone', 'left']))).toBeNull();
  });

  it('makes codes of the prefix and 8 characters without look-alikes', () => {
    const codes = new Set(Array.from({ length: 5_000 }, () => prizeCode('SALE-')));
    expect(codes.size).toBe(5_000);
    for (const code of codes) expect(code).toMatch(/^SALE-[A-HJ-NP-Z2-9]{8}$/);
  });
});

describe('spinning through the API', () => {
  let server: TestServer;
  let owner: TestUser;
  let key: string;
  const APP = 'spin_shop';

  beforeAll(async () => {
    server = await startServer({
      random: seededRandom(424_242),
      limits: {
        sdkSpinPerIp: { max: 100_000, windowMs: 60_000 },
        sdkSpinPerApplication: { max: 100_000, windowMs: 60_000 },
      },
    });
    owner = await createUser(server);
    key = (await createApplication(server, owner, APP)).client_key;
  }, 60_000);
  afterAll(async () => server?.close());

  async function wheel(slices: Record<string, unknown>[], settings: Record<string, unknown> = {}): Promise<number> {
    const answer = await server.call('POST', `/api/application/${APP}/widget`, {
      token: owner.token,
      body: { type: 'spin', name: 'Wheel', status: 'active', settings: { title: 'Spin!', slices, ...settings } },
    });
    if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
    return answer.body.data.id;
  }

  let visitors = 0;
  /** A spin from a new browser with a new email, unless told otherwise. */
  function spin(widgetId: number, body: Record<string, unknown> = {}, lang?: string) {
    visitors += 1;
    return server.call('POST', '/api/sdk/spin', {
      body: JSON.stringify({ key, widget_id: widgetId, visitor_id: `visitor-${visitors}-spin`, email: `spinner${visitors}@example.com`, ...body }),
      headers: { 'content-type': 'text/plain' },
      lang,
    });
  }

  async function spinsOf(widgetId: number) {
    return db(server).selectFrom('spins').selectAll().where('widget_id', '=', widgetId).execute();
  }

  it('holds the odds over 300 spins, gives codes to winners only, and every code once', async () => {
    const id = await wheel([
      { id: 'ten', label: '10% off', color: '#ff0000', weight: 5, code_prefix: 'TEN-' },
      { id: 'ship', label: 'Free shipping', color: '#00ff00', weight: 3, code_prefix: 'SHIP-' },
      { id: 'miss', label: 'Next time', color: '#999999', weight: 2, lose: true },
    ]);
    const counts: Record<string, number> = { ten: 0, ship: 0, miss: 0 };
    const codes: string[] = [];
    for (let i = 0; i < 300; i++) {
      const answer = await spin(id);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const result = answer.body.data;
      counts[result.slice_id] += 1;
      if (result.slice_id === 'miss') {
        expect(result).toEqual({ slice_id: 'miss', label: 'Next time', lose: true, code: null });
      } else {
        expect(result.lose).toBe(false);
        expect(result.code).toMatch(result.slice_id === 'ten' ? /^TEN-[A-Z2-9]{8}$/ : /^SHIP-[A-Z2-9]{8}$/);
        codes.push(result.code);
      }
    }
    expect(chiSquare([counts.ten, counts.ship, counts.miss], [5, 3, 2])).toBeLessThan(CHI_SQUARE_P001[2]);
    expect(new Set(codes).size).toBe(codes.length);
    // Every spin is a lead with its prize and code.
    const leads = await db(server).selectFrom('leads').select(['source', 'prize', 'code']).where('widget_id', '=', id).execute();
    expect(leads).toHaveLength(300);
    expect(leads.every((lead) => lead.source === 'spin')).toBe(true);
    expect(leads.filter((lead) => lead.code !== null).map((lead) => lead.code).sort()).toEqual([...codes].sort());
  });

  it('never hands out more than a slice’s stock, even to 50 spins at once', async () => {
    const id = await wheel([
      { id: 'gift', label: 'Gift', color: '#ff0000', weight: 1, stock: 5, code_prefix: 'GIFT-' },
      { id: 'miss', label: 'Next time', color: '#999999', weight: 0, lose: true },
    ]);
    const answers = await Promise.all(Array.from({ length: 50 }, () => spin(id)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const gifts = answers.filter((answer) => answer.body.data.slice_id === 'gift');
    expect(gifts).toHaveLength(5);
    expect(new Set(gifts.map((answer) => answer.body.data.code)).size).toBe(5);
    expect(answers.filter((answer) => answer.body.data.slice_id === 'miss')).toHaveLength(45);
    const stock = await db(server).selectFrom('spin_stock').selectAll().where('widget_id', '=', id).execute();
    expect(stock).toEqual([{ widget_id: id, slice_id: 'gift', given: 5 }]);
    expect((await spinsOf(id)).filter((row) => row.code !== null)).toHaveLength(5);
  });

  it('draws again over the rest when a prize runs out', async () => {
    const id = await wheel([
      { id: 'rare', label: 'Rare', color: '#ff0000', weight: 1000, stock: 2 },
      { id: 'common', label: 'Common', color: '#00ff00', weight: 1 },
    ]);
    const results = [];
    for (let i = 0; i < 12; i++) results.push((await spin(id)).body.data.slice_id);
    expect(results.filter((r) => r === 'rare')).toHaveLength(2);
    expect(results.slice(2).every((r) => r === 'common')).toBe(true);
  });

  it('answers CONFLICT when every prize is gone and the wheel has no losing slice', async () => {
    const id = await wheel([
      { id: 'one', label: 'One', color: '#ff0000', weight: 1, stock: 1 },
      { id: 'two', label: 'Two', color: '#00ff00', weight: 1, stock: 1 },
    ]);
    expect((await spin(id)).status).toBe(200);
    expect((await spin(id)).status).toBe(200);
    const third = await spin(id, {}, 'en');
    expect(third.status).toBe(409);
    expect(third.body).toEqual({ success: false, error: 'CONFLICT', message: 'All the prizes of this wheel have been given out' });
    expect(await spinsOf(id)).toHaveLength(2);
  });

  describe('one spin per visitor', () => {
    let id: number;
    beforeAll(async () => {
      id = await wheel([
        { id: 'gift', label: 'Gift', color: '#ff0000', weight: 1, stock: 100, code_prefix: 'ONE-' },
        { id: 'miss', label: 'Next time', color: '#999999', weight: 1, lose: true },
      ]);
    });

    it('answers a second spin from the same browser with the first result, whatever email it gives', async () => {
      const first = await spin(id, { visitor_id: 'visitor-repeat', email: 'first@example.com' });
      const again = await spin(id, { visitor_id: 'visitor-repeat', email: 'second@example.com' });
      expect(again.body).toEqual(first.body);
      const rows = await spinsOf(id);
      expect(rows.filter((row) => row.visitor_id === 'visitor-repeat')).toHaveLength(1);
      const leads = await db(server).selectFrom('leads').select('email').where('widget_id', '=', id).execute();
      expect(leads.map((lead) => lead.email)).not.toContain('second@example.com');
    });

    it('refuses the same email from another browser, however it is typed', async () => {
      await spin(id, { visitor_id: 'visitor-mail-a', email: 'same.person@example.com' });
      const other = await spin(id, { visitor_id: 'visitor-mail-b', email: '  Same.Person@EXAMPLE.com ' }, 'en');
      expect(other.status).toBe(409);
      expect(other.body).toEqual({
        success: false,
        error: 'CONFLICT',
        message: 'This email or phone number has already spun the wheel',
        fields: [{ path: 'email', message: 'This email or phone number has already spun the wheel' }],
      });
      const vi = await spin(id, { visitor_id: 'visitor-mail-c', email: 'same.person@example.com' });
      expect(vi.body.message).toBe('Email hoặc số điện thoại này đã quay rồi');
      expect((await spinsOf(id)).filter((row) => row.contact === 'same.person@example.com')).toHaveLength(1);
    });

    it('gives one result to ten spins from one browser at once, and takes one prize', async () => {
      const before = await db(server).selectFrom('spin_stock').select('given').where('widget_id', '=', id).executeTakeFirst();
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          server.call('POST', '/api/sdk/spin', { body: { key, widget_id: id, visitor_id: 'visitor-racing', email: `race${i}@example.com` } }),
        ),
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect(new Set(answers.map((answer) => JSON.stringify(answer.body.data))).size).toBe(1);
      expect((await spinsOf(id)).filter((row) => row.visitor_id === 'visitor-racing')).toHaveLength(1);
      const after = await db(server).selectFrom('spin_stock').select('given').where('widget_id', '=', id).executeTakeFirst();
      const won = answers[0].body.data.slice_id === 'gift' ? 1 : 0;
      expect((after?.given ?? 0) - (before?.given ?? 0)).toBe(won);
    });

    it('needs the gate’s contact: the email here, in the visitor’s language', async () => {
      const answer = await spin(id, { email: undefined }, 'en');
      expect(answer.body).toEqual({
        success: false,
        error: 'INVALID_PARAM',
        message: 'This field is required',
        fields: [{ path: 'email', message: 'This field is required' }],
      });
      const malformed = await spin(id, { email: 'nobody' }, 'en');
      expect(malformed.body.fields).toEqual([{ path: 'email', message: 'Please enter the correct email' }]);
    });
  });

  it('gates by phone when told to, one spin per number however it is written', async () => {
    const id = await wheel(
      [
        { id: 'gift', label: 'Gift', color: '#ff0000', weight: 1 },
        { id: 'miss', label: 'Next time', color: '#999999', weight: 0, lose: true },
      ],
      { gate: 'phone' },
    );
    const noPhone = await spin(id, {}, 'en');
    expect(noPhone.body.fields).toEqual([{ path: 'phone', message: 'This field is required' }]);
    expect((await spin(id, { phone: '0912 345 678' })).status).toBe(200);
    const again = await spin(id, { phone: '0912.345-678' }, 'en');
    expect(again.body).toMatchObject({ error: 'CONFLICT', fields: [{ path: 'phone' }] });
    // The same number in its international form, read in the application's country for phone numbers (Vietnam).
    for (const phone of ['+84 912 345 678', '84912345678', '0084 912 345 678']) {
      expect((await spin(id, { phone }, 'en')).body, phone).toMatchObject({ error: 'CONFLICT', fields: [{ path: 'phone' }] });
    }
    expect((await spinsOf(id)).map((row) => row.contact)).toEqual(['+84912345678']);
    // The lead keeps the number as the shopper wrote it.
    const lead = await db(server).selectFrom('leads').select(['phone', 'email']).where('widget_id', '=', id).execute();
    expect(lead).toEqual([{ phone: '0912 345 678', email: null }]);
    // A spin kept before numbers were kept international (without separators only) still counts.
    await db(server).updateTable('spins').set({ contact: '0912345678' }).where('widget_id', '=', id).execute();
    expect((await spin(id, { phone: '+84912345678' }, 'en')).body).toMatchObject({ error: 'CONFLICT' });
    expect((await spin(id, { phone: '0912 345 679' })).status).toBe(200);
  });

  it('answers a bot that filled the honeypot with a losing spin, and hands out and stores nothing', async () => {
    const id = await wheel([
      { id: 'gift', label: 'Gift', color: '#ff0000', weight: 1, stock: 1 },
      { id: 'miss', label: 'Next time', color: '#999999', weight: 0, lose: true },
    ]);
    const answer = await spin(id, { website: 'https://spam.example' });
    expect(answer.body).toEqual({ success: true, data: { slice_id: 'miss', label: 'Next time', lose: true, code: null } });
    expect(await spinsOf(id)).toEqual([]);
    expect(await db(server).selectFrom('spin_stock').selectAll().where('widget_id', '=', id).execute()).toEqual([]);
    expect((await spin(id)).body.data.slice_id).toBe('gift');
  });

  it('answers NOT_FOUND for a widget that is not a live spin wheel', async () => {
    const off = await server.call('POST', `/api/application/${APP}/widget`, {
      token: owner.token,
      body: { type: 'spin', name: 'Off', settings: { title: 'Off', slices: [{ id: 'a', label: 'A', color: '#000', weight: 1 }, { id: 'b', label: 'B', color: '#fff', weight: 1 }] } },
    });
    const form = await server.call('POST', `/api/application/${APP}/widget`, {
      token: owner.token,
      body: { type: 'contact', name: 'Form', status: 'active', settings: { title: 'Form' } },
    });
    for (const id of [off.body.data.id, form.body.data.id]) {
      const answer = await spin(id);
      expect(answer.status).toBe(404);
      expect(answer.body.error).toBe('NOT_FOUND');
    }
    const wrongKey = await server.call('POST', '/api/sdk/spin', {
      body: { key: '00000000000000000000000000000000', widget_id: form.body.data.id, visitor_id: 'visitor-wrong-key', email: 'w@example.com' },
    });
    expect(wrongKey.body.error).toBe('NOT_FOUND');
  });
});
