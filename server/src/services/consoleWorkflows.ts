/**
 * The console's workflows (issue 16 point 1): what GET /flows does not show — drafts, archived
 * workflows, the working copy and every version — and the changes the operator's `tawqi workflow`
 * commands make, through the same services (one rule set), scoped to the signed-in user's account
 * (another account's workflow is not found) and each written to the audit log in its own transaction.
 */
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { getAccount, type Account } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import { getWorkflow, type WorkflowRecord } from '../store/workflows.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';
import {
  accountWorkflows,
  archiveWorkflowIn,
  changeWorkflowIn,
  createWorkflowIn,
  describeWorkflow,
  findWorkflow,
  operatorView,
  publishWorkflowIn,
  requireStored,
  WorkflowRuleError,
  type WorkflowPatch,
  type WorkflowWithVersion,
} from './workflows.js';

type Actor = AuditActor & { account_id: string };

/** A workflow as the console shows it: both its working settings and its latest published version's number. */
export type WorkflowView = ReturnType<typeof operatorView> & { object: 'workflow' };

/** A workflow rule the services refused, in the envelope (both languages, on the field it names). */
function asApiError(err: unknown): unknown {
  if (!(err instanceof WorkflowRuleError)) return err;
  return new ApiError(err.code, err.param, {}, {}, { en: err.message, ar: err.ar });
}

function view(w: WorkflowWithVersion): WorkflowView {
  const { account: _account, ...rest } = operatorView(w);
  return { ...rest, object: 'workflow' } as WorkflowView;
}

async function accountOf(db: Db, accountId: string): Promise<Account> {
  const account = await getAccount(db, accountId);
  if (!account) throw new ApiError('not_found');
  return account;
}

/** Every workflow of the account: the built-in default first, then drafts, published and archived ones, newest first. */
export async function listConsoleWorkflows(ctx: ServiceContext, accountId: string): Promise<WorkflowView[]> {
  return ctx.store.tx(async (trx) => (await accountWorkflows(trx, await accountOf(trx, accountId))).map(view));
}

/** One workflow with its working copy and every published version, newest first. */
export async function readConsoleWorkflow(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.store.tx(async (trx) => {
    const account = await accountOf(trx, accountId);
    // Only the account's own (the default included); anything else is not found.
    if (!(await findWorkflow(trx, account, id))) throw new ApiError('not_found', 'id');
    const { account: _account, ...rest } = await describeWorkflow(trx, account, id);
    return { ...rest, object: 'workflow' as const };
  });
}

/** The account's stored workflow `id`, for a change (another account's: not found; the default: 409 invalid_state). */
async function ownStored(trx: Db, accountId: string, id: string): Promise<WorkflowRecord> {
  const w = await getWorkflow(trx, id);
  if (w && w.account_id !== accountId) throw new ApiError('not_found', 'id');
  return requireStored(trx, id);
}

/** One change in one transaction, audited in it; a rule refused is answered in the envelope. */
async function change(
  ctx: ServiceContext,
  who: Actor,
  action: string,
  work: (trx: Db) => Promise<WorkflowWithVersion>,
): Promise<WorkflowView> {
  try {
    return await ctx.store.tx(async (trx) => {
      const w = await work(trx);
      await recordAudit(trx, ctx.clock, who, {
        action,
        target: w.workflow.id,
        detail: { name: w.workflow.name, version: w.published?.version ?? null },
      });
      return view(w);
    });
  } catch (err) {
    throw asApiError(err);
  }
}

export function createConsoleWorkflow(ctx: ServiceContext, who: Actor, name: string, patch: WorkflowPatch): Promise<WorkflowView> {
  return change(ctx, who, 'workflow.created', (trx) => createWorkflowIn(trx, ctx.clock, who.account_id, name, patch));
}

/** Change the working copy; sessions keep the published version until the next publish. */
export function changeConsoleWorkflow(
  ctx: ServiceContext,
  who: Actor,
  id: string,
  patch: WorkflowPatch,
  name?: string,
): Promise<WorkflowView> {
  return change(ctx, who, 'workflow.updated', async (trx) =>
    changeWorkflowIn(trx, ctx.clock, await ownStored(trx, who.account_id, id), patch, name),
  );
}

export function publishConsoleWorkflow(ctx: ServiceContext, who: Actor, id: string): Promise<WorkflowView> {
  return change(ctx, who, 'workflow.published', async (trx) => publishWorkflowIn(trx, ctx.clock, await ownStored(trx, who.account_id, id)));
}

export function archiveConsoleWorkflow(ctx: ServiceContext, who: Actor, id: string): Promise<WorkflowView> {
  return change(ctx, who, 'workflow.archived', async (trx) => archiveWorkflowIn(trx, ctx.clock, await ownStored(trx, who.account_id, id)));
}
