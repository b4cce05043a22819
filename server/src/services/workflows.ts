import type { Workflow } from '@tawqi/shared/api';
import { nowSeconds, type Clock } from '../clock.js';
import { maskEmail } from '../domain/keys.js';
import {
  BASE_SETTINGS,
  DEFAULT_WORKFLOW_ID,
  MAX_CC,
  MAX_EXPIRES_IN,
  MIN_EXPIRES_IN,
  DEFAULT_WORKFLOW_NAME,
  isDefaultWorkflowId,
  LEGAL_LEVEL_OF,
  workflowSettingsSchema,
  workflowTemplate,
  type DocumentSetting,
  type ReminderSetting,
  type WorkflowSettings,
} from '../domain/workflows.js';
import { newId } from '../ids.js';
import type { Account } from '../store/accounts.js';
import { getAccount } from '../store/accounts.js';
import type { Db, Store, Tx } from '../store/db.js';
import type { SignatureRequestRecord } from '../store/signatureRequests.js';
import { findTemplate } from '../store/templates.js';
import {
  getSession,
  getWorkflow,
  getWorkflowVersion,
  insertWorkflow,
  insertWorkflowVersion,
  listWorkflows,
  listWorkflowVersions,
  updateWorkflow,
  type WorkflowRecord,
  type WorkflowVersionRecord,
} from '../store/workflows.js';
import { OperatorError } from './accounts.js';
import type { ServiceContext } from '../context.js';
import { composeMessage, queueEmail, type MessageContent } from '../delivery/messages.js';

/** A workflow as the API and the CLI see it: the record and its latest published version (null: never published). */
export interface WorkflowWithVersion {
  workflow: WorkflowRecord;
  published: WorkflowVersionRecord | null;
}

/** The built-in default workflow of an account: the base defaults, version 1, published since the account exists. */
export function defaultWorkflow(account: Pick<Account, 'id' | 'created_at'>): WorkflowWithVersion {
  const settings = structuredClone(BASE_SETTINGS);
  return {
    workflow: {
      id: DEFAULT_WORKFLOW_ID,
      account_id: account.id,
      name: DEFAULT_WORKFLOW_NAME,
      status: 'published',
      settings,
      version: 1,
      created_at: account.created_at,
      updated_at: account.created_at,
    },
    published: { workflow_id: DEFAULT_WORKFLOW_ID, version: 1, settings, published_at: account.created_at },
  };
}

/** A workflow of the account by id (`default` and `wf_default` name the default workflow), with its latest published version. */
export async function findWorkflow(tx: Tx, account: Pick<Account, 'id' | 'created_at'>, id: string): Promise<WorkflowWithVersion | null> {
  if (isDefaultWorkflowId(id)) return defaultWorkflow(account);
  const workflow = await getWorkflow(tx, id);
  if (!workflow || workflow.account_id !== account.id) return null;
  const published = workflow.version > 0 ? ((await getWorkflowVersion(tx, workflow.id, workflow.version)) ?? null) : null;
  return { workflow, published };
}

/** Every workflow of the account (the default first, then stored ones newest first). */
export async function accountWorkflows(tx: Tx, account: Pick<Account, 'id' | 'created_at'>): Promise<WorkflowWithVersion[]> {
  const stored = await listWorkflows(tx, account.id);
  const out: WorkflowWithVersion[] = [defaultWorkflow(account)];
  for (const workflow of stored) {
    const published = workflow.version > 0 ? ((await getWorkflowVersion(tx, workflow.id, workflow.version)) ?? null) : null;
    out.push({ workflow, published });
  }
  return out;
}

/** Live for new requests: published (not draft or archived) with a published version. */
export const isLive = (w: WorkflowWithVersion): boolean => w.workflow.status === 'published' && w.published !== null;

/**
 * The workflow object of GET /flows: the latest published version's settings. Publishable keys see
 * the cc addresses masked (spec part 5 rule 7).
 */
export function presentWorkflow(w: WorkflowWithVersion, opts: { mask: boolean }): Workflow {
  const s = w.published?.settings ?? w.workflow.settings;
  return {
    id: w.workflow.id,
    object: 'workflow' as const,
    name: w.workflow.name,
    status: w.workflow.status,
    version: w.published?.version ?? null,
    default: w.workflow.id === DEFAULT_WORKFLOW_ID,
    document:
      s.document.mode === 'fixed'
        ? { mode: 'fixed' as const, template_id: s.document.template_id }
        : { mode: 'per_request' as const, default_template_id: s.document.default_template_id },
    signature_method: s.signature_method,
    legal_level: LEGAL_LEVEL_OF[s.signature_method],
    channel: s.channel,
    cc: opts.mask ? s.cc.map(maskEmail) : s.cc,
    require_id_attachment: s.require_id_attachment,
    require_access_code: s.require_access_code,
    expires_in: s.expires_in,
    language: s.language,
    return_url: s.return_url,
    ordered: s.ordered,
    reminders: s.reminders,
    published_at: w.published?.published_at ?? null,
    created_at: w.workflow.created_at,
  };
}

// ---------------------------------------------------------------------------------------------
// Management (the operator CLI: tawqi workflow …)

/** A change to a workflow's working settings; absent fields are kept. */
export interface WorkflowPatch {
  /** The document mode; the template carries over unless `template_id` is given too. */
  document_mode?: DocumentSetting['mode'];
  /** The template of the document mode: the fixed template, or the per-request default (null: none). */
  template_id?: string | null;
  signature_method?: WorkflowSettings['signature_method'];
  channel?: WorkflowSettings['channel'];
  cc?: string[];
  require_id_attachment?: boolean;
  require_access_code?: boolean;
  expires_in?: number;
  language?: WorkflowSettings['language'];
  return_url?: string | null;
  ordered?: boolean;
  reminders?: Partial<ReminderSetting>;
}

function patched(current: WorkflowSettings, p: WorkflowPatch): WorkflowSettings {
  const next: WorkflowSettings = structuredClone(current);
  if (p.document_mode !== undefined || p.template_id !== undefined) {
    const mode = p.document_mode ?? current.document.mode;
    const template = p.template_id !== undefined ? p.template_id : workflowTemplate(current);
    next.document = mode === 'fixed' ? { mode: 'fixed', template_id: template } : { mode: 'per_request', default_template_id: template };
  }
  for (const k of [
    'signature_method',
    'channel',
    'cc',
    'require_id_attachment',
    'require_access_code',
    'expires_in',
    'language',
    'return_url',
    'ordered',
  ] as const) {
    if (p[k] !== undefined) (next as unknown as Record<string, unknown>)[k] = p[k];
  }
  if (p.reminders) next.reminders = { ...next.reminders, ...p.reminders };
  return next;
}

/**
 * A workflow rule refused: the CLI prints the English message; the console answers it in the
 * envelope, on the field it names (`param`: the console's body field, e.g. `expires_in`, `cc`,
 * `reminders.max`, `template_id`), in Arabic or English.
 */
export class WorkflowRuleError extends OperatorError {
  constructor(
    en: string,
    readonly ar: string,
    readonly param: string | null,
    readonly code: 'parameter_invalid' | 'invalid_state' | 'not_found' = 'parameter_invalid',
  ) {
    super(en);
  }
}

/** What a refused setting must be, by the field it names: [English, Arabic]. */
const SETTING_RULE: Record<string, [string, string]> = {
  template_id: ['a template id (tpl_…)', 'معرّف القالب غير صالح (يبدأ بـ tpl_).'],
  signature_method: ['simple, identity or token', 'طريقة التوقيع غير صالحة.'],
  channel: ['email, whatsapp or link', 'قناة الإرسال غير صالحة.'],
  cc: [`up to ${MAX_CC} valid email addresses`, `قائمة النسخ: حتى ${MAX_CC} عنوان بريد إلكتروني صالح.`],
  expires_in: [
    `a whole number of days from ${MIN_EXPIRES_IN} to ${MAX_EXPIRES_IN}`,
    `مدة الصلاحية عدد صحيح من ${MIN_EXPIRES_IN} إلى ${MAX_EXPIRES_IN} يومًا.`,
  ],
  language: ['ar or en', 'اللغة إما العربية أو الإنجليزية.'],
  return_url: ['a full https URL', 'رابط العودة يجب أن يكون رابط https كاملًا.'],
  'reminders.interval_hours': ['a whole number of hours from 1 to 720', 'الفاصل بين التذكيرات عدد صحيح من 1 إلى 720 ساعة.'],
  'reminders.max': ['a whole number from 0 to 10', 'عدد التذكيرات عدد صحيح من 0 إلى 10.'],
};

/** The body field a settings path is about: the document's template is `template_id`, a cc entry is `cc`. */
function settingParam(path: readonly PropertyKey[]): string {
  if (path[0] === 'document') return path[1] === 'mode' ? 'document_mode' : 'template_id';
  if (path[0] === 'reminders' && path.length > 1) return `reminders.${String(path[1])}`;
  return String(path[0] ?? 'settings');
}

/** Check settings as a whole and that the template they name is visible to the account. */
async function checkedSettings(tx: Tx, accountId: string, settings: WorkflowSettings): Promise<WorkflowSettings> {
  const parsed = workflowSettingsSchema.safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = settingParam(issue.path);
    const rule = SETTING_RULE[param];
    const en = `${issue.path.join('.') || 'settings'}: ${rule ? `must be ${rule[0]}` : issue.message}`;
    throw new WorkflowRuleError(en, rule?.[1] ?? `قيمة غير صالحة للحقل ${param}.`, param);
  }
  const template = workflowTemplate(parsed.data as WorkflowSettings);
  if (template && !(await findTemplate(tx, accountId, template)))
    throw new WorkflowRuleError(
      `No template ${template} for account ${accountId}`,
      `لا يوجد قالب ${template} في هذا الحساب.`,
      'template_id',
    );
  return parsed.data as WorkflowSettings;
}

/** The stored workflow `id` for a change: the built-in default is refused, an unknown id is not found. */
export async function requireStored(tx: Tx, id: string): Promise<WorkflowRecord> {
  if (isDefaultWorkflowId(id))
    throw new WorkflowRuleError(
      'The default workflow is built in: it always has the base settings and cannot be changed, published or archived',
      'سير العمل الافتراضي مدمج: إعداداته ثابتة ولا يمكن تعديله أو نشره أو أرشفته.',
      null,
      'invalid_state',
    );
  const w = await getWorkflow(tx, id);
  if (!w) throw new WorkflowRuleError(`No workflow ${id}`, `لا يوجد سير عمل ${id}.`, 'id', 'not_found');
  return w;
}

/** Create a workflow (a draft) from the base defaults and the patch; `publish` publishes version 1 at once. */
export async function createWorkflow(
  store: Store,
  clock: Clock,
  accountId: string,
  name: string,
  patch: WorkflowPatch,
  publish = false,
): Promise<WorkflowWithVersion> {
  return store.tx(async (trx) => {
    const account = await getAccount(trx, accountId);
    if (!account) throw new OperatorError(`No account ${accountId}`);
    return createWorkflowIn(trx, clock, accountId, name, patch, publish);
  });
}

/** As createWorkflow, in the caller's transaction (the console audits in the same one). */
export async function createWorkflowIn(
  trx: Db,
  clock: Clock,
  accountId: string,
  name: string,
  patch: WorkflowPatch,
  publish = false,
): Promise<WorkflowWithVersion> {
  const now = nowSeconds(clock);
  const workflow: WorkflowRecord = {
    id: newId('workflow', clock),
    account_id: accountId,
    name: checkedName(name),
    status: 'draft',
    settings: await checkedSettings(trx, accountId, patched(BASE_SETTINGS, patch)),
    version: 0,
    created_at: now,
    updated_at: now,
  };
  await insertWorkflow(trx, workflow);
  return publish ? publishIn(trx, workflow, now) : { workflow, published: null };
}

function checkedName(name: string): string {
  const n = name.trim();
  if (n.length === 0 || n.length > 100)
    throw new WorkflowRuleError('--name must be 1 to 100 characters', 'الاسم من حرف واحد إلى 100 حرف.', 'name');
  return n;
}

/** Change a workflow's working settings (and name); a published workflow keeps serving its published version until the next publish. */
export async function changeWorkflow(
  store: Store,
  clock: Clock,
  id: string,
  patch: WorkflowPatch,
  name?: string,
): Promise<WorkflowWithVersion> {
  return store.tx(async (trx) => changeWorkflowIn(trx, clock, await requireStored(trx, id), patch, name));
}

/** As changeWorkflow, in the caller's transaction, on the stored workflow it read. */
export async function changeWorkflowIn(
  trx: Db,
  clock: Clock,
  current: WorkflowRecord,
  patch: WorkflowPatch,
  name?: string,
): Promise<WorkflowWithVersion> {
  const changes: Partial<WorkflowRecord> = {
    settings: await checkedSettings(trx, current.account_id, patched(current.settings, patch)),
    updated_at: nowSeconds(clock),
  };
  if (name !== undefined) changes.name = checkedName(name);
  await updateWorkflow(trx, current.id, changes);
  const workflow = { ...current, ...changes };
  const published = workflow.version > 0 ? ((await getWorkflowVersion(trx, current.id, workflow.version)) ?? null) : null;
  return { workflow, published };
}

async function publishIn(trx: Db, current: WorkflowRecord, now: number): Promise<WorkflowWithVersion> {
  const version: WorkflowVersionRecord = {
    workflow_id: current.id,
    version: current.version + 1,
    settings: current.settings,
    published_at: now,
  };
  await insertWorkflowVersion(trx, version);
  await updateWorkflow(trx, current.id, { status: 'published', version: version.version, updated_at: now });
  return { workflow: { ...current, status: 'published', version: version.version, updated_at: now }, published: version };
}

/** Publish the working settings as a new version (also brings an archived workflow back). */
export async function publishWorkflow(store: Store, clock: Clock, id: string): Promise<WorkflowWithVersion> {
  return store.tx(async (trx) => publishWorkflowIn(trx, clock, await requireStored(trx, id)));
}

/** As publishWorkflow, in the caller's transaction; the settings are checked again (a template may have gone). */
export async function publishWorkflowIn(trx: Db, clock: Clock, current: WorkflowRecord): Promise<WorkflowWithVersion> {
  await checkedSettings(trx, current.account_id, current.settings);
  return publishIn(trx, current, nowSeconds(clock));
}

/** Archive: new sessions are refused (409 workflow_not_live); existing requests are not touched. */
export async function archiveWorkflow(store: Store, clock: Clock, id: string): Promise<WorkflowWithVersion> {
  return store.tx(async (trx) => archiveWorkflowIn(trx, clock, await requireStored(trx, id)));
}

/** As archiveWorkflow, in the caller's transaction. */
export async function archiveWorkflowIn(trx: Db, clock: Clock, current: WorkflowRecord): Promise<WorkflowWithVersion> {
  const now = nowSeconds(clock);
  await updateWorkflow(trx, current.id, { status: 'archived', updated_at: now });
  const published = current.version > 0 ? ((await getWorkflowVersion(trx, current.id, current.version)) ?? null) : null;
  return { workflow: { ...current, status: 'archived', updated_at: now }, published };
}

/** For `tawqi workflow show`: the workflow, its published version, whether the working copy differs, and every version. */
export async function describeWorkflow(tx: Tx, account: Pick<Account, 'id' | 'created_at'>, id: string) {
  const w = await findWorkflow(tx, account, id);
  if (!w) throw new OperatorError(`No workflow ${id} in account ${account.id}`);
  const versions = w.workflow.id === DEFAULT_WORKFLOW_ID ? [w.published!] : await listWorkflowVersions(tx, w.workflow.id);
  return {
    ...operatorView(w),
    versions: versions.map((v) => ({ version: v.version, published_at: v.published_at, settings: v.settings })),
  };
}

/** The operator's view: both the working settings and the published ones. */
export function operatorView(w: WorkflowWithVersion) {
  return {
    id: w.workflow.id,
    account: w.workflow.account_id,
    name: w.workflow.name,
    status: w.workflow.status,
    default: w.workflow.id === DEFAULT_WORKFLOW_ID,
    version: w.published?.version ?? null,
    published_at: w.published?.published_at ?? null,
    unpublished_changes: w.published ? JSON.stringify(w.published.settings) !== JSON.stringify(w.workflow.settings) : true,
    settings: w.workflow.settings,
    created_at: w.workflow.created_at,
    updated_at: w.workflow.updated_at,
  };
}

// ---------------------------------------------------------------------------------------------
// cc: a copy to the cc addresses when a request from a workflow completes (live mode only)

const CC_TEXT = {
  ar: {
    subject: (t: string) => `نسخة: اكتمل توقيع ${t}`,
    lead: (t: string) => `وقّع جميع الأطراف المستند «${t}». تصلك هذه النسخة لأنك مدرج في قائمة النسخ.`,
    reference: (r: string) => `المرجع: ${r}`,
    verify: 'يمكن التحقق من المستند عبر الرابط التالي:',
  },
  en: {
    subject: (t: string) => `Copy: ${t} is signed`,
    lead: (t: string) => `Every party has signed “${t}”. You receive this copy because you are on its cc list.`,
    reference: (r: string) => `Reference: ${r}`,
    verify: 'The document can be verified at this link:',
  },
};

function ccCopyMessage(r: SignatureRequestRecord, verifyUrl: string): MessageContent {
  const t = CC_TEXT[r.language];
  return composeMessage(r, t.subject(r.title), [
    { kind: 'para', text: t.lead(r.title) },
    { kind: 'para', text: t.reference(r.reference ?? '') },
    { kind: 'para', text: t.verify },
    { kind: 'link', href: verifyUrl },
  ]);
}

/** In the completing transaction: queue the cc copies of a live request from a workflow (spec part 5: test keys send no copy). */
export async function queueCcCopies(ctx: ServiceContext, trx: Db, request: SignatureRequestRecord): Promise<number> {
  if (!request.livemode || !request.workflow || !request.reference) return 0;
  const session = await getSession(trx, request.id);
  if (!session || session.settings.cc.length === 0) return 0;
  const content = ccCopyMessage(request, `${ctx.publicUrl}/verify/${request.reference}`);
  for (const to of session.settings.cc) await queueEmail(ctx, trx, { request, signerId: null, to, kind: 'notice', content });
  return session.settings.cc.length;
}
