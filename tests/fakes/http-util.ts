import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Reads a request body whole. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Answers JSON with a status and optional extra headers. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Listens on 127.0.0.1 on a free port and answers the port. */
export function listen(server: Server | import('node:https').Server | import('node:http2').Http2SecureServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Closes a server, dropping idle keep-alive connections so close() doesn't wait for them. */
export function closeServer(server: Server | import('node:https').Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A queue of scripted failures keyed by target (device token, endpoint id, phone, PSID) or '*' for any. */
export class FailureScript<F> {
  private readonly queue = new Map<string, { failure: F; times: number }[]>();

  add(target: string, failure: F, times = 1): void {
    const list = this.queue.get(target) ?? [];
    list.push({ failure, times });
    this.queue.set(target, list);
  }

  /** The next scripted failure for this target (or for any target), consumed. */
  take(target: string): F | undefined {
    for (const key of [target, '*']) {
      const list = this.queue.get(key);
      if (!list?.length) continue;
      const head = list[0];
      head.times -= 1;
      if (head.times <= 0) list.shift();
      return head.failure;
    }
    return undefined;
  }

  clear(): void {
    this.queue.clear();
  }
}
