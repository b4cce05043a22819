/**
 * A small incremental-update writer (ISO 32000-1 §7.5.6): the original bytes stay as they are, and
 * new or changed objects, a new cross-reference section and a trailer with /Prev are appended.
 * Every earlier signature keeps covering exactly the bytes it signed.
 *
 * Reading uses pdf-lib's parser (PDFDocument.load parses every revision; the latest version of
 * each object wins) and pdf-lib's object serialisation; pdf-lib never writes the file, because it
 * can only save a whole new file.
 *
 * The new cross-reference section matches the previous one: a classic table after a table, an
 * (uncompressed) cross-reference stream after a stream.
 */
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFObject,
  PDFRef,
  PDFObjectParser,
  PDFRawStream,
  type PDFContext,
} from 'pdf-lib';
import { PadesError } from './types.js';

const latin1 = (text: string): Uint8Array => Buffer.from(text, 'latin1');

export interface PreviousSection {
  /** Offset of the last cross-reference section (the value of the last startxref). */
  startxref: number;
  kind: 'table' | 'stream';
  /** The trailer's (or cross-reference stream's) dictionary. */
  trailer: PDFDict;
  size: number;
}

const isWhite = (byte: number | undefined): boolean =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;

/** Reads the last startxref and the trailer dictionary it leads to. */
export function readPreviousSection(pdf: Uint8Array, context: PDFContext): PreviousSection {
  const buffer = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const at = buffer.lastIndexOf('startxref');
  if (at < 0) throw new PadesError('invalid_pdf', 'no startxref: not a PDF file or truncated');
  const match = /^startxref\s+(\d+)/.exec(buffer.subarray(at, at + 40).toString('latin1'));
  const startxref = Number(match?.[1] ?? NaN);
  if (!Number.isSafeInteger(startxref) || startxref >= pdf.byteLength)
    throw new PadesError('invalid_pdf', 'startxref points outside the file');

  let position = startxref;
  while (isWhite(pdf[position])) position += 1;
  let kind: PreviousSection['kind'];
  let dictStart: number;
  if (buffer.subarray(position, position + 4).toString('latin1') === 'xref') {
    kind = 'table';
    const trailer = buffer.indexOf('trailer', position);
    if (trailer < 0) throw new PadesError('invalid_pdf', 'cross-reference table without trailer');
    dictStart = trailer + 'trailer'.length;
  } else {
    kind = 'stream';
    const header = /^(\d+)\s+(\d+)\s+obj/.exec(buffer.subarray(position, position + 40).toString('latin1'));
    if (!header) throw new PadesError('invalid_pdf', 'startxref points to neither a table nor a cross-reference stream');
    dictStart = position + header[0].length;
  }
  // Parse the dictionary only (for a stream, stop before its data).
  const end = kind === 'stream' ? buffer.indexOf('stream', dictStart) : buffer.indexOf('startxref', dictStart);
  const parsed = PDFObjectParser.forBytes(pdf.subarray(dictStart, end < 0 ? undefined : end), context).parseObject();
  if (!(parsed instanceof PDFDict)) throw new PadesError('invalid_pdf', 'trailer is not a dictionary');
  if (kind === 'stream' && parsed.get(PDFName.of('Type')) !== PDFName.of('XRef')) {
    throw new PadesError('invalid_pdf', 'startxref points to an object that is not a cross-reference stream');
  }
  const size = parsed.get(PDFName.of('Size'));
  if (!(size instanceof PDFNumber)) throw new PadesError('invalid_pdf', 'trailer has no /Size');
  return { startxref, kind, trailer: parsed, size: size.asNumber() };
}

type Body = PDFObject | Uint8Array;

export class IncrementalUpdate {
  private readonly writes = new Map<number, { ref: PDFRef; body: Body }>();
  private nextObjectNumber: number;

  private constructor(
    private readonly original: Uint8Array,
    readonly doc: PDFDocument,
    readonly previous: PreviousSection,
  ) {
    this.nextObjectNumber = Math.max(previous.size, doc.context.largestObjectNumber + 1);
  }

  static async open(pdf: Uint8Array): Promise<IncrementalUpdate> {
    let doc: PDFDocument;
    try {
      doc = await PDFDocument.load(pdf, { updateMetadata: false });
    } catch (error) {
      const message = (error as Error).message;
      if (/encrypt/i.test(message)) throw new PadesError('unsupported_pdf', 'encrypted PDFs cannot be signed');
      throw new PadesError('invalid_pdf', `cannot parse the PDF: ${message}`);
    }
    const previous = readPreviousSection(pdf, doc.context);
    if (previous.trailer.has(PDFName.of('Encrypt'))) throw new PadesError('unsupported_pdf', 'encrypted PDFs cannot be signed');
    return new IncrementalUpdate(pdf, doc, previous);
  }

  get context(): PDFContext {
    return this.doc.context;
  }

  get rootRef(): PDFRef {
    const root = this.previous.trailer.get(PDFName.of('Root')) ?? this.context.trailerInfo.Root;
    if (!(root instanceof PDFRef)) throw new PadesError('invalid_pdf', 'trailer has no /Root reference');
    return root;
  }

  get catalog(): PDFDict {
    return this.context.lookup(this.rootRef, PDFDict);
  }

  /** A new object number (never one in use or listed in an earlier section). */
  allocate(): PDFRef {
    const ref = PDFRef.of(this.nextObjectNumber);
    this.nextObjectNumber += 1;
    return ref;
  }

  /**
   * Writes `body` as the new version of `ref` (new or changed object). A Uint8Array is written as
   * it is (already serialised, e.g. a signature dictionary with a placeholder).
   */
  set(ref: PDFRef, body: Body): void {
    this.writes.set(ref.objectNumber, { ref, body });
  }

  /** For an entry that holds a direct object or a reference: the object and where to write it. */
  resolve<K extends 'array' | 'dict'>(
    holder: PDFDict,
    holderRef: PDFRef,
    key: string,
    kind: K,
  ): { value: (K extends 'array' ? PDFArray : PDFDict) | undefined; ownerRef: PDFRef } {
    type Value = K extends 'array' ? PDFArray : PDFDict;
    const matches = (value: unknown): value is Value => (kind === 'array' ? value instanceof PDFArray : value instanceof PDFDict);
    const entry = holder.get(PDFName.of(key));
    if (entry instanceof PDFRef) {
      const value = this.context.lookup(entry);
      return { value: matches(value) ? value : undefined, ownerRef: entry };
    }
    return { value: matches(entry) ? entry : undefined, ownerRef: holderRef };
  }

  /** The original bytes followed by the new objects, the cross-reference section and the trailer. */
  toBytes(): Uint8Array {
    const chunks: Uint8Array[] = [this.original];
    let length = this.original.byteLength;
    const push = (bytes: Uint8Array): void => {
      chunks.push(bytes);
      length += bytes.byteLength;
    };
    const last = this.original[this.original.byteLength - 1];
    if (last !== 0x0a && last !== 0x0d) push(latin1('\n'));

    const offsets = new Map<number, { offset: number; generation: number }>();
    for (const { ref, body } of [...this.writes.values()].sort((a, b) => a.ref.objectNumber - b.ref.objectNumber)) {
      offsets.set(ref.objectNumber, { offset: length, generation: ref.generationNumber });
      push(latin1(`${ref.objectNumber} ${ref.generationNumber} obj\n`));
      push(body instanceof Uint8Array ? body : serialise(body));
      push(latin1('\nendobj\n'));
    }

    if (this.previous.kind === 'table') {
      const xrefOffset = length;
      const size = this.nextObjectNumber;
      let table = 'xref\n';
      for (const run of runs([...offsets.keys()])) {
        table += `${run.start} ${run.count}\n`;
        for (let n = run.start; n < run.start + run.count; n += 1) {
          const entry = offsets.get(n);
          if (!entry) continue;
          table += `${String(entry.offset).padStart(10, '0')} ${String(entry.generation).padStart(5, '0')} n\r\n`;
        }
      }
      const trailer = this.trailerDict(size);
      push(latin1(`${table}trailer\n`));
      push(serialise(trailer));
      push(latin1(`\nstartxref\n${xrefOffset}\n%%EOF\n`));
    } else {
      const xrefRef = this.allocate();
      const xrefOffset = length;
      offsets.set(xrefRef.objectNumber, { offset: xrefOffset, generation: 0 });
      const size = this.nextObjectNumber;
      const numbers = [...offsets.keys()].sort((a, b) => a - b);
      // W [1 4 2]: type 1 (in use), byte offset, generation.
      const data = new Uint8Array(numbers.length * 7);
      numbers.forEach((n, i) => {
        const entry = offsets.get(n);
        if (!entry) return;
        data[i * 7] = 1;
        new DataView(data.buffer).setUint32(i * 7 + 1, entry.offset);
        new DataView(data.buffer).setUint16(i * 7 + 5, entry.generation);
      });
      const dict = this.trailerDict(size);
      dict.set(PDFName.of('Type'), PDFName.of('XRef'));
      dict.set(PDFName.of('W'), this.context.obj([1, 4, 2]));
      dict.set(PDFName.of('Index'), this.context.obj(runs(numbers).flatMap((r) => [r.start, r.count])));
      const stream = PDFRawStream.of(dict, data);
      push(latin1(`${xrefRef.objectNumber} 0 obj\n`));
      push(serialise(stream));
      push(latin1(`\nendobj\nstartxref\n${xrefOffset}\n%%EOF\n`));
    }

    const out = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
    }
    return out;
  }

  private trailerDict(size: number): PDFDict {
    const dict = this.context.obj({}) as PDFDict;
    dict.set(PDFName.of('Size'), PDFNumber.of(size));
    dict.set(PDFName.of('Root'), this.rootRef);
    for (const key of ['Info', 'ID']) {
      const value = this.previous.trailer.get(PDFName.of(key));
      if (value) dict.set(PDFName.of(key), value);
    }
    dict.set(PDFName.of('Prev'), PDFNumber.of(this.previous.startxref));
    return dict;
  }
}

export function serialise(object: PDFObject): Uint8Array {
  const bytes = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return bytes;
}

/** Consecutive runs of object numbers (cross-reference subsections). */
function runs(numbers: number[]): { start: number; count: number }[] {
  const sorted = [...numbers].sort((a, b) => a - b);
  const out: { start: number; count: number }[] = [];
  for (const n of sorted) {
    const current = out[out.length - 1];
    if (current && current.start + current.count === n) current.count += 1;
    else out.push({ start: n, count: 1 });
  }
  return out;
}
