import { ERRORS, type Language } from '@tawqi/shared';
import type { z } from 'zod';
import { nowSeconds } from '../clock.js';
import { deliverMessage } from '../delivery/deliverMessage.js';
import { queuedInvitationsQuery, recordMessageOutcome } from '../store/messages.js';
import { whatsappChannelAvailable, whatsappCodesEnabled } from '../delivery/whatsapp.js';
import type { Feature } from '../domain/plans.js';
import { featuresUsed, fieldProblems } from '../domain/requestRules.js';
import { domainAccepted, metadataSchema, type SignatureRequestCreate } from '../domain/signatureRequestInput.js';
import {
  applyOverrides,
  channelContactProblem,
  DEFAULT_WORKFLOW_ID,
  LEGAL_LEVEL_OF,
  MAX_SESSION_SIGNERS,
  MAX_VENDOR_DATA,
  OVERRIDE_NAMES,
  OVERRIDES,
  otpChannel,
  REFUSED_FIELDS,
  REFUSED_SIGNER_FIELDS,
  SESSION_FIELDS,
  sessionSignerSchema,
  type OverrideName,
  type SessionSigner,
  type SessionStatus,
  type WorkflowSettings,
} from '../domain/workflows.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db, Tx } from '../store/db.js';
import { insertLedger } from '../store/ledger.js';
import { getRequestsByIds, signersOfMany, updateRequest, updateSigner } from '../store/signatureRequests.js';
import { findTemplate, type TemplateRecord } from '../store/templates.js';
import { listSessionIds } from '../store/workflows.js';
import type { ServiceContext } from '../context.js';
import { emitRequestEvent, loadOwned, type Actor, type CreateOptions, type RequestWithSigners } from './signatureRequests.js';
import { findWorkflow, isLive } from './workflows.js';

/**
 * Sessions (spec 2.3, 4.2): a signature request created and sent with the settings of a workflow's
 * latest published version. `prepareSession` checks the whole body against the workflow before
 * anything is written; the route then creates the request (services/signatureRequests.ts) and
 * delivers its invitations at once (`deliverInvitations`), so it can answer 502 delivery_failed
 * when none arrived, after `revertUndelivered` has returned the cost and left the request a draft.
 */

/**
 * The delivery job of a session's invitation runs this much later: it only matters if the session's
 * own attempt never happened (the server stopped) or failed for that signer. Longer than the slowest
 * attempt the transports allow (SMTP: 20 s to connect, 15 s greeting, 60 s socket), so the job never
 * races the session's own attempt.
 */
export const SESSION_DELIVERY_GRACE_SECONDS = 300;
const DAY = 86400;

export interface PreparedSession {
  body: SignatureRequestCreate;
  options: CreateOptions;
  settings: WorkflowSettings;
  /** Plan features the session uses, each with the field that uses it (checked in live mode). */
  features: [Feature, string][];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `signers[0].email` style path of a zod issue under `prefix`. */
function paramOf(prefix: string, path: readonly PropertyKey[], keys: readonly string[] = []): string {
  return [...path, ...keys].reduce<string>(
    (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : `${acc}.${String(part)}`),
    prefix,
  );
}

function zodParam(prefix: string, error: z.ZodError): string {
  const issue = error.issues[0]!;
  return paramOf(prefix, issue.path, issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : []);
}

const override = (param: string, en: string, ar: string) => new ApiError('invalid_override', param, {}, {}, { en, ar });
const invalidSigner = (param: string, en: string, ar: string, extra: Record<string, unknown> = {}) =>
  new ApiError('invalid_signer', param, extra, {}, { en, ar });

/** The template of the request: the workflow's fixed one, the one named (template_id or document_id), or the workflow's default. */
async function resolveTemplate(
  db: Tx,
  accountId: string,
  settings: WorkflowSettings,
  raw: Record<string, unknown>,
): Promise<TemplateRecord> {
  const { template_id: tid, document_id: did } = raw;
  if (settings.document.mode === 'fixed') {
    for (const f of ['template_id', 'document_id'] as const) {
      if (raw[f] !== undefined) {
        throw override(
          f,
          'The workflow has a fixed template: a request cannot name another document.',
          'مسار العمل له قالب ثابت: لا يمكن للطلب تسمية مستند آخر.',
        );
      }
    }
    const fixed = await findTemplate(db, accountId, settings.document.template_id!);
    if (!fixed)
      throw new ApiError(
        'workflow_not_live',
        'workflow_id',
        {},
        {},
        { en: 'The workflow’s fixed template no longer exists.', ar: 'القالب الثابت لمسار العمل لم يعد موجودًا.' },
      );
    return fixed;
  }
  if (tid !== undefined && did !== undefined) {
    throw new ApiError(
      'invalid_request',
      'document_id',
      {},
      {},
      { en: 'Name a template_id or a document_id, not both.', ar: 'اذكر template_id أو document_id، وليس كليهما.' },
    );
  }
  if (did !== undefined) {
    // A text document: a custom contract stored on the account (POST /templates); uploaded PDFs do not exist here.
    const doc = typeof did === 'string' ? await findTemplate(db, accountId, did) : undefined;
    if (!doc || doc.account_id !== accountId) {
      throw new ApiError(
        'invalid_request',
        'document_id',
        {},
        {},
        {
          en: `No such document: ${String(did)}. A document is a text contract of this account (POST /templates).`,
          ar: `المستند غير موجود: ${String(did)}.`,
        },
      );
    }
    return doc;
  }
  const id = tid ?? settings.document.default_template_id;
  if (id === undefined || id === null) {
    throw new ApiError(
      'parameter_missing',
      'template_id',
      {},
      {},
      {
        en: 'The workflow sets the document per request and has no default template: send template_id (or document_id).',
        ar: 'مسار العمل يحدد المستند لكل طلب وليس له قالب افتراضي: أرسل template_id أو document_id.',
      },
    );
  }
  const template = typeof id === 'string' ? await findTemplate(db, accountId, id) : undefined;
  if (!template)
    throw new ApiError(
      'invalid_request',
      'template_id',
      {},
      {},
      { en: `No such template: ${String(id)}.`, ar: `القالب غير موجود: ${String(id)}.` },
    );
  return template;
}

function parseSigners(raw: unknown, settings: WorkflowSettings): SessionSigner[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw invalidSigner('signers', 'signers must be an array of 1 to 5 signers.', 'يجب أن يكون signers مصفوفة من موقّع واحد إلى خمسة.');
  }
  if (raw.length > MAX_SESSION_SIGNERS) {
    throw invalidSigner(
      'signers',
      `A session has at most ${MAX_SESSION_SIGNERS} signers.`,
      `الحد الأقصى ${MAX_SESSION_SIGNERS} موقّعين في الجلسة.`,
      { max_signers: MAX_SESSION_SIGNERS },
    );
  }
  return raw.map((s, i) => {
    if (!isObject(s)) throw invalidSigner(`signers[${i}]`, 'A signer must be an object.', 'يجب أن يكون الموقّع كائنًا.');
    for (const f of REFUSED_SIGNER_FIELDS) {
      if (f in s)
        throw override(
          `signers[${i}].${f}`,
          `${f} is set by the workflow's signature_method.`,
          `يحدد signature_method لمسار العمل الحقل ${f}.`,
        );
    }
    const parsed = sessionSignerSchema.safeParse(s);
    if (!parsed.success) {
      const param = zodParam(`signers[${i}]`, parsed.error);
      const missing =
        parsed.error.issues[0]!.code === 'invalid_type' &&
        parsed.error.issues[0]!.path.length === 1 &&
        s[String(parsed.error.issues[0]!.path[0])] === undefined;
      throw invalidSigner(
        param,
        `${missing ? 'Missing' : 'Invalid'} signer data: ${param} (${parsed.error.issues[0]!.message}).`,
        `بيانات موقّع ${missing ? 'مفقودة' : 'غير صالحة'}: ${param}.`,
      );
    }
    const signer = parsed.data;
    const need = channelContactProblem(settings.channel, signer);
    if (need) {
      const what =
        settings.channel === 'link'
          ? 'an email or a WhatsApp number'
          : need === 'email'
            ? 'an email'
            : 'a WhatsApp number in international format';
      throw invalidSigner(
        `signers[${i}].${need}`,
        `On the ${settings.channel} channel every signer needs ${what}.`,
        `في قناة ${settings.channel} يحتاج كل موقّع إلى ${need === 'email' ? 'بريد إلكتروني' : 'رقم واتساب بالصيغة الدولية'}.`,
      );
    }
    if (settings.require_access_code && signer.access_code === undefined) {
      throw invalidSigner(
        `signers[${i}].access_code`,
        'The workflow requires an access code (4 to 32 characters) for every signer.',
        'يتطلب مسار العمل رمز دخول (من 4 إلى 32 حرفًا) لكل موقّع.',
      );
    }
    return signer;
  });
}

/** The body is an object with a workflow and signers, and no field a session cannot set. */
function checkSessionShape(raw: unknown): asserts raw is Record<string, unknown> {
  if (!isObject(raw))
    throw new ApiError('invalid_request', null, {}, {}, { en: 'The body must be a JSON object.', ar: 'يجب أن يكون نص الطلب كائن JSON.' });
  if (raw.workflow_id === undefined) throw new ApiError('parameter_missing', 'workflow_id');
  if (raw.signers === undefined) throw new ApiError('parameter_missing', 'signers');
  const accepted = new Set<string>([...SESSION_FIELDS, ...OVERRIDE_NAMES]);
  for (const key of Object.keys(raw)) {
    if ((REFUSED_FIELDS as readonly string[]).includes(key) || !accepted.has(key)) {
      throw override(
        key,
        `${key} cannot be set on a session: it comes from the workflow.`,
        `لا يمكن تحديد ${key} في الجلسة: قيمته من مسار العمل.`,
      );
    }
  }
}

/** The workflow settings the session overrides, each checked. */
function parseOverrides(raw: Record<string, unknown>): Parameters<typeof applyOverrides>[1] {
  const overrides: Partial<Record<OverrideName, unknown>> = {};
  for (const name of OVERRIDE_NAMES) {
    if (raw[name] === undefined) continue;
    const parsed = OVERRIDES[name].safeParse(raw[name]);
    if (!parsed.success)
      throw override(
        zodParam(name, parsed.error),
        `Invalid value for ${name}: ${parsed.error.issues[0]!.message}.`,
        `قيمة غير صالحة للحقل ${name}.`,
      );
    overrides[name] = parsed.data;
  }
  return overrides as Parameters<typeof applyOverrides>[1];
}

/** The session's own values (vendor_data, title, metadata, fields), each checked. */
function sessionValues(raw: Record<string, unknown>): {
  vendorData: unknown;
  title: unknown;
  metadata: Record<string, string>;
  fields: Record<string, unknown>;
} {
  const vendorData = raw.vendor_data;
  if (vendorData !== undefined && vendorData !== null && (typeof vendorData !== 'string' || vendorData.length > MAX_VENDOR_DATA)) {
    throw new ApiError(
      'invalid_request',
      'vendor_data',
      {},
      {},
      {
        en: `vendor_data must be a string of at most ${MAX_VENDOR_DATA} characters.`,
        ar: `يجب أن يكون vendor_data نصًا لا يزيد على ${MAX_VENDOR_DATA} حرفًا.`,
      },
    );
  }
  const title = raw.title;
  if (title !== undefined && (typeof title !== 'string' || title.trim().length === 0 || title.length > 200)) {
    throw new ApiError(
      'parameter_invalid',
      'title',
      {},
      {},
      { en: 'title must be 1 to 200 characters.', ar: 'يجب أن يكون title من 1 إلى 200 حرف.' },
    );
  }
  let metadata: Record<string, string> = {};
  if (raw.metadata !== undefined) {
    const parsed = metadataSchema.safeParse(raw.metadata);
    if (!parsed.success) throw new ApiError('parameter_invalid', zodParam('metadata', parsed.error));
    metadata = parsed.data;
  }
  const fields = raw.fields ?? {};
  if (
    !isObject(fields) ||
    Object.entries(fields).some(([k, v]) => typeof v !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(k) || v.length > 2000)
  ) {
    throw new ApiError(
      'parameter_invalid',
      'fields',
      {},
      {},
      { en: 'fields must map field keys to strings.', ar: 'يجب أن يربط fields مفاتيح الحقول بنصوص.' },
    );
  }
  return { vendorData, title, metadata, fields };
}

/** Live mode: the WhatsApp channel is available, and every signer can get one-time codes. */
function checkLiveChannels(
  ctx: ServiceContext,
  account: Actor['account'],
  settings: WorkflowSettings,
  signers: readonly SessionSigner[],
): void {
  if (settings.channel === 'whatsapp' && !whatsappChannelAvailable(ctx.config, account))
    throw new ApiError('channel_unavailable', 'channel');
  const codes = whatsappCodesEnabled(ctx.config, account, true);
  for (const [i, s] of signers.entries()) {
    if (otpChannel(settings.channel, { email: s.email ?? null, phone: s.phone ?? null }, codes) === 'whatsapp' && !codes) {
      throw invalidSigner(
        `signers[${i}].email`,
        'This signer needs an email: one-time codes are not sent by WhatsApp here.',
        'يحتاج هذا الموقّع إلى بريد إلكتروني: رموز التحقق لا تُرسل عبر واتساب هنا.',
      );
    }
  }
}

/** The workflow named by workflow_id, which must be live, and its published version. */
async function liveWorkflow(db: Tx, account: Actor['account'], workflowId: unknown) {
  const w = typeof workflowId === 'string' ? await findWorkflow(db, account, workflowId) : null;
  if (!w) throw new ApiError('workflow_not_found', 'workflow_id');
  if (!isLive(w)) throw new ApiError('workflow_not_live', 'workflow_id');
  const version = w.published!;
  if (version.settings.document.mode === 'fixed' && version.settings.document.template_id === null) {
    throw new ApiError(
      'workflow_not_live',
      'workflow_id',
      {},
      {},
      { en: 'The workflow’s fixed template is not set.', ar: 'القالب الثابت لمسار العمل غير محدد.' },
    );
  }
  return { w, version };
}

/** The template's field rules over the merged values; a value given at the top level is reported as `fields.<key>`. */
function checkSessionFields(
  body: SignatureRequestCreate,
  templateFields: Parameters<typeof fieldProblems>[1],
  topFields: Record<string, unknown>,
  firstSignerFields: Record<string, string>,
): void {
  const fieldIssue = fieldProblems(body, templateFields);
  if (!fieldIssue) return;
  const key = fieldIssue.param.replace(/^signers\[0\]\.fields\./, '');
  const fromTop = fieldIssue.param.startsWith('signers[0].fields.') && key in topFields && !(key in firstSignerFields);
  throw new ApiError(
    fieldIssue.code,
    fromTop ? `fields.${key}` : fieldIssue.param,
    {},
    {},
    fieldIssue.en && fieldIssue.ar ? { en: fieldIssue.en, ar: fieldIssue.ar } : null,
  );
}

/** Every rule of POST /sessions (spec 4.2, 7) that needs no write, in the order a client fixes them. */
export async function prepareSession(ctx: ServiceContext, db: Tx, actor: Actor, raw: unknown): Promise<PreparedSession> {
  checkSessionShape(raw);

  const account = actor.account;
  const { w, version } = await liveWorkflow(db, account, raw.workflow_id);

  const settings = applyOverrides(version.settings, parseOverrides(raw));

  const { vendorData, title, metadata, fields } = sessionValues(raw);

  const template = await resolveTemplate(db, account.id, settings, raw);
  const signers = parseSigners(raw.signers, settings);

  if (actor.livemode) checkLiveChannels(ctx, account, settings, signers);
  if (settings.return_url && !domainAccepted(settings.return_url, account.accepted_domains))
    throw new ApiError('domain_not_accepted', 'return_url');

  // Document values given for the whole request go with the first signer's (the signer's own win).
  const merged = signers.map((s, i) => (i === 0 ? { ...s, fields: { ...(fields as Record<string, string>), ...s.fields } } : s));
  const body: SignatureRequestCreate = {
    ...(typeof title === 'string' ? { title: title.trim() } : {}),
    source: { type: 'template', template_id: template.id },
    legal_level: LEGAL_LEVEL_OF[settings.signature_method],
    ordered: settings.ordered,
    require_identity: false,
    signers: merged.map((s) => ({
      name: s.name,
      email: s.email,
      phone: s.phone,
      type: s.type,
      fields: s.fields,
      access_code: s.access_code,
    })),
    reminders: settings.channel === 'link' ? { ...settings.reminders, enabled: false } : settings.reminders,
    metadata,
    expires_at: nowSeconds(ctx.clock) + settings.expires_in * DAY,
    language: settings.language,
    ...(settings.return_url ? { return_url: settings.return_url } : {}),
    send: true,
  };
  checkSessionFields(body, template.fields, fields, signers[0]!.fields);

  const features: [Feature, string][] = featuresUsed(body).map(([f, p]) => [f, p === 'legal_level' ? 'signature_method' : p]);
  if (w.workflow.id !== DEFAULT_WORKFLOW_ID) features.unshift(['custom_workflows', 'workflow_id']);
  if (settings.require_id_attachment) features.push(['signer_attachments', 'require_id_attachment']);
  return {
    body,
    settings,
    features,
    options: {
      workflow: {
        link: {
          workflow_id: w.workflow.id,
          workflow_version: version.version,
          vendor_data: typeof vendorData === 'string' ? vendorData : null,
          channel: settings.channel,
        },
        settings: {
          signature_method: settings.signature_method,
          cc: settings.cc,
          require_id_attachment: settings.require_id_attachment,
          require_access_code: settings.require_access_code,
        },
      },
      deferEvents: true,
      deliveryDelaySeconds: SESSION_DELIVERY_GRACE_SECONDS,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Delivery at creation, and its undoing

export interface DeliveryOutcome {
  attempted: number;
  failed: number;
}

/**
 * Deliver a new session's invitations now (each through its transport; a message kept 'held' for
 * want of a transport counts as accepted). Messages that fail stay queued: they were queued due
 * SESSION_DELIVERY_GRACE_SECONDS after creation, when the delivery runner retries them.
 */
export async function deliverInvitations(ctx: ServiceContext, requestId: string): Promise<DeliveryOutcome> {
  const messages = await queuedInvitationsQuery(ctx.store.db, requestId).execute();
  const results = await Promise.allSettled(
    messages.map(async (message) => {
      const outcome = await deliverMessage(ctx, message);
      if (outcome) await ctx.store.tx((trx) => recordMessageOutcome(trx, outcome));
    }),
  );
  const failed = results.filter((r) => r.status === 'rejected');
  for (const f of failed)
    ctx.log.warn({ signature_request_id: requestId, err: String((f as PromiseRejectedResult).reason) }, 'session invitation not delivered');
  return { attempted: messages.length, failed: failed.length };
}

/**
 * No invitation reached any signer (spec 7, delivery_failed): in one transaction the charge is
 * returned (a refund ledger row), the request goes back to draft with its signers pending, its
 * undelivered invitations are marked failed (so they are never sent), and
 * signature_request.created records the draft (the send was never announced). Returns the cost returned.
 */
export async function revertUndelivered(
  ctx: ServiceContext,
  trx: Db,
  current: RequestWithSigners,
): Promise<{ sends: number; walletMinor: number; source: 'plan' | 'overage' }> {
  const r = current.request;
  const now = nowSeconds(ctx.clock);
  const returned = {
    sends: r.charged ? r.cost_sends : 0,
    walletMinor: r.charged ? r.cost_wallet_minor : 0,
    source: r.cost_source ?? 'plan',
  };
  if (returned.sends > 0 || returned.walletMinor > 0) {
    await trx
      .updateTable('accounts')
      .set((eb) => ({
        balance_sends: eb('balance_sends', '+', returned.sends),
        wallet_minor: eb('wallet_minor', '+', returned.walletMinor),
      }))
      .where('id', '=', r.account_id)
      .execute();
    await insertLedger(trx, {
      id: newId('ledger', ctx.clock),
      account_id: r.account_id,
      kind: 'refund',
      sends_delta: returned.sends,
      wallet_delta_minor: returned.walletMinor,
      signature_request_id: r.id,
      note: 'session: no invitation delivered',
      created_at: now,
    });
  }
  const changes = {
    status: 'draft' as const,
    charged: false,
    cost_sends: 0,
    cost_wallet_minor: 0,
    cost_source: null,
    sent_at: null,
    updated_at: now,
  };
  Object.assign(r, changes);
  await updateRequest(trx, r.id, changes);
  for (const s of current.signers) {
    s.status = 'pending';
    s.sent_at = null;
    await updateSigner(trx, s.id, { status: 'pending', sent_at: null });
  }
  await trx
    .updateTable('messages')
    .set({ state: 'failed' })
    .where('signature_request_id', '=', r.id)
    .where('kind', '=', 'invitation')
    .where('state', '=', 'queued')
    .execute();
  await emitRequestEvent(ctx, trx, 'signature_request.created', r, current.signers);
  return returned;
}

/** The 502 delivery_failed envelope (stored for idempotent replays as well as sent). */
export function deliveryFailedEnvelope(
  lang: Language,
  requestId: string,
  sessionId: string,
  cost: { sends: number; walletMinor: number; source: string },
  currency: string,
) {
  const def = ERRORS.delivery_failed;
  return {
    error: {
      type: def.type,
      code: 'delivery_failed' as const,
      message: def[lang],
      param: null,
      request_id: requestId,
      session_id: sessionId,
      cost: { amount: cost.walletMinor / 100, sends: cost.sends, currency, source: cost.source, returned: true },
    },
  };
}

/** GET /sessions/{id}: a request of this account and mode that came from a workflow; otherwise 404. */
export async function loadSession(db: Tx, actor: Actor, id: string): Promise<RequestWithSigners> {
  const current = await loadOwned(db, actor, id);
  if (!current.request.workflow) throw new ApiError('not_found', 'id');
  return current;
}

/** Request statuses a session status covers ("sent" is sent or viewed). */
export function requestStatusesFor(status: SessionStatus): string[] {
  return status === 'sent' ? ['sent', 'viewed'] : [status];
}

export async function listSessions(
  db: Tx,
  actor: Actor,
  q: { workflowId?: string; vendorData?: string; status?: SessionStatus; startingAfter?: string; limit: number },
): Promise<RequestWithSigners[]> {
  const ids = await listSessionIds(db, {
    accountId: actor.account.id,
    livemode: actor.livemode,
    workflowId: q.workflowId,
    vendorData: q.vendorData,
    statuses: q.status ? requestStatusesFor(q.status) : undefined,
    startingAfter: q.startingAfter,
    limit: q.limit,
  });
  const requests = new Map((await getRequestsByIds(db, ids)).map((r) => [r.id, r]));
  const signers = await signersOfMany(db, ids);
  return ids.map((id) => ({ request: requests.get(id)!, signers: signers.get(id)! }));
}
