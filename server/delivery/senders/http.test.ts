import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen, readBody } from '../../../tests/fakes/http-util';
import { HttpClient } from './http';

let server: Server;
let url = '';
let received = 0;

beforeAll(async () => {
  // /echo answers the method, a header and the body; /slow answers after 2 s; /split answers in three chunks.
  server = createServer(async (req, res) => {
    const body = await readBody(req);
    received += 1;
    if (req.url === '/slow') {
      const timer = setTimeout(() => res.end('late'), 2_000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (req.url === '/split') {
      res.writeHead(503, { 'retry-after': '7', 'set-cookie': ['a=1', 'b=2'] });
      res.write('{"error":');
      setTimeout(() => res.write('"busy"'), 5);
      setTimeout(() => res.end('}'), 10);
      return;
    }
    res.writeHead(201, { 'content-type': 'text/plain', 'x-got': String(req.headers['x-test']) });
    res.end(`${req.method} ${body.toString()}`);
  });
  url = `http://127.0.0.1:${await listen(server)}`;
});
afterAll(() => closeServer(server));

describe('HttpClient', () => {
  it('answers status, lower-case headers and the whole body, over one pool per origin', async () => {
    const http = new HttpClient({ connections: 2 });
    const [a, b] = await Promise.all([
      http.request(`${url}/echo`, { method: 'POST', headers: { 'x-test': 'yes' }, body: 'xin chào' }),
      http.request(new URL(`${url}/split`), { method: 'GET' }),
    ]);
    expect(a).toMatchObject({ status: 201, body: 'POST xin chào' });
    expect(a.headers['x-got']).toBe('yes');
    expect(b).toMatchObject({ status: 503, body: '{"error":"busy"}' });
    expect(b.headers['retry-after']).toBe('7');
    expect(b.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(http.origins).toBe(1);
    await http.close();
  });

  it('rejects when the signal aborts in flight, and sends nothing for an already aborted signal', async () => {
    const http = new HttpClient();
    const controller = new AbortController();
    const pending = http.request(`${url}/slow`, { method: 'GET', signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const began = Date.now();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - began).toBeLessThan(1_000);
    const before = received;
    await expect(http.request(`${url}/echo`, { method: 'GET', signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toBe(before);
    await http.close();
  });

  it('rejects when the answer does not come within the timeout', async () => {
    const http = new HttpClient({ timeoutMs: 100 });
    await expect(http.request(`${url}/slow`, { method: 'GET' })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    await http.close();
  });
});
