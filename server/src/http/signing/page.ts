import { PageStateSchema } from '@tawqi/shared';
import type { Request, Response } from 'express';
import { loadPage, pageState, type PageContext } from '../../services/signerJourney.js';
import { findPageSession } from '../../store/pageSessions.js';
import { getRequestById, signersOf } from '../../store/signatureRequests.js';
import type { AppContext } from '../context.js';

/** Page API calls carry the page token in this custom header — the CSRF guard. */
export const TOKEN_HEADER = 'x-tawqi-page-token';

/** Where a signer's action came from: the client IP and (a bounded) User-Agent. */
export const origin = (req: Request) => ({
  ip: req.tawqi.clientIp,
  user_agent: String(req.headers['user-agent'] ?? '').slice(0, 300) || null,
});

/**
 * A page API handler: load the page context, answer in the request's language, run `handler`, and
 * return the fresh state.
 */
export const pageHandler =
  (ctx: AppContext) =>
  (handler: (p: PageContext, req: Request) => Promise<void>) =>
  async (req: Request, res: Response): Promise<void> => {
    const p = await loadPage(ctx, ctx.store.db, req.get(TOKEN_HEADER));
    req.tawqi.lang = p.request.language;
    await handler(p, req);
    ctx.afterCommit();
    // Signing and declining end the session, so the state is read for this signer directly.
    const fresh = await reload(ctx, p);
    res.json(PageStateSchema.parse(await pageState(ctx, fresh)));
  };

/** The page context after the signature (the session is ended by then, so it is read directly). */
async function reload(ctx: AppContext, p: PageContext): Promise<PageContext> {
  const signers = await signersOf(ctx.store.db, p.request.id);
  const session = (await findPageSession(ctx.store.db, p.session.token_hash))!;
  return {
    ...p,
    session,
    request: (await getRequestById(ctx.store.db, p.request.id))!,
    signers,
    signer: signers.find((s) => s.id === p.signer.id)!,
  };
}
