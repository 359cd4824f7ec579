import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { isHashedAsset } from './console';

/** The loader's name: shops link it without a hash, so it may only be cached briefly. */
export const LOADER_FILE = 'nudge.js';

/** Cache-Control of a storefront file: the loader five minutes, hashed chunks for a year, anything else briefly. */
export function sdkCacheControl(file: string): string {
  if (basename(file) !== LOADER_FILE && isHashedAsset(file)) return 'public, max-age=31536000, immutable';
  return 'public, max-age=300';
}

/**
 * Serves the built storefront scripts (dist/sdk: the nudge.js loader and hashed widget chunks) at /sdk/*,
 * readable from any shop's origin. Without a build, /sdk/* answers 404 like any unknown file.
 */
export function registerSdkFiles(app: FastifyInstance, sdkDir: string): void {
  if (!existsSync(sdkDir) || !statSync(sdkDir).isDirectory()) return;
  app.register(fastifyStatic, {
    root: sdkDir,
    prefix: '/sdk/',
    // The console's registration owns reply.sendFile.
    decorateReply: false,
    cacheControl: false,
    index: false,
    list: false,
    setHeaders(res, file) {
      res.setHeader('cache-control', sdkCacheControl(file));
      res.setHeader('access-control-allow-origin', '*');
      // Chunks are imported as modules from the shop's origin: their JavaScript type (set by @fastify/static)
      // must be taken as given, never sniffed.
      res.setHeader('x-content-type-options', 'nosniff');
    },
  });
}
