import type { Language } from '@tawqi/shared';
import express, { type NextFunction, type Request, type Response } from 'express';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../../errors.js';
import { sendError } from '../envelope.js';
import { setPageHeaders } from '../pageHeaders.js';

/** The console's bundle (console/build.mjs): content-hashed files and the manifest naming them. */
const ASSETS = fileURLToPath(new URL('../../../../console/dist/', import.meta.url));

/**
 * The console page's policy: its script and stylesheet from this origin only (no inline script or
 * style at all, so no nonce), calls to this origin only, never framed, forms posting nowhere else;
 * it frames only this origin's pages (the Branding screen's signing page preview, /sign/preview).
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The language cookie the console's switch sets (console/src/i18n.ts); Arabic without it. */
const LANGUAGE_COOKIE = /(?:^|;\s*)tawqi_console_lang=(ar|en)(?:;|$)/;

const TEXT = {
  ar: { title: 'لوحة تحكم توقيع', noscript: 'تحتاج لوحة التحكم إلى JavaScript.', unbuilt: 'لوحة التحكم غير مبنية على هذا الخادم.' },
  en: { title: 'Tawqi Console', noscript: 'The console needs JavaScript.', unbuilt: 'The console is not built on this server.' },
} as const;

interface Manifest {
  'app.js': string;
  'app.css': string;
}

/** The bundle's current file names; read per page (a few bytes) so a rebuild needs no restart. */
function manifest(): Manifest | null {
  try {
    const m = JSON.parse(readFileSync(`${ASSETS}manifest.json`, 'utf8')) as Partial<Manifest>;
    const safe = (name: unknown) => typeof name === 'string' && /^[\w.-]+$/.test(name);
    return safe(m['app.js']) && safe(m['app.css']) ? (m as Manifest) : null;
  } catch {
    return null;
  }
}

export function consoleLanguage(req: Request): Language {
  return LANGUAGE_COOKIE.exec(String(req.headers.cookie ?? ''))?.[1] === 'en' ? 'en' : 'ar';
}

/** One HTML shell for every console screen: the client's router picks the screen from the address. */
function sendShell(req: Request, res: Response): void {
  const lang = consoleLanguage(req);
  const t = TEXT[lang];
  setPageHeaders(res, CONSOLE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  const m = manifest();
  const head = m
    ? `<link rel="stylesheet" href="/console/assets/${m['app.css']}">
  <script type="module" src="/console/assets/${m['app.js']}"></script>`
    : '';
  const body = m ? `<div id="console"><noscript>${t.noscript}</noscript></div>` : `<main><h1>${t.title}</h1><p>${t.unbuilt}</p></main>`;
  res.status(m ? 200 : 503).type('html').send(`<!doctype html>
<html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>${t.title}</title>
  ${head}
</head>
<body>
  ${body}
</body>
</html>`);
}

/**
 * The console's page host: /console/assets/* serve the bundle (hashed names, cached for a year);
 * GET /console and every /console/* path but /console/api/* get the shell.
 */
export function consolePageRouter(): express.Router {
  const router = express.Router();
  router.use(
    '/assets',
    express.static(ASSETS, {
      index: false,
      immutable: true,
      maxAge: '365d',
      fallthrough: true,
    }),
    (req: Request, res: Response) => sendError(req, res, new ApiError('not_found')),
  );
  router.get(/.*/, (req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/api' || req.path.startsWith('/api/')) return next();
    sendShell(req, res);
  });
  return router;
}
