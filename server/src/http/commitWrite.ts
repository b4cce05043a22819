import type { Request, Response } from 'express';
import { recordAudit } from '../services/consoleAudit.js';
import { completeIdempotency } from '../store/idempotency.js';
import type { Db } from '../store/db.js';
import type { AppContext } from './context.js';
import { idempotencyInProgress } from './middleware/idempotency.js';

export interface WriteResult {
  status: number;
  body: unknown;
}

export interface WriteOptions {
  /**
   * Run in store.lockingTx (READ COMMITTED on PostgreSQL) instead of store.tx (SERIALIZABLE): only
   * for work that follows lockingTx's rule (store/types.ts). The idempotency record written here
   * does (an UPDATE conditioned on the claim's token).
   */
  locking?: boolean;
  /**
   * Run in store.groupTx: lockingTx shared with the other grouped writes of the moment, one
   * transaction and one INSERT per table for all of them (PostgreSQL; store/pgGroupCommit.ts). Only
   * for work that follows groupTx's rule (store/types.ts): a create.
   */
  grouped?: boolean;
}

/**
 * A change made by a console user through their internal credential is written to the account's
 * audit log in the change's own transaction: who (the user), what (method, path, the object's id,
 * the status) and which request. Changes made with the account's keys are not (they are the
 * integration's own; the event log and webhooks record them). commitWrite calls it; a write route
 * that runs its own transactions (POST /sessions) calls it in each of them.
 */
export async function auditConsoleWrite(ctx: AppContext, req: Request, trx: Db, r: WriteResult): Promise<void> {
  const auth = req.tawqi.auth;
  if (!auth?.user) return;
  const id = (r.body as { id?: unknown } | null)?.id;
  await recordAudit(
    trx,
    ctx.clock,
    { account_id: auth.account.id, user_id: auth.user.id, actor: auth.user.email, ip: req.tawqi.clientIp },
    {
      action: 'api.request',
      target: typeof id === 'string' ? id : null,
      detail: {
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: r.status,
        request_id: req.tawqi.requestId,
        livemode: auth.livemode,
      },
    },
  );
}

/**
 * The one way a handler changes state: `work` runs in a single transaction together with the
 * idempotency record of its response; the response is sent and jobs are woken only after commit.
 */
export async function commitWrite(
  ctx: AppContext,
  req: Request,
  res: Response,
  work: (trx: Db) => Promise<WriteResult>,
  options: WriteOptions = {},
): Promise<void> {
  const claim = req.tawqi.idempotency;
  const inTx = async (trx: Db): Promise<{ status: number; json: string }> => {
    const r = await work(trx);
    await auditConsoleWrite(ctx, req, trx, r);
    // The body is serialised once: the stored response and the one sent are the same text.
    const json = JSON.stringify(r.body);
    // The key is no longer this request's (SQLite: a record written since the claim, a retry racing a
    // client that went away; PostgreSQL: a claim taken over after its lease): undo this one.
    if (claim && !(await completeIdempotency(trx, claim, r.status, json))) throw idempotencyInProgress();
    return { status: r.status, json };
  };
  const result = options.grouped
    ? await ctx.store.groupTx(inTx, req.tawqi.auth?.account.id)
    : await (options.locking ? ctx.store.lockingTx : ctx.store.tx)(inTx);
  if (claim) claim.stored = true;
  ctx.afterCommit();
  // What res.json(body) sends (Express's json settings are the defaults), written directly: no
  // second serialisation, no Content-Type parsing and no copy of the body into a Buffer per answer.
  res.statusCode = result.status;
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(result.json));
  res.end(result.json);
}
