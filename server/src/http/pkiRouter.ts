import express, { type Request, type Response } from 'express';
import { ApiError } from '../errors.js';
import { crlDer, describePki, respondToOcspRequest, respondToTimeStampQuery, toPem } from '../sealing/pki/index.js';
import type { AppContext } from './context.js';
import { ipRateLimit } from './middleware/limits.js';

/**
 * The built-in PKI over HTTP, outside /api/v1 (verifiers and PDF readers call these, not API clients):
 *
 *   POST /tsa                    RFC 3161 (application/timestamp-query → application/timestamp-reply)
 *   POST /pki/ocsp               RFC 6960 (application/ocsp-request → application/ocsp-response)
 *   GET  /pki/ocsp/{base64 DER}  RFC 6960 appendix A.1 GET form
 *   GET  /pki/crl                the CA's CRL, DER (application/pkix-crl)
 *   GET  /pki/ca.pem, /pki/ca.cer    the CA certificate, PEM or DER (the AIA caIssuers URL is ca.cer)
 *   GET  /pki/seal.pem, /pki/tsa.pem, /pki/ocsp.pem   the current leaf certificates
 *   GET  /pki/evidence-key.pem   the Ed25519 evidence public key
 *   GET  /pki                    JSON: what each is, marked built-in / not publicly trusted, fingerprints
 *
 * Protocol refusals (a malformed request) are protocol answers (a rejection TimeStampResp, an OCSP
 * malformedRequest); HTTP-level problems (wrong content type, too large, rate limit) use the error envelope.
 */

const MAX_QUERY_BYTES = 16 * 1024;

export function pkiRouter(ctx: AppContext): express.Router {
  const router = express.Router({ strict: true });
  const limit = ipRateLimit(ctx, 'pki');
  const body = express.raw({ type: () => true, limit: MAX_QUERY_BYTES });

  router.post('/tsa', limit, requireType('application/timestamp-query'), body, async (req: Request, res: Response) => {
    const reply = await respondToTimeStampQuery(ctx.pki, bytesOf(req));
    sendDer(res, 'application/timestamp-reply', reply, 'no-store');
  });
  router.all('/tsa', methodNotAllowed('POST'));

  router.post('/pki/ocsp', limit, requireType('application/ocsp-request'), body, async (req: Request, res: Response) => {
    sendDer(res, 'application/ocsp-response', await respondToOcspRequest(ctx.pki, bytesOf(req)), 'no-store');
  });
  router.get('/pki/ocsp/*request', limit, async (req: Request, res: Response) => {
    // The path is the URL-encoded base64 of the DER request (Express has decoded it); a '/' of the
    // base64 left unencoded splits it into segments.
    const segments = (req.params as { request?: string[] }).request ?? [];
    const der = Buffer.from(segments.join('/'), 'base64');
    sendDer(res, 'application/ocsp-response', await respondToOcspRequest(ctx.pki, der), 'public, max-age=300');
  });
  router.all('/pki/ocsp', methodNotAllowed('POST'));

  router.get('/pki/crl', async (_req: Request, res: Response) => {
    sendDer(res, 'application/pkix-crl', await crlDer(ctx.pki), 'public, max-age=3600');
  });
  router.get('/pki/ca.pem', (_req: Request, res: Response) => sendText(res, 'application/x-pem-file', ctx.pki.ca.pem));
  router.get('/pki/ca.cer', (_req: Request, res: Response) =>
    sendDer(res, 'application/pkix-cert', ctx.pki.ca.certificate, 'public, max-age=86400'),
  );
  router.get('/pki/seal.pem', (_req: Request, res: Response) =>
    sendText(res, 'application/x-pem-file', toPem(ctx.pki.seal.certificate, 'CERTIFICATE')),
  );
  router.get('/pki/tsa.pem', (_req: Request, res: Response) =>
    sendText(res, 'application/x-pem-file', toPem(ctx.pki.tsa.certificate, 'CERTIFICATE')),
  );
  router.get('/pki/ocsp.pem', (_req: Request, res: Response) =>
    sendText(res, 'application/x-pem-file', toPem(ctx.pki.ocsp.certificate, 'CERTIFICATE')),
  );
  router.get('/pki/evidence-key.pem', (_req: Request, res: Response) =>
    sendText(res, 'application/x-pem-file', ctx.pki.evidence.publicKeyPem),
  );
  router.get('/pki', (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.json(describePki(ctx.pki));
  });
  return router;
}

function requireType(type: string) {
  return (req: Request, _res: Response, next: express.NextFunction): void => {
    if (req.is(type)) return next();
    next(
      new ApiError(
        'parameter_invalid',
        'Content-Type',
        {},
        {},
        { en: `Content-Type must be ${type}.`, ar: `يجب أن يكون نوع المحتوى ${type}.` },
      ),
    );
  };
}

function methodNotAllowed(allow: string) {
  return (_req: Request, _res: Response, next: express.NextFunction): void =>
    next(new ApiError('method_not_allowed', null, {}, { Allow: allow }));
}

function bytesOf(req: Request): Uint8Array {
  return Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : new Uint8Array(0);
}

function sendDer(res: Response, type: string, der: Uint8Array, cacheControl: string): void {
  res.status(200).setHeader('Content-Type', type).setHeader('Cache-Control', cacheControl).end(Buffer.from(der));
}

function sendText(res: Response, type: string, text: string): void {
  res.status(200).setHeader('Content-Type', type).setHeader('Cache-Control', 'public, max-age=3600').end(text);
}
