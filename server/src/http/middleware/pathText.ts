import type { NextFunction, Request, Response } from 'express';
import { forbiddenCharacterAt } from '../../domain/inputText.js';
import { ApiError } from '../../errors.js';
import { sendError } from '../envelope.js';

/**
 * A path whose decoded segments hold a control character (the text rule of domain/inputText.ts,
 * which bodies and queries follow too), e.g. an id spelled with %00, names no object: 404 not_found
 * before any route looks it up. PostgreSQL cannot even compare text holding NUL: the lookup failed
 * with an error, answered 500. Segments that do not decode are left to the router (also 404).
 */
export function refuseControlCharactersInPath(req: Request, res: Response, next: NextFunction): void {
  if (!req.path.includes('%')) return next();
  const segments = req.path.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return '';
    }
  });
  if (forbiddenCharacterAt(segments)) return sendError(req, res, new ApiError('not_found'));
  next();
}
