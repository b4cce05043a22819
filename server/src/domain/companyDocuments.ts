/**
 * Company verification documents (spec part 5): which files are taken and how their type is told.
 * The type is read from the file's first bytes (its signature), never from its name or the
 * Content-Type the browser guessed: a renamed executable is not a PDF. Pure: no I/O.
 */
export const COMPANY_DOCUMENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type CompanyDocumentType = (typeof COMPANY_DOCUMENT_TYPES)[number];

/** Documents one submission may hold (a register extract, a tax card, articles, a power of attorney, …). */
export const MAX_COMPANY_DOCUMENTS = 10;

const SIGNATURES: { type: CompanyDocumentType; bytes: number[] }[] = [
  // "%PDF-" (ISO 32000-1 §7.5.2: the header is the first line).
  { type: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  // The 8-byte PNG signature (RFC 2083 §3.1).
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  // JPEG: SOI then the first marker's 0xFF (JFIF, Exif and raw JPEG alike).
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
];

/** The document type the bytes begin with, or null when they are none of the accepted types. */
export function sniffDocumentType(bytes: Uint8Array): CompanyDocumentType | null {
  for (const s of SIGNATURES) {
    if (bytes.length > s.bytes.length && s.bytes.every((b, i) => bytes[i] === b)) return s.type;
  }
  return null;
}

/** The extension a download is named with, from the detected type. */
export const EXTENSION: Record<CompanyDocumentType, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
};

/**
 * A file name as given, kept for people to recognise (shown, and used for the download): control
 * characters, path separators and quotes removed, at most 200 characters; empty → "document".
 */
export function cleanFileName(name: string): string {
  const cleaned = name
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f"\\/]/g, '')
    .trim()
    .slice(0, 200);
  return cleaned || 'document';
}
