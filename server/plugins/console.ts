import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AppError } from '../errors';
import { sendError } from './errors';

/**
 * A file name carrying a content hash (`index-B2x9kQ1a.js`, `chunk.3f9a2b1c.css`): its content never changes
 * under that name, so browsers may keep it for a year. The hash must mix letters and digits, so names like
 * `polaris-components.css` do not pass for hashed.
 */
export function isHashedAsset(file: string): boolean {
  const name = basename(file);
  return /[.-](?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{8,}\.(?:js|mjs|css|woff2?|ttf|png|jpe?g|gif|svg|webp|avif|ico|map)$/.test(name);
}

export function isApiPath(url: string): boolean {
  const path = url.split('?')[0];
  return path === '/api' || path.startsWith('/api/');
}

/** The storefront scripts' folder: a miss there is a missing script, never a console page. */
export function isSdkPath(url: string): boolean {
  const path = url.split('?')[0];
  return path === '/sdk' || path.startsWith('/sdk/');
}

/** The last path segment has an extension: a request for a file, never a console route. */
export function looksLikeFile(url: string): boolean {
  const last = url.split('?')[0].split('/').pop() ?? '';
  return /\.[A-Za-z0-9]{1,8}$/.test(last);
}

/**
 * Serves the built console from STATIC_DIR (when it has been built) with a single-page fallback: a GET that
 * is neither an API call nor a file answers index.html, which is never cached so a deploy shows at once.
 * Unknown API paths answer the JSON envelope.
 */
export function registerConsole(app: FastifyInstance, staticDir: string): void {
  const hasConsole = existsSync(join(staticDir, 'index.html'));
  if (hasConsole) {
    app.register(fastifyStatic, {
      root: staticDir,
      prefix: '/',
      cacheControl: false,
      setHeaders(res, file) {
        res.setHeader('cache-control', isHashedAsset(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler(async (request, reply) => {
    // A missing file (an old chunk after a deploy) is a 404, not the page: HTML served as a script fails
    // obscurely, a 404 lets the console notice and reload.
    if (hasConsole && !isApiPath(request.url) && !isSdkPath(request.url) && !looksLikeFile(request.url) && (request.method === 'GET' || request.method === 'HEAD')) {
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html');
    }
    if (!isApiPath(request.url)) return sendError(request, reply, new AppError('NOT_FOUND'));
    const error = noSuchRoute(app, request.method, request.url.split('?')[0]);
    if (error instanceof MethodNotAllowed) reply.header('allow', error.allow);
    return sendError(request, reply, error);
  });
}

/** The methods an API path may be asked with (HEAD and OPTIONS answer beside them). */
const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The most of a path an error message repeats. */
const PATH_SHOWN = 200;

/** 405 Method Not Allowed: the path exists, asked with another method (sent as `Allow`). */
class MethodNotAllowed extends AppError {
  constructor(
    /** The methods the path takes, as `Allow` lists them and the message names them. */
    readonly allow: string,
    params: Record<string, string>,
  ) {
    super('METHOD_NOT_ALLOWED', 'errors.methodNotAllowed', { params: { ...params, allowed: allow } });
  }
}

/**
 * What an API caller is told when nothing answers its method and path. When the path is a route asked with
 * another method (POST where the route takes PUT), 405 with a message naming the methods it takes; otherwise
 * 404 naming what was asked and where the routes are listed. Wildcard routes (the console's files, the
 * storefront's preflight) do not count as the path's own.
 */
function noSuchRoute(app: FastifyInstance, method: string, path: string): AppError {
  const ownRoute = (other: string) => {
    const found = app.findRoute({ method: other, url: path });
    return found !== null && !('*' in found.params);
  };
  const allowed = ROUTE_METHODS.filter((other) => other !== method && ownRoute(other));
  const shown = path.length > PATH_SHOWN ? `${path.slice(0, PATH_SHOWN)}…` : path;
  if (allowed.length === 0) return new AppError('NOT_FOUND', 'errors.noRoute', { params: { method, path: shown } });
  return new MethodNotAllowed(allowed.join(', '), { method, path: shown });
}
