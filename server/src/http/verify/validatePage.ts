/**
 * The signature validator page: GET /verify (a PDF is chosen or dropped; the page's script sends it
 * to POST /verify) and POST /verify (the PDF as the body, up to 25 MB; the report as JSON, or as
 * an HTML fragment for the page with Accept: text/html; or, from the page's no-script form, the
 * multipart file part, answered with the whole page). The PDF is validated in memory: nothing is
 * written to disk or the database and only the request line is logged, never the body. Rate-limited
 * per client address (TAWQI_IP_RATE_LIMIT).
 */
import type { Language } from '@tawqi/shared';
import express, { type NextFunction, type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../errors.js';
import { MAX_PDF_BYTES, ValidationInputError } from '../../sealing/validation/index.js';
import { validateUpload } from '../../services/pdfValidation.js';
import type { AppContext } from '../context.js';
import { errorMessage, startErrorResponse } from '../envelope.js';
import { ipRateLimit } from '../middleware/limits.js';
import { setPageHeaders } from '../pageHeaders.js';
import { escapeHtml as esc } from '../../sealing/html.js';
import { DEFAULT_BRANDING, icon, page } from './html.js';
import { reportHtml } from './reportHtml.js';
import { VALIDATE_TEXT } from './validateText.js';
import { isMultipart, readFormFile } from './formUpload.js';

const tooLarge = new ApiError(
  'request_too_large',
  null,
  { limit_bytes: MAX_PDF_BYTES },
  {},
  {
    ar: 'الملف أكبر من 25 ميغابايت، وهو الحد الأقصى للفحص.',
    en: 'The file is larger than 25 MB, the most the validator reads.',
  },
);
const notPdf = new ApiError('parameter_invalid', 'file', {}, {}, { ar: 'هذا ليس ملف PDF مقروءًا.', en: 'This is not a readable PDF file.' });
const noFile = new ApiError('parameter_missing', 'file', {}, {}, { ar: 'لم يُرسَل أي ملف.', en: 'No file was sent.' });

function validateMain(lang: Language, result: string): string {
  const t = VALIDATE_TEXT[lang];
  return `<section class="card" id="validate" aria-labelledby="validate-title" data-lang="${lang}" data-t-checking="${t.checking}" data-t-failed="${t.failed}">
<h1 class="title" id="validate-title">${t.title}</h1>
<p>${t.body}</p>
<div class="dropzone" data-dropzone hidden>
<input class="sr-only" type="file" id="validate-file" accept="application/pdf,.pdf" aria-describedby="validate-privacy">
<label class="btn btn-secondary" for="validate-file">${icon('doc')}${t.choose}</label>
<span class="muted">${t.drop}</span>
</div>
<p class="hint" id="validate-privacy">${t.privacy} ${t.limit}</p>
<noscript><form class="validate-form" method="post" action="/verify?lang=${lang}" enctype="multipart/form-data">
<label for="validate-form-file">${t.choose}</label>
<input type="file" id="validate-form-file" name="file" accept="application/pdf,.pdf" required aria-describedby="validate-privacy">
<button class="btn btn-primary" type="submit">${t.check}</button>
<p class="hint">${t.needsScript}</p>
</form></noscript>
</section>
<div class="validate-result" role="status" aria-live="polite">${result}</div>`;
}

/**
 * The page, GET or the answer to its no-script form: this page alone may connect to this origin (its
 * script posts the file) and post its form here (form-action 'self').
 */
function sendPage(res: Response, lang: Language, result = ''): void {
  const nonce = randomBytes(16).toString('base64');
  setPageHeaders(
    res,
    `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  );
  res.setHeader('Cache-Control', 'no-store');
  const main = validateMain(lang, result);
  res
    .type('html')
    .send(page({ lang, nonce, branding: DEFAULT_BRANDING, test: false, title: VALIDATE_TEXT[lang].title, main, script: 'validate' }));
}

/**
 * The PDF, bounded at 25 MB (past that a 413 in the error envelope): the raw body from the page's
 * script or a client, or the one file part of the no-script form (res.locals.fromForm).
 */
function pdfBody(req: Request, res: Response, next: NextFunction): void {
  if (isMultipart(req)) {
    readFormFile(req, MAX_PDF_BYTES).then((upload) => {
      if ('error' in upload) return next(upload.error === 'too_large' ? tooLarge : noFile);
      req.body = upload.file;
      res.locals.fromForm = true;
      next();
    }, next);
    return;
  }
  express.raw({ type: () => true, limit: MAX_PDF_BYTES })(req, res, (err?: unknown) => {
    if ((err as { type?: string } | undefined)?.type === 'entity.too.large') return next(tooLarge);
    next(err);
  });
}

/**
 * A refusal of the no-script form (no file, not a PDF, over 25 MB, too many requests) answered as
 * the page, with the error's status and its reason where the report would be, in the notice the
 * page's script shows (signing-page/src/validate.ts): a browser without script would otherwise be
 * left on a JSON envelope. Requests that prefer JSON, and the script's own, still get the envelope.
 */
function formRefusalPage(pageLanguage: (req: Request) => Language) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (!(err instanceof ApiError) || !isMultipart(req) || req.accepts(['json', 'html']) !== 'html') return next(err);
    const lang = pageLanguage(req);
    startErrorResponse(res, err);
    const notice = `<div class="notice tone-info">${icon('alert')}<div><strong>${VALIDATE_TEXT[lang].failed}</strong><p>${esc(errorMessage(err, lang))}</p></div></div>`;
    sendPage(res, lang, notice);
  };
}

export function validatePageRoutes(router: express.Router, ctx: AppContext, pageLanguage: (req: Request) => Language): void {
  router.get('/verify', (req: Request, res: Response) => sendPage(res, pageLanguage(req)));

  // Per client address like the signing page (TAWQI_IP_RATE_LIMIT), checked before the body is read: validation costs CPU.
  router.post(
    '/verify',
    ipRateLimit(ctx, 'verify'),
    pdfBody,
    async (req: Request, res: Response) => {
      const lang = pageLanguage(req);
      const pdf = Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : new Uint8Array();
      const report = await validateUpload(ctx, pdf, lang).catch((err: unknown) => {
        throw err instanceof ValidationInputError ? (err.code === 'too_large' ? tooLarge : notPdf) : err;
      });
      const html = req.accepts(['json', 'html']) === 'html';
      // The no-script form gets the whole page with the report; the page's script the fragment.
      if (html && res.locals.fromForm === true) return sendPage(res, lang, reportHtml(report, lang));
      res.setHeader('Cache-Control', 'no-store');
      if (html) res.type('html').send(reportHtml(report, lang));
      else res.json(report);
    },
    formRefusalPage(pageLanguage),
  );
}
