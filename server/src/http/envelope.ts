import { ERRORS, type ErrorEnvelope, type Language } from '@tawqi/shared';
import type { Request, Response } from 'express';
import { ApiError } from '../errors.js';

/** What a failure says to a reader in `lang`: its own detail, else the error table's message. */
export function errorMessage(err: ApiError, lang: Language): string {
  return err.detail ? err.detail[lang] : ERRORS[err.code][lang];
}

/** A failure's HTTP status (the error table's). */
export function errorStatus(err: ApiError): number {
  return ERRORS[err.code].status;
}

/** Render any failure in the specification's envelope, in the request's language. Never leaks a stack. */
export function sendError(req: Request, res: Response, err: ApiError): void {
  const def = ERRORS[err.code];
  const lang = req.tawqi?.lang ?? 'ar';
  const body: ErrorEnvelope = {
    error: {
      type: def.type,
      code: err.code,
      message: errorMessage(err, lang),
      param: err.param,
      request_id: req.tawqi?.requestId ?? '',
      ...err.extra,
    },
  };
  startErrorResponse(res, err).json(body);
}

/**
 * What every answer to a failure carries whatever its body (the envelope, or a page that shows the
 * failure): the error's status and headers, and its code for the request log
 * (middleware/requestLog.ts), which reads the response, not the body.
 */
export function startErrorResponse(res: Response, err: ApiError): Response {
  res.locals.errorCode = err.code;
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  return res.status(errorStatus(err));
}
