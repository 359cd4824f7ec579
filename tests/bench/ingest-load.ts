import { connect, type Socket } from 'node:net';
import { cpuTimeMs, machineCpuSince, quantile } from './fake-process';

/**
 * The ingestion benchmark's load generator, run in its own process so it does not share the server's event
 * loop: keep-alive connections to 127.0.0.1, hand-written HTTP/1.1 to spend as little CPU as possible on the
 * client side. Every event carries a fresh client id, so the server must store each one. Two ways to send:
 * - closed loop (no `rate`): each connection sends its next request as soon as the previous answer arrives,
 *   which measures the most the server sustains (its latency then is only the connections' count divided by
 *   the throughput);
 * - open loop (`rate` requests/s): requests are due at a fixed pace whatever the answers do, each sent on the
 *   first free connection, and its latency counts from when it was due, not from when a connection was free
 *   (a server falling behind shows as growing latency, not as a slower pace: no coordinated omission). This is
 *   the latency at a given load. The pace starts once every connection is up.
 *
 * Every run's visitors are its own (ids from `prefix`), so each one's first request creates a player: closed loop,
 * the visitors take turns from the start; open loop, they appear evenly over the run (see `nextVisitor`). A visitor's
 * first request carries its device facts, the others not, as the storefront SDK sends them (see `sentDevice`).
 *
 * Input (argv[2], JSON): { port, key, mode: 'batch' | 'single', seconds, connections, visitors, prefix, rate? }.
 * Output (stdout, JSON): requests answered, events acknowledged, statuses, latency percentiles (ms), elapsed
 * seconds, requests due (open loop: how many the pace called for), the p99 of the pace timer's own lateness (open
 * loop; 0 in a closed loop), the CPU time this process used (ms), and how the machine's cores spent the run
 * (busy, stolen, waiting on the disk, idle: machineCpuSince; null off Linux).
 */
interface Input {
  port: number;
  key: string;
  mode: 'batch' | 'single';
  seconds: number;
  connections: number;
  visitors: number;
  prefix: string;
  rate?: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input;
const perRequest = input.mode === 'batch' ? 10 : 1;
const names = ['page_view', 'view_product', 'add_to_cart', 'purchase', 'search'];
let counter = 0;
let requestNumber = 0;
let introduced = 0;

/**
 * The visitor of the next request (0 … visitors - 1). Closed loop: the visitors in turn. Open loop: the run's
 * visitors appear evenly over it, a new one every (requests due in the run / visitors) requests, the others
 * being those already seen, in turn. A shop's traffic at a steady rate mixes new devices, whose first request
 * also creates their player, with returning ones; it does not begin with every device new at once.
 */
function nextVisitor(): number {
  const number = requestNumber;
  requestNumber += 1;
  if (!input.rate) return number % input.visitors;
  const due = Math.min(input.visitors, Math.floor((number * input.visitors) / (input.rate * input.seconds)) + 1);
  if (introduced < due) {
    introduced += 1;
    return introduced - 1;
  }
  return number % introduced;
}

/**
 * The visitors that have sent their device facts. As the storefront SDK does (storefront-widgets/sdk/track.ts,
 * SENT_DEVICE), a visitor's first batch of a session carries them and the others do not; a run is one session of
 * each visitor.
 */
const sentDevice = new Set<number>();

function body(): string {
  const number = nextVisitor();
  const visitor = `${input.prefix}-v${number.toString().padStart(6, '0')}`;
  const device = sentDevice.has(number) ? '' : '"device":{"platform":"web","device_type":"mobile","os":"Android","browser":"Chrome","language":"vi","country":"VN"},';
  sentDevice.add(number);
  const at = Date.now();
  const items: string[] = [];
  for (let index = 0; index < perRequest; index += 1) {
    counter += 1;
    items.push(
      `{"type":"event","id":"${input.prefix}-e${counter.toString().padStart(8, '0')}","at":${at},"session_id":"s-${visitor}","name":"${names[counter % names.length]}","properties":{"sku":"SKU-${counter % 50}","price":${(counter % 90) * 10000}}}`,
    );
  }
  return `{"key":"${input.key}","visitor_id":"${visitor}",${device}"items":[${items.join(',')}]}`;
}

const latencies: number[] = [];
/**
 * Open loop: how long after falling due each request was seen to be due, by the pace timer: this process's own
 * delay (its event loop busy, or the process waiting for a core). Waiting for a free connection is not in it.
 */
const lateness: number[] = [];
const statuses: Record<string, number> = {};
let acknowledged = 0;
let requests = 0;
let due = 0;
/** When the run began (open loop: once every connection is up, see openLoop), and when it ends. */
let started = performance.now();
let deadline = started + input.seconds * 1000;
/** How the machine's cores spend the run, counted from when it began (see `started`). */
let machine = machineCpuSince();

/**
 * One keep-alive connection: `send` writes a request, `onAnswer` hears each answer's status. One request at a
 * time per connection (no pipelining), as browsers and the SDK do.
 */
function connection(onAnswer: (status: string) => void): { socket: Socket; send(): void } {
  const socket = connect({ port: input.port, host: '127.0.0.1', noDelay: true });
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const match = /content-length:\s*(\d+)/i.exec(buffer.slice(0, headerEnd));
      const length = match ? Number(match[1]) : 0;
      if (buffer.length < headerEnd + 4 + length) return;
      const status = buffer.slice(9, 12);
      buffer = buffer.slice(headerEnd + 4 + length);
      requests += 1;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === '200') acknowledged += perRequest;
      onAnswer(status);
    }
  });
  return {
    socket,
    send() {
      const payload = body();
      socket.write(
        `POST /api/sdk/track HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain;charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
      );
    },
  };
}

/** Closed loop: every connection sends again as soon as it is answered, until the deadline. */
function closedLoop(): Promise<void>[] {
  return Array.from({ length: input.connections }, () => {
    return new Promise<void>((resolve) => {
      let sentAt = 0;
      const send = () => {
        if (performance.now() >= deadline) {
          link.socket.end();
          resolve();
          return;
        }
        sentAt = performance.now();
        due += 1;
        link.send();
      };
      const link = connection(() => {
        latencies.push(performance.now() - sentAt);
        send();
      });
      link.socket.on('error', () => resolve());
      link.socket.on('close', () => resolve());
      link.socket.on('connect', send);
    });
  });
}

/** Open loop: `rate` requests a second, due at a fixed pace, on the first free connection. */
function openLoop(rate: number): Promise<void>[] {
  type Link = ReturnType<typeof connection> & { dueAt: number };
  const links: Link[] = [];
  const free: Link[] = [];
  // Times the requests fell due, waiting for a free connection: a queue read from `head`.
  const waiting: number[] = [];
  let head = 0;
  let paced = false;
  let closed = false;
  const dispatch = () => {
    while (head < waiting.length && free.length > 0) {
      const link = free.pop() as Link;
      link.dueAt = waiting[head];
      head += 1;
      link.send();
    }
    // The pace is over and every request answered: close.
    if (paced && head === waiting.length && free.length === links.length && !closed) {
      closed = true;
      for (const link of links) link.socket.end();
    }
  };
  // The pace starts once every connection is up: requests falling due while this process is still connecting
  // would wait for it, not for the server.
  let connected = 0;
  let begun = false;
  const begin = () => {
    if (begun || connected < links.length) return;
    begun = true;
    started = performance.now();
    deadline = started + input.seconds * 1000;
    machine = machineCpuSince();
    // Every millisecond, queue the requests that fell due since (a late timer queues several at once).
    const pace = setInterval(() => {
      const now = performance.now();
      const until = Math.min(now, deadline);
      for (let dueAt = started + (due * 1000) / rate; dueAt <= until; dueAt = started + (due * 1000) / rate) {
        waiting.push(dueAt);
        lateness.push(now - dueAt);
        due += 1;
      }
      if (until >= deadline) {
        clearInterval(pace);
        paced = true;
      }
      dispatch();
    }, 1);
  };
  return Array.from({ length: input.connections }, () => {
    return new Promise<void>((resolve) => {
      const link: Link = Object.assign(
        connection(() => {
          latencies.push(performance.now() - link.dueAt);
          free.push(link);
          dispatch();
        }),
        { dueAt: 0 },
      );
      links.push(link);
      const gone = () => {
        // A connection lost (the server closed it, or refused it) is no longer waited for.
        if (links.includes(link)) links.splice(links.indexOf(link), 1);
        if (free.includes(link)) free.splice(free.indexOf(link), 1);
        resolve();
        begin();
        dispatch();
      };
      link.socket.on('error', gone);
      link.socket.on('close', gone);
      link.socket.on('connect', () => {
        free.push(link);
        connected += 1;
        begin();
      });
    });
  });
}

await Promise.all(input.rate ? openLoop(input.rate) : closedLoop());
const elapsed = (performance.now() - started) / 1000;
const machineShare = machine();
latencies.sort((a, b) => a - b);
lateness.sort((a, b) => a - b);
process.stdout.write(
  JSON.stringify({
    requests,
    acknowledged,
    statuses,
    elapsed,
    due,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? 0,
    lateP99: quantile(lateness, 0.99),
    cpuMs: cpuTimeMs(),
    machine: machineShare,
  }),
);
