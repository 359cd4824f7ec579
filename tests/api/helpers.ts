import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { buildApp, type App, type AppDeps } from '../../server/app';
import { loadConfig, type Config } from '../../server/config';
import { migrateToLatest } from '../../server/db';
import type { ThrottleLimits } from '../../server/security/throttle';
import { linkParam, startSmtp, type ReceivedMail, type Smtp } from '../fakes/smtp';

export const PUBLIC_URL = 'http://console.nudge.test';
export const PASSWORD = 'correct horse 1';

/** A clock the tests move forward to expire codes, links and throttle windows. */
export interface TestClock {
  now(): Date;
  advance(ms: number): void;
}

function testClock(): TestClock {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => void (offset += ms) };
}

export interface Answer<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Accept-Language header; none by default (the server then speaks Vietnamese). */
  lang?: string;
  /** The caller's address, to keep per-IP throttles of different tests apart. */
  ip?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  app: App;
  smtp: Smtp;
  clock: TestClock;
  /** Every log line the server wrote, raw JSON. */
  logs: string[];
  dialect: 'sqlite' | 'postgres';
  config: Config;
  call<T = any>(method: string, url: string, options?: CallOptions): Promise<Answer<T>>;
  close(): Promise<void>;
}

export interface StartOptions {
  limits?: Partial<ThrottleLimits>;
  /** false: no SMTP_URL, so mail goes to the outbox table. */
  smtp?: boolean;
  env?: Record<string, string>;
  /** The prize draws' randomness (a seeded generator for reproducible statistics). */
  random?: AppDeps['random'];
}

/**
 * A fresh database for one test file: a temporary SQLite file (NUDGE_TEST_DB=sqlite), or a new schema on
 * TEST_DATABASE_URL (NUDGE_TEST_DB=postgres), dropped again by `drop`.
 */
async function freshDatabase(dataDir: string): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (process.env.NUDGE_TEST_DB !== 'postgres') return { env: {}, drop: async () => {} };
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('NUDGE_TEST_DB=postgres needs TEST_DATABASE_URL');
  const schema = `nudge_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    },
  };
}

/** The real server on a fresh database, mailing to a real local SMTP server; requests go through app.inject. */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nudge-api-'));
  const smtp = await startSmtp();
  const database = await freshDatabase(dataDir);
  const config = loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_URL,
    SECRET_KEY: 'test-secret-key-for-hmac-of-codes',
    LOG_LEVEL: 'info',
    STATIC_DIR: join(dataDir, 'no-console-here'),
    ...(options.smtp === false ? {} : { SMTP_URL: smtp.url }),
    ...database.env,
    ...options.env,
  });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const clock = testClock();
  const deps: AppDeps = { clock: clock.now, logStream, limits: options.limits, random: options.random };
  const app = buildApp(config, deps);
  await migrateToLatest({ kysely: app.services.db, dialect: app.services.dialect });
  await app.ready();

  return {
    app,
    smtp,
    clock,
    logs,
    config,
    dialect: app.services.dialect,
    async call(method, url, callOptions = {}) {
      const headers: Record<string, string> = { ...callOptions.headers };
      if (callOptions.token) headers['x-token'] = callOptions.token;
      if (callOptions.lang) headers['accept-language'] = callOptions.lang;
      const response = await app.inject({
        method: method as 'GET',
        url,
        headers,
        remoteAddress: callOptions.ip ?? '127.0.0.1',
        ...(callOptions.body !== undefined ? { payload: callOptions.body as object } : {}),
      });
      let body: unknown = response.body;
      if (String(response.headers['content-type'] ?? '').includes('json')) body = response.json();
      return { status: response.statusCode, headers: response.headers, body: body as any };
    },
    async close() {
      await app.close();
      await smtp.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The test server's database, to set up what no API reaches yet (platform admins) and to check what changed. */
export function db(server: TestServer) {
  return server.app.services.db;
}

let counter = 0;
/** A fresh, unique address for this test run. */
export function newEmail(label = 'user'): string {
  counter += 1;
  return `${label}.${counter}.${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export interface TestUser {
  id: number;
  email: string;
  name: string;
  password: string;
  token: string;
}

/** True for a mail carrying an /auth-redirect link (verification or reset). */
export const hasAuthLink = (mail: ReceivedMail) => linkParam(mail, 'hash') !== null;

/** Registers through the API, opens the emailed verification link, and returns the signed-in user. */
export async function createUser(
  server: TestServer,
  options: { email?: string; name?: string; password?: string; admin?: boolean } = {},
): Promise<TestUser> {
  const email = options.email ?? newEmail();
  const name = options.name ?? email.split('@')[0];
  const password = options.password ?? PASSWORD;
  const registered = await server.call('POST', '/api/user/register', { body: { name, email, password } });
  if (registered.status !== 200) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
  const mail = await server.smtp.waitFor(email, hasAuthLink);
  const verified = await server.call('POST', '/api/user/verify', { body: { hash: linkParam(mail, 'hash') } });
  if (verified.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verified.body)}`);
  if (options.admin) await db(server).updateTable('users').set({ is_admin: 1 }).where('id', '=', registered.body.data.id).execute();
  return { id: registered.body.data.id, email, name, password, token: verified.body.data.auth_token };
}

/** Creates an application owned by `owner` (its super_user). */
/**
 * Creates an application through the API. Its timezone is UTC unless given (`utcOffset`, minutes east of UTC):
 * tests that count days write them as UTC days, whatever the hour they run at.
 */
export async function createApplication(server: TestServer, owner: TestUser, applicationId: string, name = `App ${applicationId}`, utcOffset = 0) {
  const answer = await server.call('POST', '/api/application', { token: owner.token, body: { application_id: applicationId, name, utc_offset: utcOffset } });
  if (answer.status !== 200) throw new Error(`create application failed: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

/** Adds an existing user to an application with a role, through the owner's invitation call. */
export async function addMember(server: TestServer, owner: TestUser, applicationId: string, member: { email: string }, role: string) {
  const answer = await server.call('POST', `/api/application/${applicationId}/user`, {
    token: owner.token,
    body: { email: member.email, role },
  });
  if (answer.status !== 200) throw new Error(`invite failed: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

/** Counts rows of a table matching a column value; for "changes nothing" checks. */
export async function countRows(server: TestServer, table: 'sessions' | 'memberships' | 'users' | 'applications', where?: [string, unknown]) {
  let query = db(server).selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
  if (where) query = query.where(where[0] as any, '=', where[1] as any);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

