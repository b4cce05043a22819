import express, { type Response } from 'express';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../errors.js';

const DIST = fileURLToPath(new URL('../../../sdk/embed/dist/', import.meta.url));

/** The stable addresses of @tawqi/embed (sdk/embed): v1 keeps its interface; fixes ship under it. */
const FILES: Record<string, string> = {
  '/embed/v1.js': 'tawqi-embed.js',
  '/embed/v1.mjs': 'tawqi-embed.mjs',
};

/**
 * Serves the embed library from the server itself, so an integrator needs no CDN and loads it from
 * the same origin as the frames it mounts. A public, static file: any site may load it (as a
 * classic script, as a module — a cross-origin module needs CORS — or with Subresource Integrity),
 * cached for an hour (an update of v1 reaches pages within that).
 */
export function embedScriptRouter(): express.Router {
  const router = express.Router();
  for (const [path, file] of Object.entries(FILES)) {
    router.get(path, (_req, res, next) => {
      headers(res);
      res.sendFile(file, { root: DIST, maxAge: '1h', lastModified: false }, (err?: Error & { status?: number }) => {
        // Not built (npm run build makes it): the API's 404, not a stack trace.
        if (err) next(err.status === 404 ? new ApiError('not_found') : err);
      });
    });
  }
  return router;
}

function headers(res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  res.type('text/javascript; charset=utf-8');
}
