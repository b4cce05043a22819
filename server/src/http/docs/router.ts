import express, { type Request, type Response } from 'express';
import type { AppContext } from '../context.js';
import { setPageHeaders } from '../pageHeaders.js';
import { renderDocsPage } from './page.js';
import { DOCS_CSS } from './style.js';

/** No script, styles from this server only, no framing, no form, no base: the page is text. */
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The API reference at /docs (Arabic by default; English with ?lang=en or Accept-Language: en, as
 * the other pages), rendered from the OpenAPI document once per language, and its stylesheet.
 */
export function docsRouter(ctx: AppContext, openapi: Record<string, unknown>): express.Router {
  const router = express.Router();
  const pages = new Map<'ar' | 'en', string>();
  const base = `${ctx.publicUrl.replace(/\/+$/, '')}/api/v1`;
  router.get(['/docs', '/docs/'], (req: Request, res: Response) => {
    const lang = req.tawqi.lang;
    let page = pages.get(lang);
    if (page === undefined) pages.set(lang, (page = renderDocsPage(openapi, lang, base)));
    setPageHeaders(res, CSP);
    res.setHeader('Vary', 'Accept-Language');
    res.type('html').send(page);
  });
  router.get('/docs/assets/docs.css', (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('css').send(DOCS_CSS);
  });
  return router;
}
