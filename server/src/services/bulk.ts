import type { BulkSendSummary } from '@tawqi/shared/api';
import { z } from 'zod';
import { nowSeconds } from '../clock.js';
import { PLANS, priceSend, type Feature } from '../domain/plans.js';
import { featuresUsed } from '../domain/requestRules.js';
import { signatureRequestCreateSchema, signerInputSchema, type SignatureRequestCreate } from '../domain/signatureRequestInput.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { getAccount } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import type { ServiceContext } from '../context.js';
import { signerObject, type ObjectView } from '../presenters/objects.js';
import { createSignatureRequest, type Actor, type CreateOptions, type RequestWithSigners } from './signatureRequests.js';

/**
 * POST /signature_requests/bulk (spec 4, 7, 8): one contract to many recipients, one request each
 * (the recipient its only signer). Every request is created in one transaction, so validation and
 * charge are all-or-nothing: a refused recipient, a limit or the balance undoes the whole batch.
 */
export const MAX_BULK_RECIPIENTS = 100;
export const TEST_BULK_LIMIT = 10;
/** The metadata key every request of a batch carries, with the batch id. */
export const BATCH_METADATA_KEY = 'bulk_batch';

const { signers: _signers, send: _send, ordered: _ordered, ...shared } = signatureRequestCreateSchema.shape;

export const bulkSendSchema = z.strictObject({
  ...shared,
  /** Field values for every document; a recipient's own `fields` win. */
  fields: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.string().max(2000)).default({}),
  recipients: z.array(signerInputSchema).min(1).max(MAX_BULK_RECIPIENTS),
});
export type BulkSend = z.infer<typeof bulkSendSchema>;

/** The create body of recipient i: the shared contract with that recipient as its only signer. */
export function recipientBody(b: BulkSend, i: number, batchId: string | null): SignatureRequestCreate {
  const { recipients, fields, ...rest } = b;
  const r = recipients[i]!;
  return {
    ...rest,
    ordered: false,
    send: true,
    metadata: batchId ? { ...rest.metadata, [BATCH_METADATA_KEY]: batchId } : rest.metadata,
    signers: [{ ...r, fields: { ...fields, ...r.fields } }],
  };
}

/** The plan features a batch uses: bulk send, then whatever each recipient's request uses. */
export function bulkFeatures(b: BulkSend): [Feature, string][] {
  const out: [Feature, string][] = [['bulk_send', 'recipients']];
  const seen = new Set<string>();
  b.recipients.forEach((_r, i) => {
    for (const [feature, param] of featuresUsed(recipientBody(b, i, null))) {
      const named = param.replace(/^signers\[0\]/, `recipients[${i}]`);
      if (!seen.has(feature)) out.push([feature, named]);
      seen.add(feature);
    }
  });
  return out;
}

/** A recipient's refusal names the recipient: signers[0].email → recipients[3].email. */
function forRecipient(err: unknown, i: number): unknown {
  if (!(err instanceof ApiError) || err.param === null || !err.param.startsWith('signers')) return err;
  return new ApiError(err.code, err.param.replace(/^signers(\[0\])?/, `recipients[${i}]`), err.extra, err.headers, err.detail);
}

/**
 * Create and send the batch in the caller's transaction. The whole batch's price is checked first
 * (402 insufficient_balance with the batch's totals, nothing created); each request is then
 * charged as any request is.
 */
export async function createBulk(
  ctx: ServiceContext,
  trx: Db,
  actor: Actor,
  b: BulkSend,
  opts: Pick<CreateOptions, 'accessCodeHashes'> = {},
): Promise<{ batchId: string; created: RequestWithSigners[]; createdAt: number }> {
  if (!actor.livemode && b.recipients.length > TEST_BULK_LIMIT)
    throw new ApiError('test_bulk_limit', 'recipients', { max_recipients: TEST_BULK_LIMIT });
  const account = (await getAccount(trx, actor.account.id))!;
  if (actor.livemode) {
    const identity = b.recipients.filter((r) => b.legal_level === 'aes' || b.require_identity || r.require_identity).length;
    const price = priceSend(PLANS[account.plan], account.balance_sends, b.recipients.length, identity);
    if (price.walletMinor > account.wallet_minor) {
      throw new ApiError('insufficient_balance', null, {
        required: { amount: price.walletMinor / 100, currency: account.currency },
        available: { amount: account.wallet_minor / 100, currency: account.currency },
        recipients: b.recipients.length,
      });
    }
  }
  // A batch id in the style of the others (time-ordered), with its own prefix.
  const batchId = 'bat_' + newId('signatureRequest', ctx.clock).slice('sr_'.length);
  const created: RequestWithSigners[] = [];
  for (let i = 0; i < b.recipients.length; i++) {
    try {
      created.push(await createSignatureRequest(ctx, trx, actor, recipientBody(b, i, batchId), opts));
    } catch (err) {
      throw forRecipient(err, i);
    }
  }
  return { batchId, created, createdAt: nowSeconds(ctx.clock) };
}

/** The batch summary (201): the batch id, counts, each request with its signer, and the batch's cost. */
export function presentBatch(
  batch: { batchId: string; created: RequestWithSigners[]; createdAt: number },
  view: ObjectView,
  livemode: boolean,
): BulkSendSummary {
  const { created } = batch;
  const walletMinor = created.reduce((n, c) => n + (c.request.charged ? c.request.cost_wallet_minor : 0), 0);
  const sends = created.reduce((n, c) => n + (c.request.charged ? c.request.cost_sends : 0), 0);
  return {
    id: batch.batchId,
    object: 'bulk_send' as const,
    livemode,
    status: 'sent' as const,
    template_id: created[0]!.request.template_id,
    title: created[0]!.request.title,
    counts: {
      recipients: created.length,
      signature_requests: created.length,
      sent: created.filter((c) => c.request.status === 'sent').length,
    },
    signature_requests: created.map((c) => {
      const signer = signerObject(c.signers[0]!, c.request, view);
      return {
        id: c.request.id,
        status: c.request.status,
        signer: {
          id: signer.id,
          name: signer.name,
          email: signer.email,
          phone: signer.phone,
          status: signer.status,
          signing_url: signer.signing_url,
        },
      };
    }),
    cost: {
      amount: walletMinor / 100,
      sends,
      currency: view.currency,
      source: created.some((c) => c.request.cost_source === 'overage') ? ('overage' as const) : ('plan' as const),
    },
    created_at: batch.createdAt,
  };
}
