/**
 * GET /branding/logos/:name — uploaded logos (services/brandingLogo.ts), public like the signing
 * page that shows them. The name carries the SHA-256 of the bytes, so the answer never changes:
 * cached for a year. nosniff and a sandboxing CSP keep an SVG opened on its own inert.
 */
import express from 'express';
import { ApiError } from '../errors.js';
import { readLogo } from '../services/brandingLogo.js';
import type { AppContext } from './context.js';
import { LOGO_PATH_PREFIX } from '../domain/branding.js';

export function brandingLogosRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.get(`${LOGO_PATH_PREFIX}:name`, async (req, res) => {
    const logo = await readLogo(ctx.files, req.params.name!);
    if (!logo) throw new ApiError('not_found');
    res.setHeader('Content-Type', logo.contentType);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.end(logo.bytes);
  });
  return router;
}
