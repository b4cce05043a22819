/**
 * What creating a signature request writes, as a pure plan (no I/O): every input rule, the request
 * and signer rows as they are inserted, the workflow session, the jobs, the test-mode counters, the
 * charge and its ledger row, the invitations and the events. services/signatureRequests.ts reads
 * the template (and, for a live send, the balance), asks for the plan and writes it in the
 * caller's transaction.
 */
import type { ErrorCode, IdKind } from '@tawqi/shared';
import type {
  Account,
  AccountBalance,
  LedgerEntry,
  SessionRecord,
  SessionSettings,
  SignatureRequestRecord,
  SignerRecord,
  TemplateRecord,
  WorkflowLink,
} from './records.js';
import { PLANS, priceSend } from './plans.js';
import { fieldProblems, resolveFormat, resolveSigners, signerProblems, type InputProblem, type ResolvedSigner } from './requestRules.js';
import { moveRequest } from './requestStates.js';
import { DEFAULT_EXPIRY_DAYS, MAX_EXPIRY_DAYS, domainAccepted, type SignatureRequestCreate } from './signatureRequestInput.js';
import { BASE_SETTINGS, DEFAULT_WORKFLOW_ID, invitationChannelOf, isDefaultWorkflowId, SIGNATURE_METHOD_OF } from './workflows.js';

export const DAY = 86400;
export const dayStart = (now: number): number => now - (now % DAY);

/** A refusal of the create, as the error envelope renders it (services turn it into an ApiError). */
export interface CreateRefusal {
  code: ErrorCode;
  param: string | null;
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  detail?: { en: string; ar: string } | null;
}

/** The workflow a request comes from (sessions and bulk sends), with its session settings. */
export interface PlannedWorkflow {
  link: WorkflowLink;
  settings: SessionSettings;
}

export interface CreateInput {
  body: SignatureRequestCreate;
  /** The account as authentication read it. */
  account: Pick<Account, 'id' | 'owner_email' | 'team_emails' | 'team_phones' | 'accepted_domains'>;
  livemode: boolean;
  /** The body's source template, undefined when the account has none by that id. */
  template: TemplateRecord | undefined;
  /** The balance read in the transaction: needed for a live send only (null otherwise). */
  balance: AccountBalance | null;
  now: number;
  newId: (kind: IdKind) => string;
  limits: { testDailyRequests: number; testDailyEmails: number };
  workflow?: PlannedWorkflow;
  /** The access codes of the body, hashed beforehand (hashAccessCodes). */
  accessCodeHashes?: ReadonlyMap<string, string>;
  deferEvents?: boolean;
  deliveryDelaySeconds?: number;
}

/** A counter that must stay within `limit` after adding `by`; past it the create is refused. */
export interface CounterGuard {
  scope: string;
  windowStart: number;
  by: number;
  limit: number;
  refusal: CreateRefusal;
}

export interface PlannedJob {
  kind: string;
  runAt: number;
  payload: Record<string, unknown>;
  dedupeKey: string;
}

/** An event to emit: a snapshot of the request, or of `signer` when given. */
export interface PlannedEvent {
  type: string;
  signer: SignerRecord | null;
}

export interface PlannedCharge {
  sends: number;
  walletMinor: number;
  ledger: LedgerEntry;
  /** The guarded UPDATE found the balance short after all (it cannot within the transaction). */
  refusal: CreateRefusal;
}

export interface CreatePlan {
  /** The request row as inserted: a draft, or already sent (and charged in live mode). */
  request: SignatureRequestRecord;
  /** The signer rows as inserted; the invited ones already sent. */
  signers: SignerRecord[];
  send: boolean;
  session: SessionRecord | null;
  /** Test mode: the day's requests, counted (incrementCounter) before anything is written. */
  testRequests: CounterGuard | null;
  /** Test mode, on send: the day's emails of the invitations (incrementCounterWithin). */
  testEmails: CounterGuard | null;
  /** Live send: taken from the balance and the wallet, with its ledger row. */
  charge: PlannedCharge | null;
  expiry: PlannedJob;
  autoReminder: PlannedJob | null;
  /** The signers whose invitation is queued, due `deliveryDelaySeconds` later. */
  invite: SignerRecord[];
  deliveryDelaySeconds: number;
  /** In order; none when the caller announces the send itself (deferEvents). */
  events: PlannedEvent[];
}

const fromProblem = (p: InputProblem): CreateRefusal => ({
  code: p.code,
  param: p.param,
  extra: p.extra ?? {},
  detail: p.en && p.ar ? { en: p.en, ar: p.ar } : null,
});

/** Until the end of the UTC day of `now` (test-mode limits). */
const retryTomorrow = (now: number): Record<string, string> => ({ 'Retry-After': String(dayStart(now) + DAY - now) });

/**
 * The charge of a send (spec 4.1 rule 2, part 8): one send per signer from the yearly balance, the
 * rest from the wallet at the overage rate, identity always from the wallet; refused when the
 * balance or the wallet does not cover it (the guarded UPDATE's condition).
 */
export function planCharge(
  request: SignatureRequestRecord,
  signers: readonly SignerRecord[],
  balance: AccountBalance,
  now: number,
  newId: (kind: IdKind) => string,
): { charge: PlannedCharge; source: 'plan' | 'overage' } | { refusal: CreateRefusal } {
  let identity = 0;
  for (const s of signers) if (s.require_identity) identity++;
  const price = priceSend(PLANS[balance.plan], balance.balance_sends, signers.length, identity);
  const refusal: CreateRefusal = {
    code: 'insufficient_balance',
    param: null,
    extra: {
      required: { amount: price.walletMinor / 100, currency: balance.currency },
      available: { amount: balance.wallet_minor / 100, currency: balance.currency },
    },
  };
  if (balance.balance_sends < price.sendsFromBalance || balance.wallet_minor < price.walletMinor) return { refusal };
  const ledger: LedgerEntry = {
    id: newId('ledger'),
    account_id: request.account_id,
    kind: 'send',
    sends_delta: -price.sendsFromBalance,
    wallet_delta_minor: -price.walletMinor,
    signature_request_id: request.id,
    note: `${signers.length} signer(s), ${identity} identity`,
    created_at: now,
  };
  return { charge: { sends: price.sendsFromBalance, walletMinor: price.walletMinor, ledger, refusal }, source: price.source };
}

/** The input rules of a create, in the order they are reported; null when all hold. */
function inputRefusal(input: CreateInput, template: TemplateRecord): CreateRefusal | null {
  const { body, account, now } = input;
  const fieldIssue = fieldProblems(body, template.fields);
  if (fieldIssue) return fromProblem(fieldIssue);
  for (const f of ['return_url', 'success_url', 'cancel_url'] as const) {
    const url = body[f];
    if (url && !domainAccepted(url, account.accepted_domains)) return { code: 'domain_not_accepted', param: f };
  }
  if (body.workflow_id !== undefined && !isDefaultWorkflowId(body.workflow_id)) return { code: 'workflow_not_found', param: 'workflow_id' };
  if (body.expires_at !== undefined && (body.expires_at <= now || body.expires_at > now + MAX_EXPIRY_DAYS * DAY)) {
    return {
      code: 'parameter_invalid',
      param: 'expires_at',
      detail: {
        en: `expires_at must be in the future and within ${MAX_EXPIRY_DAYS} days.`,
        ar: `يجب أن يكون expires_at في المستقبل وخلال ${MAX_EXPIRY_DAYS} يومًا.`,
      },
    };
  }
  return null;
}

/**
 * Plan a create (and send unless `send: false`): every input rule first, then the rows. `workflow_id:
 * 'default'` applies the default workflow (spec 4.1): its language and expiry where the body sets
 * none, and the request is linked to it (workflow fields in objects and webhooks).
 */
export function planCreate(input: CreateInput): CreatePlan | { refusal: CreateRefusal } {
  const { body, account, livemode, now } = input;
  const checked = checkInput(input);
  if ('refusal' in checked) return checked;
  const { resolved, format, template } = checked;
  const defaults = body.workflow_id !== undefined ? BASE_SETTINGS : null;
  const workflow = input.workflow ?? (defaults ? defaultWorkflow(body, defaults) : null);
  const testRequests: CounterGuard | null = livemode
    ? null
    : {
        scope: `test_requests:${account.id}`,
        windowStart: dayStart(now),
        by: 1,
        limit: input.limits.testDailyRequests,
        refusal: { code: 'test_daily_limit', param: null, headers: retryTomorrow(now) },
      };
  const move = moveRequest('new', body.send ? 'create_sent' : 'create_draft');
  const request = requestRow(input, move.to, template, format, resolved, workflow, defaults);
  const invited = body.send ? (body.ordered ? 1 : body.signers.length) : 0;
  const signers: SignerRecord[] = body.signers.map((_, i) => signerRow(input, request.id, i, resolved[i]!, i < invited));
  const session: SessionRecord | null = workflow
    ? {
        signature_request_id: request.id,
        account_id: account.id,
        livemode,
        workflow_id: workflow.link.workflow_id,
        workflow_version: workflow.link.workflow_version,
        vendor_data: workflow.link.vendor_data,
        channel: workflow.link.channel,
        settings: workflow.settings,
        created_at: now,
      }
    : null;
  const expiry: PlannedJob = {
    kind: 'expire_request',
    runAt: request.expires_at!,
    payload: { signature_request_id: request.id },
    dedupeKey: `expire:${request.id}`,
  };
  const plan: CreatePlan = {
    request,
    signers,
    send: body.send,
    session,
    testRequests,
    testEmails: null,
    charge: null,
    expiry,
    autoReminder: null,
    invite: [],
    deliveryDelaySeconds: input.deliveryDelaySeconds ?? 0,
    events: [],
  };
  if (!body.send) {
    plan.events.push({ type: move.events[0]!, signer: null });
    return plan;
  }
  return planSend(input, plan, move.events);
}

/** The input's own checks, in the order the API reports them: signers, format, template, then the rest. */
function checkInput(
  input: CreateInput,
): { resolved: ResolvedSigner[]; format: string; template: TemplateRecord } | { refusal: CreateRefusal } {
  const { body, account, livemode } = input;
  const signerIssue = signerProblems(body, livemode, {
    emails: [...account.team_emails, ...(account.owner_email ? [account.owner_email] : [])],
    phones: account.team_phones,
  });
  if (signerIssue) return { refusal: fromProblem(signerIssue) };
  const resolved = resolveSigners(body);
  if (!Array.isArray(resolved)) return { refusal: fromProblem(resolved) };
  const format = resolveFormat(body);
  if (typeof format !== 'string') return { refusal: fromProblem(format) };
  const template = input.template;
  if (!template) {
    return {
      refusal: {
        code: 'invalid_request',
        param: 'source.template_id',
        detail: { en: `No such template: ${body.source.template_id}.`, ar: `القالب غير موجود: ${body.source.template_id}.` },
      },
    };
  }
  const refusal = inputRefusal(input, template);
  if (refusal) return { refusal };
  return { resolved, format, template };
}

/** A request naming `workflow_id` without a workflow of its own runs under the default workflow's settings. */
function defaultWorkflow(body: SignatureRequestCreate, defaults: typeof BASE_SETTINGS): NonNullable<CreateInput['workflow']> {
  return {
    link: { workflow_id: DEFAULT_WORKFLOW_ID, workflow_version: 1, vendor_data: null, channel: defaults.channel },
    settings: {
      signature_method: SIGNATURE_METHOD_OF[body.legal_level],
      cc: [],
      require_id_attachment: false,
      require_access_code: false,
    },
  };
}

/** The request row as it is inserted (a sent request is charged and counted later, in planSend). */
function requestRow(
  input: CreateInput,
  status: SignatureRequestRecord['status'],
  template: TemplateRecord,
  format: string,
  resolved: ResolvedSigner[],
  workflow: CreateInput['workflow'] | null,
  defaults: typeof BASE_SETTINGS | null,
): SignatureRequestRecord {
  const { body, account, livemode, now } = input;
  return {
    id: input.newId('signatureRequest'),
    account_id: account.id,
    livemode,
    status,
    title: body.title ?? template.title,
    legal_level: body.legal_level,
    format,
    template_id: template.id,
    language: body.language ?? defaults?.language ?? template.language,
    ordered: body.ordered,
    require_identity: resolved.some((r) => r.requireIdentity),
    reference: null,
    reminders: body.reminders,
    expires_at: body.expires_at ?? now + (defaults?.expires_in ?? DEFAULT_EXPIRY_DAYS) * DAY,
    completed_at: null,
    metadata: body.metadata,
    return_url: body.return_url ?? null,
    success_url: body.success_url ?? null,
    cancel_url: body.cancel_url ?? null,
    cost_sends: 0,
    cost_wallet_minor: 0,
    cost_source: null,
    charged: false,
    reminders_sent: 0,
    auto_reminders_sent: 0,
    workflow: workflow?.link ?? null,
    created_at: now,
    sent_at: body.send ? now : null,
    updated_at: now,
  };
}

/** The send part of a create: test email counter, charge, invitations, events, first auto reminder. */
function planSend(input: CreateInput, plan: CreatePlan, requestEvents: readonly string[]): CreatePlan | { refusal: CreateRefusal } {
  const { request, signers } = plan;
  const { now } = input;
  plan.invite = request.ordered ? signers.slice(0, 1) : signers;
  if (!request.livemode) {
    let emails = 0;
    for (const s of plan.invite) if (invitationChannelOf(request.workflow?.channel ?? null, s) === 'email') emails++;
    if (emails > 0) {
      plan.testEmails = {
        scope: `test_emails:${request.account_id}`,
        windowStart: dayStart(now),
        by: emails,
        limit: input.limits.testDailyEmails,
        refusal: { code: 'test_email_limit', param: null, headers: retryTomorrow(now) },
      };
    }
  } else {
    if (!input.balance) throw new Error('planCreate: a live send needs the balance');
    const priced = planCharge(request, signers, input.balance, now, input.newId);
    if ('refusal' in priced) return priced;
    plan.charge = priced.charge;
    request.charged = true;
    request.cost_sends = priced.charge.sends;
    request.cost_wallet_minor = priced.charge.walletMinor;
    request.cost_source = priced.source;
  }
  if (!input.deferEvents) {
    for (const type of requestEvents) plan.events.push({ type, signer: null });
    for (const s of plan.invite) plan.events.push({ type: 'signer.sent', signer: s });
  }
  if (request.reminders.enabled && request.reminders.max > 0 && request.workflow?.channel !== 'link') {
    plan.autoReminder = {
      kind: 'auto_reminder',
      runAt: now + request.reminders.interval_hours * 3600,
      payload: { signature_request_id: request.id },
      dedupeKey: `auto_reminder:${request.id}:1`,
    };
  }
  return plan;
}

/** The row of the body's signer `i` (invited: created sent). */
function signerRow(input: CreateInput, requestId: string, i: number, resolved: ResolvedSigner, invited: boolean): SignerRecord {
  const s = input.body.signers[i]!;
  return {
    id: input.newId('signer'),
    signature_request_id: requestId,
    position: i + 1,
    name: s.name,
    email: s.email ?? null,
    phone: s.phone ?? null,
    type: s.type,
    method: resolved.method,
    require_identity: resolved.requireIdentity,
    status: invited ? 'sent' : 'pending',
    identity: {
      status: resolved.requireIdentity ? 'required' : 'not_required',
      provider: null,
      level: null,
      verification_id: null,
      name_match: null,
    },
    fields: s.fields,
    access_code_hash: s.access_code === undefined ? null : accessCodeHash(input.accessCodeHashes, s.access_code),
    link_version: 1,
    sent_at: invited ? input.now : null,
    viewed_at: null,
    signed_at: null,
    declined_at: null,
    decline_reason: null,
    last_reminder_at: null,
    ip: null,
    user_agent: null,
    otp_hash: null,
    otp_expires_at: null,
    otp_attempts: 0,
    otp_sent_at: null,
    access_attempts: 0,
  };
}

function accessCodeHash(hashes: ReadonlyMap<string, string> | undefined, code: string): string {
  const hash = hashes?.get(code);
  if (hash === undefined) throw new Error('access code not hashed before the transaction (hashAccessCodes)');
  return hash;
}
