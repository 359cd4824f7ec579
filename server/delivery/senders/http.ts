import { Pool } from 'undici';

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

  /** Sends one request to an absolute URL; throws only for network errors. */
  async request(
    url: string | URL,
    init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string | Buffer; signal?: AbortSignal },
  ): Promise<HttpResponse> {
    const target = typeof url === 'string' ? new URL(url) : url;
    const response = await this.pool(target.origin).request({
      path: target.pathname + target.search,
      method: init.method,
      headers: init.headers,
      body: init.body,
      signal: init.signal,
    });
    const body = await response.body.text();
    return { status: response.statusCode, headers: response.headers, body };
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
