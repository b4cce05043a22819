import { ERRORS, type ErrorEnvelope } from '@tawqi/shared';
import type { Request, Response } from 'express';
import { ApiError } from '../errors.js';

/** Render any failure in the specification's envelope, in the request's language. Never leaks a stack. */
export function sendError(req: Request, res: Response, err: ApiError): void {
  const def = ERRORS[err.code];
  const lang = req.tawqi?.lang ?? 'ar';
  const body: ErrorEnvelope = {
    error: {
      type: def.type,
      code: err.code,
      message: err.detail ? err.detail[lang] : def[lang],
      param: err.param,
      request_id: req.tawqi?.requestId ?? '',
      ...err.extra,
    },
  };
  // For the request log (middleware/requestLog.ts), which reads the response, not the body.
  res.locals.errorCode = err.code;
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  res.status(def.status).json(body);
}
