import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startSmtp } from '../fakes/smtp';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'screenshots');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export type Smtp = Awaited<ReturnType<typeof startSmtp>>;

/** The real server (`tsx server/main.ts`) on a fresh SQLite directory, mailing to a local SMTP server. */
export interface Stack {
  url: string;
  /** DATA_DIR of the server: its SQLite file is `nudge.db` there. */
  dataDir: string;
  /** Reads the server's SQLite file as the server has it now (opened read-only for `read` alone, then closed). */
  readDatabase<T>(read: (db: Database.Database) => T): T;
  smtp: Smtp;
  browser: Browser;
  /**
   * Stops the server and starts it again on the same data, its clock `clockAheadMs` ahead of the machine's (by
   * libfaketime, Debian's faketime: the process, its scheduler and every date it writes live on that later day).
   */
  restart(options?: { clockAheadMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The library Debian's `faketime` command (package faketime, which `npm test` installs beside Chromium when missing)
 * preloads, as that command names it (`/usr/$LIB/faketime/libfaketime.so.1`, the loader expanding $LIB): the server is
 * started with it directly rather than under the command, which runs its program as a child that a signal to it would
 * leave running. Undefined when the command is missing.
 */
function faketimeLibrary(): string | undefined {
  const probe = spawnSync('faketime', ['-f', '+0', 'printenv', 'LD_PRELOAD'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() || undefined : undefined;
}

async function waitUntilUp(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}\n${log()}`);
    try {
      const response = await fetch(`${url}/api/docs/json`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server did not answer within 60 s\n${log()}`);
}

/** `port` lets a caller that must name the server's URL before it starts (a fake platform) choose it. */
export async function startStack(extraEnv: Record<string, string> = {}, port?: number): Promise<Stack> {
  const smtp = await startSmtp();
  port ??= await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'nudge-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SMTP_URL: smtp.url,
    PUBLIC_URL: url,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const launch = async (clockAheadMs = 0) => {
    let launchEnv = env;
    if (clockAheadMs) {
      const library = faketimeLibrary();
      if (!library) throw new Error("the faketime command is missing: install Debian's faketime (apt-get install -y faketime); npm test does when root");
      // Only the wall clock: timers and the event loop keep the machine's steady clock.
      launchEnv = { ...env, LD_PRELOAD: library, FAKETIME: `+${Math.round(clockAheadMs / 1000)}`, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
    }
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env: launchEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    await waitUntilUp(url, child, () => output);
    return child;
  };
  const halt = async (child: ChildProcess) => {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  };
  let server = await launch();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    url,
    dataDir,
    readDatabase(read) {
      const db = new Database(join(dataDir, 'nudge.db'), { readonly: true, fileMustExist: true });
      try {
        return read(db);
      } finally {
        db.close();
      }
    },
    smtp,
    browser,
    async restart({ clockAheadMs = 0 } = {}) {
      await halt(server);
      server = await launch(clockAheadMs);
    },
    async stop() {
      await browser.close().catch(() => undefined);
      await halt(server);
      await smtp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 812 };

export async function newPage(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, locale: 'vi-VN' });
  const page = await context.newPage();
  return { context, page };
}

/**
 * Saves a full-page screenshot under test-results/screenshots, once running transitions have ended. From the top of
 * the page: scrolled (a field focused further down), the full page would show the sticky top bar over its middle.
 */
export async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await settled(page);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Changes the viewport and waits for the layout's transitions (the sidebar sliding away) to finish. */
export async function resize(page: Page, viewport: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  await settled(page);
}

/** Waits for the page's running CSS transitions (a switch's knob, a drawer) to finish, so a screenshot shows the end state. */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    // Only transitions end; a spinner's animation runs forever. Bounded in case one never settles.
    const transitions = document.getAnimations().filter((animation) => animation instanceof CSSTransition);
    await Promise.race([
      Promise.all(transitions.map((animation) => animation.finished.catch(() => undefined))),
      new Promise((r) => setTimeout(r, 2000)),
    ]);
  });
}

/** Registers and verifies an account through the real API and the SMTP server; answers its token. */
export async function createAccount(stack: Stack, name: string, email: string, password: string): Promise<string> {
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${stack.url}/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { 'X-Token': token } : {}) },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<{ success: boolean; data: Record<string, unknown> }>);
  const registered = await post('/user/register', { name, email, password });
  if (!registered.success) throw new Error(`register: ${JSON.stringify(registered)}`);
  const { firstLink } = await import('../fakes/smtp');
  const link = firstLink(await stack.smtp.waitFor(email));
  const hash = new URL(link!).searchParams.get('hash');
  const verified = await post('/user/verify', { hash });
  if (!verified.success) throw new Error(`verify: ${JSON.stringify(verified)}`);
  return verified.data.auth_token as string;
}

/** One call of the API with a token; answers the parsed envelope. */
export async function api(stack: Stack, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.url}/api${path}`, {
    method,
    headers: { 'X-Token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as { success: boolean; data?: any; error?: string; message?: string; fields?: { path: string; message: string }[] };
}

/**
 * One call of the public REST device API, as a shop's app or server makes it with the application's client key, which
 * must succeed; answers its data.
 */
export async function deviceApi<T = any>(stack: Stack, clientKey: string, method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${stack.url}/api${path}`, {
    method,
    headers: { authorization: `Key ${clientKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { success: boolean; data: T };
  if (!answer.success) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
  return answer.data;
}

/** Signs in through the console's login page (in Vietnamese, its default) and waits for the application list. */
export async function signIn(page: Page, stack: Stack, email: string, password: string): Promise<void> {
  await page.goto(`${stack.url}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mật khẩu').fill(password);
  await page.getByRole('button', { name: 'Đăng nhập', exact: true }).click();
  await page.waitForURL(/\/application$/);
}
