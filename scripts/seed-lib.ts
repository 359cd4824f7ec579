import { sql, type Kysely } from 'kysely';
import { BUILTIN_EVENTS, inferValueType, SESSION_IDLE_MINUTES, type AttributeType, type ScalarValue } from '../shared/contract/audience';
import { dayAtOffset } from '../shared/format';
import type { Dialect } from '../server/db';
import type { Database } from '../server/db/schema';
import { bumpAudienceEpoch } from '../server/domain/audience-index';
import { insertRows, type Column, type Row } from '../server/db/rows';
import { EVENT_COLUMNS, upsertEventDefinitions } from '../server/domain/ingest';
import { ATTRIBUTE_COLUMNS, PLAYER_DAY_COLUMNS, defineSdkAttributes } from '../server/domain/players-write';
import { hashPassword } from '../server/security/passwords';
import { randomClientKey } from '../server/security/tokens';

/*
 * The audience seed generator behind `npm run seed` and the benchmarks: realistic players (countries weighted
 * towards Vietnam, devices, platforms, sessions and page views, last seen over 90 days, UTM, tags, attributes
 * including a `.date` one), their events, daily activity and event definitions. Bulk inserts in large
 * transactions (server/db/rows.ts: VALUES lists on SQLite, unnest arrays on PostgreSQL). Seeded data is marked:
 * device ids start with `seed-`, push endpoints point at the reserved `.invalid` domain.
 */

export interface SeedOptions {
  applicationId: string;
  players: number;
  /**
   * Average custom events per player (view_product, add_to_cart, purchase…), beside the session_start and
   * page_view events of its sessions (about 1.6 sessions and 3 page views a player). 0: players without any
   * activity. Default 3.
   */
  eventsPerPlayer?: number;
  /** How far back first sessions go. Default 90 days. */
  days?: number;
  now?: Date;
  /** The random generator's seed: the same seed gives the same data. */
  seed?: number;
  /** Players per transaction. */
  chunk?: number;
  onProgress?: (done: number, total: number) => void;
  /**
   * Web players' `scroll_depth` events, as the storefront SDK sends them: a page view scrolled to its first
   * quarter or further has one per quarter reached (depth 25, 50, 75, 100), about 1.5 a page view. Drawn from a
   * generator of their own, so everything else is the same with or without them. Default false: the benchmark
   * seeds leave them out (half again as many events).
   */
  scrollDepth?: boolean;
}

export interface SeedResult {
  players: number;
  events: number;
  playerDays: number;
  /** The first and last player ids inserted (ids are consecutive). */
  firstPlayerId: number;
  lastPlayerId: number;
  ms: number;
}

/** mulberry32: small, fast, seedable. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  /** Picks by weight from [value, weight] pairs. */
  const weighted = <T>(pairs: readonly (readonly [T, number])[]) => {
    const total = pairs.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = next() * total;
    for (const [value, weight] of pairs) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return pairs[pairs.length - 1][0];
  };
  return { next, int, pick, weighted };
}

const COUNTRIES = [
  // country, weight, language, timezone, offset (minutes east of UTC), cities
  ['VN', 45, 'vi', 'Asia/Ho_Chi_Minh', 420, ['Ho Chi Minh City', 'Hanoi', 'Da Nang', 'Hai Phong', 'Can Tho']],
  ['US', 14, 'en', 'America/New_York', -300, ['New York', 'Los Angeles', 'Chicago', 'Houston', 'Seattle']],
  ['TH', 7, 'th', 'Asia/Bangkok', 420, ['Bangkok', 'Chiang Mai']],
  ['ID', 6, 'id', 'Asia/Jakarta', 420, ['Jakarta', 'Surabaya']],
  ['PH', 5, 'en', 'Asia/Manila', 480, ['Manila', 'Cebu']],
  ['SG', 5, 'en', 'Asia/Singapore', 480, ['Singapore']],
  ['JP', 4, 'ja', 'Asia/Tokyo', 540, ['Tokyo', 'Osaka']],
  ['KR', 3, 'ko', 'Asia/Seoul', 540, ['Seoul', 'Busan']],
  ['IN', 4, 'en', 'Asia/Kolkata', 330, ['Mumbai', 'Bangalore', 'Delhi']],
  ['GB', 3, 'en', 'Europe/London', 0, ['London', 'Manchester']],
  ['DE', 2, 'de', 'Europe/Berlin', 60, ['Berlin', 'Munich']],
  ['AU', 2, 'en', 'Australia/Sydney', 600, ['Sydney', 'Melbourne']],
] as const;

const COUNTRY_WEIGHTS = COUNTRIES.map((entry) => [entry, entry[1]] as const);
const TAGS = ['vip', 'newsletter', 'wholesale', 'returning', 'cart_abandoner', 'tet_2025', 'loyal'] as const;
const UTM_SOURCES = [
  ['google', 'cpc'],
  ['facebook', 'social'],
  ['zalo', 'social'],
  ['tiktok', 'social'],
  ['newsletter', 'email'],
] as const;
const CAMPAIGNS = ['tet_sale', 'summer', 'black_friday', 'new_arrivals', 'retargeting'] as const;
const PRODUCTS = ['SHIRT-01', 'SHIRT-02', 'DRESS-10', 'SHOES-07', 'HAT-03', 'BAG-12', 'WATCH-05', 'JEANS-08'] as const;
const PAGES = ['/', '/collections/all', '/collections/sale', '/products/shirt', '/products/dress', '/cart', '/pages/about'] as const;
/** Custom events, by weight (page views come with the sessions: playerActivity). */
const EVENT_NAMES = [
  ['view_product', 20],
  ['add_to_cart', 14],
  ['search', 6],
  ['begin_checkout', 8],
  ['purchase', 7],
] as const;

const PLAYER_COLUMNS: Column[] = [
  ['id', 'bigint'],
  ['application_id', 'text'],
  ['device_id', 'text'],
  ['platform', 'text'],
  ['device_type', 'text'],
  ['device_token', 'text'],
  ['external_user_id', 'text'],
  ['email', 'text'],
  ['mobile_number', 'text'],
  ['os', 'text'],
  ['os_version', 'text'],
  ['browser', 'text'],
  ['app_version', 'text'],
  ['device_model', 'text'],
  ['language', 'text'],
  ['country', 'text'],
  ['city', 'text'],
  ['timezone', 'text'],
  ['timezone_offset', 'integer'],
  ['utm_source', 'text'],
  ['utm_medium', 'text'],
  ['utm_campaign', 'text'],
  ['first_session_at', 'text'],
  ['last_session_at', 'text'],
  ['last_seen_at', 'text'],
  ['session_count', 'integer'],
  ['page_views', 'integer'],
  ['subscribed', 'integer'],
  ['push_endpoint', 'text'],
  ['push_p256dh', 'text'],
  ['push_auth', 'text'],
  ['subscribed_at', 'text'],
  ['created_at', 'text'],
  ['updated_at', 'text'],
].map(([name, type]) => ({ name, type }) as Column);

const TAG_COLUMNS: Column[] = [
  { name: 'player_id', type: 'bigint' },
  { name: 'application_id', type: 'text' },
  { name: 'tag', type: 'text' },
];

const DAY_MS = 24 * 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A random whole number ≥ 0 with the given mean, most often 0 (geometric). */
function geometric(random: ReturnType<typeof generator>, mean: number): number {
  return Math.floor(-Math.log(1 - random.next() * 0.999) / Math.log(1 + 1 / mean));
}

/**
 * The least time from a session's last page view to the next session's start: the SDK starts a new session after
 * SESSION_IDLE_MINUTES without activity, and a custom event may come up to two minutes after the last page view.
 */
const SESSION_GAP_MS = (SESSION_IDLE_MINUTES + 3) * 60_000;

/** How many quarters of a page a visitor scrolls to (0 to 4), by weight. */
const QUARTERS_SCROLLED = [[0, 30], [1, 25], [2, 20], [3, 10], [4, 15]] as const;

/**
 * The times of one page view's scroll_depth events (one per quarter reached, in order): each a few seconds
 * after the one before, well before the next page view (at least 20 s later, see playerActivity).
 */
function scrollTimes(random: ReturnType<typeof generator>, pageAt: number, now: number): number[] {
  const times: number[] = [];
  let at = pageAt;
  for (let quarter = random.weighted(QUARTERS_SCROLLED); quarter > 0; quarter -= 1) times.push((at = Math.min(now, at + random.int(2, 4) * 1000)));
  return times;
}

/**
 * One player's sessions (start, page view times: the first at the start) and custom events (in which session,
 * when), between `created` and `now`. The first session starts when the player was first seen; later ones more
 * often lately, each at least SESSION_IDLE_MINUTES after the previous one's last activity (a later one would be
 * the same session); sessions that would start after `now` are not had. Sessions average about 1.6 a player, page
 * views 1.9 a session, custom events `customPerPlayer`.
 */
function playerActivity(random: ReturnType<typeof generator>, created: number, now: number, customPerPlayer: number) {
  const starts = [created];
  for (let more = geometric(random, 0.6); more > 0; more -= 1) starts.push(created + Math.floor(Math.pow(random.next(), 0.5) * (now - created)));
  starts.sort((a, b) => a - b);
  const sessions: { start: number; pages: number[] }[] = [];
  for (const wanted of starts) {
    const previous = sessions[sessions.length - 1];
    const start = previous ? Math.max(wanted, previous.pages[previous.pages.length - 1] + SESSION_GAP_MS) : wanted;
    if (start > now) break;
    const pages = [start];
    for (let more = geometric(random, 0.9); more > 0; more -= 1) pages.push(Math.min(now, pages[pages.length - 1] + random.int(20, 180) * 1000));
    sessions.push({ start, pages });
  }
  const custom: { session: number; at: number }[] = [];
  for (let count = random.int(0, customPerPlayer * 2); count > 0; count -= 1) {
    const session = random.int(0, sessions.length - 1);
    const { pages } = sessions[session];
    custom.push({ session, at: Math.min(now, pages[random.int(0, pages.length - 1)] + random.int(5, 120) * 1000) });
  }
  custom.sort((a, b) => a.at - b.at);
  return { sessions, custom };
}

/**
 * Inserts `players` new players (and their events, tags, attributes, daily activity) into an existing
 * application, with consecutive ids after the current largest. Event and attribute definitions are
 * upserted at the end. Returns counts and the id range.
 */
export async function seedAudience(db: Kysely<Database>, dialect: Dialect, options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const now = (options.now ?? new Date()).getTime();
  const historyMs = (options.days ?? 90) * DAY_MS;
  const eventsPerPlayer = options.eventsPerPlayer ?? 3;
  const chunk = options.chunk ?? 20_000;
  const random = generator(options.seed ?? 20_250_101);
  const scrollRandom = generator((options.seed ?? 20_250_101) ^ 0x5c5011);
  const app = options.applicationId;
  // The application's timezone: its days of activity are counted in it (an existing application may be on UTC+07:00).
  const { utc_offset: utcOffset } = await db.selectFrom('applications').select('utc_offset').where('application_id', '=', app).executeTakeFirstOrThrow();
  const run = `${Date.now().toString(36)}${Math.floor(random.next() * 1e6).toString(36)}`;

  // SQLite's default page cache (2 MB) makes every index insert of a large table a trip to the file; the
  // seed's indexes fit in a larger one. Restored at the end (benches seed through the app's own connection).
  let cacheSize: number | null = null;
  if (dialect === 'sqlite') {
    cacheSize = Number((await sql<{ cache_size: number }>`pragma cache_size`.execute(db)).rows[0]?.cache_size ?? -2000);
    await sql`pragma cache_size = -1048576`.execute(db);
  }
  const maxRow = await db.selectFrom('players').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  const firstId = Number(maxRow?.id ?? 0) + 1;
  const definitions = new Map<string, { count: number; first: string; last: string; properties: Record<string, AttributeType> }>();
  let events = 0;
  let playerDays = 0;
  const attributeTypes = new Map<string, AttributeType>();

  for (let offset = 0; offset < options.players; offset += chunk) {
    const count = Math.min(chunk, options.players - offset);
    const players: Row[] = [];
    const eventRows: Row[] = [];
    const dayRows: Row[] = [];
    const attributeRows: Row[] = [];
    const tagRows: Row[] = [];
    for (let index = 0; index < count; index += 1) {
      const id = firstId + offset + index;
      const [country, , language, timezone, tzOffset, cities] = random.weighted(COUNTRY_WEIGHTS);
      const platform = random.weighted([['web', 70], ['android', 18], ['ios', 12]] as const);
      const deviceType = platform === 'web' ? random.weighted([['mobile', 55], ['desktop', 45]] as const) : 'mobile';
      const os =
        platform === 'android' ? 'Android' : platform === 'ios' ? 'iOS' : deviceType === 'mobile' ? random.weighted([['Android', 60], ['iOS', 40]] as const) : random.weighted([['Windows', 65], ['macOS', 30], ['Linux', 5]] as const);
      const osVersion = os === 'Android' ? random.pick(['12', '13', '14', '15']) : os === 'iOS' ? random.pick(['16.7', '17.5', '18.1']) : os === 'Windows' ? random.pick(['10', '11']) : os === 'macOS' ? random.pick(['14.5', '15.1']) : null;
      const browser = platform === 'web' ? random.weighted([['Chrome', 62], ['Safari', 22], ['Edge', 9], ['Firefox', 7]] as const) : null;
      const appVersion = platform === 'web' ? null : random.pick(['2.1.0', '2.2.0', '2.3.1', '3.0.0']);
      const model = platform === 'android' ? random.pick(['SM-S918B', 'SM-A546E', 'Pixel 8', 'Redmi Note 13']) : platform === 'ios' ? random.pick(['iPhone14,5', 'iPhone15,2', 'iPhone16,1']) : null;

      // The player's activity, as the storefront SDK would have reported it: sessions (the first when the player
      // was first seen, later ones more often recent), a page view or more in each, and custom events in them.
      // Every session and page view is an event row too (session_start, page_view), as ingestion stores them, so
      // the counters, the daily activity and the events agree: the dashboard's page views are the page_view events.
      const created = now - Math.floor(random.next() * historyMs);
      const withUtm = random.next() < 0.4;
      const [utmSource, utmMedium] = withUtm ? random.pick(UTM_SOURCES) : [null, null];
      const utmCampaign = withUtm ? random.pick(CAMPAIGNS) : null;
      const activity = eventsPerPlayer > 0 ? playerActivity(random, created, now, eventsPerPlayer) : { sessions: [], custom: [] };
      // Each page view's scroll times (by session, then page), for the storefront's players.
      const scrolls = activity.sessions.map((session) => session.pages.map((at) => (options.scrollDepth && platform === 'web' ? scrollTimes(scrollRandom, at, now) : [])));
      const sessions = activity.sessions.length;
      const pageViews = activity.sessions.reduce((sum, session) => sum + session.pages.length, 0);
      const lastSeen = Math.max(created, ...activity.sessions.flatMap((session) => session.pages), ...scrolls.flat(2), ...activity.custom.map((event) => event.at));
      const firstSession = activity.sessions[0]?.start ?? null;
      const lastSession = activity.sessions[sessions - 1]?.start ?? null;
      const subscribed = random.next() < (platform === 'web' ? 0.55 : 0.3);
      const identified = random.next() < 0.2;
      players.push([
        id,
        app,
        `seed-${run}-${offset + index}`,
        platform,
        deviceType,
        // iOS tokens are hexadecimal, as APNs gives them and the device API requires (APNS_TOKEN_PATTERN).
        subscribed && platform !== 'web' ? (platform === 'ios' ? Buffer.from(`seed-${run}-${id}`).toString('hex').padEnd(64, '0') : `seed-token-${run}-${id}`) : null,
        identified ? `customer-${id}` : null,
        identified ? `customer${id}@example.com` : null,
        identified && random.next() < 0.5 ? `+849${String(10_000_000 + (id % 89_999_999)).padStart(8, '0')}` : null,
        os,
        osVersion,
        browser,
        appVersion,
        model,
        language,
        country,
        random.pick(cities),
        timezone,
        tzOffset,
        utmSource,
        utmMedium,
        utmCampaign,
        firstSession === null ? null : iso(firstSession),
        lastSession === null ? null : iso(lastSession),
        iso(lastSeen),
        sessions,
        pageViews,
        subscribed ? 1 : 0,
        subscribed && platform === 'web' ? `https://push.invalid/seed/${run}/${id}` : null,
        subscribed && platform === 'web' ? 'seed-p256dh' : null,
        subscribed && platform === 'web' ? 'seed-auth' : null,
        subscribed ? iso(created) : null,
        iso(created),
        iso(lastSeen),
      ]);

      // The event rows, and each day's sessions and page views, days in the application's timezone as ingestion
      // counts them; a day with events only is a day the player was active on.
      const perDay = new Map<string, { sessions: number; pageViews: number }>();
      const dayOf = (at: number) => {
        const day = dayAtOffset(at, utcOffset);
        let counts = perDay.get(day);
        if (!counts) perDay.set(day, (counts = { sessions: 0, pageViews: 0 }));
        return counts;
      };
      let eventNumber = 0;
      const addEvent = (name: string, properties: Record<string, ScalarValue>, session: number, at: number) => {
        const when = iso(at);
        eventRows.push([app, id, name, JSON.stringify(properties), `seed-${run}-${id}-${eventNumber}`, `seed-session-${id}-${session}`, when, when]);
        eventNumber += 1;
        const definition = definitions.get(name) ?? { count: 0, first: when, last: when, properties: {} };
        definition.count += 1;
        if (when < definition.first) definition.first = when;
        if (when > definition.last) definition.last = when;
        for (const [key, value] of Object.entries(properties)) definition.properties[key] ??= inferValueType(key, value);
        definitions.set(name, definition);
      };
      activity.sessions.forEach((session, number) => {
        // The landing UTM is the first session's (players.utm_*: "from the landing page of the first session").
        addEvent(BUILTIN_EVENTS.session, number === 0 && withUtm ? { utm_source: utmSource, utm_medium: utmMedium, utm_campaign: utmCampaign } : {}, number, session.start);
        dayOf(session.start).sessions += 1;
        session.pages.forEach((at, page) => {
          const url = `https://shop.example.com${random.pick(PAGES)}`;
          addEvent(BUILTIN_EVENTS.page, { url }, number, at);
          dayOf(at).pageViews += 1;
          // Counted on no counter, but the day is one the player was active on (as ingestion records it).
          scrolls[number][page].forEach((scrolledAt, quarter) => {
            addEvent(BUILTIN_EVENTS.scroll, { url, depth: (quarter + 1) * 25 }, number, scrolledAt);
            dayOf(scrolledAt);
          });
        });
      });
      for (const { session, at } of activity.custom) {
        const name = random.weighted(EVENT_NAMES);
        const sku = random.pick(PRODUCTS);
        const price = random.int(9, 250) * 10_000;
        const properties: Record<string, ScalarValue> =
          name === 'search'
            ? { query: random.pick(['ao so mi', 'vay', 'giay', 'tui xach', 'dong ho']) }
            : name === 'purchase'
              ? { order_id: `ORD-${id}-${eventNumber}`, total: price * random.int(1, 3), 'paid.date': iso(at) }
              : { sku, price, quantity: random.int(1, 3) };
        addEvent(name, properties, session, at);
        dayOf(at);
      }
      events += eventNumber;
      for (const [day, counts] of [...perDay].sort(([a], [b]) => (a < b ? -1 : 1))) dayRows.push([app, day, id, counts.sessions, counts.pageViews]);
      playerDays += perDay.size;

      const tagCount = random.next() < 0.3 ? random.int(1, 2) : 0;
      const tags = new Set<string>();
      while (tags.size < tagCount) tags.add(random.pick(TAGS));
      for (const tag of tags) tagRows.push([id, app, tag]);

      if (random.next() < 0.6) {
        const orders = random.int(0, 20);
        const signup = created - random.int(0, 400) * DAY_MS;
        const values: [string, ScalarValue, number | null][] = [
          ['plan', random.weighted([['free', 70], ['silver', 20], ['gold', 10]] as const), null],
          ['orders', orders, orders],
          ['lifetime_value', orders * random.int(10, 90) * 10_000, null],
          ['newsletter', random.next() < 0.4, null],
          ['signup.date', iso(signup), signup],
        ];
        for (const [name, value, number] of values) {
          attributeTypes.set(name, inferValueType(name, value));
          const numeric = typeof value === 'number' ? value : typeof value === 'boolean' ? (value ? 1 : 0) : number;
          attributeRows.push([id, app, name, String(value), numeric, iso(lastSeen)]);
        }
      }
    }

    await db.transaction().execute(async (trx) => {
      await insertRows(trx, dialect, 'players', PLAYER_COLUMNS, players);
      await insertRows(trx, dialect, 'events', EVENT_COLUMNS, eventRows);
      await insertRows(trx, dialect, 'player_days', PLAYER_DAY_COLUMNS, dayRows);
      await insertRows(trx, dialect, 'player_attributes', ATTRIBUTE_COLUMNS, attributeRows);
      await insertRows(trx, dialect, 'player_tags', TAG_COLUMNS, tagRows);
    });
    options.onProgress?.(offset + count, options.players);
  }

  // Ids were given explicitly: PostgreSQL's sequence must move past them.
  if (dialect === 'postgres' && options.players > 0) {
    await sql`select setval(pg_get_serial_sequence('players', 'id'), (select max(id) from players))`.execute(db);
  }

  const at = iso(now);
  await upsertEventDefinitions(
    db,
    dialect,
    [...definitions.entries()].map(([name, definition]) => ({ applicationId: app, name, ...definition })),
  );
  await defineSdkAttributes(
    db,
    dialect,
    [...attributeTypes.entries()].map(([name, type]) => ({ applicationId: app, name, type })),
    at,
  );
  // A bulk change behind a running server's back: its in-memory audience copy and the dashboard's kept days
  // start again (audience-index.ts, dashboard.ts).
  await bumpAudienceEpoch(db, app);

  if (cacheSize !== null) await sql.raw(`pragma cache_size = ${Math.trunc(cacheSize)}`).execute(db);

  return {
    players: options.players,
    events,
    playerDays,
    firstPlayerId: firstId,
    lastPlayerId: firstId + options.players - 1,
    ms: Date.now() - started,
  };
}

/**
 * The application to seed: reused when it exists, else created with an owner (reused by email, or created
 * verified with `password` so one can sign in and look). Returns its client key.
 */
export async function ensureSeedApplication(
  db: Kysely<Database>,
  options: { applicationId: string; email: string; password: string },
): Promise<{ clientKey: string; created: boolean }> {
  const existing = await db.selectFrom('applications').select('client_key').where('application_id', '=', options.applicationId).executeTakeFirst();
  if (existing) return { clientKey: existing.client_key, created: false };
  const now = new Date().toISOString();
  const email = options.email.trim().toLowerCase();
  let user = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (!user) {
    user = await db
      .insertInto('users')
      .values({
        email,
        name: 'Seed owner',
        password_hash: await hashPassword(options.password),
        mobile_number: null,
        agency: null,
        language: 'vi',
        email_verified_at: now,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  }
  const clientKey = randomClientKey();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('applications')
      // A new seed application is on UTC; seedAudience counts activity in the timezone of whichever it seeds.
      .values({ application_id: options.applicationId, name: `Seed ${options.applicationId}`, client_key: clientKey, created_by: user.id, created_at: now, updated_at: now, deleting_at: null, utc_offset: 0 })
      .execute();
    await trx
      .insertInto('memberships')
      .values({ application_id: options.applicationId, user_id: user.id, role: 'super_user', organization: null, permissions: '[]', invited_by: null, created_at: now })
      .execute();
  });
  return { clientKey, created: true };
}
