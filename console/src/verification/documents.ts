/**
 * The company documents on the Company verification page: the list (name, type, size, when; the
 * owner downloads or removes one), and the owner's upload — PDF, PNG or JPEG within the limits the
 * server gives, checked here for a quick answer (by the browser's type or the name, and the size);
 * the server reads the type from the bytes and has the last word. Files go one by one, as bytes.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { button, field, p, setFieldMessage } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';
import { confirmDialog } from '../requests/dialog.js';
import { when } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import { dataTable } from '../views/dataTable.js';
import { byteSize, documentHref, fileProblem, type CompanyDocument, type CompanyVerificationView } from './model.js';
import { part, type VerificationPage } from './page.js';

const TYPE_NAMES: Record<string, string> = { 'application/pdf': 'PDF', 'image/png': 'PNG', 'image/jpeg': 'JPEG' };

export function documentsPart(page: VerificationPage, v: CompanyVerificationView): HTMLElement {
  const { s } = page.ctx;
  const acting = page.owner && v.editable;
  const limits = { size: byteSize(s.lang, v.limits.max_document_bytes), count: v.limits.max_documents };
  return part(
    'kyb-docs',
    s.t('kybDocsTitle'),
    p('muted', s.t('kybDocsIntro', limits)),
    v.documents.length
      ? dataTable(s, {
          caption: s.t('kybDocsTitle'),
          columns: ['kybDocFile', 'kybDocType', 'kybDocSize', 'kybDocUploaded', page.owner && 'kybDocActions'],
          rows: v.documents.map((d) => row(page, d, acting)),
          class: 'kyb-docs',
        })
      : p('kyb-empty', s.t('kybDocsNone')),
    acting && v.documents.length < v.limits.max_documents ? uploadForm(page, v) : null,
  );
}

function row(page: VerificationPage, d: CompanyDocument, acting: boolean): HTMLTableRowElement {
  const { s } = page.ctx;
  const download = h('a', { class: 'text-link', attrs: { href: documentHref(d.id), download: d.file_name } }, s.t('kybDocDownload'));
  download.setAttribute('aria-label', s.t('kybDocDownloadNamed', { name: d.file_name }));
  const remove = acting ? button(s.t('kybDocRemove'), 'quiet', () => void removeDocument(page, d)) : null;
  remove?.setAttribute('aria-label', s.t('kybDocRemoveNamed', { name: d.file_name }));
  return h(
    'tr',
    { attrs: { 'data-document': d.id } },
    h('td', { class: 'kyb-doc-name' }, bdi(d.file_name)),
    h('td', null, TYPE_NAMES[d.content_type] ?? d.content_type),
    h('td', null, byteSize(s.lang, d.size)),
    h('td', null, when(s, d.created_at)),
    page.owner ? h('td', null, h('div', { class: 'row-actions' }, download, remove)) : null,
  );
}

async function removeDocument(page: VerificationPage, d: CompanyDocument): Promise<void> {
  const { s } = page.ctx;
  const yes = await confirmDialog(s, {
    title: s.t('kybDocRemoveTitle', { name: d.file_name }),
    body: s.t('kybDocRemoveBody'),
    confirm: s.t('kybDocRemove'),
    cancel: s.t('kybKeep'),
  });
  if (!yes) return;
  try {
    await page.api.remove(d.id);
  } catch (err) {
    page.say(errorText(s, err), 'bad');
    return;
  }
  await page.reload(s.t('kybDocRemoved', { name: d.file_name }));
}

/** One file input (several files at once) and the upload button; a refused file is named on the field. */
function uploadForm(page: VerificationPage, v: CompanyVerificationView): HTMLElement {
  const { s } = page.ctx;
  const input = h('input', {
    class: 'input kyb-file',
    attrs: { type: 'file', name: 'file', multiple: true, accept: [...v.limits.accepted_types, '.pdf', '.png', '.jpg', '.jpeg'].join(',') },
  });
  const f = field(s.t('kybUploadLabel'), input, s.t('kybUploadHint', { size: byteSize(s.lang, v.limits.max_document_bytes) }));
  const submit = button(s.t('kybUpload'), 'primary', () => {}, { type: 'submit' });
  const form = h('form', { class: 'form kyb-upload', attrs: { novalidate: true } }, f.root, h('div', { class: 'actions' }, submit));
  const refuse = (text: string) => {
    setFieldMessage(input, f.message, text, true);
    input.focus();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (submit.getAttribute('aria-busy') === 'true') return;
    const files = [...(input.files ?? [])];
    const problem = files.length === 0 ? s.t('kybUploadChoose') : firstProblem(s, files, v);
    if (problem) return refuse(problem);
    setFieldMessage(input, f.message, null, false);
    submit.setAttribute('aria-busy', 'true');
    void upload(page, files).then(
      () => page.reload(s.t('kybUploaded', { count: files.length })),
      async ({ sent, err }: { sent: number; err: unknown }) => {
        submit.removeAttribute('aria-busy');
        if (sent === 0) return refuse(errorText(s, err));
        // Some went before the refusal: list them, and say what was refused where the page begins.
        await page.reload();
        page.say(errorText(s, err), 'bad');
      },
    );
  });
  return form;
}

function firstProblem(s: Strings, files: File[], v: CompanyVerificationView): string | null {
  if (v.documents.length + files.length > v.limits.max_documents) return s.t('kybUploadTooMany', { count: v.limits.max_documents });
  for (const file of files) {
    const problem = fileProblem(file, v.limits);
    const size = byteSize(s.lang, v.limits.max_document_bytes);
    if (problem) return s.t(`kybFile_${problem}`, { name: file.name, size });
  }
  return null;
}

/** Send the files in order; a refusal stops the rest and is thrown with how many went before it. */
async function upload(page: VerificationPage, files: File[]): Promise<void> {
  let sent = 0;
  for (const file of files) {
    try {
      await page.api.upload(file);
    } catch (err) {
      throw { sent, err };
    }
    sent += 1;
  }
}
