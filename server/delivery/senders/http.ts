import { Pool, type Dispatcher } from 'undici';

/** TLS and pooling options for a sender's outbound HTTP/1.1 connections. */
export interface HttpClientOptions {
  /** Keep-alive connections per origin. Default 32. */
  connections?: number;
  /** Extra CA certificates (PEM) to trust, for tests against the local fakes. */
  ca?: string | string[];
  /** Per-request timeout for headers and body, in ms. Default 30 s. */
  timeoutMs?: number;
}

/** A response read whole: providers answer with small JSON bodies. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What one request needs besides its URL. */
export interface HttpRequestInit {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/**
 * Collects one response for `Pool.dispatch`: undici's lowest-level API, without the Readable stream and
 * async resource `request()` builds for every call (a sender's answers are a few hundred bytes).
 */
class Collector implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: HttpResponse['headers'] = {};
  private chunks: Buffer[] | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {
    if (signal) {
      this.onAbort = () => this.controller?.abort(signal.reason);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the final answer follows
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    (this.chunks ??= []).push(chunk);
  }

  onResponseEnd(): void {
    this.done();
    const chunks = this.chunks;
    const body = !chunks ? '' : chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString();
    this.resolve({ status: this.status, headers: this.headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.done();
    this.reject(error);
  }

  private done(): void {
    if (this.onAbort) this.signal!.removeEventListener('abort', this.onAbort);
  }
}

/**
 * One undici keep-alive Pool per origin, so a push service or API host is reached over a few warm
 * connections instead of a TLS handshake per message.
 */
export class HttpClient {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly options: HttpClientOptions = {}) {}

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.options.connections ?? 32,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        headersTimeout: this.options.timeoutMs ?? 30_000,
        bodyTimeout: this.options.timeoutMs ?? 30_000,
        connect: this.options.ca ? { ca: this.options.ca } : undefined,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** Sends one request to an absolute URL; throws only for network errors and aborts. */
  request(url: string | URL, init: HttpRequestInit): Promise<HttpResponse> {
    const target = typeof url === 'string' ? new URL(url) : url;
    const { signal } = init;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<HttpResponse>((resolve, reject) => {
      this.pool(target.origin).dispatch(
        { path: target.pathname + target.search, method: init.method, headers: init.headers, body: init.body },
        new Collector(resolve, reject, signal),
      );
    });
  }

  /** Number of origins with an open pool (a test checks pools are reused). */
  get origins(): number {
    return this.pools.size;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => undefined)));
  }
}

/** The first value of a response header. */
export function header(headers: HttpResponse['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Parses a JSON body, or undefined when it isn't JSON. */
export function parseJson<T = unknown>(body: string): T | undefined {
  try {
    return JSON.parse(body) as T;
  } catch {
    return undefined;
  }
}
