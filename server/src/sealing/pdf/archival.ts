/**
 * What makes the rendered PDF PDF/A-3b (ISO 19005-3, level B) and lets it carry its own evidence:
 * the Info dictionary and an XMP packet saying the same (xmp.ts), an sRGB output intent, the
 * associated files (PDF/A-3 /AF: embedded files with their relationship, MIME type and parameters,
 * also listed in /Names /EmbeddedFiles), and a trailer /ID.
 *
 * Same input, same bytes: the /ID is a hash of the metadata and the attached files, not a random
 * value, and every date is the completion time.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PDFDocument, PDFHexString, PDFName, PDFRef, PDFString } from 'pdf-lib';
import { xmpPacket, type DocumentMetadata } from './xmp.js';

/** A file the PDF carries (PDF/A-3 associated file). */
export interface AssociatedFile {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  /** How it relates to the document: Data (what the document shows), Supplement (more than it shows). */
  readonly relationship: 'Data' | 'Supplement';
  readonly description: string;
}

/** The output condition: sRGB, registered at the ICC. */
const SRGB = 'sRGB IEC61966-2.1';
// Beside src/ and dist/ alike (server/assets/icc), so the same relative path works from both.
const SRGB_PROFILE = new URL('../../../assets/icc/sRGB.icc', import.meta.url);
let srgbProfile: Uint8Array | undefined;
const srgb = (): Uint8Array => (srgbProfile ??= new Uint8Array(readFileSync(SRGB_PROFILE)));

/** The document identifier: SHA-256 of the metadata and the attached files, first 16 bytes in hex. */
export function documentIdOf(metadata: Omit<DocumentMetadata, 'documentId'>, files: readonly AssociatedFile[]): string {
  const hash = createHash('sha256').update(JSON.stringify(metadata));
  for (const file of files) hash.update(file.name).update(file.bytes);
  return hash.digest('hex').slice(0, 32);
}

/**
 * Info dictionary, XMP, output intent, associated files and /ID on a document about to be saved.
 * filesDate: the attached data's modification time (PDF/A-3 wants /Params /ModDate on each file).
 */
export function makeArchival(pdf: PDFDocument, m: DocumentMetadata, files: readonly AssociatedFile[], filesDate: Date): void {
  setInfo(pdf, m);
  const { context, catalog } = pdf;
  const xmp = context.stream(xmpPacket(m), { Type: 'Metadata', Subtype: 'XML' });
  catalog.set(PDFName.of('Metadata'), context.register(xmp));
  const profile = context.register(context.flateStream(srgb(), { N: 3 }));
  const intent = context.obj({
    Type: 'OutputIntent',
    S: 'GTS_PDFA1',
    OutputConditionIdentifier: PDFString.of(SRGB),
    Info: PDFString.of(SRGB),
    RegistryName: PDFString.of('http://www.color.org'),
    DestOutputProfile: profile,
  });
  catalog.set(PDFName.of('OutputIntents'), context.obj([intent]));
  attachFiles(pdf, files, filesDate);
  const id = PDFHexString.of(m.documentId);
  context.trailerInfo.ID = context.obj([id, id]);
}

function setInfo(pdf: PDFDocument, m: DocumentMetadata): void {
  pdf.setTitle(m.title, { showInWindowTitleBar: true });
  pdf.setSubject(m.subject);
  pdf.setAuthor(m.author);
  pdf.setKeywords([m.keywords]);
  pdf.setProducer(m.producer);
  pdf.setCreator(m.creatorTool);
  if (m.date) {
    pdf.setCreationDate(m.date);
    pdf.setModificationDate(m.date);
  }
  pdf.setLanguage(m.language);
}

/** Each file as an embedded file stream and file specification, in /AF and /Names /EmbeddedFiles. */
function attachFiles(pdf: PDFDocument, files: readonly AssociatedFile[], date: Date): void {
  if (files.length === 0) return;
  const { context, catalog } = pdf;
  const specs: [string, PDFRef][] = files.map((file) => {
    const when = PDFString.fromDate(date);
    const stream = context.flateStream(file.bytes, {
      Type: 'EmbeddedFile',
      Subtype: file.mimeType,
      Params: {
        Size: file.bytes.length,
        CreationDate: when,
        ModDate: when,
        CheckSum: PDFHexString.of(createHash('md5').update(file.bytes).digest('hex')),
      },
    });
    const streamRef = context.register(stream);
    const spec = context.obj({
      Type: 'Filespec',
      F: PDFString.of(file.name),
      UF: PDFHexString.fromText(file.name),
      Desc: PDFHexString.fromText(file.description),
      AFRelationship: file.relationship,
      EF: { F: streamRef, UF: streamRef },
    });
    return [file.name, context.register(spec)];
  });
  catalog.set(PDFName.of('AF'), context.obj(specs.map(([, ref]) => ref)));
  // The name tree's keys are sorted; file names are ASCII.
  const sorted = [...specs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const names = context.obj(sorted.flatMap(([name, ref]) => [PDFString.of(name), ref]));
  catalog.set(PDFName.of('Names'), context.obj({ EmbeddedFiles: { Names: names } }));
}
