/**
 * Accounts in the admin console:
 * - `GET /admin/accounts?query=&limit=&starting_after=`: newest first; `query` matches the name, the
 *   owner email or a user's email (contains, case-insensitive for Latin letters) or the exact id;
 * - `GET /admin/accounts/:id`: plan, expiry, wallet, send balance, verification state, users;
 * - `PATCH /admin/accounts/:id {plan?, plan_expires_at?}`: a new paid plan without an expiry runs a year;
 * - `POST /admin/accounts/:id/wallet_topups {amount, note?}` (amount in the wallet currency, e.g. "250" or "12.50");
 * - `POST /admin/accounts/:id/sends {sends, note?}`: add to the yearly send balance;
 * - `GET /admin/accounts/:id/ledger?limit=&starting_after=`: the ledger, newest first.
 */
import { z } from 'zod';
import { parseMinor } from '../../../../domain/money.js';
import { PLAN_NAMES } from '../../../../domain/plans.js';
import {
  adminAccountDetail,
  changePlan,
  creditAccountAsOperator,
  findAccounts,
  presentLedgerEntry,
} from '../../../../services/adminAccounts.js';
import { actorOf } from '../../../../services/consoleSignIn.js';
import { getAccount } from '../../../../store/accounts.js';
import { ledgerPage } from '../../../../store/ledger.js';
import type { AppContext } from '../../../context.js';
import type { ConsoleRoutes } from '../routes.js';
import { checkCursor, limitParam, listPage } from '../../../lists.js';
import { parseWith } from '../../../routes/registry.js';
import type { Request } from 'express';
import { ApiError } from '../../../../errors.js';

const MAX_TOPUP_MINOR = 100_000_000_00;

const listQuery = z.strictObject({
  query: z.string().trim().max(200).optional(),
  limit: limitParam(100),
  starting_after: z.string().min(1).max(100).optional(),
});
const pageQuery = z.strictObject({ limit: limitParam(100), starting_after: z.string().min(1).max(100).optional() });

const planBody = z
  .strictObject({
    plan: z.enum(PLAN_NAMES).optional(),
    plan_expires_at: z.number().int().min(0).max(99_999_999_999).nullable().optional(),
  })
  .refine((b) => b.plan !== undefined || b.plan_expires_at !== undefined, 'give plan, plan_expires_at or both');

/** A positive amount with at most two decimals, as a string ("12.50") or a number (12.5), in minor units. */
const amountInput = z.union([z.string().max(20), z.number()]).transform((v, c) => {
  const minor = parseMinor(typeof v === 'number' ? String(v) : v.trim());
  if (minor === null || minor <= 0 || minor > MAX_TOPUP_MINOR) {
    c.addIssue({ code: 'custom', message: 'a positive amount with at most two decimals, e.g. "250" or "12.50"' });
    return z.NEVER;
  }
  return minor;
});
const note = z.string().trim().min(1).max(200).optional();
const topupBody = z.strictObject({ amount: amountInput, note });
const sendsBody = z.strictObject({ sends: z.number().int().min(1).max(10_000_000), note });

const operatorOf = (req: Request) => actorOf(req.tawqi.console!.user, req.tawqi.clientIp);

export function adminAccountsRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/admin/accounts', 'operator', async (req, res) => {
    const q = parseWith(listQuery, req.query);
    await checkCursor(q.starting_after, async (id) => (await getAccount(ctx.store.db, id)) !== undefined);
    res.json(listPage(await findAccounts(ctx, q.query || undefined, q.limit, q.starting_after), q.limit));
  });

  routes.add('get', '/admin/accounts/:id', 'operator', async (req, res) => {
    res.json(await adminAccountDetail(ctx, String(req.params.id)));
  });

  routes.add('patch', '/admin/accounts/:id', 'operator', async (req, res) => {
    const body = parseWith(planBody, req.body ?? {});
    res.json(await changePlan(ctx, operatorOf(req), String(req.params.id), body));
  });

  routes.add('post', '/admin/accounts/:id/wallet_topups', 'operator', async (req, res) => {
    const body = parseWith(topupBody, req.body ?? {});
    res
      .status(201)
      .json(await creditAccountAsOperator(ctx, operatorOf(req), String(req.params.id), { walletMinor: body.amount }, body.note));
  });

  routes.add('post', '/admin/accounts/:id/sends', 'operator', async (req, res) => {
    const body = parseWith(sendsBody, req.body ?? {});
    res.status(201).json(await creditAccountAsOperator(ctx, operatorOf(req), String(req.params.id), { sends: body.sends }, body.note));
  });

  routes.add('get', '/admin/accounts/:id/ledger', 'operator', async (req, res) => {
    const q = parseWith(pageQuery, req.query);
    const account = await getAccount(ctx.store.db, String(req.params.id));
    if (!account) throw new ApiError('not_found', 'id');
    await checkCursor(q.starting_after, async (id) => (await ledgerPage(ctx.store.db, account.id, 1, undefined, id)).length === 1);
    const rows = await ledgerPage(ctx.store.db, account.id, q.limit + 1, q.starting_after);
    res.json(
      listPage(
        rows.map((e) => presentLedgerEntry(e, account.currency)),
        q.limit,
      ),
    );
  });
}
