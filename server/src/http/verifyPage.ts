import type { Language } from '@tawqi/shared';
import express, { type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import { verificationPageFor } from '../services/verification.js';
import type { AppContext } from './context.js';
import { setPageHeaders } from './pageHeaders.js';
import { DEFAULT_BRANDING, notFoundMain, page, verificationMain, type VerifyBranding } from './verify/html.js';
import { VERIFY_TEXT } from './verify/text.js';
import { validatePageRoutes } from './verify/validatePage.js';

/**
 * Arabic unless the visitor chose English with the page's switch (?lang=en). The browser's
 * Accept-Language is not consulted: the page is Arabic first, like the documents it verifies.
 */
const pageLanguage = (req: Request): Language => (req.query.lang === 'en' ? 'en' : 'ar');

function brandingOf(settings: Record<string, unknown>): VerifyBranding {
  const str = (key: string) => (typeof settings[key] === 'string' ? (settings[key] as string) : null);
  return {
    brandName: str('brand_name'),
    logoUrl: str('logo_url'),
    brandColor: str('brand_color'),
    hidePowered: settings.hide_powered === true,
  };
}

/**
 * The public verification page at /verify/{reference}: the facts of GET /verifications/{reference}
 * and an in-browser check of a PDF against the sealed file's SHA-256. Strict CSP as on the signing
 * page (scripts and styles from this origin, the one style tag by nonce) and connect-src 'none': the
 * page's script cannot send anything anywhere, so a checked file never leaves the browser.
 * GET/POST /verify (no reference) is the signature validator (verify/validatePage.ts).
 */
export function verifyPageRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  validatePageRoutes(router, ctx, pageLanguage);
  router.get('/verify/:reference', async (req: Request, res: Response) => {
    const lang = pageLanguage(req);
    const found = await verificationPageFor(ctx, ctx.store.db, String(req.params.reference));
    const nonce = randomBytes(16).toString('base64');
    setPageHeaders(
      res,
      `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data: https:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
    );
    res.setHeader('Cache-Control', 'no-store');
    const t = VERIFY_TEXT[lang];
    if (!found) {
      const html = page({ lang, nonce, branding: DEFAULT_BRANDING, test: false, title: t.notFoundTitle, main: notFoundMain(lang) });
      res.status(404).type('html').send(html);
      return;
    }
    const v = found.verification;
    res.type('html').send(
      page({
        lang,
        nonce,
        branding: brandingOf(found.branding),
        test: v.test,
        title: `${t.pageTitle} — ${v.reference}`,
        main: verificationMain(v, lang, found.earlierPdfSha256),
      }),
    );
  });
  return router;
}
