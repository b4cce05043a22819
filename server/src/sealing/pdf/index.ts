/**
 * The final PDF of a completed request (spec part 1 point 4): the contract with its field values and
 * signatures, then the completion certificate; and the certificate on its own.
 *
 * Both are PDF/A-3b (archival.ts): XMP, sRGB output intent, and as associated files the completion
 * certificate's data plus whatever the caller attaches (sealing/seal.ts: the signed evidence record).
 *
 * Same input, same bytes: the document ID is a hash of the metadata and attached files, the dates
 * are the completion time, and every name and subset tag is derived from the content.
 */
import { PDFDocument, ReadingDirection } from 'pdf-lib';
import type { FinalDocumentInput } from '../types.js';
import { documentIdOf, makeArchival, type AssociatedFile } from './archival.js';
import { RenderDoc } from './canvas.js';
import { drawCertificate } from './certificate.js';
import { certificateDataFile } from './certificateData.js';
import { drawContract } from './contract.js';
import { Flow } from './flow.js';
import { BANNER_RESERVE, Frame } from './frame.js';
import { labelsFor, type Labels } from './labels.js';
import { embedPng } from './png.js';
import type { SignatureImage } from './signatures.js';
import { PAGE } from './theme.js';
import { watermark } from './watermark.js';

export type { AssociatedFile } from './archival.js';

/** The contract pages followed by the completion certificate; `attach`: more associated files. */
export function renderFinalPdf(input: FinalDocumentInput, attach: readonly AssociatedFile[] = []): Promise<Uint8Array> {
  return render(input, true, attach);
}

/** The completion certificate alone. */
export function renderCertificatePdf(input: FinalDocumentInput): Promise<Uint8Array> {
  return render(input, false, []);
}

/**
 * The first page of the final PDF (the contract's start, in its frame): a template's preview in the
 * console (services/templates.ts), drawn by this same renderer so it looks as the real one will.
 */
export async function renderFirstPagePdf(input: FinalDocumentInput): Promise<Uint8Array> {
  const whole = await PDFDocument.load(await render(input, true, []), { updateMetadata: false });
  const first = await PDFDocument.create({ updateMetadata: false });
  const [page] = await first.copyPages(whole, [0]);
  first.addPage(page);
  first.setTitle(input.title);
  first.setLanguage(input.language);
  return first.save({ useObjectStreams: true, addDefaultPage: false });
}

async function render(input: FinalDocumentInput, withContract: boolean, attach: readonly AssociatedFile[]): Promise<Uint8Array> {
  const t = labelsFor(input.language);
  const pdf = await PDFDocument.create({ updateMetadata: false });
  const files = [certificateDataFile(input), ...attach];
  const metadata = metadataOf(input, t, withContract);
  makeArchival(pdf, { ...metadata, documentId: documentIdOf(metadata, files) }, files, dataDate(input));
  if (t.rtl) pdf.catalog.getOrCreateViewerPreferences().setReadingDirection(ReadingDirection.R2L);
  const doc = new RenderDoc(pdf, PAGE.width, PAGE.height);
  const reserve = input.livemode ? 0 : BANNER_RESERVE;

  if (withContract) {
    const images = await embedSignatures(pdf, input);
    drawContract(new Flow(doc, t.rtl, reserve), input, images, t);
  }
  drawCertificate(new Flow(doc, t.rtl, reserve), input, t);

  const frame = new Frame({ title: input.title, reference: input.reference, test: !input.livemode }, t);
  const mark = input.livemode ? null : watermark(t);
  doc.pages.forEach((page, i) => {
    frame.draw(page, i, doc.pages.length);
    mark?.(page);
  });
  doc.finish();
  return pdf.save({ useObjectStreams: true, addDefaultPage: false, updateFieldAppearances: false, objectsPerTick: Infinity });
}

/** Each signer's PNG, embedded once. A drawn signature whose image cannot be read is shown as such. */
async function embedSignatures(pdf: PDFDocument, input: FinalDocumentInput): Promise<Map<string, SignatureImage>> {
  const images = new Map<string, SignatureImage>();
  for (const signer of input.signers) {
    if (signer.method === 'token') images.set(signer.id, 'none');
    else if (!signer.signature_png || signer.signature_png.length === 0) images.set(signer.id, 'unreadable');
    else {
      try {
        images.set(signer.id, await embedPng(pdf, signer.signature_png));
      } catch {
        images.set(signer.id, 'unreadable');
      }
    }
  }
  return images;
}

/**
 * When the attached data last changed: the completion, or for a qes document rendered before
 * completion the latest event it records.
 */
function dataDate(input: FinalDocumentInput): Date {
  const known = [input.completed_at, input.created_at, ...input.trail.map((e) => e.at)].filter(Number.isFinite);
  return new Date((Number.isFinite(input.completed_at) ? input.completed_at : Math.max(...known)) * 1000);
}

/** What the Info dictionary and the XMP say about the document. */
function metadataOf(input: FinalDocumentInput, t: Labels, withContract: boolean) {
  const completed = new Date(input.completed_at * 1000);
  return {
    title: withContract ? input.title : `${t.certificate.title} — ${input.title}`,
    subject: `${t.reference}: ${input.reference}`,
    author: input.sender.brand_name ?? input.sender.account_name,
    keywords: `${input.reference} ${input.request_id}`,
    producer: 'Tawqi',
    creatorTool: 'Tawqi',
    date: Number.isNaN(completed.getTime()) ? null : completed,
    language: input.language,
  };
}
