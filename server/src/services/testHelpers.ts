/**
 * Test helpers (POST /api/v1/test_helpers/…, an extension beyond the spec, like Stripe's): act as a
 * test-mode signer without the one-time code that only the signer's inbox receives, so a test
 * request can be driven to any state unattended (`tawqi trigger`, an integrator's CI).
 *
 * Each step runs the very functions the signer's page runs (signerJourney.ts, identity.ts), one
 * transaction per state change, so the events, the seal job and the webhooks are those of a real
 * signing. Only test-mode objects of the key's own account are found; anything else is not_found.
 */
import { nowSeconds } from '../clock.js';
import { ApiError } from '../errors.js';
import { getAccount } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import type { PageSession } from '../store/pageSessions.js';
import { getRequestById, getSigner, signersOf } from '../store/signatureRequests.js';
import type { ServiceContext } from '../context.js';
import { decideSimulation, startIdentityVerification } from './identity.js';
import { pageStep, passOtp, signOnPage, type PageContext } from './signerJourney.js';
import type { ActionOrigin } from './signerActions.js';
import type { Actor, RequestWithSigners } from './signatureRequests.js';

/**
 * The drawn signature a helper signs with: a small PNG of a wavy stroke (24×8, black on transparent), a
 * real image that the page's PNG check, the sealed document and the certificate all accept.
 */
export const HELPER_SIGNATURE_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABgAAAAICAYAAADjoT9jAAAAI0lEQVR42mNgGOTgPx5MFcMpkSfoaqIdQbKGQedlukUaTQAAHOgX6aVDmF4AAAAASUVORK5CYII=';

/**
 * The signer's page context for a helper: the signer's own request, found only with a test key of
 * its account. The helper stands where the signer's page session would (an access code counts as
 * given: the helper acts for a signer who knows it).
 */
async function helperPage(trx: Db, actor: Actor, signerId: string, now: number): Promise<PageContext> {
  if (actor.livemode) throw new ApiError('test_mode_only');
  const signer = signerId.startsWith('sgr_') ? await getSigner(trx, signerId) : undefined;
  const request = signer && (await getRequestById(trx, signer.signature_request_id));
  if (!signer || !request || request.account_id !== actor.account.id || request.livemode) throw new ApiError('not_found', 'id');
  const signers = await signersOf(trx, request.id);
  const session: PageSession = {
    token_hash: '',
    signer_id: signer.id,
    kind: 'link',
    signing_session_id: null,
    access_granted: 1,
    expires_at: now,
    revoked_at: null,
    created_at: now,
  };
  const account = (await getAccount(trx, request.account_id))!;
  return { session, signingSession: null, signer: signers.find((s) => s.id === signer.id)!, request, signers, account };
}

/** The identity statuses at which the page offers the verification (pageStep's `identity` step). */
const IDENTITY_DUE: readonly string[] = ['required', 'resubmission_requested'];

const refuse = (step: string): ApiError => new ApiError('invalid_state', 'id', { reason: step });

/** The request as it stands at the end of the caller's transaction (the helpers' answer). */
async function current(trx: Db, p: PageContext): Promise<RequestWithSigners> {
  return { request: (await getRequestById(trx, p.request.id))!, signers: await signersOf(trx, p.request.id) };
}

/** Where the signer stands now (read outside any transaction: each step below checks again inside its own). */
async function stepOf(ctx: ServiceContext, actor: Actor, signerId: string) {
  return pageStep(await helperPage(ctx.store.db, actor, signerId, nowSeconds(ctx.clock)));
}

/** The right one-time code entered, as POST /sign/api/otp/verify does: signer.viewed (first time) and signer.otp_verified. */
export async function verifyOtpStep(ctx: ServiceContext, trx: Db, actor: Actor, signerId: string, origin: ActionOrigin) {
  const p = await helperPage(trx, actor, signerId, nowSeconds(ctx.clock));
  const step = pageStep(p);
  if (step !== 'otp') throw refuse(step);
  await passOtp(ctx, trx, p.signer, origin);
  return current(trx, p);
}

/** Pass the code step in its own transaction when the signer is at it (a step before identity or signing). */
async function passOtpIfDue(ctx: ServiceContext, actor: Actor, signerId: string, origin: ActionOrigin): Promise<void> {
  if ((await stepOf(ctx, actor, signerId)) !== 'otp') return;
  await ctx.store.tx((trx) => verifyOtpStep(ctx, trx, actor, signerId, origin));
  ctx.afterCommit();
}

/**
 * Before the identity decision: the code step, then the verification opened in the simulation (as the
 * page's "verify my identity" button does). The decision itself is `decideIdentityStep`, in the caller's
 * transaction.
 */
export async function prepareIdentity(ctx: ServiceContext, actor: Actor, signerId: string, origin: ActionOrigin): Promise<void> {
  // Refused before the code step changes anything: a signer without identity to verify never gets there.
  const p = await helperPage(ctx.store.db, actor, signerId, nowSeconds(ctx.clock));
  if (pageStep(p) === 'otp' && !IDENTITY_DUE.includes(p.signer.identity.status)) throw refuse('identity_not_required');
  await passOtpIfDue(ctx, actor, signerId, origin);
  const step = await stepOf(ctx, actor, signerId);
  if (step !== 'identity' && step !== 'identity_declined') throw refuse(step);
  await startIdentityVerification(ctx, signerId);
}

/** The signer's choice on the identity simulation page: signer.identity_verified or signer.identity_declined. */
export async function decideIdentityStep(ctx: ServiceContext, trx: Db, actor: Actor, signerId: string, decision: 'approve' | 'decline') {
  const p = await helperPage(trx, actor, signerId, nowSeconds(ctx.clock));
  await decideSimulation(ctx, trx, p.signer.id, decision);
  return current(trx, p);
}

/**
 * Before the signature: the code step, and an identity still to verify approved in the simulation
 * (each its own transaction, as on the page). A declined or held identity stops here.
 */
export async function prepareSigning(ctx: ServiceContext, actor: Actor, signerId: string, origin: ActionOrigin): Promise<void> {
  await passOtpIfDue(ctx, actor, signerId, origin);
  if ((await stepOf(ctx, actor, signerId)) !== 'identity') return;
  await prepareIdentity(ctx, actor, signerId, origin);
  await ctx.store.tx((trx) => decideIdentityStep(ctx, trx, actor, signerId, 'approve'));
  ctx.afterCommit();
}

/** The signature, as POST /sign/api/sign does, with the helper's drawn signature: signer.signed and what follows it. */
export async function signStep(ctx: ServiceContext, trx: Db, actor: Actor, signerId: string, origin: ActionOrigin) {
  const p = await helperPage(trx, actor, signerId, nowSeconds(ctx.clock));
  await signOnPage(ctx, trx, p, HELPER_SIGNATURE_PNG, origin);
  return current(trx, p);
}
