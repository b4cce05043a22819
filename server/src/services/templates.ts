/**
 * An account's custom templates (issue 16 point 1): create (POST /templates and the console), edit,
 * duplicate, archive, and the preview of a draft as the final PDF's first page. One rule set for
 * every write: templateCreateSchema and templateProblem (domain/templates.ts).
 *
 * A request names its template and fills the template's text whenever it is shown or sealed
 * (completion.ts, signerJourney.ts), so the text of a template with requests never changes: an edit
 * of such a template is saved as a new template (a new id) and the old one archived — still found
 * by id, still the text of its requests, no longer listed. A template without requests is edited in
 * place (same id).
 */
import { nowSeconds, type Clock } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { renderTemplate, templateProblem, type TemplateCreate } from '../domain/templates.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { renderFirstPagePdf } from '../sealing/pdf/index.js';
import { getAccount } from '../store/accounts.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';
import type { Tx } from '../store/types.js';
import {
  archiveTemplate as markArchived,
  findTemplate,
  insertTemplate,
  templateInUse,
  titleTaken,
  updateTemplate,
  type TemplateRecord,
} from '../store/templates.js';

/** The same refusal as POST /templates for fields and placeholders that disagree. */
export function checkTemplate(input: TemplateCreate): void {
  const problem = templateProblem(input);
  if (problem) throw new ApiError('parameter_invalid', problem.param, {}, {}, problem);
}

/** A new custom template of the account, in the caller's transaction (its title not taken). */
export async function createTemplate(trx: Tx, clock: Clock, accountId: string, input: TemplateCreate): Promise<TemplateRecord> {
  checkTemplate(input);
  if (await titleTaken(trx, accountId, input.title)) throw new ApiError('template_key_taken', 'title');
  const record: TemplateRecord = {
    id: newId('template', clock),
    account_id: accountId,
    title: input.title,
    language: input.language,
    body: input.body,
    fields: input.fields,
    created_at: nowSeconds(clock),
    archived_at: null,
  };
  await insertTemplate(trx, record);
  return record;
}

/** The account's own template `id`, not archived; a library template cannot be changed (duplicate it). */
async function ownTemplate(trx: Tx, accountId: string, id: string): Promise<TemplateRecord> {
  const t = await findTemplate(trx, accountId, id);
  if (!t) throw new ApiError('not_found', 'id');
  if (t.account_id === null) {
    throw new ApiError(
      'invalid_state',
      'id',
      {},
      {},
      {
        en: 'A library template cannot be changed: duplicate it and change the copy.',
        ar: 'لا يمكن تعديل قالب من المكتبة: انسخه وعدّل النسخة.',
      },
    );
  }
  if (t.archived_at !== null) {
    throw new ApiError('invalid_state', 'id', {}, {}, { en: 'The template is archived.', ar: 'القالب مؤرشف.' });
  }
  return t;
}

export interface TemplateEdit {
  template: TemplateRecord;
  /** The id the edit replaced (archived, kept for its requests); null when edited in place. */
  replaced: string | null;
}

/** A console user of the account: who the audit log names for a change. */
export type TemplateEditor = AuditActor & { account_id: string };

/** An audit entry for a template change, in the change's transaction. */
async function audited(trx: Tx, ctx: ServiceContext, who: TemplateEditor, action: string, t: TemplateRecord, extra = {}): Promise<void> {
  await recordAudit(trx, ctx.clock, who, { action, target: t.id, detail: { title: t.title, ...extra } });
}

/** Edit a custom template: in place without requests, else as a new template with the old one archived. */
export async function editTemplate(ctx: ServiceContext, who: TemplateEditor, id: string, input: TemplateCreate): Promise<TemplateEdit> {
  checkTemplate(input);
  const accountId = who.account_id;
  return ctx.store.tx(async (trx) => {
    const current = await ownTemplate(trx, accountId, id);
    if (await titleTaken(trx, accountId, input.title, id)) throw new ApiError('template_key_taken', 'title');
    if (!(await templateInUse(trx, accountId, id))) {
      const template = { ...current, ...input };
      await updateTemplate(trx, template);
      await audited(trx, ctx, who, 'template.updated', template);
      return { template, replaced: null };
    }
    await markArchived(trx, accountId, id, nowSeconds(ctx.clock));
    const template = await createTemplate(trx, ctx.clock, accountId, input);
    await audited(trx, ctx, who, 'template.updated', template, { replaced: id });
    return { template, replaced: id };
  });
}

/** A custom copy of one of the account's templates or of a library one, titled "… (2)", "… (3)"… until free. */
export async function duplicateTemplate(ctx: ServiceContext, who: TemplateEditor, id: string): Promise<TemplateRecord> {
  const accountId = who.account_id;
  return ctx.store.tx(async (trx) => {
    const source = await findTemplate(trx, accountId, id);
    if (!source) throw new ApiError('not_found', 'id');
    const base = source.title.replace(/ \(\d+\)$/, '').slice(0, 190);
    let n = 2;
    while (await titleTaken(trx, accountId, `${base} (${n})`)) n += 1;
    const copy = { title: `${base} (${n})`, language: source.language, body: source.body, fields: source.fields };
    const created = await createTemplate(trx, ctx.clock, accountId, copy);
    await audited(trx, ctx, who, 'template.duplicated', created, { source: id });
    return created;
  });
}

/** Archive a custom template: no longer listed or offered; the requests made from it keep it. */
export async function archiveTemplate(ctx: ServiceContext, who: TemplateEditor, id: string): Promise<TemplateRecord> {
  const accountId = who.account_id;
  return ctx.store.tx(async (trx) => {
    const t = await ownTemplate(trx, accountId, id);
    const at = nowSeconds(ctx.clock);
    await markArchived(trx, accountId, id, at);
    await audited(trx, ctx, who, 'template.archived', t);
    return { ...t, archived_at: at };
  });
}

/**
 * The first page of the final PDF a request from this draft would get, its fields filled with
 * `values`: the sealing renderer itself (a test-mode document, so it carries the test banner and
 * watermark), nothing stored.
 */
export async function previewTemplatePdf(
  ctx: ServiceContext,
  accountId: string,
  input: TemplateCreate,
  values: Record<string, string>,
): Promise<Uint8Array> {
  checkTemplate(input);
  const account = (await getAccount(ctx.store.db, accountId))!;
  const brand = (account.branding as { brand_name?: unknown }).brand_name;
  const now = nowSeconds(ctx.clock);
  return renderFirstPagePdf({
    request_id: 'sr_preview',
    reference: 'PREVIEW',
    title: input.title,
    language: input.language,
    legal_level: 'ses',
    format: 'platform-evidence',
    livemode: false,
    document_text: renderTemplate(input.body, values),
    document_hash: '',
    created_at: now,
    completed_at: now,
    sender: { account_name: account.name, brand_name: typeof brand === 'string' ? brand : null },
    signers: [],
    trail: [],
    verification_url: '',
  });
}
