import type { Request, Response } from 'express';
import { completeIdempotency } from '../store/idempotency.js';
import type { Db } from '../store/db.js';
import type { AppContext } from './context.js';

export interface WriteResult {
  status: number;
  body: unknown;
}

/**
 * The one way a handler changes state: `work` runs in a single transaction together with the
 * idempotency record of its response; the response is sent and jobs are woken only after commit.
 */
export async function commitWrite(ctx: AppContext, req: Request, res: Response, work: (trx: Db) => Promise<WriteResult>): Promise<void> {
  const result = await ctx.store.tx(async (trx) => {
    const r = await work(trx);
    if (req.tawqi.idempotency) await completeIdempotency(trx, req.tawqi.idempotency, r.status, JSON.stringify(r.body));
    return r;
  });
  ctx.afterCommit();
  res.status(result.status).json(result.body);
}
