import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../../errors.js';

/** Whether the request carries body bytes: a non-zero Content-Length, or a chunked body. */
function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * `application/json`, optionally with `charset=utf-8` (any case, quoted or not) and nothing else:
 * a text/plain, form-encoded or untyped body is not guessed at.
 */
function isJsonType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(';').map((s) => s.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((p) => p === '' || /^charset\s*=\s*(utf-8|"utf-8")$/.test(p));
}

/**
 * Strict JSON bodies for the JSON endpoints (the API and the signing page's API): a request with a
 * body must say `Content-Type: application/json` (charset utf-8 at most), else
 * `415 unsupported_media_type` naming `Content-Type`, before any handler runs — so nothing is
 * created. A request without a body (no Content-Length, or 0) passes whatever its type.
 */
export function jsonBody(limit: number | string) {
  const parse = express.json({ limit, type: () => true });
  return (req: Request, res: Response, next: NextFunction): void => {
    // A request without body bytes (every GET) skips the parser, which would only find that out again.
    if (!hasBody(req)) return next();
    if (!isJsonType(req.headers['content-type'])) return next(new ApiError('unsupported_media_type', 'Content-Type'));
    parse(req, res, next);
  };
}
