import {
  TokenCheckBodySchema,
  TokenCheckedSchema,
  TokenCompleteBodySchema,
  TokenPrepareBodySchema,
  TokenPreparedSchema,
} from '@tawqi/shared';
import express, { type Request, type Response } from 'express';
import { checkTokenCertificates, completeTokenSignature, prepareTokenSignature, tokenPreview } from '../../services/qes.js';
import { loadPage } from '../../services/signerJourney.js';
import type { AppContext } from '../context.js';
import { parseWith } from '../routes/registry.js';
import { origin, pageHandler, TOKEN_HEADER } from './page.js';

/**
 * The token calls of the page API (signing-page/API.md, "Qualified signature with a token"), mounted
 * at /sign/api/token: check, prepare and complete behind the page token, preview behind the sign ticket
 * (the agent fetches it, not the page).
 */
export function tokenRouter(ctx: AppContext): express.Router {
  const router = express.Router();

  // A read: no state changes, so the certificate list can be checked as often as the agent lists it.
  router.post('/check', async (req: Request, res: Response) => {
    const p = await loadPage(ctx, ctx.store.db, req.get(TOKEN_HEADER));
    req.tawqi.lang = p.request.language;
    const body = parseWith(TokenCheckBodySchema, req.body ?? {});
    res.json(TokenCheckedSchema.parse(checkTokenCertificates(ctx, p, body)));
  });

  router.post('/prepare', async (req: Request, res: Response) => {
    const p = await loadPage(ctx, ctx.store.db, req.get(TOKEN_HEADER));
    req.tawqi.lang = p.request.language;
    const body = parseWith(TokenPrepareBodySchema, req.body ?? {});
    res.json(TokenPreparedSchema.parse(await prepareTokenSignature(ctx, p, body)));
  });

  router.get('/preview', async (req: Request, res: Response) => {
    const auth = req.get('authorization') ?? '';
    const ticket = /^Bearer\s+(\S+)$/i.exec(auth)?.[1] ?? null;
    const preview = await tokenPreview(ctx, ticket);
    res.setHeader('Content-Type', preview.contentType);
    res.setHeader(
      'Content-Disposition',
      preview.contentType === 'application/pdf' ? 'inline; filename="preview.pdf"' : 'inline; filename="preview.png"',
    );
    res.end(Buffer.from(preview.body.buffer, preview.body.byteOffset, preview.body.byteLength));
  });

  router.post(
    '/complete',
    pageHandler(ctx)(async (p, req) => {
      const body = parseWith(TokenCompleteBodySchema, req.body ?? {});
      await completeTokenSignature(ctx, p, body, origin(req));
    }),
  );

  return router;
}
