import type { NextFunction, Request, Response } from 'express';
import type { TLSSocket } from 'node:tls';

/**
 * HSTS for a year once a browser has reached the server over HTTPS (itself, or a trusted proxy's
 * X-Forwarded-Proto: https — the same judgement as the console's Secure cookie, req.tawqi.secure).
 * No includeSubDomains or preload: sibling hosts of a self-hosted install are the operator's call.
 */
export const HSTS = 'max-age=31536000';

/**
 * The policy of an HTML response whose page set none: nothing loads, nothing frames it, no form
 * posts anywhere. A page that needs more declares it with setPageHeaders.
 */
export const FALLBACK_PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The headers of one HTML page (signing page, /verify, /docs, console, identity simulation, the
 * final document as HTML): its own strict CSP and its referrer policy — no referrer by default (a
 * signing URL is a credential, and no page should leak where a visitor came from). Caching stays each
 * page's decision; nosniff and HSTS come from securityHeaders for every response.
 */
export function setPageHeaders(res: Response, csp: string, referrerPolicy = 'no-referrer'): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Referrer-Policy', referrerPolicy);
}

/**
 * First middleware of the app, for every response (JSON, HTML, PDF, assets, health): nosniff, HSTS
 * over HTTPS, and — decided when the headers go out, so no handler can bypass it — a page that sent
 * HTML without its own policy gets FALLBACK_PAGE_CSP and no referrer rather than none.
 */
export function securityHeaders() {
  return (req: Request, res: Response, next: NextFunction): void => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const writeHead = res.writeHead;
    // Node sends implicit headers through writeHead too (res.end without it), so this sees every response.
    res.writeHead = function (this: Response, ...args: unknown[]) {
      // req.tawqi is set by requestContext; the health endpoints answer before it, from the socket alone.
      const secure = req.tawqi?.secure ?? Boolean((req.socket as TLSSocket).encrypted);
      if (secure) res.setHeader('Strict-Transport-Security', HSTS);
      if (/^text\/html\b/i.test(String(res.getHeader('Content-Type') ?? ''))) {
        if (!res.hasHeader('Content-Security-Policy')) res.setHeader('Content-Security-Policy', FALLBACK_PAGE_CSP);
        if (!res.hasHeader('Referrer-Policy')) res.setHeader('Referrer-Policy', 'no-referrer');
      }
      return (writeHead as (...a: unknown[]) => Response).apply(this, args);
    } as Response['writeHead'];
    next();
  };
}
