import { randomBytes } from 'node:crypto';
import { nowSeconds } from '../clock.js';
import { moveRequest, OPEN_STATUSES, REQUEST_MOVES, SIGNER_MOVES, isFinal, type RequestTrigger } from '../domain/requestStates.js';
import { DAY, dayStart, planCharge, planCreate, type CreatePlan, type CreateRefusal, type PlannedWorkflow } from '../domain/createPlan.js';
import { formatReference, type SignatureRequestCreate } from '../domain/signatureRequestInput.js';
import { invitationChannelOf } from '../domain/workflows.js';
import { signingTemplate, whatsAppMessage } from '../delivery/whatsapp.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { chargeAccount, getAccount, getBalance, type Account } from '../store/accounts.js';
import { incrementCounter, incrementCounters, incrementCounterWithin } from '../store/counters.js';
import type { Db } from '../store/db.js';
import { scheduleJob } from '../store/jobs.js';
import { insertLedger } from '../store/ledger.js';
import { queueMessages, type QueuedMessage } from '../store/messages.js';
import {
  getRequestById,
  insertRequest,
  insertSigners,
  signersOf,
  updateRequest,
  updateSigner,
  type SignatureRequestRecord,
  type SignerRecord,
} from '../store/signatureRequests.js';
import { insertSession } from '../store/workflows.js';
import { findTemplate } from '../store/templates.js';
import { hashCodeAsync } from './codes.js';
import { recordCompletion } from './completion.js';
import type { ServiceContext } from '../context.js';
import { emitEvent, emitEvents, type EmitInput } from '../events/emit.js';
import { invitationMessage } from '../delivery/messages.js';
import { requestObject, signerObject, type ObjectView } from '../presenters/objects.js';
import { queueCcCopies } from './workflows.js';

export interface Actor {
  account: Account;
  livemode: boolean;
}

// Test mode allows TAWQI_TEST_DAILY_REQUESTS requests and TAWQI_TEST_DAILY_EMAILS emails per account and UTC day (spec part 8; 20 and 50).
export const MAX_MANUAL_REMINDERS = 10;
export const REMINDER_GAP_SECONDS = 3600;

export interface RequestWithSigners {
  request: SignatureRequestRecord;
  signers: SignerRecord[];
}

/** Snapshot view for events: full contacts, no links. */
export function snapshotView(ctx: ServiceContext): ObjectView {
  return { links: null, mask: false, currency: ctx.config.TAWQI_CURRENCY, publicUrl: ctx.publicUrl };
}

/** How a request is created beyond its body (sessions and bulk sends; services/sessions.ts, services/bulk.ts). */
export interface CreateOptions {
  /** The workflow the request comes from: kept on the request (objects, webhooks) and in the sessions table. */
  workflow?: PlannedWorkflow;
  /** Sessions: the send's events are emitted later (announceSend), once the invitations' delivery is known. */
  deferEvents?: boolean;
  /** Sessions: the invitations are due this much later; the session delivers at once itself and the outbox is the safety net. */
  deliveryDelaySeconds?: number;
  /** The access codes of the body, hashed beforehand off the event loop (hashAccessCodes). */
  accessCodeHashes?: ReadonlyMap<string, string>;
}

/**
 * Hash the access codes a create will store, before its transaction and on the thread pool (scrypt
 * is ~25 ms each; inside the transaction it would hold up every request of the group commit). One
 * hash per distinct code; every caller of createSignatureRequest passes them.
 */
export async function hashAccessCodes(codes: Iterable<string | undefined>): Promise<Map<string, string>> {
  const distinct = [...new Set([...codes].filter((c): c is string => c !== undefined))];
  const hashes = await Promise.all(distinct.map(hashCodeAsync));
  return new Map(distinct.map((c, i) => [c, hashes[i]!]));
}

/** A refusal of the plan as the API error it is. */
const refused = (r: CreateRefusal): ApiError => new ApiError(r.code, r.param, r.extra ?? {}, r.headers ?? {}, r.detail ?? null);

/**
 * Create a request (and send it unless `send: false`): the plan (domain/createPlan.ts) checks every
 * input rule and makes the rows, then they are written in the caller's transaction — the request,
 * its signers, the charge, the invitations and the events. A request created and sent at once is
 * written once, already sent: its signers inserted once invited, not inserted and then updated.
 */
export async function createSignatureRequest(
  ctx: ServiceContext,
  trx: Db,
  actor: Actor,
  body: SignatureRequestCreate,
  opts: CreateOptions = {},
): Promise<RequestWithSigners> {
  const now = nowSeconds(ctx.clock);
  // The account as authentication read it for this request: no second read. A live send's charge
  // reads the balance afresh, in the transaction (before the plan: the same statements as before).
  const account = actor.account;
  const template = await findTemplate(trx, account.id, body.source.template_id);
  const balance = actor.livemode && body.send ? ((await getBalance(trx, account.id)) ?? null) : null;
  const plan = planCreate({
    body,
    account,
    livemode: actor.livemode,
    template,
    balance,
    now,
    newId: (kind) => newId(kind, ctx.clock),
    limits: { testDailyRequests: ctx.config.TAWQI_TEST_DAILY_REQUESTS, testDailyEmails: ctx.config.TAWQI_TEST_DAILY_EMAILS },
    workflow: opts.workflow,
    accessCodeHashes: opts.accessCodeHashes,
    deferEvents: opts.deferEvents,
    deliveryDelaySeconds: opts.deliveryDelaySeconds,
  });
  if ('refusal' in plan) throw refused(plan.refusal);
  await writeCreatePlan(ctx, trx, plan, now);
  return { request: plan.request, signers: plan.signers };
}

/**
 * Write a create plan. The day's test counters come last, just before the commit: a count is an
 * upsert that locks the account's counter row until the transaction ends, and every create of the
 * account waits for that lock (READ COMMITTED on PostgreSQL, store.lockingTx), so the shorter it
 * is held the more creates of one account commit per second. A refusal by a counter undoes the
 * whole transaction, the rows written before it with it.
 */
async function writeCreatePlan(ctx: ServiceContext, trx: Db, plan: CreatePlan, now: number): Promise<void> {
  await writeCreateRows(ctx, trx, plan, now);
  const tr = plan.testRequests;
  const te = plan.testEmails;
  if (tr && te) {
    // Both counters in one statement on PostgreSQL; the requests' refusal is checked first, as below.
    const { count, within } = await incrementCounters(trx, tr, te);
    if (count > tr.limit) throw refused(tr.refusal);
    if (!within) throw refused(te.refusal);
    return;
  }
  if (tr && (await incrementCounter(trx, tr.scope, tr.windowStart, tr.by)) > tr.limit) throw refused(tr.refusal);
  if (te && !(await incrementCounterWithin(trx, te.scope, te.windowStart, te.by, te.limit))) throw refused(te.refusal);
}

/** The rows of a create plan and its charge (the balance was locked when it was read). */
async function writeCreateRows(ctx: ServiceContext, trx: Db, plan: CreatePlan, now: number): Promise<void> {
  const { request, signers } = plan;
  if (!plan.send) {
    await insertRequest(trx, request);
    await insertSigners(trx, signers);
  }
  if (plan.session) await insertSession(trx, plan.session);
  await scheduleJob(trx, plan.expiry.kind, plan.expiry.runAt, plan.expiry.payload, now, plan.expiry.dedupeKey);
  if (!plan.send) {
    await emitRequestEvent(ctx, trx, plan.events[0]!.type, request, signers);
    return;
  }
  const charge = plan.charge;
  if (charge) {
    if (!(await chargeAccount(trx, request.account_id, charge.sends, charge.walletMinor))) throw refused(charge.refusal);
    await insertLedger(trx, charge.ledger);
  }
  await insertRequest(trx, request);
  const invitations: QueuedMessage[] = [];
  for (const s of plan.invite) {
    const invitation = await invitationFor(ctx, trx, request, s, 'invitation', false, plan.deliveryDelaySeconds);
    if (invitation) invitations.push(invitation);
  }
  await queueMessages(trx, invitations);
  await insertSigners(trx, signers);
  if (plan.events.length > 0) {
    await emitEvents(
      trx,
      ctx.clock,
      plan.events.map((e) =>
        e.signer ? signerEventInput(ctx, e.type, request, e.signer) : requestEventInput(ctx, e.type, request, signers),
      ),
    );
  }
  const reminder = plan.autoReminder;
  if (reminder) await scheduleJob(trx, reminder.kind, reminder.runAt, reminder.payload, now, reminder.dedupeKey);
}

/** POST …/send: a draft is charged and sent; an already charged request gets a reminder instead. */
export async function sendSignatureRequest(ctx: ServiceContext, trx: Db, actor: Actor, id: string): Promise<RequestWithSigners> {
  const current = await loadOwned(trx, actor, id);
  if (current.request.status === 'draft') return sendNow(ctx, trx, current);
  // Test requests are never charged: for them "already sent" is the open status alone.
  if ((current.request.charged || !current.request.livemode) && OPEN_STATUSES.includes(current.request.status))
    return remindSigners(ctx, trx, actor, id, {});
  throw new ApiError('invalid_state', 'id');
}

async function sendNow(ctx: ServiceContext, trx: Db, current: RequestWithSigners): Promise<RequestWithSigners> {
  const { request } = current;
  const now = nowSeconds(ctx.clock);
  const move = moveRequest(request.status, 'send');
  const toInvite = request.ordered ? current.signers.slice(0, 1) : current.signers;
  if (!request.livemode)
    await countTestEmails(ctx, trx, request.account_id, toInvite.filter((s) => invitationChannel(request, s) === 'email').length);
  await charge(ctx, trx, current);
  request.status = move.to;
  request.sent_at = now;
  request.updated_at = now;
  await updateRequest(trx, request.id, {
    status: request.status,
    sent_at: now,
    updated_at: now,
    charged: request.charged,
    cost_sends: request.cost_sends,
    cost_wallet_minor: request.cost_wallet_minor,
    cost_source: request.cost_source,
  });
  for (const s of toInvite) await inviteSigner(ctx, trx, request, s);
  await announceSend(ctx, trx, current, move.events, toInvite);
  if (request.reminders.enabled && request.reminders.max > 0 && request.workflow?.channel !== 'link') {
    await scheduleJob(
      trx,
      'auto_reminder',
      now + request.reminders.interval_hours * 3600,
      { signature_request_id: request.id },
      now,
      `auto_reminder:${request.id}:1`,
    );
  }
  return current;
}

/** The events of a send: the request's, then signer.sent for each invited signer (sendNow, or a session once delivered). */
export async function announceSend(
  ctx: ServiceContext,
  trx: Db,
  current: RequestWithSigners,
  requestEvents: readonly string[] = REQUEST_MOVES.create_sent.events,
  invited: readonly SignerRecord[] = current.signers.filter((s) => s.status === 'sent'),
): Promise<void> {
  await emitEvents(trx, ctx.clock, [
    ...requestEvents.map((type) => requestEventInput(ctx, type, current.request, current.signers)),
    ...invited.map((s) => signerEventInput(ctx, 'signer.sent', current.request, s)),
  ]);
}

/** How a signer's invitations and reminders travel: by the request's channel (spec 4.2); none with link. */
export function invitationChannel(request: SignatureRequestRecord, signer: SignerRecord): 'email' | 'whatsapp' | null {
  return invitationChannelOf(request.workflow?.channel ?? null, signer);
}

/**
 * The charge of a draft's send (domain/createPlan.ts planCharge). The guarded UPDATE and the ledger
 * row commit with the send; the balance can never go negative.
 */
async function charge(ctx: ServiceContext, trx: Db, current: RequestWithSigners): Promise<void> {
  const { request, signers } = current;
  if (!request.livemode || request.charged) return;
  const balance = (await getBalance(trx, request.account_id))!;
  const priced = planCharge(request, signers, balance, nowSeconds(ctx.clock), (kind) => newId(kind, ctx.clock));
  if ('refusal' in priced) throw refused(priced.refusal);
  if (!(await chargeAccount(trx, request.account_id, priced.charge.sends, priced.charge.walletMinor))) throw refused(priced.charge.refusal);
  await insertLedger(trx, priced.charge.ledger);
  request.charged = true;
  request.cost_sends = priced.charge.sends;
  request.cost_wallet_minor = priced.charge.walletMinor;
  request.cost_source = priced.source;
}

export async function countTestEmails(ctx: ServiceContext, trx: Db, accountId: string, count: number): Promise<void> {
  if (!(await tryCountTestEmails(ctx, trx, accountId, count))) {
    const now = nowSeconds(ctx.clock);
    throw new ApiError('test_email_limit', null, {}, { 'Retry-After': String(dayStart(now) + DAY - now) });
  }
}

/** Count test emails against the daily limit; false (nothing counted) when they would exceed it. */
async function tryCountTestEmails(ctx: ServiceContext, trx: Db, accountId: string, count: number): Promise<boolean> {
  if (count === 0) return true;
  const now = nowSeconds(ctx.clock);
  return incrementCounterWithin(trx, `test_emails:${accountId}`, dayStart(now), count, ctx.config.TAWQI_TEST_DAILY_EMAILS);
}

/**
 * Invite one signer: status sent, an invitation queued (or, in test mode, a WhatsApp simulation
 * recorded). `followUp`: the next signer of an ordered request, invited because someone signed —
 * past the test email limit that invitation is kept ('held', not sent) rather than refusing the
 * signature that caused it; the signer's link still works (GET the request, or a signing session).
 */
export async function inviteSigner(
  ctx: ServiceContext,
  trx: Db,
  request: SignatureRequestRecord,
  signer: SignerRecord,
  { followUp = false }: { followUp?: boolean } = {},
): Promise<void> {
  const now = nowSeconds(ctx.clock);
  if (!SIGNER_MOVES.invite.from.includes(signer.status)) return;
  signer.status = 'sent';
  signer.sent_at = now;
  await updateSigner(trx, signer.id, { status: 'sent', sent_at: now });
  const held =
    followUp &&
    !request.livemode &&
    invitationChannel(request, signer) === 'email' &&
    !(await tryCountTestEmails(ctx, trx, request.account_id, 1));
  await queueInvitation(ctx, trx, request, signer, 'invitation', held);
}

async function queueInvitation(
  ctx: ServiceContext,
  trx: Db,
  request: SignatureRequestRecord,
  signer: SignerRecord,
  kind: 'invitation' | 'reminder',
  held = false,
  delaySeconds = 0,
): Promise<void> {
  const invitation = await invitationFor(ctx, trx, request, signer, kind, held, delaySeconds);
  if (invitation) await queueMessages(trx, [invitation]);
}

/**
 * The message that invites or reminds a signer, to queue (queueMessages); null when none goes
 * out: channel link, or a test-mode WhatsApp message, which is recorded as an audit event instead.
 */
async function invitationFor(
  ctx: ServiceContext,
  trx: Db,
  request: SignatureRequestRecord,
  signer: SignerRecord,
  kind: 'invitation' | 'reminder',
  held: boolean,
  delaySeconds: number,
): Promise<QueuedMessage | null> {
  const now = nowSeconds(ctx.clock);
  const text = invitationMessage(request, signer, kind);
  const channel = invitationChannel(request, signer);
  // Channel link: no invitation or reminder is sent; the links are in the creation response (spec 4.2).
  if (channel === null) return null;
  if (channel === 'whatsapp' && !request.livemode) {
    await emitEvent(trx, ctx.clock, {
      accountId: request.account_id,
      livemode: false,
      type: 'audit.whatsapp_simulated',
      object: {
        object: 'whatsapp_message',
        to: signer.phone ? `${'*'.repeat(Math.max(0, signer.phone.length - 4))}${signer.phone.slice(-4)}` : null,
        kind,
        signer: signer.id,
        signature_request: request.id,
      },
      signatureRequestId: request.id,
    });
    return null;
  }
  const message = {
    account_id: request.account_id,
    livemode: request.livemode,
    kind,
    subject: text.subject,
    body: text.text,
    language: request.language,
    signature_request_id: request.id,
    signer_id: signer.id,
    created_at: now,
  };
  const deliverAt = now + delaySeconds;
  if (channel === 'whatsapp') {
    const template = signingTemplate(ctx.config, kind, request.language, signer.name, request.title);
    return { message: whatsAppMessage({ ...message, recipient: signer.phone!, template }), deliverAt, hold: held };
  }
  return { message: { ...message, channel, recipient: signer.email!, blocks: text.blocks }, deliverAt, hold: held };
}

/** POST …/cancel (spec 3.1): final requests are refused with 409 request_not_cancelable; no refund. */
export async function cancelSignatureRequest(ctx: ServiceContext, trx: Db, actor: Actor, id: string): Promise<RequestWithSigners> {
  const current = await loadOwned(trx, actor, id);
  if (isFinal(current.request.status)) throw new ApiError('request_not_cancelable', 'id');
  await applyRequestMove(ctx, trx, current, 'cancel');
  return current;
}

/**
 * POST …/reminders: to every signer whose turn it is (or the one named). 400 on a draft or a
 * finished request; 429 reminder_too_soon within an hour for a signer; 429 past 10 per request.
 */
export async function remindSigners(
  ctx: ServiceContext,
  trx: Db,
  actor: Actor,
  id: string,
  opts: { signerId?: string; automatic?: boolean },
): Promise<RequestWithSigners> {
  const current = await loadOwned(trx, actor, id);
  const { request } = current;
  if (!OPEN_STATUSES.includes(request.status)) throw new ApiError('reminder_not_allowed', 'id');
  if (request.workflow?.channel === 'link') {
    throw new ApiError(
      'reminder_not_allowed',
      'id',
      {},
      {},
      {
        en: 'Requests on the link channel get no reminders: you deliver the links yourself.',
        ar: 'طلبات قناة الروابط لا تُرسل لها تذكيرات: أنت من يوصل الروابط.',
      },
    );
  }
  if (!opts.automatic && request.reminders_sent >= MAX_MANUAL_REMINDERS)
    throw new ApiError('reminder_limit_reached', 'id', { max_reminders: MAX_MANUAL_REMINDERS });
  const now = nowSeconds(ctx.clock);
  let targets = current.signers.filter((s) => ['sent', 'viewed', 'otp_verified', 'identity_verified'].includes(s.status));
  if (opts.signerId) {
    targets = targets.filter((s) => s.id === opts.signerId);
    if (targets.length === 0)
      throw new ApiError(
        'parameter_invalid',
        'signer',
        {},
        {},
        { en: 'That signer has nothing to sign now.', ar: 'لا يوجد ما يوقّعه هذا الموقّع الآن.' },
      );
  }
  const isTooSoon = (s: SignerRecord): boolean => s.last_reminder_at !== null && now - s.last_reminder_at < REMINDER_GAP_SECONDS;
  const tooSoon = targets.find(isTooSoon);
  if (tooSoon) {
    // Automatic reminders skip every signer reminded within the hour, not only the first found.
    if (opts.automatic) targets = targets.filter((s) => !isTooSoon(s));
    else
      throw new ApiError(
        'reminder_too_soon',
        'signer',
        { signer: tooSoon.id },
        { 'Retry-After': String(tooSoon.last_reminder_at! + REMINDER_GAP_SECONDS - now) },
      );
  }
  if (!request.livemode)
    await countTestEmails(ctx, trx, request.account_id, targets.filter((s) => invitationChannel(request, s) === 'email').length);
  for (const s of targets) {
    s.last_reminder_at = now;
    await updateSigner(trx, s.id, { last_reminder_at: now });
    await queueInvitation(ctx, trx, request, s, 'reminder');
  }
  if (opts.automatic) request.auto_reminders_sent += 1;
  else request.reminders_sent += 1;
  request.updated_at = now;
  await updateRequest(trx, request.id, {
    reminders_sent: request.reminders_sent,
    auto_reminders_sent: request.auto_reminders_sent,
    updated_at: now,
  });
  return current;
}

/** Job: the automatic reminder of a request, then the next one while under `max`. */
export async function runAutoReminder(ctx: ServiceContext, trx: Db, requestId: string): Promise<void> {
  const request = await getRequestById(trx, requestId);
  if (!request || !OPEN_STATUSES.includes(request.status) || !request.reminders.enabled) return;
  if (request.auto_reminders_sent >= request.reminders.max) return;
  const account = (await getAccount(trx, request.account_id))!;
  const now = nowSeconds(ctx.clock);
  let done: RequestWithSigners;
  try {
    done = await remindSigners(ctx, trx, { account, livemode: request.livemode }, requestId, { automatic: true });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'test_email_limit')) throw err;
    // Past today's test email limit: try this round again at the start of the next UTC day.
    const n = request.auto_reminders_sent + 1;
    await scheduleJob(
      trx,
      'auto_reminder',
      dayStart(now) + DAY,
      { signature_request_id: requestId },
      now,
      `auto_reminder:${requestId}:${n}:${dayStart(now) + DAY}`,
    );
    return;
  }
  if (done.request.auto_reminders_sent < request.reminders.max) {
    const n = done.request.auto_reminders_sent + 1;
    await scheduleJob(
      trx,
      'auto_reminder',
      now + request.reminders.interval_hours * 3600,
      { signature_request_id: requestId },
      now,
      `auto_reminder:${requestId}:${n}`,
    );
  }
}

/** Job: at expires_at a request that is not final becomes expired. */
export async function runExpiry(ctx: ServiceContext, trx: Db, requestId: string): Promise<void> {
  const request = await getRequestById(trx, requestId);
  if (!request || isFinal(request.status) || request.expires_at === null || request.expires_at > nowSeconds(ctx.clock)) return;
  await applyRequestMove(ctx, trx, { request, signers: await signersOf(trx, requestId) }, 'expire');
}

/** Apply a request move from the table, persist it and emit its events. */
export async function applyRequestMove(ctx: ServiceContext, trx: Db, current: RequestWithSigners, trigger: RequestTrigger): Promise<void> {
  const move = moveRequest(current.request.status, trigger);
  const now = nowSeconds(ctx.clock);
  const changes: Partial<SignatureRequestRecord> = { status: move.to, updated_at: now };
  if (move.to === 'completed') {
    changes.completed_at = now;
    changes.reference = formatReference(randomBytes(10));
  }
  Object.assign(current.request, changes);
  await updateRequest(trx, current.request.id, changes);
  if (move.to === 'completed') await recordCompletion(ctx, trx, current.request, current.signers);
  if (move.to === 'completed') await queueCcCopies(ctx, trx, current.request);
  await emitEvents(
    trx,
    ctx.clock,
    move.events.map((type) => requestEventInput(ctx, type, current.request, current.signers)),
  );
}

export async function loadOwned(trx: Db, actor: Actor, id: string): Promise<RequestWithSigners> {
  const request = await getRequestById(trx, id);
  if (!request || request.account_id !== actor.account.id || request.livemode !== actor.livemode) throw new ApiError('not_found', 'id');
  return { request, signers: await signersOf(trx, id) };
}

export async function emitRequestEvent(
  ctx: ServiceContext,
  trx: Db,
  type: string,
  request: SignatureRequestRecord,
  signers: readonly SignerRecord[],
): Promise<void> {
  await emitEvent(trx, ctx.clock, requestEventInput(ctx, type, request, signers));
}

/** A signature_request.* event: a snapshot of the request as it is now. */
function requestEventInput(
  ctx: ServiceContext,
  type: string,
  request: SignatureRequestRecord,
  signers: readonly SignerRecord[],
): EmitInput {
  return {
    accountId: request.account_id,
    livemode: request.livemode,
    type,
    object: requestObject(request, signers, snapshotView(ctx)),
    signatureRequestId: request.id,
  };
}

/** A signer.* event: a snapshot of the signer as it is now (with `extra` fields of that event). */
function signerEventInput(
  ctx: ServiceContext,
  type: string,
  request: SignatureRequestRecord,
  signer: SignerRecord,
  requestInfo: { ip: string | null; user_agent: string | null } | null = null,
  extra: Record<string, unknown> = {},
): EmitInput {
  return {
    accountId: request.account_id,
    livemode: request.livemode,
    type,
    object: { ...signerObject(signer, request, snapshotView(ctx)), ...extra },
    signatureRequestId: request.id,
    requestInfo,
  };
}

export async function emitSignerEvent(
  ctx: ServiceContext,
  trx: Db,
  type: string,
  request: SignatureRequestRecord,
  signer: SignerRecord,
  requestInfo: { ip: string | null; user_agent: string | null } | null = null,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await emitEvent(trx, ctx.clock, signerEventInput(ctx, type, request, signer, requestInfo, extra));
}
