import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allowList } from './addresses';
import type { Lookup } from './guard';
import { postWebhook } from './send';

/** A local receiver: what came in, and how to answer the next request. */
let server: Server;
let port: number;
let received: { host: string | undefined; headers: IncomingMessage['headers']; body: string }[] = [];
let answer: (response: ServerResponse) => void = (response) => response.writeHead(204).end();

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ host: request.headers.host, headers: request.headers, body });
      answer(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  received = [];
  answer = (response) => response.writeHead(204).end();
});

/** A name server that answers each question from a list, in turn, and counts the questions. */
function scriptedLookup(...answers: string[][]): Lookup & { calls: number } {
  const lookup = Object.assign(
    async () => {
      const addresses = answers[Math.min(lookup.calls, answers.length - 1)];
      lookup.calls += 1;
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { calls: 0 },
  );
  return lookup;
}

const loopbackAllowed = allowList(['127.0.0.1']);
const send = (url: string, options: { lookup?: Lookup; allowed?: ReturnType<typeof allowList>; timeoutMs?: number } = {}) =>
  postWebhook(url, '{"type":"test"}', { 'webhook-id': 'msg_1' }, {
    allowed: options.allowed ?? loopbackAllowed,
    timeoutMs: options.timeoutMs ?? 2000,
    userAgent: 'Nudge-Webhooks/test',
    lookup: options.lookup,
  });

describe('postWebhook', () => {
  it('POSTs the body as JSON with the given headers and answers the status code', async () => {
    answer = (response) => response.writeHead(202).end('ok');
    const outcome = await send(`http://127.0.0.1:${port}/hook`);
    expect(outcome).toMatchObject({ statusCode: 202, error: null });
    expect(received).toHaveLength(1);
    expect(received[0].body).toBe('{"type":"test"}');
    expect(received[0].headers['content-type']).toBe('application/json');
    expect(received[0].headers['webhook-id']).toBe('msg_1');
    expect(received[0].headers['user-agent']).toBe('Nudge-Webhooks/test');
  });

  it('resolves the name once and connects to the address it checked, so a rebinding answer is never used', async () => {
    const lookup = scriptedLookup(['127.0.0.1'], ['10.0.0.1']);
    const outcome = await send(`http://hooks.example.test:${port}/hook`, { lookup });
    expect(outcome.statusCode).toBe(204);
    expect(lookup.calls).toBe(1);
    // The request still names the host it was written for.
    expect(received[0].host).toBe(`hooks.example.test:${port}`);
  });

  it('refuses a name that resolves to a private address, without connecting', async () => {
    const outcome = await send(`http://hooks.example.test:${port}/hook`, { lookup: scriptedLookup(['10.0.0.1']) });
    expect(outcome).toMatchObject({ statusCode: null, error: 'address_not_allowed' });
    expect(received).toHaveLength(0);
  });

  it('refuses a name with one private address among public ones', async () => {
    const outcome = await send(`http://hooks.example.test:${port}/hook`, { lookup: scriptedLookup(['93.184.216.34', '169.254.169.254']) });
    expect(outcome.error).toBe('address_not_allowed');
    expect(received).toHaveLength(0);
  });

  it('refuses loopback in every spelling when the allow-list does not name it', async () => {
    for (const url of [`http://127.0.0.1:${port}/`, `http://[::1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://0x7f.1:${port}/`]) {
      expect((await send(url, { allowed: allowList([]) })).error, url).toBe('address_not_allowed');
    }
    expect(received).toHaveLength(0);
  });

  it('says dns when the name has no address', async () => {
    const lookup: Lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect((await send('http://nowhere.example.test/', { lookup })).error).toBe('dns');
  });

  it('does not follow a redirect', async () => {
    answer = (response) => response.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
    const outcome = await send(`http://127.0.0.1:${port}/hook`);
    expect(outcome.statusCode).toBe(302);
    expect(received).toHaveLength(1);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    answer = () => undefined;
    const outcome = await send(`http://127.0.0.1:${port}/slow`, { timeoutMs: 300 });
    expect(outcome).toMatchObject({ statusCode: null, error: 'timeout' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(250);
  });

  it('says connection when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect((await send(`http://127.0.0.1:${freePort}/`)).error).toBe('connection');
  });

  it("reads a 429's Retry-After", async () => {
    answer = (response) => response.writeHead(429, { 'retry-after': '120' }).end();
    expect((await send(`http://127.0.0.1:${port}/`)).retryAfterMs).toBe(120_000);
  });
});
