/**
 * Runs one provider fake in its own process for the benchmarks, so the sender's process is what is
 * measured. Started by `startFakeProcess(kind, targets)`; answers its connection details over IPC and, on
 * request, how many messages it accepted and its CPU time. Also the benchmarks' shared measuring helpers:
 * `drive`, `rateLine`, `cpuTimeMs`, `ecdhWay`, `collectGarbage`, `quantile`, `machineCpuSince`, `serverNodeFlags`, `serverFlagsNote`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { P256_NATIVE } from '../../server/delivery/senders/p256';

export type FakeKind = 'webpush' | 'fcm' | 'apns';

export interface FakeStats {
  accepted: number;
  cpuMs: number;
}

let gc: (() => void) | undefined;

/** A full garbage collection (two passes, so objects freed by finalisation go too) before a memory reading. */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  gc();
}

/**
 * The Node.js flags the server runs with (package.json `config.server_node_flags`, which `npm start`, `serve` and `dev`
 * pass to it): `npm run bench` runs every benchmark with them, since they measure the server as it runs.
 */
export function serverNodeFlags(): string[] {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { config?: { server_node_flags?: string } };
  return (manifest.config?.server_node_flags ?? '').split(/\s+/).filter(Boolean);
}

/** A line to print when this process lacks some of serverNodeFlags (a benchmark run alone with `npx tsx`); null when it has them. */
export function serverFlagsNote(): string | null {
  const missing = serverNodeFlags().filter((flag) => !process.execArgv.includes(flag));
  if (missing.length === 0) return null;
  return `NOTE: this process runs without the server's ${missing.join(' ')} (package.json config.server_node_flags): its figures are not the server's as it runs. Run it through \`npm run bench\`, or as \`node ${missing.join(' ')} --import tsx ${process.argv[1] ?? ''}\`.`;
}

/** CPU time, ms: of this process so far, or of a `process.cpuUsage(since)` difference. */
export const cpuTimeMs = (usage: NodeJS.CpuUsage = process.cpuUsage()) => (usage.user + usage.system) / 1000;

/** Which ECDH the web push encryption of this process runs (server/delivery/senders/p256), for the bench lines. */
export const ecdhWay = () => (P256_NATIVE ? 'the P-256 addon' : 'node:crypto (the addon is not built, or NUDGE_P256=node)');

/** The value at quantile `q` (0.99: p99) of values sorted ascending, by nearest rank; 0 when there are none. */
export const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** How a machine's cores spent a span: shares (0–1) of their time. */
export interface MachineShare {
  /** Running anything: user, nice, system, interrupts. */
  busy: number;
  /** Stolen by the hypervisor: a virtual machine's cores lent to its neighbours, time it wanted and did not get. */
  steal: number;
  /** Idle with a disk read or write outstanding. */
  iowait: number;
  idle: number;
}

/**
 * Starts counting how the machine's cores spend their time (/proc/stat's `cpu` line, every core, every process);
 * the function returned gives the shares since, or null off Linux. Beside a process's CPU per request it says
 * whether a benchmark that missed was held by its processes' own work (cores busy), by the host (steal), or by
 * waiting (idle).
 */
export function machineCpuSince(): () => MachineShare | null {
  const read = () => {
    try {
      const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
      // user nice system idle iowait irq softirq steal (guest time is already inside user).
      const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
      return { busy: user + nice + system + irq + softirq, steal, iowait, idle };
    } catch {
      return null;
    }
  };
  const start = read();
  return () => {
    const end = read();
    if (!start || !end) return null;
    const delta = { busy: end.busy - start.busy, steal: end.steal - start.steal, iowait: end.iowait - start.iowait, idle: end.idle - start.idle };
    const total = Math.max(1, delta.busy + delta.steal + delta.iowait + delta.idle);
    return { busy: delta.busy / total, steal: delta.steal / total, iowait: delta.iowait / total, idle: delta.idle / total };
  };
}

export interface FakeProcess<Info> {
  info: Info;
  /**
   * How many messages the fake has accepted so far, and the CPU time its process has used, ms (it shares the
   * machine's cores with the sender).
   */
  stats(): Promise<FakeStats>;
  stop(): Promise<void>;
}

/** Forks this file as a child running the fake of `kind` with `targets` subscriptions/devices. */
export function startFakeProcess<Info>(kind: FakeKind, targets: number): Promise<FakeProcess<Info>> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [kind, String(targets)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let waiting: ((stats: FakeStats) => void)[] = [];
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`fake ${kind} exited with ${code}`)));
    child.on('message', (msg: { type: string; info?: Info; stats?: FakeStats }) => {
      if (msg.type === 'ready') {
        resolve({
          info: msg.info as Info,
          stats: () =>
            new Promise<FakeStats>((done) => {
              waiting.push(done);
              child.send({ type: 'stats' });
            }),
          stop: () =>
            new Promise<void>((done) => {
              child.removeAllListeners('exit');
              child.once('exit', () => done());
              child.kill();
            }),
        });
      } else if (msg.type === 'stats') {
        const list = waiting;
        waiting = [];
        for (const done of list) done(msg.stats as FakeStats);
      }
    });
  });
}

async function main(kind: FakeKind, targets: number): Promise<void> {
  let info: unknown;
  let count: () => number;
  if (kind === 'webpush') {
    const fake = await (await import('../fakes/webpush')).start({ record: false });
    info = { url: fake.url, ca: fake.ca, subscriptions: Array.from({ length: targets }, () => fake.createSubscription()) };
    count = fake.count;
  } else if (kind === 'fcm') {
    const fake = await (await import('../fakes/fcm')).start({ record: false });
    info = { url: fake.url, serviceAccount: fake.serviceAccount, tokens: Array.from({ length: targets }, () => fake.registerToken()) };
    count = fake.count;
  } else {
    const fake = await (await import('../fakes/apns')).start({ record: false });
    info = { host: fake.host, port: fake.port, ca: fake.ca, topic: fake.topic, tokenKey: fake.tokenKey, devices: Array.from({ length: targets }, () => fake.registerDevice()) };
    count = fake.count;
  }
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'stats') process.send!({ type: 'stats', stats: { accepted: count(), cpuMs: cpuTimeMs() } satisfies FakeStats });
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ type: 'ready', info });
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  main(process.argv[2] as FakeKind, Number(process.argv[3] ?? 1000));
}

/**
 * Runs up to `total` calls of `fn` with at most `window` in flight, starting none after `maxMs` so a slow
 * machine can't make the bench run long; answers how many ran, elapsed ms and failures.
 */
export async function drive(total: number, window: number, fn: (i: number) => Promise<boolean>, maxMs = 8_000): Promise<{ done: number; ms: number; failed: number }> {
  let next = 0;
  let failed = 0;
  const began = performance.now();
  async function lane(): Promise<void> {
    while (next < total && performance.now() - began < maxMs) {
      const i = next++;
      if (!(await fn(i).catch(() => false))) failed += 1;
    }
  }
  await Promise.all(Array.from({ length: Math.min(window, total) }, lane));
  return { done: next, ms: performance.now() - began, failed };
}

/** Formats a rate line: name, messages/s, target. */
export function rateLine(name: string, total: number, ms: number, target: string): string {
  return `${name.padEnd(44)} ${String(Math.round((total / ms) * 1000)).padStart(7)} msg/s  (${total} in ${Math.round(ms)} ms; target ${target})`;
}
