import { connect, type Socket } from 'node:net';
import { cpuTimeMs } from './fake-process';

/**
 * The ingestion benchmark's load generator, run in its own process so it does not share the server's event
 * loop: keep-alive connections to 127.0.0.1, each sending its next request as soon as the previous answer
 * arrives (closed loop), hand-written HTTP/1.1 to spend as little CPU as possible on the client side.
 * Every event carries a fresh client id, so the server must store each one.
 *
 * Input (argv[2], JSON): { port, key, mode: 'batch' | 'single', seconds, connections, visitors, prefix }.
 * Output (stdout, JSON): requests, events acknowledged, statuses, latency percentiles (ms), elapsed seconds, and
 * the CPU time this process used (ms).
 */
interface Input {
  port: number;
  key: string;
  mode: 'batch' | 'single';
  seconds: number;
  connections: number;
  visitors: number;
  prefix: string;
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input;
const perRequest = input.mode === 'batch' ? 10 : 1;
const names = ['page_view', 'view_product', 'add_to_cart', 'purchase', 'search'];
let counter = 0;

function body(): string {
  const visitor = `${input.prefix}-v${(counter % input.visitors).toString().padStart(6, '0')}`;
  const at = Date.now();
  const items: string[] = [];
  for (let index = 0; index < perRequest; index += 1) {
    counter += 1;
    items.push(
      `{"type":"event","id":"${input.prefix}-e${counter.toString().padStart(8, '0')}","at":${at},"session_id":"s-${visitor}","name":"${names[counter % names.length]}","properties":{"sku":"SKU-${counter % 50}","price":${(counter % 90) * 10000}}}`,
    );
  }
  return `{"key":"${input.key}","visitor_id":"${visitor}","device":{"platform":"web","device_type":"mobile","os":"Android","browser":"Chrome","language":"vi","country":"VN"},"items":[${items.join(',')}]}`;
}

const latencies: number[] = [];
const statuses: Record<string, number> = {};
let acknowledged = 0;
let requests = 0;
const deadline = Date.now() + input.seconds * 1000;
const started = Date.now();

function run(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    let buffer = '';
    let sentAt = 0;
    const send = () => {
      if (Date.now() >= deadline) {
        socket.end();
        resolve();
        return;
      }
      const payload = body();
      sentAt = performance.now();
      socket.write(
        `POST /api/sdk/track HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain;charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
      );
    };
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
        latencies.push(performance.now() - sentAt);
        requests += 1;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === '200') acknowledged += perRequest;
        send();
      }
    });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('connect', send);
  });
}

const sockets = Array.from({ length: input.connections }, () => connect({ port: input.port, host: '127.0.0.1', noDelay: true }));
await Promise.all(sockets.map(run));
const elapsed = (Date.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(
  JSON.stringify({ requests, acknowledged, statuses, elapsed, p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] ?? 0, cpuMs: cpuTimeMs() }),
);
