import { ERRORS } from '@tawqi/shared';
import { identityVerificationSchema, signerSchema } from '@tawqi/shared/api';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { ApiError } from '../../errors.js';
import { CallbackRejected } from '../../identity/provider.js';
import {
  checkSimulationToken,
  decideIdentityMatch,
  handleProviderCallback,
  identityProvider,
  SIMULATION_PROVIDER,
  simulateIdentityDecision,
  verificationSubjectName,
} from '../../services/identity.js';
import { escapeHtml } from '../../sealing/html.js';
import { presentIdentityVerification } from '../../presenters/identityVerification.js';
import { findVerification, getVerification, type IdentityVerificationRecord } from '../../store/identityVerifications.js';
import { getSigner } from '../../store/signatureRequests.js';
import { commitWrite } from '../commitWrite.js';
import { setPageHeaders } from '../pageHeaders.js';
import type { AppContext } from '../context.js';
import { ipRateLimit } from '../middleware/limits.js';
import { signerObject, viewFor } from '../../presenters/objects.js';
import { defineRoute, parseWith } from './registry.js';

// ---------------------------------------------------------------------------------------------
// API routes (/api/v1)

const DECISIONS = ['approve', 'reject'] as const;
/**
 * A string first, then the enum: the route registry reports only a missing *typed* field as
 * parameter_missing (a missing enum would read as parameter_invalid); `enum` is kept in the document.
 */
const identityMatchBody = z.strictObject({
  decision: z
    .string()
    .pipe(z.enum(DECISIONS))
    .meta({ enum: [...DECISIONS], description: 'approve resumes signing; reject stops signing for this signer' }),
});

export const identityRoutes = [
  defineRoute({
    method: 'get',
    path: '/identity_verifications/:id',
    summary: 'Retrieve an identity verification: status, provider, level, times and the name match (no document images or numbers)',
    tag: 'identity',
    access: 'secret',
    status: 200,
    response: identityVerificationSchema,
    errors: ['not_found', 'forbidden'],
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      const v = await findVerification(ctx.store.db, auth.account.id, auth.livemode, String(req.params.id));
      if (!v) throw new ApiError('not_found', 'id');
      const signer = await getSigner(ctx.store.db, v.signer_id);
      res.json(presentIdentityVerification(v, signer?.signature_request_id ?? null));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/signers/:id/identity_match',
    summary: 'Decide a held name mismatch: body {decision: approve | reject}; emits signer.identity_match_decided; returns the signer',
    tag: 'identity',
    access: 'secret',
    body: identityMatchBody,
    status: 200,
    response: signerSchema,
    errors: ['not_found', 'invalid_state', 'parameter_missing', 'parameter_invalid', 'parameter_unknown', 'forbidden'],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      await commitWrite(ctx, req, res, async (trx) => {
        const { signer, request } = await decideIdentityMatch(ctx, trx, auth, String(req.params.id), body.decision);
        return { status: 200, body: signerObject(signer, request, viewFor(ctx, req)) };
      });
    },
  }),
];

// ---------------------------------------------------------------------------------------------
// Public routes: the provider's result callback and the test-mode simulation page

const simulationBody = z.object({
  token: z.string().max(200),
  decision: z.enum(['approve', 'decline']),
  return_url: z.string().max(2000).optional(),
  document_name: z.string().max(300).optional(),
});

const CALLBACK_TEXT: Record<CallbackRejected['reason'], { en: string; ar: string }> = {
  signature_missing: {
    en: 'The X-Provider-Signature header is missing or malformed.',
    ar: 'ترويسة X-Provider-Signature مفقودة أو غير صحيحة.',
  },
  signature_invalid: { en: 'The X-Provider-Signature does not match the body.', ar: 'توقيع X-Provider-Signature لا يطابق نص الطلب.' },
  timestamp_stale: {
    en: 'The X-Provider-Signature timestamp is more than 300 seconds away.',
    ar: 'طابع الوقت في X-Provider-Signature يبعد أكثر من 300 ثانية.',
  },
  body_invalid: { en: 'The callback body is not a verification result.', ar: 'نص الاستدعاء ليس نتيجة تحقق.' },
};

const LINK_INVALID = { en: 'This verification link is not valid or has expired.', ar: 'رابط التحقق هذا غير صالح أو منتهي الصلاحية.' };

/**
 * The router mounted outside /api/v1: `POST /identity/callbacks/:provider` (raw body, signature
 * checked by the adapter) and `GET|POST /identity/simulate/:id` (test mode; the signed token from
 * the link is required on both, and a cross-site POST is refused).
 */
export function identityRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.use('/identity', ipRateLimit(ctx, 'identity'));

  router.post(
    '/identity/callbacks/:provider',
    express.raw({ type: () => true, limit: ctx.config.TAWQI_BODY_LIMIT_BYTES }),
    async (req: Request, res: Response) => {
      const provider = identityProvider(ctx);
      if (!provider || provider.name !== req.params.provider) throw new ApiError('not_found');
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      let parsed;
      try {
        parsed = provider.parseCallback(raw, req.headers);
      } catch (err) {
        if (!(err instanceof CallbackRejected)) throw err;
        ctx.log.warn({ request_id: req.tawqi.requestId, reason: err.reason }, 'identity callback refused');
        throw new ApiError(
          'parameter_invalid',
          err.reason === 'body_invalid' ? 'body' : 'X-Provider-Signature',
          { reason: err.reason },
          {},
          CALLBACK_TEXT[err.reason],
        );
      }
      const applied = await handleProviderCallback(ctx, provider, parsed);
      if (!applied) throw new ApiError('not_found', 'id');
      res.json({ received: true, outcome: applied.outcome, status: applied.verification.status });
    },
  );

  router.get('/identity/simulate/:id', async (req: Request, res: Response) => {
    const { v, returnUrl } = await simulationTarget(ctx, req, req.query.token, req.query.return_url);
    const subjectName = await verificationSubjectName(ctx.store.db, v);
    const token = String(req.query.token);
    sendPage(
      res,
      200,
      simulationPage({
        action: `${basePath(ctx)}/identity/simulate/${v.id}`,
        token,
        returnUrl,
        signerName: subjectName,
        decided: v.status === 'approved' || v.status === 'declined' ? v.status : null,
      }),
    );
  });

  router.post('/identity/simulate/:id', express.urlencoded({ extended: false, limit: '16kb' }), async (req: Request, res: Response) => {
    refuseCrossSite(ctx, req);
    const body = parseWith(simulationBody, req.body ?? {});
    const { v, returnUrl } = await simulationTarget(ctx, req, body.token, body.return_url);
    const result = await simulateIdentityDecision(ctx, v.id, body.decision, { documentName: body.document_name });
    sendPage(res, 200, resultPage(result.verification.status, returnUrl));
  });

  // Errors of these pages: HTML for a browser, the JSON envelope for a client that asks for JSON.
  router.use('/identity/simulate', (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof ApiError) || req.accepts(['html', 'json']) === 'json') return next(err);
    for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
    sendPage(res, statusOf(err), errorPage(err.detail ?? errorText(err)));
  });
  return router;
}

async function simulationTarget(
  ctx: AppContext,
  req: Request,
  token: unknown,
  returnUrlInput: unknown,
): Promise<{ v: IdentityVerificationRecord; returnUrl: string | null }> {
  const v = await getVerification(ctx.store.db, String(req.params.id));
  if (!v || v.livemode || v.provider !== SIMULATION_PROVIDER) throw new ApiError('not_found', 'id');
  const returnUrl = typeof returnUrlInput === 'string' && returnUrlInput !== '' ? returnUrlInput : null;
  if (!checkSimulationToken(ctx, v, token, returnUrl)) throw new ApiError('forbidden', 'token', {}, {}, LINK_INVALID);
  return { v, returnUrl };
}

/** Defence in depth beside the token: a browser POST from another site is refused. */
function refuseCrossSite(ctx: AppContext, req: Request): void {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') throw new ApiError('forbidden', 'Origin', {}, {}, LINK_INVALID);
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== 'null' && origin !== new URL(ctx.publicUrl).origin)
    throw new ApiError('forbidden', 'Origin', {}, {}, LINK_INVALID);
  if (origin === 'null') throw new ApiError('forbidden', 'Origin', {}, {}, LINK_INVALID);
}

const basePath = (ctx: AppContext): string => new URL(ctx.publicUrl).pathname.replace(/\/+$/, '');

const errorText = (err: ApiError) => ({ en: ERRORS[err.code].en, ar: ERRORS[err.code].ar });
const statusOf = (err: ApiError): number => ERRORS[err.code].status;

function sendPage(res: Response, status: number, html: string): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // same-origin: the token in the URL never leaves the site, and the page's own POST still carries
  // its Origin (no-referrer would make browsers send `Origin: null`, which refuseCrossSite refuses).
  res.setHeader('X-Frame-Options', 'DENY');
  setPageHeaders(
    res,
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'same-origin',
  );
  res.send(html);
}

const STYLE = `body{font-family:system-ui,"Noto Naskh Arabic",sans-serif;margin:0;background:#f5f6f8;color:#1d2330}
main{max-width:34rem;margin:2rem auto;background:#fff;border-radius:.75rem;padding:1.5rem;box-shadow:0 1px 4px #0002}
.badge{display:inline-block;background:#fff3cd;color:#7a5a00;border-radius:1rem;padding:.1rem .7rem;font-size:.85rem}
section+section{border-top:1px solid #e3e6ea;margin-top:1rem;padding-top:.5rem}
label{display:block;margin:1rem 0 .3rem}input[type=text]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}button{flex:1;padding:.7rem;font:inherit;border:0;border-radius:.5rem;color:#fff;cursor:pointer}
.approve{background:#1f7a4d}.decline{background:#b3261e}`;

function layout(titleAr: string, titleEn: string, body: string): string {
  return `<!doctype html>
<html lang="ar" dir="rtl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(titleAr)} · ${escapeHtml(titleEn)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

interface SimulationPage {
  action: string;
  token: string;
  returnUrl: string | null;
  signerName: string;
  decided: 'approved' | 'declined' | null;
}

function simulationPage(p: SimulationPage): string {
  const name = escapeHtml(p.signerName);
  const intro = `<p class="badge">وضع الاختبار · <span lang="en">Test mode</span></p>
<section>
<h1>محاكاة التحقق من الهوية</h1>
<p>الموقّع: <bdi>${name}</bdi>. في وضع الاختبار لا يُفحص أي مستند حقيقي ولا وجه؛ اختر نتيجة التحقق.</p>
</section>
<section lang="en" dir="ltr">
<h2>Identity verification simulation</h2>
<p>Signer: <bdi>${name}</bdi>. In test mode no real document or face is checked; choose the result.</p>
</section>`;
  if (p.decided) return layout('محاكاة التحقق من الهوية', 'Identity verification simulation', `${intro}\n${decidedText(p.decided)}`);
  const hidden = [`<input type="hidden" name="token" value="${escapeHtml(p.token)}">`];
  if (p.returnUrl !== null) hidden.push(`<input type="hidden" name="return_url" value="${escapeHtml(p.returnUrl)}">`);
  const form = `<form method="post" action="${escapeHtml(p.action)}">
${hidden.join('\n')}
<label for="document_name">الاسم في المستند المحاكى · <span lang="en">Name on the simulated document</span></label>
<input type="text" id="document_name" name="document_name" value="${name}" maxlength="300" dir="auto">
<div class="actions">
<button type="submit" class="approve" name="decision" value="approve">اعتماد · <span lang="en">Approve</span></button>
<button type="submit" class="decline" name="decision" value="decline">رفض · <span lang="en">Decline</span></button>
</div>
</form>`;
  return layout('محاكاة التحقق من الهوية', 'Identity verification simulation', `${intro}\n${form}`);
}

function decidedText(status: string): string {
  const approved = status === 'approved';
  return `<section><p>${approved ? 'اعتُمد التحقق من الهوية.' : 'رُفض التحقق من الهوية.'}</p></section>
<section lang="en" dir="ltr"><p>${approved ? 'The identity verification was approved.' : 'The identity verification was declined.'}</p></section>`;
}

function resultPage(status: string, returnUrl: string | null): string {
  const back = returnUrl
    ? `<p><a href="${escapeHtml(returnUrl)}">متابعة · <span lang="en">Continue</span></a></p>`
    : '<p>يمكنك إغلاق هذه الصفحة. · <span lang="en">You can close this page.</span></p>';
  const text = status === 'approved' || status === 'declined' ? decidedText(status) : `<p>${escapeHtml(status)}</p>`;
  return layout('نتيجة المحاكاة', 'Simulation result', `${text}\n${back}`);
}

function errorPage(text: { en: string; ar: string }): string {
  return layout(
    'تعذّر المتابعة',
    'Cannot continue',
    `<section><h1>تعذّر المتابعة</h1><p>${escapeHtml(text.ar)}</p></section>
<section lang="en" dir="ltr"><h2>Cannot continue</h2><p>${escapeHtml(text.en)}</p></section>`,
  );
}
