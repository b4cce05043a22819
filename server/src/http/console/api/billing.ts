/**
 * Billing (read only, billing.read: owner and admin): GET /billing (plan, year end, balances, prices
 * as GET /usage gives them, ledger totals), GET /billing/ledger (cursor pages, newest first),
 * GET /billing/usage?months= (per calendar month), GET /billing/prices, GET /billing/notices
 * (publishable-key daily cap at 80% and 100%).
 */
import type { Request } from 'express';
import { z } from 'zod';
import { billingOverview, capNotices, ledgerHas, ledgerRows, priceList, usageByMonth } from '../../../services/billing.js';
import type { AppContext } from '../../context.js';
import { checkCursor, limitParam, listPage } from '../../lists.js';
import { parseWith } from '../../routes/registry.js';
import type { ConsoleRoutes } from './routes.js';

const ledgerQuery = z.strictObject({ limit: limitParam(100), starting_after: z.string().min(1).max(100).optional() });
const usageQuery = z.strictObject({ months: z.coerce.number().int().min(1).max(24).default(12) });
const none = z.strictObject({});

export function billingRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  const accountId = (req: Request): string => req.tawqi.console!.user.account_id!;
  routes.add('get', '/billing', 'billing.read', async (req, res) => {
    parseWith(none, req.query);
    res.json(await billingOverview(ctx, accountId(req)));
  });
  routes.add('get', '/billing/ledger', 'billing.read', async (req, res) => {
    const q = parseWith(ledgerQuery, req.query);
    await checkCursor(q.starting_after, (id) => ledgerHas(ctx, accountId(req), id));
    res.json(listPage(await ledgerRows(ctx, accountId(req), q.limit + 1, q.starting_after), q.limit));
  });
  routes.add('get', '/billing/usage', 'billing.read', async (req, res) => {
    const q = parseWith(usageQuery, req.query);
    res.json(await usageByMonth(ctx, accountId(req), q.months));
  });
  routes.add('get', '/billing/prices', 'billing.read', async (req, res) => {
    parseWith(none, req.query);
    res.json(await priceList(ctx, accountId(req)));
  });
  routes.add('get', '/billing/notices', 'billing.read', async (req, res) => {
    parseWith(none, req.query);
    res.json(await capNotices(ctx, accountId(req)));
  });
}
